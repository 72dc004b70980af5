// One batch of the audit queue written to the audit's tables in one transaction, and the
// draining of a queue batch by batch under the writer's retry policy (core/audit/retry.hpp).
// The rows are built by the core (core/audit/batch_rows.hpp); this file makes the SPI calls and
// the commit.
#pragma once

#include "pg/pg.hpp"
#include "pg/audit/queue.hpp"
#include "core/audit/record.hpp"
#include "core/audit/retry.hpp"
#include "core/audit/writer_cache.hpp"

#include <csignal>
#include <vector>

namespace clarify::pg {

// A batch's commit is under way / a cancel request arrived during it: read by the writer's
// signal handlers (pg/audit/writer.cpp).
extern volatile sig_atomic_t in_commit;
extern volatile sig_atomic_t cancel_in_commit;

// What a writer keeps from batch to batch (pg/audit/writer.cpp holds one for its life).
struct WriterState {
    WriterCache cache;
    RetryPolicy retry;
    // The last batch written was committed without its synchronous standby's confirmation.
    bool unconfirmed = false;
    // The batch being written: views into the ring (or the peek buffer), valid until committed,
    // and where each entry's frame ends. Kept to reuse their memory.
    std::vector<AuditView> batch;
    std::vector<uint64> ends;
};

// Drains what is queued now: the number of decisions written, or -1 when writing failed (what
// failed stays queued; the caller backs off).
long drain(WriterState &state, DatabaseQueue *queue, std::vector<char> &buffer);

// Writes a batch a standby forwarded (clarify.audit_ingest()) with the writer's code, inside the
// caller's transaction: its commit makes the batch durable.
void write_forwarded(const std::vector<AuditView> &batch);

}  // namespace clarify::pg
