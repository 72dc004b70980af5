// Counting a question's clarification rounds (docs/reference.md, "Clarification budget"): only
// on the rejection path, from the audit and the queue (src/pg/audit/queued_rounds.hpp); the
// rules are in src/core/decide/budget.hpp.
#pragma once

#include "pg/pg.hpp"
#include "core/decide/decision.hpp"

#include <optional>
#include <string>

namespace clarify::pg {

// The rounds of `decision` under pg_clarify.max_rounds when it asks one (AMBIGUOUS, with a
// question_id): its question's earlier rounds in this database's audit, materialised or
// queued, plus one. Nothing (and nothing read) otherwise.
std::optional<Rounds> rounds_for(const Decision &decision, const std::string &question_id);

}  // namespace clarify::pg
