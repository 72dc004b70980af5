// The audit queue's writer side: attaching to a database's queue, reading and committing
// batches, publishing what they stored, purges, reserved writers and clarify.audit_queue()'s
// counters. The layout is in pg/audit/queue_layout.hpp.
#include "pg/audit/queue.hpp"
#include "pg/audit/queue_layout.hpp"
#include "core/audit/record.hpp"
#include "pg/audit/recovery.hpp"
#include "pg/settings.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/timestamp.h"
}

#include <cstring>
#include <string>

namespace clarify::pg {

AuditSlot *audit_worker_attach(Oid database) {
    AuditSlot *slot = find_slot(database, true);
    if (!slot) return nullptr;
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    bool other = slot->writer_pid != 0 && slot->writer_pid != MyProcPid;
    if (!other) {
        slot->writer_pid = MyProcPid;
        slot->writer_latch = MyLatch;
        slot->writer_registered = true;
        // Published by a writer before this one: this one publishes what it stores.
        published_clear(slot->published);
    }
    LWLockRelease(slot->lock);
    if (other) return nullptr;
    attached_here = true;
    before_shmem_exit(audit_worker_detach, PointerGetDatum(slot));
    return slot;
}

void audit_worker_detach(int, Datum arg) {
    AuditSlot *slot = reinterpret_cast<AuditSlot *>(DatumGetPointer(arg));
    LWLockReleaseAll();  // leaving on an error: nothing of ours may stay held
    LWLockAcquire(queue->assign_lock, LW_EXCLUSIVE);
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    if (slot->writer_pid == MyProcPid) {
        slot->writer_pid = 0;
        slot->writer_latch = nullptr;
        slot->writer_registered = false;
        // Nothing left to write (a dropped database, a terminated writer): back to the pool.
        // Else the reserved writer, restarted, goes on with what is left (or the keeper starts
        // another writer).
        if (slot_drained(slot))
            slot->database = InvalidOid;
        else if (slot->reserved)
            slot->writer_requested = true;
    }
    LWLockRelease(slot->lock);
    LWLockRelease(queue->assign_lock);
    wake_sleepers(slot);
}

const char *audit_worker_peek(AuditSlot *slot, char *buf, uint64 cap, uint64 *from, uint64 *bytes) {
    uint64 r = pg_atomic_read_u64(&slot->read_pos);
    uint64 w = pg_atomic_read_u64(&slot->write_pos);
    pg_read_barrier();
    *from = r;
    // In place: the whole entries before the ring's end. Backends write only past w, and nothing
    // before read_pos is reused until the writer commits.
    uint64 start = r % queue->ring_size, off = start;
    while (r + (off - start) < w && off + sizeof(uint32) <= queue->ring_size) {
        uint32 length;
        memcpy(&length, ring_of(slot) + off, sizeof(uint32));
        if (off + sizeof(uint32) + length > queue->ring_size) break;
        off += sizeof(uint32) + length;
    }
    if (off > start) {
        *bytes = off - start;
        return ring_of(slot) + start;
    }
    // The first entry wraps around the end: copy entries out.
    uint64 pos = r;
    while (pos < w) {
        uint32 length;
        ring_copy_out(slot, pos, reinterpret_cast<char *>(&length), sizeof(uint32));
        uint64 need = sizeof(uint32) + length;
        if (pos - r + need > cap) break;
        ring_copy_out(slot, pos, buf + (pos - r), need);
        pos += need;
    }
    *bytes = pos - r;
    return buf;
}

bool audit_worker_commit(AuditSlot *slot, uint64 upto, uint64 entries, uint64 malformed,
                         bool confirmed, const AuditHash *to_publish, size_t npublish,
                         uint64 purge_seen) {
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    bool kept =
        publish_batch(slot->published, to_publish, npublish, purge_seen, purge_generation());
    if (!confirmed) {
        pg_atomic_write_u64(&slot->unconfirmed_upto, upto);
        pg_write_barrier();
    }
    pg_atomic_write_u64(&slot->read_pos, upto);
    release_marks(slot->marks, marks_of(slot), upto);
    slot->written += entries;
    slot->malformed += malformed;
    slot->last_error[0] = '\0';
    LWLockRelease(slot->lock);
    wake_sleepers(slot);
    return kept;
}

namespace {
// Moves the purge generation and empties the database's published hashes, under the lock a
// writer publishes under (nothing stored before is published after). Returns the database's
// slot still locked, or nullptr (unlocked) when it has none.
AuditSlot *forget_published_locked(Oid database) {
    AuditSlot *slot = find_slot(database, false);
    if (!slot) {
        bump_purge_generation();
        return nullptr;
    }
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    bump_purge_generation();
    if (slot->database != database) {  // released meanwhile: nothing of this database in it
        LWLockRelease(slot->lock);
        return nullptr;
    }
    published_clear(slot->published);
    return slot;
}
}  // namespace

void audit_forget_published(Oid database) {
    if (AuditSlot *slot = forget_published_locked(database)) LWLockRelease(slot->lock);
}

size_t audit_purge_keep_capacity() {
    // A short entry takes at least its length word and prefix; it names at most 3 hashes.
    return size_t(queue->ring_size / (sizeof(uint32) + kAuditEntryPrefix) + 1) * 3;
}

int64 audit_purge_begin(Oid database, AuditHash *keep, size_t cap) {
    AuditSlot *slot = forget_published_locked(database);
    if (!slot) return 0;
    size_t n = 0;
    uint64 r = pg_atomic_read_u64(&slot->read_pos), w = pg_atomic_read_u64(&slot->write_pos);
    AuditHash last[3];
    for (uint64 pos = r; pos + sizeof(uint32) <= w;) {
        uint32 length;
        ring_copy_out(slot, pos, reinterpret_cast<char *>(&length), sizeof(uint32));
        char prefix[kAuditEntryPrefix];
        AuditHash hashes[3];
        if (length >= kAuditEntryPrefix) {
            ring_copy_out(slot, pos + sizeof(uint32), prefix, kAuditEntryPrefix);
            if (short_entry_hashes(std::string_view(prefix, kAuditEntryPrefix), hashes) &&
                !(hashes[0] == last[0] && hashes[1] == last[1] && hashes[2] == last[2])) {
                if (n + 3 > cap) {
                    LWLockRelease(slot->lock);
                    return -1;  // cannot happen with audit_purge_keep_capacity()
                }
                for (const AuditHash &h : hashes)
                    if (h) keep[n++] = h;
                for (int i = 0; i < 3; ++i) last[i] = hashes[i];
            }
        }
        pos += sizeof(uint32) + length;
    }
    LWLockRelease(slot->lock);
    return int64(n);
}

void audit_worker_failed(AuditSlot *slot, const char *message) {
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    slot->failed_batches++;
    strlcpy(slot->last_error, message ? message : "unknown error", sizeof(slot->last_error));
    LWLockRelease(slot->lock);
}

void audit_worker_forward_state(AuditSlot *slot, const char *state, bool acknowledged) {
    TimestampTz now = acknowledged ? GetCurrentTimestamp() : 0;
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    strlcpy(slot->forward_state, state, sizeof(slot->forward_state));
    if (acknowledged) slot->forward_acknowledged_at = now;
    LWLockRelease(slot->lock);
}

bool audit_worker_release_if_idle(AuditSlot *slot, const char *database_name) {
    LWLockAcquire(queue->assign_lock, LW_EXCLUSIVE);
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    bool idle = slot_drained(slot);
    if (idle) {
        // The queue goes back to the pool. Its counters reach the server log only when a note was
        // dropped or a wait timed out (an operator's business); an ordinary idle leave, which
        // follows every burst of decisions, is a debug line.
        bool notable = slot->dropped != 0 || slot->timeouts != 0;
        ereport(notable ? LOG : DEBUG1,
                (errmsg("pg_clarify audit writer for database \"%s\" leaves idle: %lu decisions "
                        "queued, %lu written, %lu dropped, %lu timed out since it started",
                        database_name, (unsigned long)slot->enqueued, (unsigned long)slot->written,
                        (unsigned long)slot->dropped, (unsigned long)slot->timeouts)));
        slot->database = InvalidOid;
        slot->writer_pid = 0;
        slot->writer_latch = nullptr;
        slot->writer_registered = false;
        slot->writer_requested = false;
    }
    LWLockRelease(slot->lock);
    LWLockRelease(queue->assign_lock);
    return idle;
}

int audit_reserved_writers() {
    return Min(audit_writers, audit_databases);
}

Oid audit_reserved_take_request(int index) {
    AuditSlot *slot = &queue->slots[index];
    Oid database = InvalidOid;
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    slot->reserved = true;
    if (slot->writer_requested && slot->database != InvalidOid && slot->writer_pid == 0) {
        slot->writer_requested = false;
        slot->reserved_latch = nullptr;
        database = slot->database;
    } else {
        slot->reserved_latch = MyLatch;
    }
    LWLockRelease(slot->lock);
    return database;
}

void audit_reserved_leave(int index, Oid database) {
    AuditSlot *slot = &queue->slots[index];
    LWLockReleaseAll();  // leaving on an error: nothing of ours may stay held
    LWLockAcquire(queue->assign_lock, LW_EXCLUSIVE);
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    if (slot->reserved_latch == MyLatch) slot->reserved_latch = nullptr;
    // It took a request but never attached (the database could not be connected): backends ask
    // again after kWriterStartupMs; with nothing queued, the queue goes back to the pool.
    if (database != InvalidOid && !attached_here && slot->database == database &&
        slot->writer_pid == 0 && slot_drained(slot)) {
        slot->database = InvalidOid;
        slot->writer_registered = false;
        slot->writer_requested = false;
    }
    LWLockRelease(slot->lock);
    LWLockRelease(queue->assign_lock);
}

bool audit_enqueue_replayed(AuditSlot *slot, const char *entry, uint32 length) {
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    uint64 need = sizeof(uint32) + length;
    uint64 w = pg_atomic_read_u64(&slot->write_pos), r = pg_atomic_read_u64(&slot->read_pos);
    bool room = queue->ring_size - (w - r) >= need;
    if (room) {
        ring_copy_in(slot, w, reinterpret_cast<const char *>(&length), sizeof(uint32));
        ring_copy_in(slot, w + sizeof(uint32), entry, length);
        pg_write_barrier();
        pg_atomic_write_u64(&slot->write_pos, w + need);
        slot->enqueued++;
    }
    LWLockRelease(slot->lock);
    return room;
}

uint64 audit_recover_from() {
    return queue->recover_from;
}

bool audit_replay_pending(AuditSlot *slot) {
    LWLockAcquire(slot->lock, LW_SHARED);
    bool pending = slot->recover_pending;
    LWLockRelease(slot->lock);
    return pending;
}

void audit_finish_replay(AuditSlot *slot) {
    LWLockAcquire(slot->lock, LW_EXCLUSIVE);
    slot->recover_pending = false;
    LWLockRelease(slot->lock);
    wake_sleepers(slot);
    if (Latch *keeper = queue->keeper_latch) SetLatch(keeper);
}

int audit_slot_count() {
    return queue ? queue->nslots : 0;
}

bool audit_slot_stats(int index, AuditSlotStats *out) {
    AuditSlot *slot = &queue->slots[index];
    LWLockAcquire(slot->lock, LW_SHARED);
    out->database = slot->database;
    out->writer_pid = slot->writer_pid;
    out->enqueued = slot->enqueued;
    out->written = slot->written;
    out->dropped = slot->dropped;
    out->timeouts = slot->timeouts;
    out->failed_batches = slot->failed_batches;
    out->malformed = slot->malformed;
    out->pending_bytes = pg_atomic_read_u64(&slot->write_pos) - pg_atomic_read_u64(&slot->read_pos);
    strlcpy(out->last_error, slot->last_error, sizeof(out->last_error));
    char forwarding[sizeof(slot->forward_state)];
    strlcpy(forwarding, slot->forward_state, sizeof(forwarding));
    TimestampTz acknowledged = slot->forward_acknowledged_at;
    LWLockRelease(slot->lock);
    // A standby's writer: its forwarding state first, with how long ago the primary last
    // acknowledged a batch (the lag while decisions are pending).
    if (forwarding[0] != '\0') {
        std::string text = forwarding;
        if (acknowledged) {
            long ago_ms = TimestampDifferenceMilliseconds(acknowledged, GetCurrentTimestamp());
            text += "; last acknowledged " + std::to_string(ago_ms / 1000) + "." +
                    std::to_string(ago_ms % 1000 / 100) + " s ago";
        }
        if (out->last_error[0]) text += std::string("; ") + out->last_error;
        strlcpy(out->last_error, text.c_str(), sizeof(out->last_error));
    }
    return out->database != InvalidOid || out->enqueued > 0;
}

}  // namespace clarify::pg
