// The audit writer: one background worker per database, draining that database's queue into
// clarify.audit_log in batches, one transaction per batch (the group commit of sync mode).
// Errors are caught, counted and retried with back-off; the worker never dies in a loop.
// The first pg_clarify.audit_writers queues have reserved writers, registered at server start:
// each waits, unconnected, for a backend's request, serves that database, leaves when idle and
// is restarted at once by the postmaster, so its worker slot is never free for anyone else.
// This file holds the process (entry points, signals, its loop); pg/audit/batch.cpp writes batches.
#include "pg/pg.hpp"
#include "pg/audit/batch.hpp"
#include "pg/replica/forward.hpp"
#include "pg/audit/queue.hpp"
#include "pg/audit/recovery.hpp"
#include "pg/audit/writer.hpp"
#include "pg/boundary.hpp"
#include "pg/compat.hpp"
#include "pg/executor/hooks.hpp"
#include "pg/settings.hpp"
#include "pg/shared_memory.hpp"
#include "pg/worker_wait.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "commands/dbcommands.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PGDLLEXPORT void clarify_audit_writer_main(Datum arg);
PGDLLEXPORT void clarify_reserved_writer_main(Datum arg);
}

#include <algorithm>
#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace clarify::pg {
namespace {

// An idle writer leaves (and frees its queue) well within the 5 s DROP DATABASE waits for
// other sessions to go.
constexpr long kIdleExitMs = 2000;
constexpr long kMaxBackoffMs = 5000;
// Async decisions do not wake the writer: it collects them this often (the manual's "about a
// second" of async loss is an upper bound).
constexpr long kAsyncPollMs = 100;
// A standby's writer looks less often: each batch it forwards is a call and a commit on the
// primary, and a commit its standbys replay.
constexpr long kForwardPollMs = 200;

// The served database's name, for the server log (read once, in a transaction, at connection).
char served_database_name[NAMEDATALEN] = "";

void writer_loop(Oid database) {
    DatabaseQueue *queue = pg_guard([&] { return audit_worker_attach(database); });
    if (!queue) return;  // another writer serves this database
    std::vector<char> buffer(Max(audit_ring_size(), uint64(4 * 1024 * 1024)));
    WriterState state;
    long backoff = 0;
    TimestampTz last_work = pg_guard([] { return GetCurrentTimestamp(); });
    for (;;) {
        // A standby's writer forwards to the primary, and stays (connected) when idle; once the
        // server is promoted it writes here what is still queued and what comes next.
        bool forwarding = pg_guard([] { return RecoveryInProgress(); });
        if (!forwarding) forward_close();
        bool replayed = forwarding || replay_step(queue);
        long written = forwarding ? forward(queue, buffer) : drain(state, queue, buffer);
        if (ShutdownRequestPending) {
            if (forwarding) forward_before_exit(queue, buffer);
            return;
        }
        TimestampTz now = pg_guard([] { return GetCurrentTimestamp(); });
        if (written != 0) last_work = now;
        // Forwarding backs off by itself (pg/replica/forward.cpp): a sync decision's latch set
        // finds the primary as soon as it is back.
        backoff = written < 0 && !forwarding ? Min(Max(backoff * 2, 100L), kMaxBackoffMs) : 0;
        if (written == 0 && !forwarding &&
            TimestampDifferenceExceeds(last_work, now, kIdleExitMs) &&
            pg_guard([&] { return audit_worker_release_if_idle(queue, served_database_name); }))
            return;
        long timeout = backoff ? backoff : forwarding ? kForwardPollMs : kAsyncPollMs;
        if (!replayed && !backoff) timeout = 1;  // a replay goes on at once
        // More than audit_wake_bytes() pending (a quarter of the queue, half when forwarding): the
        // backends woke the writer once, when it filled that far (audit_submit), so it goes on at
        // once rather than wait to be woken again.
        if (written > 0 && audit_pending_bytes(queue) > audit_wake_bytes(forwarding)) timeout = 0;
        pg_guard([&] { (void)worker_wait(0, PGINVALID_SOCKET, timeout); });
    }
}

// A reserved writer waits, holding its worker slot, until a backend asks it to serve a
// database; InvalidOid when asked to stop first.
Oid wait_for_request(int index) {
    for (;;) {
        Oid database = audit_reserved_take_request(index);
        if (database != InvalidOid || ShutdownRequestPending) return database;
        (void)worker_wait(0, PGINVALID_SOCKET, -1L);
    }
}

// What a reserved writer took, for its exit callback.
int reserved_index = -1;
Oid reserved_database = InvalidOid;

void leave_reserved(int, Datum) {
    audit_reserved_leave(reserved_index, reserved_database);
}

}  // namespace

void register_reserved_writers() {
    for (int i = 0; i < audit_reserved_writers(); ++i) {
        BackgroundWorker worker;
        memset(&worker, 0, sizeof(worker));
        worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
        worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
        // Restarted at once after it leaves (exit code 1): the slot stays ours.
        worker.bgw_restart_time = 0;
        snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_clarify");
        snprintf(worker.bgw_function_name, BGW_MAXLEN, "clarify_reserved_writer_main");
        snprintf(worker.bgw_name, BGW_MAXLEN, "pg_clarify audit writer %d", i + 1);
        snprintf(worker.bgw_type, BGW_MAXLEN, "pg_clarify audit writer");
        worker.bgw_main_arg = Int32GetDatum(i);
        RegisterBackgroundWorker(&worker);
    }
}

}  // namespace clarify::pg

// SIGTERM (shutdown, pg_terminate_backend): finish what is queued, then leave. A commit waiting
// for a synchronous standby that does not answer is given up as a backend's is (the batch stays
// committed locally; PostgreSQL warns that it may not have reached the standby), so a fast
// shutdown is not held up by it.
static void clarify_audit_writer_sigterm(SIGNAL_ARGS) {
    int save_errno = errno;
    ShutdownRequestPending = true;
    if (clarify::pg::in_commit) {
        ProcDiePending = true;
        InterruptPending = true;
    }
    SetLatch(MyLatch);
    errno = save_errno;
}

// SIGINT (pg_cancel_backend): as for any backend, and noted when it falls in a commit.
static void clarify_audit_writer_sigint(SIGNAL_ARGS) {
    if (clarify::pg::in_commit) clarify::pg::cancel_in_commit = 1;
    StatementCancelHandler(postgres_signal_arg);
}

static void clarify_writer_setup() {
    clarify::pg::mark_audit_writer();
#ifdef __GLIBC__
    // A batch's arrays, its tuple and TOAST's buffers are a few hundred kB each, above glibc's
    // mmap threshold: every batch would map them afresh and fault their pages in. Kept on the
    // heap and reused instead; a writer leaves when idle.
    mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
#endif
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, clarify_audit_writer_sigterm);
    pqsignal(SIGINT, clarify_audit_writer_sigint);
    BackgroundWorkerUnblockSignals();
}

static void clarify_writer_serve(Oid database) {
    BackgroundWorkerInitializeConnectionByOid(database, InvalidOid, 0);
    // Everything the writer runs resolves in pg_catalog or names its schema.
    SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
    StartTransactionCommand();
    const char *name = get_database_name(database);
    strlcpy(clarify::pg::served_database_name, name ? name : "(dropped)",
            sizeof(clarify::pg::served_database_name));
    CommitTransactionCommand();
    clarify::pg::cpp_entry([&] { clarify::pg::writer_loop(database); });
}

// A dynamic writer, started by a backend for its database when no reserved writer serves its
// queue; never restarted.
void clarify_audit_writer_main(Datum arg) {
    clarify_writer_setup();
    clarify_writer_serve(DatumGetObjectId(arg));
    proc_exit(0);
}

// A reserved writer. It always leaves with exit code 1, which the postmaster answers by starting
// it again (exit code 0 would unregister it and free its slot).
void clarify_reserved_writer_main(Datum arg) {
    clarify::pg::reserved_index = DatumGetInt32(arg);
    clarify_writer_setup();
    before_shmem_exit(clarify::pg::leave_reserved, 0);
    Oid database = clarify::pg::wait_for_request(clarify::pg::reserved_index);
    clarify::pg::reserved_database = database;
    if (database != InvalidOid) clarify_writer_serve(database);
    proc_exit(1);
}
