// What a decision's audit came to, in words: the audit_outcome of last_decision() and the
// QC005 refusal's reason and HINT (pg/executor/decision_path.cpp).
#pragma once

#include "pg/audit/queue.hpp"

namespace clarify::pg {

// How the decision's audit entry fared ("committed", "queued", or why it was not).
const char *audit_outcome(SubmitResult result);
// What the DBA can change when a decision found no queue or no writer; empty otherwise.
const char *capacity_hint(SubmitResult result);

}  // namespace clarify::pg
