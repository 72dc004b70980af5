#!/usr/bin/env bash
# Crafted forwarded batches against clarify.audit_ingest(), sent as a granted standby role would
# (entries built by forward_frames.py): a short entry resolves only against the full entries sent
# earlier in its own batch, by the sender's labels, never by a hash the primary or another batch
# stored; what it resolves to is its own decision's texts with the primary's own identities; and
# batches built to cost the ingest quadratic work or a rehash per entry are written correctly.
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
plan 25

start_replica_primary forward_redteam 55491 "regress_fr_forwarder"
db=$(pq "SELECT oid FROM pg_database WHERE datname = 'postgres'")
origin=regress_fr_standby
frames=$(cd "$(dirname "$0")" && pwd)

# ingest PYTHON: the batch the Python lines build (entries E(seq, **fields), sent with send(...)),
# sent as the forwarder; prints the call's answer or error.
ingest() {
    python3 - "$frames" "$origin" "$db" <<PY | "$PG_BINDIR/psql" -X -qAt -h "$dir" -p "$port" \
        -U regress_fr_forwarder -d postgres 2>&1
import sys
sys.path.insert(0, sys.argv[1])
import forward_frames as ff
origin, db = sys.argv[2], int(sys.argv[3])
def E(seq, **fields):
    return ff.Entry(seq, origin, db, **fields)
def send(*entries):
    print(ff.ingest_sql(origin, list(entries)))
$1
PY
}
rows() { pq "SELECT count(*) FROM clarify.audit WHERE origin = '$origin'"; }

# A text the primary's own audit holds: an agent's statement, decided and written here.
psql_as regress_replica_agent -c "SELECT booked_amount AS secret_column FROM shop.orders WHERE id = 3" >/dev/null
pq "SELECT clarify.audit_wait('10 s')" >/dev/null
secret=$(pq "SELECT t.hash FROM clarify.audit a JOIN clarify.audit_texts t ON t.body = a.statement
              WHERE a.statement LIKE '%secret_column%'")
[[ -n $secret ]] || echo "# the primary's statement was not found in audit_texts" >&2

out=$(ingest "send(E(1, statement_hash=11, shape_hash=12, record_hash=13, statement='SELECT booked_amount FROM shop.orders', record='{\"question_id\": \"q_fr\"}'),
               E(2, statement_hash=11, shape_hash=12, record_hash=13, short=True),
               E(3, statement_hash=11, shape_hash=12, short=True))")
equals "a full entry and two short ones naming its labels: three rows" "$out" "3"
equals "the short entries have the full entry's texts; the one without a record label has none" \
    "$(pq "SELECT string_agg(concat_ws('|', decision_id & 255 = $(python3 -c "import sys; sys.path.insert(0, '$frames'); import forward_frames as ff; print(ff.origin_node('$origin'))"), statement, reason, coalesce(record ->> 'question_id', '-'), record IS NULL), ',' ORDER BY decision_id)
           FROM clarify.audit WHERE origin = '$origin'")" \
    "t|SELECT booked_amount FROM shop.orders|every governed column read was resolved|q_fr|f,t|SELECT booked_amount FROM shop.orders|every governed column read was resolved|q_fr|f,t|SELECT booked_amount FROM shop.orders|every governed column read was resolved|-|t"
equals "its identities are the primary's, not the labels: the statement is stored once" \
    "$(pq "SELECT count(*), bool_and(hash <> '0000000b-0000-0000-0000-000000000000') FROM clarify.audit_texts WHERE body = 'SELECT booked_amount FROM shop.orders'")" "1|t"

# Labels hold within one batch: not across batches, not the primary's own identities, not a note.
contains "a label sent in an earlier batch does not resolve" \
    "$(ingest "send(E(4, statement_hash=11, shape_hash=12, short=True))")" \
    "entry 1 is a short entry whose statement no earlier entry of the batch carries"
lo_hi=$(python3 -c "b = bytes.fromhex('${secret//-/}'); print(int.from_bytes(b[:8], 'little'), int.from_bytes(b[8:], 'little'))")
contains "the primary's identity of its own statement is no label" \
    "$(ingest "send(E(5, statement='x', statement_hash=21, shape_hash=12), E(6, statement_hash=($(tr ' ' , <<<"$lo_hi")), shape_hash=12, short=True))")" \
    "entry 2 is a short entry whose statement no earlier entry of the batch carries"
contains "a note's labels define nothing" \
    "$(ingest "send(E(5, note='refused', statement='SELECT 9', statement_hash=31, shape_hash=32), E(6, statement_hash=31, shape_hash=32, short=True))")" \
    "entry 2 is a short entry whose statement no earlier entry of the batch carries"
# An entry whose labels disagree with its texts (a record label, no record) is one the standby's
# writer never shortens against: none of its labels resolve.
contains "a record label carried with no record defines nothing" \
    "$(ingest "send(E(5, statement_hash=41, shape_hash=42, record_hash=43), E(6, statement_hash=41, shape_hash=42, record_hash=43, short=True))")" \
    "entry 2 is a short entry whose statement no earlier entry of the batch carries"
contains "a label defined later in the batch does not resolve" \
    "$(ingest "send(E(5, statement_hash=51, shape_hash=52, short=True), E(6, statement_hash=51, shape_hash=52))")" \
    "entry 1 is a short entry whose statement no earlier entry of the batch carries"
contains "labels are per kind: a statement label is no shape" \
    "$(ingest "send(E(5, statement_hash=61, shape_hash=62), E(6, statement_hash=61, shape_hash=61, short=True))")" \
    "entry 2 is a short entry whose shape no earlier entry of the batch carries"

# A short entry's allowed and state are its shape's; one label is one text.
contains "an allowed shape named by a rejected decision is refused" \
    "$(ingest "send(E(5, statement_hash=71, shape_hash=72), E(6, statement_hash=71, shape_hash=72, allowed=False, state=3, short=True))")" \
    "entry 2 is a short entry whose decision differs from the shape it names"
contains "one statement label for two statements is refused" \
    "$(ingest "send(E(5, statement_hash=81, shape_hash=82, statement='SELECT 1'), E(6, statement_hash=81, shape_hash=82, statement='SELECT 2'))")" \
    "entry 2 carries the statement hash of entry 1 with another statement"
contains "one shape label for two reasons is refused" \
    "$(ingest "send(E(5, statement_hash=91, shape_hash=92), E(6, statement_hash=93, shape_hash=92, reason='forged'))")" \
    "entry 2 carries the shape hash of entry 1 with another decision"

# A short entry's own fixed fields are checked as a full entry's are.
contains "a short entry of another database is refused" \
    "$(ingest "e = E(6, statement_hash=101, shape_hash=102, short=True); e.database = 1; send(E(5, statement_hash=101, shape_hash=102), e)")" \
    "entry 2 was decided in another database"
contains "a short entry with another node's id is refused" \
    "$(ingest "e = E(6, statement_hash=111, shape_hash=112, short=True); e.decision_id ^= 1; send(E(5, statement_hash=111, shape_hash=112), e)")" \
    "was not made at origin \"$origin\""
contains "a short entry with no statement label is malformed" \
    "$(ingest "send(E(5, statement_hash=131, shape_hash=132), E(6, statement_hash=0, shape_hash=132, short=True))")" \
    "entry 2 is malformed: short audit entry without its hashes"
contains "one decision id twice in a batch is refused (its notes may share it)" \
    "$(ingest "send(E(9, statement='SELECT 1', statement_hash=151, shape_hash=152), E(9, note='refused', statement='SELECT 1'), E(9, statement='SELECT 2', statement_hash=153, shape_hash=152))")" \
    "appears twice in the batch"
equals "no refused batch wrote anything" "$(rows)" "3"
contains "a record carried under no label defines nothing (the writer never shortens against it)" \
    "$(ingest "send(E(7, statement_hash=141, shape_hash=142, record='{\"question_id\": \"q_zero\"}'), E(8, statement_hash=141, shape_hash=142, short=True))")" \
    "entry 2 is a short entry whose statement no earlier entry of the batch carries"

# Labels sharing their low 64 bits (the sender chooses them): each resolves to its own entry.
out=$(ingest "send(*[E(1000 + i, statement='SELECT %d' % i, statement_hash=(7, i + 1), shape_hash=(9, 1)) for i in range(2000)],
                   *[E(5000 + i, statement_hash=(7, 2000 - i), shape_hash=(9, 1), short=True) for i in range(2000)])")
equals "2000 full entries with labels sharing their low half, 2000 short ones: all written" "$out" "4000"
equals "each short entry has the statement its label named" \
    "$(pq "SELECT count(*) FROM clarify.audit WHERE origin = '$origin' AND decision_id >> 8 BETWEEN 5000 AND 6999
              AND statement <> 'SELECT ' || (1999 - ((decision_id >> 8) - 5000))")" "0"

# Short entries alternating between two large statements: each row has its own.
out=$(ingest "a = 'SELECT ' + 'x' * 200000; b = a[:-1] + 'y'
send(E(10000, statement=a, statement_hash=121, shape_hash=122), E(10001, statement=b, statement_hash=123, shape_hash=122),
     *[E(10002 + i, statement_hash=121 + 2 * (i % 2), shape_hash=122, short=True) for i in range(1000)])")
equals "1000 short entries alternating between two statements: all written" "$out" "1002"
equals "each has the statement it named" \
    "$(pq "SELECT string_agg(right(statement, 1) || ':' || n, ',' ORDER BY 1) FROM (SELECT right(statement, 1), count(*) n
             FROM clarify.audit WHERE origin = '$origin' AND decision_id >> 8 BETWEEN 10000 AND 11001 GROUP BY 1) s(statement, n)")" \
    "x:501,y:501"
equals "each of the two is stored once" \
    "$(pq "SELECT count(*) FROM clarify.audit_texts WHERE body LIKE 'SELECT xxxxx%'")" "2"

# The same batch again (a resend after a lost answer): nothing twice.
equals "a resent batch of short entries is written once" \
    "$(ingest "send(E(1, statement_hash=11, shape_hash=12, record_hash=13, statement='SELECT booked_amount FROM shop.orders', record='{\"question_id\": \"q_fr\"}'),
               E(2, statement_hash=11, shape_hash=12, record_hash=13, short=True))")|$(rows)" "0|5005"
equals "the server is up and logged no crash" \
    "$(pq "SELECT 1")|$(grep -cE 'terminated by signal|TRAP|PANIC' "$dir/server.log")" "1|0"
finish
