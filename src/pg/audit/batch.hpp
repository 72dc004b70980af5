// One batch of the audit queue written to the audit's tables in one transaction, and the
// draining of a queue batch by batch: what the writer stored and published, its retries, and the
// reduced row of a decision that cannot be written whole.
#pragma once

#include "pg/pg.hpp"
#include "pg/audit/queue.hpp"
#include "core/audit/record.hpp"

#include <csignal>
#include <vector>

namespace clarify::pg {

// A batch's commit is under way / a cancel request arrived during it: read by the writer's
// signal handlers (pg/audit/writer.cpp).
extern volatile sig_atomic_t in_commit;
extern volatile sig_atomic_t cancel_in_commit;

// Drains what is queued now: the number of decisions written, or -1 when writing failed (what
// failed stays queued; the caller backs off).
long drain(AuditSlot *slot, std::vector<char> &buffer);

// Writes a batch a standby forwarded (clarify.audit_ingest()) with the writer's code, inside the
// caller's transaction: its commit makes the batch durable.
void write_forwarded(const std::vector<AuditView> &batch);

}  // namespace clarify::pg
