// The audit queue's writer side: attaching to a database's queue, reading and committing
// batches, publishing what they stored, purges, reserved writers and clarify.audit_queue()'s
// counters. The layout is in pg/audit/queue_layout.hpp.
#include "pg/audit/queue.hpp"
#include "pg/audit/queue_layout.hpp"
#include "core/audit/framing.hpp"
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

DatabaseQueue *audit_worker_attach(Oid database) {
    DatabaseQueue *queue = find_queue(database, true);
    if (!queue) return nullptr;
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    bool other = queue->writer_pid != 0 && queue->writer_pid != MyProcPid;
    if (!other) {
        queue->writer_pid = MyProcPid;
        queue->writer_latch = MyLatch;
        queue->writer_registered = true;
        // Published by a writer before this one: this one publishes what it stores.
        published_clear(queue->published);
    }
    LWLockRelease(queue->lock);
    if (other) return nullptr;
    attached_here = true;
    before_shmem_exit(audit_worker_detach, PointerGetDatum(queue));
    return queue;
}

void audit_worker_detach(int, Datum arg) {
    DatabaseQueue *queue = reinterpret_cast<DatabaseQueue *>(DatumGetPointer(arg));
    LWLockReleaseAll();  // leaving on an error: nothing of ours may stay held
    LWLockAcquire(queues->assign_lock, LW_EXCLUSIVE);
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    if (queue->writer_pid == MyProcPid) {
        queue->writer_pid = 0;
        queue->writer_latch = nullptr;
        queue->writer_registered = false;
        // Nothing left to write (a dropped database, a terminated writer): back to the pool.
        // Else the reserved writer, restarted, goes on with what is left (or the keeper starts
        // another writer).
        if (queue_drained(queue))
            queue->database = InvalidOid;
        else if (queue->reserved)
            queue->writer_requested = true;
    }
    LWLockRelease(queue->lock);
    LWLockRelease(queues->assign_lock);
    wake_sleepers(queue);
}

const char *audit_worker_peek(DatabaseQueue *queue, char *buf, uint64 cap, uint64 *from,
                              uint64 *bytes) {
    uint64 r = pg_atomic_read_u64(&queue->read_pos);
    uint64 w = pg_atomic_read_u64(&queue->write_pos);
    pg_read_barrier();
    *from = r;
    // In place: the whole entries before the ring's end. Backends write only past w, and nothing
    // before read_pos is reused until the writer commits.
    uint64 start = r % queues->ring_size;
    if (uint64 in_place = frames_in_place(ring_of(queue), queues->ring_size, start, w - r)) {
        *bytes = in_place;
        return ring_of(queue) + start;
    }
    // The first entry wraps around the end: copy entries out.
    uint64 pos = r;
    while (pos < w) {
        uint32 length;
        ring_copy_out(queue, pos, reinterpret_cast<char *>(&length), kFrameHeader);
        uint64 need = frame_size(length);
        if (pos - r + need > cap) break;
        ring_copy_out(queue, pos, buf + (pos - r), need);
        pos += need;
    }
    *bytes = pos - r;
    return buf;
}

bool audit_worker_commit(DatabaseQueue *queue, uint64 upto, uint64 entries, uint64 malformed,
                         bool confirmed, const AuditHash *to_publish, size_t npublish,
                         uint64 purge_seen) {
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    bool kept =
        publish_batch(queue->published, to_publish, npublish, purge_seen, purge_generation());
    if (!confirmed) {
        pg_atomic_write_u64(&queue->unconfirmed_upto, upto);
        pg_write_barrier();
    }
    pg_atomic_write_u64(&queue->read_pos, upto);
    release_marks(queue->marks, marks_of(queue), upto);
    queue->written += entries;
    queue->malformed += malformed;
    queue->last_error[0] = '\0';
    LWLockRelease(queue->lock);
    wake_sleepers(queue);
    return kept;
}

namespace {
// Moves the purge generation and empties the database's published hashes, under the lock a
// writer publishes under (nothing stored before is published after). Returns the database's
// queue still locked, or nullptr (unlocked) when it has none.
DatabaseQueue *forget_published_locked(Oid database) {
    DatabaseQueue *queue = find_queue(database, false);
    if (!queue) {
        bump_purge_generation();
        return nullptr;
    }
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    bump_purge_generation();
    if (queue->database != database) {  // released meanwhile: nothing of this database in it
        LWLockRelease(queue->lock);
        return nullptr;
    }
    published_clear(queue->published);
    return queue;
}
}  // namespace

void audit_forget_published(Oid database) {
    if (DatabaseQueue *queue = forget_published_locked(database)) LWLockRelease(queue->lock);
}

size_t audit_purge_keep_capacity() {
    // A short entry takes at least its length word and prefix; it names at most 3 hashes.
    return size_t(queues->ring_size / (kFrameHeader + kAuditEntryPrefix) + 1) * 3;
}

int64 audit_purge_begin(Oid database, AuditHash *keep, size_t cap) {
    DatabaseQueue *queue = forget_published_locked(database);
    if (!queue) return 0;
    size_t n = 0;
    uint64 r = pg_atomic_read_u64(&queue->read_pos), w = pg_atomic_read_u64(&queue->write_pos);
    AuditHash last[3];
    for (uint64 pos = r; pos + kFrameHeader <= w;) {
        uint32 length;
        ring_copy_out(queue, pos, reinterpret_cast<char *>(&length), kFrameHeader);
        char prefix[kAuditEntryPrefix];
        AuditHash hashes[3];
        if (length >= kAuditEntryPrefix) {
            ring_copy_out(queue, pos + kFrameHeader, prefix, kAuditEntryPrefix);
            if (short_entry_hashes(std::string_view(prefix, kAuditEntryPrefix), hashes) &&
                !(hashes[0] == last[0] && hashes[1] == last[1] && hashes[2] == last[2])) {
                if (n + 3 > cap) {
                    LWLockRelease(queue->lock);
                    return -1;  // cannot happen with audit_purge_keep_capacity()
                }
                for (const AuditHash &h : hashes)
                    if (h) keep[n++] = h;
                for (int i = 0; i < 3; ++i) last[i] = hashes[i];
            }
        }
        pos += frame_size(length);
    }
    LWLockRelease(queue->lock);
    return int64(n);
}

void audit_worker_failed(DatabaseQueue *queue, const char *message) {
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    queue->failed_batches++;
    strlcpy(queue->last_error, message ? message : "unknown error", sizeof(queue->last_error));
    LWLockRelease(queue->lock);
}

void audit_worker_forward_state(DatabaseQueue *queue, const char *state, bool acknowledged) {
    TimestampTz now = acknowledged ? GetCurrentTimestamp() : 0;
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    strlcpy(queue->forward_state, state, sizeof(queue->forward_state));
    if (acknowledged) queue->forward_acknowledged_at = now;
    LWLockRelease(queue->lock);
}

bool audit_worker_release_if_idle(DatabaseQueue *queue, const char *database_name) {
    LWLockAcquire(queues->assign_lock, LW_EXCLUSIVE);
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    bool idle = queue_drained(queue);
    if (idle) {
        // The queue goes back to the pool. Its counters reach the server log only when a note was
        // dropped or a wait timed out (an operator's business); an ordinary idle leave, which
        // follows every burst of decisions, is a debug line.
        bool notable = queue->dropped != 0 || queue->timeouts != 0;
        ereport(
            notable ? LOG : DEBUG1,
            (errmsg("pg_clarify audit writer for database \"%s\" leaves idle: %lu decisions "
                    "queued, %lu written, %lu dropped, %lu timed out since it started",
                    database_name, (unsigned long)queue->enqueued, (unsigned long)queue->written,
                    (unsigned long)queue->dropped, (unsigned long)queue->timeouts)));
        queue->database = InvalidOid;
        queue->writer_pid = 0;
        queue->writer_latch = nullptr;
        queue->writer_registered = false;
        queue->writer_requested = false;
    }
    LWLockRelease(queue->lock);
    LWLockRelease(queues->assign_lock);
    return idle;
}

int audit_reserved_writers() {
    return Min(audit_writers, audit_databases);
}

Oid audit_reserved_take_request(int index) {
    DatabaseQueue *queue = &queues->queues[index];
    Oid database = InvalidOid;
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    queue->reserved = true;
    if (queue->writer_requested && queue->database != InvalidOid && queue->writer_pid == 0) {
        queue->writer_requested = false;
        queue->reserved_latch = nullptr;
        database = queue->database;
    } else {
        queue->reserved_latch = MyLatch;
    }
    LWLockRelease(queue->lock);
    return database;
}

void audit_reserved_leave(int index, Oid database) {
    DatabaseQueue *queue = &queues->queues[index];
    LWLockReleaseAll();  // leaving on an error: nothing of ours may stay held
    LWLockAcquire(queues->assign_lock, LW_EXCLUSIVE);
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    if (queue->reserved_latch == MyLatch) queue->reserved_latch = nullptr;
    // It took a request but never attached (the database could not be connected): backends ask
    // again after kWriterStartupMs; with nothing queued, the queue goes back to the pool.
    if (database != InvalidOid && !attached_here && queue->database == database &&
        queue->writer_pid == 0 && queue_drained(queue)) {
        queue->database = InvalidOid;
        queue->writer_registered = false;
        queue->writer_requested = false;
    }
    LWLockRelease(queue->lock);
    LWLockRelease(queues->assign_lock);
}

bool audit_enqueue_replayed(DatabaseQueue *queue, const char *entry, uint32 length) {
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    uint64 w = pg_atomic_read_u64(&queue->write_pos), r = pg_atomic_read_u64(&queue->read_pos);
    bool room = ring_has_room(queues->ring_size, w, r, frame_size(length));
    if (room) {
        ring_copy_in(queue, w, reinterpret_cast<const char *>(&length), kFrameHeader);
        ring_copy_in(queue, w + kFrameHeader, entry, length);
        pg_write_barrier();
        pg_atomic_write_u64(&queue->write_pos, w + frame_size(length));
        queue->enqueued++;
    }
    LWLockRelease(queue->lock);
    return room;
}

uint64 audit_recover_from() {
    return queues->recover_from;
}

bool audit_replay_pending(DatabaseQueue *queue) {
    LWLockAcquire(queue->lock, LW_SHARED);
    bool pending = queue->recover_pending;
    LWLockRelease(queue->lock);
    return pending;
}

void audit_finish_replay(DatabaseQueue *queue) {
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    queue->recover_pending = false;
    LWLockRelease(queue->lock);
    wake_sleepers(queue);
    if (Latch *keeper = queues->keeper_latch) SetLatch(keeper);
}

int audit_queue_count() {
    return queues ? queues->nqueues : 0;
}

bool audit_queue_stats(int index, QueueStats *out) {
    DatabaseQueue *queue = &queues->queues[index];
    LWLockAcquire(queue->lock, LW_SHARED);
    out->database = queue->database;
    out->writer_pid = queue->writer_pid;
    out->enqueued = queue->enqueued;
    out->written = queue->written;
    out->dropped = queue->dropped;
    out->timeouts = queue->timeouts;
    out->failed_batches = queue->failed_batches;
    out->malformed = queue->malformed;
    out->pending_bytes =
        pg_atomic_read_u64(&queue->write_pos) - pg_atomic_read_u64(&queue->read_pos);
    strlcpy(out->last_error, queue->last_error, sizeof(out->last_error));
    char forwarding[sizeof(queue->forward_state)];
    strlcpy(forwarding, queue->forward_state, sizeof(forwarding));
    TimestampTz acknowledged = queue->forward_acknowledged_at;
    LWLockRelease(queue->lock);
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
