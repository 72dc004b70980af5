// The retention keeper: one background worker for the server. It holds the extension's
// replication slot, so the WAL from the oldest sync decision not yet materialised on is kept;
// at server start it finds the databases whose decisions the WAL holds from before and has their
// writers replay them; it replaces a writer that left with entries queued.
#include "pg/pg.hpp"
#include "pg/audit/retention.hpp"
#include "core/audit/protocol.hpp"
#include "pg/audit/queue.hpp"
#include "pg/audit/queue_layout.hpp"
#include "pg/audit/recovery.hpp"
#include "pg/audit/wal.hpp"
#include "pg/boundary.hpp"
#include "pg/worker_wait.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "replication/slot.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"

PGDLLEXPORT void clarify_audit_keeper_main(Datum arg);
}

#include <cstring>
#include <set>

namespace clarify::pg {
namespace {

// How often the slot follows the writers and missing writers are replaced.
constexpr long kKeeperPollMs = 100;

// The oldest WAL position a queued, unmaterialised sync decision may lie at; nothing moves while
// a database's replay is pending (its decisions lie before every mark).
XLogRecPtr retention_floor(bool *frozen) {
    XLogRecPtr insert = audit_wal_insert_position();
    XLogRecPtr floor = insert;
    *frozen = pg_atomic_read_u32(&queues->recovery_assigned) == 0;
    for (int i = 0; i < queues->nqueues; ++i) {
        DatabaseQueue *queue = &queues->queues[i];
        LWLockAcquire(queue->lock, LW_SHARED);
        floor = Min(floor, oldest_floor(queue->marks, marks_of(queue), insert));
        if (queue->recover_pending) *frozen = true;
        LWLockRelease(queue->lock);
    }
    return floor;
}

// A writer that left (or died) with entries queued or a replay pending is replaced now, not at
// the next decision of its database.
void replace_writers() {
    for (int i = 0; i < queues->nqueues; ++i) {
        DatabaseQueue *queue = &queues->queues[i];
        LWLockAcquire(queue->lock, LW_SHARED);
        Oid database = queue->database;
        bool orphaned = database != InvalidOid && queue->writer_pid == 0 && !queue_drained(queue);
        LWLockRelease(queue->lock);
        if (orphaned) (void)start_writer(queue, database);
    }
}

// Gives each database found in the WAL a queue marked for replay; those that found no free queue
// stay in `waiting` for the next round.
void assign_replays(std::set<Oid> &waiting) {
    for (auto it = waiting.begin(); it != waiting.end();) {
        DatabaseQueue *queue = find_queue(*it, true);
        if (!queue) {
            ++it;
            continue;
        }
        LWLockAcquire(queue->lock, LW_EXCLUSIVE);
        bool mine = queue->database == *it;
        if (mine) queue->recover_pending = true;
        LWLockRelease(queue->lock);
        if (!mine) {
            ++it;
            continue;
        }
        (void)start_writer(queue, *it);
        it = waiting.erase(it);
    }
    if (waiting.empty()) pg_atomic_write_u32(&queues->recovery_assigned, 1);
}

void keeper_loop() {
    bool warned = false;
    for (;;) {
        try {
            pg_guard([] { audit_wal_hold_slot(); });
            break;
        } catch (const PgError &e) {
            // Sync decisions fail closed meanwhile (they wait for retention_ready).
            if (!warned) {
                std::string message = e.what();
                pg_guard([&] {
                    ereport(WARNING, (errmsg("pg_clarify cannot hold its replication slot: %s",
                                             message.c_str()),
                                      errhint("Sync audit needs wal_level replica or logical and "
                                              "a free max_replication_slots entry.")));
                });
                warned = true;
            }
        }
        pg_guard([] {
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000L,
                            PG_WAIT_EXTENSION);
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
        });
        if (ShutdownRequestPending) return;
    }
    std::set<Oid> waiting;
    pg_guard([&] {
        queues->keeper_latch = MyLatch;
        pg_atomic_write_u64(&queues->retained_from, audit_wal_slot_position());
        pg_atomic_write_u32(&queues->retention_ready, 1);
    });
    // Once per start of shared memory (a keeper restarted after an error must not replay twice).
    if (pg_atomic_read_u32(&queues->recovery_assigned) == 0) {
        uint64 from = pg_guard([] { return audit_wal_slot_position(); });
        queues->recover_from = from;
        waiting = databases_to_replay(from);
    }
    for (;;) {
        pg_guard([&] {
            if (pg_atomic_read_u32(&queues->recovery_assigned) == 0) assign_replays(waiting);
            bool frozen = false;
            XLogRecPtr floor = retention_floor(&frozen);
            XLogRecPtr at = audit_wal_slot_position();
            XLogRecPtr to = next_slot_position(at, floor, frozen);
            if (to != at) audit_wal_advance_slot(to);
            pg_atomic_write_u64(&queues->retained_from, audit_wal_slot_position());
            replace_writers();
            (void)worker_wait(0, PGINVALID_SOCKET, kKeeperPollMs);
        });
        if (ShutdownRequestPending) return;
    }
}

void keeper_exit(int, Datum) {
    if (queues && queues->keeper_latch == MyLatch) {
        queues->keeper_latch = nullptr;
        pg_atomic_write_u32(&queues->retention_ready, 0);
    }
    if (MyReplicationSlot) ReplicationSlotRelease();
}

}  // namespace

void register_audit_keeper() {
    BackgroundWorker worker;
    memset(&worker, 0, sizeof(worker));
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = 1;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_clarify");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "clarify_audit_keeper_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "pg_clarify audit keeper");
    snprintf(worker.bgw_type, BGW_MAXLEN, "pg_clarify audit keeper");
    RegisterBackgroundWorker(&worker);
}

}  // namespace clarify::pg

void clarify_audit_keeper_main(Datum) {
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    BackgroundWorkerUnblockSignals();
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    before_shmem_exit(clarify::pg::keeper_exit, 0);
    clarify::pg::cpp_entry([] { clarify::pg::keeper_loop(); });
    // Restarted by the postmaster (exit code 1) unless the server is stopping.
    proc_exit(1);
}
