// The shared-memory audit queue: one ring of bytes per database, filled by backends and drained
// by that database's audit writer (a background worker). Plain C-style routines: call them from
// C++ inside pg_guard.
#pragma once

#include "pg/pg.hpp"
#include "core/audit/hash.hpp"

extern "C" {
#include "storage/latch.h"
}

namespace clarify::pg {

enum class SubmitResult {
    Committed,      // sync: durable (in the WAL, flushed, confirmed by synchronous standbys)
    Queued,         // async: in the queue
    Dropped,        // given no time to wait (timeout 0), the entry found the queue full (counted)
    TimedOut,       // sync: queued, not committed within the timeout
    QueueFull,      // no room in the queue within the timeout (not queued; counted as a timeout)
    Unconfirmed,    // sync: flushed locally, but no synchronous standby confirmed it in time
    NoRetention,    // sync: the WAL holding it could not be retained (no slot, or a standby)
    RetentionFull,  // sync: the WAL retained for the writer exceeds pg_clarify.audit_retained_wal
    NoQueue,        // every pg_clarify.audit_databases queue serves another database
    NoWriter,       // no audit writer could be started for this database (no worker slot)
    NoConninfo,     // a standby without pg_clarify.audit_conninfo: nowhere to audit (at once)
    NotForwarded,   // sync on a standby: the primary did not acknowledge it within the timeout
    TooLarge,       // larger than the whole ring
    Malformed,      // the writer could not materialise the entry: refused before it was written
};

Size audit_queue_shmem_size();
void audit_queue_request_locks();
void audit_queue_attach(void *base, bool found);

// A decision's short entry (encode_short) and the hashes it refers to (statement, shape,
// record; none: no record): queued instead of the full entry when the audit holds all of them.
struct ShortEntry {
    const char *bytes;
    uint32 length;
    AuditHash hashes[3];
};

// Submits a decision's entry to the audit: queues it, waiting up to timeout_ms for room (sync and
// async alike); in sync mode also writes it to the WAL and makes that durable (Committed);
// serves interrupts while it waits.
SubmitResult audit_submit(const char *entry, uint32 length, bool sync, int timeout_ms,
                          const ShortEntry *short_entry = nullptr);

// A decision refused because the writer could not materialise its entry (entry_refusal): counted
// in its database's `malformed`, with `why` as the last error.
void audit_count_malformed(Oid database, const char *why);

// clarify.audit_wait(): true once every decision queued for `database` before the call, and every
// one the WAL held for it at server start, is committed by its writer; false after timeout_ms.
bool audit_wait_visible(Oid database, int timeout_ms);

// Worker side.
struct DatabaseQueue;
DatabaseQueue *audit_worker_attach(Oid database);
void audit_worker_detach(int code, Datum queue);
// The whole entries from the committed position on: in place in the ring when they do not wrap
// around its end, else copied into buf (at most cap bytes; cap is at least the ring size).
// Returns where they are, their size in *bytes (0: none) and their start position in *from.
// Valid until audit_worker_commit().
const char *audit_worker_peek(DatabaseQueue *queue, char *buf, uint64 cap, uint64 *from,
                              uint64 *bytes);
// `confirmed` false: the batch ending at `upto` was committed locally but a wait for a
// synchronous standby may have been given up (a stop or cancel request during the commit); its
// sync waiters fail closed.
// `to_publish`: the hashes of the texts and shapes the batch stored (inserted or found), published
// for short entries unless a purge began since `purge_seen` (the purge generation read when the
// batch began). Returns false when the published set was full and emptied first: the writer
// then forgets what it stored, so that it stores (and publishes) those texts again.
bool audit_worker_commit(DatabaseQueue *queue, uint64 upto, uint64 entries, uint64 malformed,
                         bool confirmed = true, const AuditHash *to_publish = nullptr,
                         size_t npublish = 0, uint64 purge_seen = 0);
void audit_worker_failed(DatabaseQueue *queue, const char *message);
// A standby's writer: its forwarding state, shown by clarify.audit_queue(); `acknowledged`: the
// primary has just acknowledged a batch.
void audit_worker_forward_state(DatabaseQueue *queue, const char *state, bool acknowledged);
// Empties a database's published hashes and moves the purge generation, so that nothing stored
// before is published after: its audit's tables were recreated (seen by the writer), or its
// governance catalog changed (as it does after the extension is created again).
void audit_forget_published(Oid database);
// True (and the queue returned to the pool) when nothing is pending: the writer may exit.
bool audit_worker_release_if_idle(DatabaseQueue *queue, const char *database_name);

// Reserved writers: registered at server start for the first audit_reserved_writers() queues,
// each keeping its worker slot for the server's life (it leaves when idle and is restarted).
int audit_reserved_writers();
// Marks queue `index` as served by the calling reserved writer. Returns the database a backend
// asked it to serve (the request is taken), or InvalidOid: MyLatch is set by the next request.
Oid audit_reserved_take_request(int index);
// At exit: stops requests reaching this process; `database` (the request taken, or InvalidOid)
// goes back to the pool if this writer never attached to it and nothing is queued.
void audit_reserved_leave(int index, Oid database);

uint64 audit_ring_size();
// How many pending bytes wake the writer before its next look: a standby's writer, whose every
// batch costs a call and a commit on the primary, gathers more.
uint64 audit_wake_bytes(bool forwarding);
uint64 audit_pending_bytes(DatabaseQueue *queue);

// For clarify.purge_audit(), while it holds its locks on the audit's texts (no batch is being
// written): moves the purge generation, empties the database's published hashes and puts in
// `keep` the hashes the short entries still queued refer to, which the purge must keep; returns
// how many (with repeats), or -1 when `cap` is smaller than audit_purge_keep_capacity().
size_t audit_purge_keep_capacity();
int64 audit_purge_begin(Oid database, AuditHash *keep, size_t cap);

// For clarify.audit_queue(): a snapshot of one queue's counters.
struct QueueStats {
    Oid database;
    int writer_pid;
    uint64 enqueued, written, dropped, timeouts, failed_batches, malformed, pending_bytes;
    char last_error[256];
};
int audit_queue_count();
bool audit_queue_stats(int index, QueueStats *out);

}  // namespace clarify::pg
