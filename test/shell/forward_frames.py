"""Builds forwarded audit batches as a standby's writer frames them (src/core/audit/record.cpp,
src/core/audit/forward_batch.cpp), to call clarify.audit_ingest() with crafted ones.

An entry: the fixed part (little-endian), then length-prefixed texts; a short entry carries only
the question id after the fixed part. A frame: a 4-byte big-endian length, then the entry.
Used by test/shell/forward_redteam.t: `import forward_frames as ff` and print ff.ingest_sql(...).
"""
import struct

FORMAT = 0x41554436  # "AUD6"
STATES = ["RESOLVED", "AMBIGUOUS", "UNSUPPORTED", "MISMATCH", "UNVERIFIED", "GRAIN"]


def origin_node(origin):
    """The low byte of every decision id an origin makes (src/pg/replica/origin.cpp)."""
    h = 2166136261
    for c in origin.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return (h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24)) & 0xFF


def label(n):
    """A hash as the sender names it: any 16 bytes; (0, 0) is none."""
    return (n, 0) if isinstance(n, int) else n


class Entry:
    def __init__(self, seq, origin, database, **fields):
        self.decision_id = (seq << 8) | origin_node(origin)
        self.decided_at = 850000000000000 + seq
        self.database = database
        self.session_role = 10
        self.acting_role = 10
        self.pid = 4242
        self.query_id = 0
        self.allowed = True
        self.sync = False
        self.state = 0
        self.record_hash = (0, 0)
        self.shape_hash = (0, 0)
        self.statement_hash = (0, 0)
        self.question_id = "q_redteam"
        self.statement = "SELECT 1"
        self.reason = "every governed column read was resolved"
        self.columns = "[]"
        self.bindings = "[]"
        self.payload = ""
        self.record = ""
        self.note = ""
        self.short = False
        for k, v in fields.items():
            if not hasattr(self, k):
                raise AttributeError(k)
            setattr(self, k, label(v) if k.endswith("_hash") else v)

    def fixed(self, flags):
        out = struct.pack("<IQqIIIiqBBB", FORMAT, self.decision_id, self.decided_at, self.database,
                          self.session_role, self.acting_role, self.pid, self.query_id,
                          int(self.allowed), int(self.sync), self.state)
        for h in (self.record_hash, self.shape_hash, self.statement_hash):
            out += struct.pack("<QQ", *h)
        return out + struct.pack("<B", flags)

    def encode(self):
        def text(s):
            b = s.encode() if isinstance(s, str) else s
            return struct.pack("<I", len(b)) + b
        if self.short:
            return self.fixed(1) + text(self.question_id)
        return self.fixed(0) + b"".join(
            text(s) for s in (self.question_id, self.statement, self.reason, self.columns,
                              self.bindings, self.payload, self.record, self.note))


def frames(entries):
    out = bytearray()
    for e in entries:
        b = e.encode() if isinstance(e, Entry) else e
        out += struct.pack(">I", len(b)) + b
    return bytes(out)


def ingest_sql(origin, entries):
    """The call a standby's writer makes, as one SQL statement (hex bytea literal)."""
    return "SELECT clarify.audit_ingest('%s', '\\x%s'::bytea);" % (origin, frames(entries).hex())
