// Decision ids: unique across backends and server starts, increasing within a backend.
#pragma once

#include "pg/pg.hpp"

namespace clarify::pg {

// Where the counter starts at each start of shared memory (core/audit/decision_id.hpp).
uint64 first_decision_id();
uint64 next_decision_id();

}  // namespace clarify::pg
