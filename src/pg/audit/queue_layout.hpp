// The audit queue's shared-memory layout and the helpers both of its sides use: backends
// (pg/audit/queue.cpp) and the writers (pg/audit/queue_writer.cpp). Internal to those two files.
#pragma once

#include "pg/pg.hpp"
#include "pg/audit/queue.hpp"
#include "core/audit/protocol.hpp"

extern "C" {
#include "port/atomics.h"
#include "storage/latch.h"
#include "datatype/timestamp.h"
#include "storage/lwlock.h"
}

namespace clarify::pg {

// A registered writer that has not attached after this long is presumed dead and replaced.
constexpr long kWriterStartupMs = 3000;

struct DatabaseQueue {
    Oid database;  // InvalidOid: free
    bool writer_registered;
    TimestampTz registered_at;
    int writer_pid;
    Latch *writer_latch;
    // A writer registered at server start serves this queue (set when it first runs): asking it
    // needs no free worker slot. It waits on reserved_latch until a backend requests it.
    bool reserved;
    bool writer_requested;
    Latch *reserved_latch;
    LWLock *lock;
    pg_atomic_uint64 write_pos;  // bytes ever enqueued
    pg_atomic_uint64 read_pos;   // bytes committed by the writer
    uint64 enqueued, written, dropped, timeouts, failed_batches, malformed;
    // Moves (after read_pos) whenever the writer commits: backends waiting for their entry or
    // for space sleep on it. A futex on Linux: one wake-up call serves every sleeper, where a
    // condition variable signals each waiting process.
    pg_atomic_uint32 commit_seq;
    pg_atomic_uint32 sleepers;
    // The end of the last batch committed without a synchronous standby's confirmation; only
    // grows, and is set before read_pos passes it. A sync waiter whose entry ends at or before it
    // fails closed (a waiter of a confirmed batch only if it looks after a later unconfirmed
    // batch: rare, and a retry).
    pg_atomic_uint64 unconfirmed_upto;
    char last_error[256];
    Size ring_offset;   // from the queue's start
    Size marks_offset;  // the cells of `marks`, from the queue's start
    // The sync entries queued and not yet materialised, with a WAL position at or before each
    // one's logical message (core/audit/protocol.hpp): the retention slot is kept behind the
    // oldest.
    DurableMarks marks;
    // Set at server start when the WAL holds decisions of this database made before it: its
    // writer replays them (pg/audit/recovery.cpp) before the queue counts as drained.
    bool recover_pending;
    // On a standby: the writer's forwarding state (pg/replica/forward.cpp) and when the primary
    // last acknowledged a batch, for clarify.audit_queue().
    char forward_state[256];
    TimestampTz forward_acknowledged_at;
    // Hashes of statements, records and decision shapes this database's audit holds, published
    // by the writer after the commit that stored them (core/audit/protocol.hpp). Emptied by
    // purge_audit() (which keeps the texts short entries still queued refer to) and when a
    // database takes the queue.
    PublishedHashes published;
};

struct AuditQueues {
    int nqueues;
    uint64 ring_size;
    LWLock *assign_lock;
    // The retention keeper (pg/audit/retention.cpp): its latch, whether it holds the replication
    // slot, where the slot is (sync decisions fail closed when the WAL retained past it exceeds
    // pg_clarify.audit_retained_wal), and whether every database needing a replay has its queue.
    Latch *keeper_latch;
    pg_atomic_uint32 retention_ready;
    pg_atomic_uint32 recovery_assigned;
    pg_atomic_uint64 retained_from;
    uint64 recover_from;  // the slot's position at server start, where replays read from
    DatabaseQueue queues[FLEXIBLE_ARRAY_MEMBER];
};

extern AuditQueues *queues;
// This process has served a queue as its writer.
extern bool attached_here;

// After read_pos moved (or the writer left): wakes every sleeper with one call.
void wake_sleepers(DatabaseQueue *queue);
char *ring_of(DatabaseQueue *queue);
void ring_copy_out(DatabaseQueue *queue, uint64 pos, char *dst, uint64 n);
void ring_copy_in(DatabaseQueue *queue, uint64 pos, const char *src, uint64 n);
DurableMark *marks_of(DatabaseQueue *queue);
// 1: a writer serves the queue (or is starting); 0: none could be started; -1: the queue no longer
// belongs to `database`.
int start_writer(DatabaseQueue *queue, Oid database);
// Nothing queued, nothing to replay (under the queue's lock).
bool queue_drained(DatabaseQueue *queue);
// The database's queue; with `claim`, takes a free one when it has none (nullptr: none free).
DatabaseQueue *find_queue(Oid database, bool claim);

}  // namespace clarify::pg
