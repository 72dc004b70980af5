// The clarification budget's view of the audit queue (docs/reference.md, "Clarification
// budget"): the decisions of this database queued and not yet committed by its writer still
// count as their question's rounds.
#pragma once

#include "pg/pg.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace clarify::pg {

// The ids of the decisions queued for `database` and not yet committed (on a standby: not yet
// acknowledged by the primary) that are rounds of `question_id`: rejected, AMBIGUOUS. Read
// before the audit is, so that a decision committed meanwhile is in one or both (never neither).
std::vector<std::uint64_t> queued_round_ids(Oid database, const std::string &question_id);

}  // namespace clarify::pg
