#include "pg/audit/queue.hpp"
#include "pg/audit/queue_layout.hpp"
#include "core/audit/framing.hpp"
#include "core/audit/record.hpp"
#include "pg/audit/wal.hpp"
#include "pg/settings.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "access/xlog.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/pmsignal.h"
#include "utils/timestamp.h"
}

#include <climits>
#include <cstring>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace clarify::pg {

AuditQueues *queues = nullptr;
bool attached_here = false;

void wake_sleepers(DatabaseQueue *queue) {
    pg_atomic_fetch_add_u32(&queue->commit_seq, 1);  // a full barrier
    if (pg_atomic_read_u32(&queue->sleepers) == 0) return;
#ifdef __linux__
    (void)syscall(SYS_futex, &queue->commit_seq.value, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
#endif
}

char *ring_of(DatabaseQueue *queue) {
    return reinterpret_cast<char *>(queues) + queue->ring_offset;
}

void ring_copy_out(DatabaseQueue *queue, uint64 pos, char *dst, uint64 n) {
    uint64 size = queues->ring_size, off = pos % size, first = Min(n, size - off);
    memcpy(dst, ring_of(queue) + off, first);
    memcpy(dst + first, ring_of(queue), n - first);
}

void ring_copy_in(DatabaseQueue *queue, uint64 pos, const char *src, uint64 n) {
    uint64 size = queues->ring_size, off = pos % size, first = Min(n, size - off);
    memcpy(ring_of(queue) + off, src, first);
    memcpy(ring_of(queue), src + first, n - first);
}

DatabaseQueue *find_queue(Oid database, bool claim) {
    for (int i = 0; i < queues->nqueues; ++i)
        if (queues->queues[i].database == database) return &queues->queues[i];
    if (!claim) return nullptr;
    LWLockAcquire(queues->assign_lock, LW_EXCLUSIVE);
    DatabaseQueue *found = nullptr;
    for (int i = 0; i < queues->nqueues && !found; ++i)
        if (queues->queues[i].database == database) found = &queues->queues[i];
    for (int i = 0; i < queues->nqueues && !found; ++i) {
        DatabaseQueue *queue = &queues->queues[i];
        LWLockAcquire(queue->lock, LW_EXCLUSIVE);
        if (queue->database == InvalidOid) {
            // A fresh start for this database: its counters are its own.
            queue->database = database;
            queue->enqueued = queue->written = queue->dropped = queue->timeouts = 0;
            queue->failed_batches = queue->malformed = 0;
            queue->last_error[0] = '\0';
            queue->marks.head = queue->marks.tail = 0;
            queue->recover_pending = false;
            queue->forward_state[0] = '\0';
            queue->forward_acknowledged_at = 0;
            published_clear(queue->published);
            found = queue;
        }
        LWLockRelease(queue->lock);
    }
    LWLockRelease(queues->assign_lock);
    return found;
}

DurableMark *marks_of(DatabaseQueue *queue) {
    return reinterpret_cast<DurableMark *>(reinterpret_cast<char *>(queues) + queue->marks_offset);
}

bool queue_drained(DatabaseQueue *queue) {
    return pg_atomic_read_u64(&queue->write_pos) == pg_atomic_read_u64(&queue->read_pos) &&
           !queue->recover_pending;
}

namespace {

constexpr const char *kTranche = "pg_clarify audit queue";
// The longest single sleep of a waiter: interrupts (cancel, statement_timeout, terminate) and
// the postmaster's death are noticed within this.
constexpr long kWaiterNapMs = 20;

// Sleeps until the queue's commit sequence is no longer `seen`, at most timeout_ms (and at most
// kWaiterNapMs); then serves interrupts. Spurious returns are fine: callers loop.
void sleep_on_commit(DatabaseQueue *queue, uint32 seen, long timeout_ms) {
    long ms = Max(1L, Min(timeout_ms, kWaiterNapMs));
    pg_atomic_fetch_add_u32(&queue->sleepers, 1);
    pgstat_report_wait_start(PG_WAIT_EXTENSION);
#ifdef __linux__
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    (void)syscall(SYS_futex, &queue->commit_seq.value, FUTEX_WAIT, seen, &ts, nullptr, 0);
#else
    if (pg_atomic_read_u32(&queue->commit_seq) == seen) pg_usleep(1000L);
#endif
    pgstat_report_wait_end();
    pg_atomic_fetch_sub_u32(&queue->sleepers, 1);
    if (!PostmasterIsAlive()) proc_exit(1);
    CHECK_FOR_INTERRUPTS();
}

Size header_size(int nqueues) {
    return MAXALIGN(offsetof(AuditQueues, queues) + sizeof(DatabaseQueue) * nqueues);
}

// Every entry takes at least its length word and fixed part: this many marks never run out.
uint64 marks_capacity(uint64 ring) {
    return ring / (kFrameHeader + kAuditEntryPrefix) + 1;
}

uint64 ring_bytes() {
    // Never smaller than the largest entry a 64 kB record can make.
    uint64 total = uint64(audit_queue_size_kb) * 1024;
    return MAXALIGN(Max(total / uint64(audit_databases), uint64(256 * 1024)));
}

}  // namespace

int start_writer(DatabaseQueue *queue, Oid database) {
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    if (queue->database != database) {
        LWLockRelease(queue->lock);
        return -1;
    }
    TimestampTz now = GetCurrentTimestamp();
    bool needed = !queue->writer_registered ||
                  (queue->writer_pid == 0 &&
                   TimestampDifferenceExceeds(queue->registered_at, now, kWriterStartupMs));
    if (needed) {
        queue->writer_registered = true;
        queue->registered_at = now;
    }
    bool reserved = queue->reserved;
    Latch *waiting = nullptr;
    if (needed && reserved) {
        queue->writer_requested = true;
        waiting = queue->reserved_latch;
    }
    LWLockRelease(queue->lock);
    if (!needed) return 1;
    // The reserved writer keeps its slot for the server's life: asking it needs no free one. It
    // is asked again when it has not attached in time (it may have failed to connect).
    if (reserved) {
        if (waiting) SetLatch(waiting);
        return 1;
    }

    BackgroundWorker worker;
    memset(&worker, 0, sizeof(worker));
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    // On a hot standby too: there the writer forwards to the primary (pg/replica/forward.cpp).
    worker.bgw_start_time = BgWorkerStart_ConsistentState;
    worker.bgw_restart_time = BGW_NEVER_RESTART;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_clarify");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "clarify_audit_writer_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "pg_clarify audit writer for database %u", database);
    snprintf(worker.bgw_type, BGW_MAXLEN, "pg_clarify audit writer");
    worker.bgw_main_arg = ObjectIdGetDatum(database);
    BackgroundWorkerHandle *handle;
    if (RegisterDynamicBackgroundWorker(&worker, &handle)) return 1;
    LWLockAcquire(queues->assign_lock, LW_EXCLUSIVE);
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    queue->writer_registered = false;
    // Nothing queued and nobody to write it: the queue goes back to the pool, free for a
    // database that has a writer.
    if (queue->database == database && queue->writer_pid == 0 && queue_drained(queue))
        queue->database = InvalidOid;
    LWLockRelease(queue->lock);
    LWLockRelease(queues->assign_lock);
    ereport(WARNING,
            (errmsg("pg_clarify could not start an audit writer for this database"),
             errhint("Raise max_worker_processes, or pg_clarify.audit_writers (which reserves "
                     "worker slots at server start).")));
    return 0;
}

namespace {

// A waiter gave up (timed out, found no room, or its batch was not confirmed): counted in the
// queue's timeouts (clarify.audit_queue()), and `result` returned.
SubmitResult count_failed_wait(DatabaseQueue *queue, SubmitResult result = SubmitResult::TimedOut) {
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    queue->timeouts++;
    LWLockRelease(queue->lock);
    return result;
}

long remaining_ms(TimestampTz deadline) {
    long ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
    return ms;
}

// Sync decisions need the retention slot held (the keeper takes it at start) and the WAL it keeps
// within pg_clarify.audit_retained_wal; they wait for the former within the timeout.
template <typename StartDeadline>
bool retention_admits(int timeout_ms, StartDeadline &start_deadline, TimestampTz &deadline,
                      SubmitResult *refused) {
    if (RecoveryInProgress()) {
        *refused = SubmitResult::NoRetention;
        return false;
    }
    while (pg_atomic_read_u32(&queues->retention_ready) == 0) {
        start_deadline();
        long wait = remaining_ms(deadline);
        if (wait <= 0) {
            *refused = SubmitResult::NoRetention;
            return false;
        }
        pg_usleep(Min(wait, kWaiterNapMs) * 1000L);
        CHECK_FOR_INTERRUPTS();
    }
    uint64 limit = uint64(audit_retained_wal_mb) * 1024 * 1024;
    if (retention_exceeded(audit_wal_insert_position(), pg_atomic_read_u64(&queues->retained_from),
                           limit)) {
        *refused = SubmitResult::RetentionFull;
        return false;
    }
    return true;
}

// Sync on a standby: the writer moves the committed position past an entry once the primary has
// acknowledged it durable (pg/replica/forward.cpp).
template <typename StartDeadline>
SubmitResult wait_forwarded(DatabaseQueue *queue, uint64 end, StartDeadline &start_deadline,
                            TimestampTz &deadline) {
    for (;;) {
        uint32 seen = pg_atomic_read_u32(&queue->commit_seq);
        if (pg_atomic_read_u64(&queue->read_pos) >= end) return SubmitResult::Committed;
        start_deadline();
        long wait = remaining_ms(deadline);
        if (wait <= 0) return count_failed_wait(queue, SubmitResult::NotForwarded);
        sleep_on_commit(queue, seen, wait);
    }
}

}  // namespace

Size audit_queue_shmem_size() {
    uint64 ring = ring_bytes();
    Size per_queue = add_size(ring, MAXALIGN(sizeof(DurableMark) * marks_capacity(ring)));
    return add_size(header_size(audit_databases), mul_size(per_queue, audit_databases));
}

void audit_queue_request_locks() {
    RequestNamedLWLockTranche(kTranche, audit_databases + 1);
}

void audit_queue_attach(void *base, bool found) {
    queues = static_cast<AuditQueues *>(base);
    if (found) return;
    LWLockPadded *locks = GetNamedLWLockTranche(kTranche);
    // The rings too: the kernel allocates a shared page at its first touch, and that first touch
    // would otherwise fall on a backend deciding a statement (a few microseconds per page).
    memset(base, 0, audit_queue_shmem_size());
    queues->nqueues = audit_databases;
    queues->ring_size = ring_bytes();
    queues->assign_lock = &locks[0].lock;
    pg_atomic_init_u32(&queues->retention_ready, 0);
    pg_atomic_init_u32(&queues->recovery_assigned, 0);
    pg_atomic_init_u64(&queues->retained_from, 0);
    Size per_queue =
        queues->ring_size + MAXALIGN(sizeof(DurableMark) * marks_capacity(queues->ring_size));
    for (int i = 0; i < queues->nqueues; ++i) {
        DatabaseQueue *queue = &queues->queues[i];
        queue->lock = &locks[i + 1].lock;
        pg_atomic_init_u64(&queue->write_pos, 0);
        pg_atomic_init_u64(&queue->read_pos, 0);
        pg_atomic_init_u32(&queue->commit_seq, 0);
        pg_atomic_init_u32(&queue->sleepers, 0);
        pg_atomic_init_u64(&queue->unconfirmed_upto, 0);
        queue->ring_offset = header_size(queues->nqueues) + Size(i) * per_queue;
        queue->marks_offset = queue->ring_offset + queues->ring_size;
        queue->marks.capacity = marks_capacity(queues->ring_size);
    }
}

uint64 audit_ring_size() {
    return queues->ring_size;
}

uint64 audit_wake_bytes(bool forwarding) {
    return wake_bytes(queues->ring_size, forwarding);
}

uint64 audit_pending_bytes(DatabaseQueue *queue) {
    return pg_atomic_read_u64(&queue->write_pos) - pg_atomic_read_u64(&queue->read_pos);
}

namespace {

// A decision's entry as audit_submit was given it.
struct Submission {
    const char *entry;
    uint32 length;
    bool sync;
    bool standby;
    const ShortEntry *short_entry;
};

// Where a queued entry ends in the queue, and in the WAL (sync on a primary).
struct Enqueued {
    uint64 end = 0;
    XLogRecPtr wal_end = InvalidXLogRecPtr;
};

// The database's queue with a writer serving it (asked for when none is): `queue` when given,
// else found or claimed. nullptr, with *refused, when there is none.
DatabaseQueue *served_queue(DatabaseQueue *queue, SubmitResult *refused) {
    for (;;) {
        if (!queue && !(queue = find_queue(MyDatabaseId, true))) {
            *refused = SubmitResult::NoQueue;
            return nullptr;
        }
        // The writer is normally up; only when it is not does looking cost a lock and a clock read.
        if (queue->writer_pid != 0) return queue;
        int writer = start_writer(queue, MyDatabaseId);
        if (writer > 0) return queue;
        if (writer == 0) {
            *refused = SubmitResult::NoWriter;
            return nullptr;
        }
        queue = nullptr;  // released meanwhile
    }
}

// Under the queue's lock: copies the entry in (its short form when the audit holds every text it
// names) and, for a sync decision on a primary, writes it to the WAL with its mark. False when
// there is no room (the lock still held); else releases the lock and wakes the writer if due.
bool enqueue(DatabaseQueue *queue, const Submission &s, Enqueued *out) {
    const char *bytes = s.entry;
    uint32 size = s.length;
    if (s.short_entry && short_entry_usable(queue->published, s.short_entry->hashes)) {
        bytes = s.short_entry->bytes;
        size = s.short_entry->length;
    }
    uint64 w = pg_atomic_read_u64(&queue->write_pos), r = pg_atomic_read_u64(&queue->read_pos);
    if (!ring_has_room(queues->ring_size, w, r, frame_size(size))) return false;
    ring_copy_in(queue, w, reinterpret_cast<const char *>(&size), kFrameHeader);
    ring_copy_in(queue, w + kFrameHeader, bytes, size);
    out->end = w + frame_size(size);
    if (s.sync && !s.standby) {
        // In the WAL under the queue's lock: the queue's order is the WAL's, so the oldest mark
        // is the oldest decision the writer has not materialised.
        DurableMark mark{out->end, audit_wal_insert_position()};
        out->wal_end = audit_wal_log(bytes, size);
        (void)push_mark(queue->marks, marks_of(queue), mark);  // never full: see capacity
    }
    pg_write_barrier();
    pg_atomic_write_u64(&queue->write_pos, out->end);
    queue->enqueued++;
    Latch *writer = queue->writer_latch;
    LWLockRelease(queue->lock);
    // The writer gathers a batch (it looks every kAsyncPollMs) unless the queue is filling up: a
    // sync decision is durable without it. Woken once, by the entry that fills it to
    // audit_wake_bytes(): a wakeup per entry would cost each statement a signal (the writer looks
    // again at once while that much is still pending).
    bool filled = fills_past(out->end, w, r, audit_wake_bytes(s.standby));
    if (writer && ((s.sync && s.standby) || filled)) SetLatch(writer);
    return true;
}

}  // namespace

SubmitResult audit_submit(const char *entry, uint32 length, bool sync, int timeout_ms,
                          const ShortEntry *short_entry) {
    if (frame_size(length) > queues->ring_size) return SubmitResult::TooLarge;
    // A standby's decisions go to the primary's audit through its writer, never to its own WAL;
    // with no way there configured, nothing could audit them: refused at once.
    Submission s{entry, length, sync, RecoveryInProgress(), short_entry};
    if (s.standby && (!audit_conninfo || audit_conninfo[0] == '\0'))
        return SubmitResult::NoConninfo;
    // Read from the clock only when a wait begins: an entry that finds room at once (the common
    // case, always in async mode) costs no clock read.
    TimestampTz deadline = 0;
    auto start_deadline = [&] {
        if (deadline == 0)
            deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), Max(timeout_ms, 0));
    };
    DatabaseQueue *queue = nullptr;
    Enqueued queued;
    for (;;) {
        SubmitResult refused = SubmitResult::Committed;
        if (!(queue = served_queue(queue, &refused))) return refused;
        if (sync && !s.standby && !retention_admits(timeout_ms, start_deadline, deadline, &refused))
            return count_failed_wait(queue, refused);
        uint32 seen = pg_atomic_read_u32(&queue->commit_seq);
        LWLockAcquire(queue->lock, LW_EXCLUSIVE);
        if (queue->database != MyDatabaseId) {  // released by an idle writer meanwhile
            LWLockRelease(queue->lock);
            queue = nullptr;
            continue;
        }
        if (enqueue(queue, s, &queued)) break;
        // No room. A decision, sync or async, waits for it: load never skips one. Only an entry
        // given no time (a note on a refusal) is dropped.
        if (timeout_ms <= 0) {
            queue->dropped++;
            LWLockRelease(queue->lock);
            return SubmitResult::Dropped;
        }
        Latch *writer = queue->writer_latch;
        LWLockRelease(queue->lock);
        if (writer) SetLatch(writer);
        start_deadline();
        long wait = remaining_ms(deadline);
        if (wait <= 0) return count_failed_wait(queue, SubmitResult::QueueFull);
        sleep_on_commit(queue, seen, wait);
    }
    if (!sync) return SubmitResult::Queued;
    if (s.standby) return wait_forwarded(queue, queued.end, start_deadline, deadline);
    // Durable as a commit is: flushed, and confirmed by the synchronous standbys in time.
    start_deadline();
    if (!audit_wal_make_durable(queued.wal_end, deadline))
        return count_failed_wait(queue, SubmitResult::Unconfirmed);
    return SubmitResult::Committed;
}

void audit_count_malformed(Oid database, const char *why) {
    DatabaseQueue *queue = find_queue(database, true);
    if (!queue) return;
    LWLockAcquire(queue->lock, LW_EXCLUSIVE);
    bool mine = queue->database == database;
    if (mine) {
        queue->malformed++;
        strlcpy(queue->last_error, why, sizeof(queue->last_error));
    }
    bool writer = queue->writer_pid != 0;
    LWLockRelease(queue->lock);
    // A queue taken for the count alone goes back to the pool when its writer finds it idle.
    if (mine && !writer) (void)start_writer(queue, database);
}

bool audit_wait_visible(Oid database, int timeout_ms) {
    TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), Max(timeout_ms, 0));
    DatabaseQueue *queue = find_queue(database, false);
    uint64 target = queue ? pg_atomic_read_u64(&queue->write_pos) : 0;
    for (;;) {
        uint32 seen = queue ? pg_atomic_read_u32(&queue->commit_seq) : 0;
        // A standby has no keeper and nothing to replay: its writer's committed position means
        // acknowledged by the primary, visible in the primary's clarify.audit.
        bool visible = RecoveryInProgress() || pg_atomic_read_u32(&queues->recovery_assigned) != 0;
        Latch *writer = nullptr;
        if (visible && queue) {
            LWLockAcquire(queue->lock, LW_SHARED);
            visible = queue->database != database ||
                      (pg_atomic_read_u64(&queue->read_pos) >= target && !queue->recover_pending);
            writer = queue->writer_latch;
            LWLockRelease(queue->lock);
        } else if (visible && (queue = find_queue(database, false))) {
            continue;  // a database needing a replay took a queue since: wait for it
        }
        if (visible) return true;
        long wait = remaining_ms(deadline);
        if (wait <= 0) return false;
        if (writer) SetLatch(writer);  // it need not wait for its next look
        if (queue)
            sleep_on_commit(queue, seen, wait);
        else {
            pg_usleep(Min(wait, kWaiterNapMs) * 1000L);
            CHECK_FOR_INTERRUPTS();
        }
    }
}

}  // namespace clarify::pg
