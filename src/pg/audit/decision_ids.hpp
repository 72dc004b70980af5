// Decision ids: unique across backends and server starts, increasing within a backend.
#pragma once

#include "pg/pg.hpp"

namespace clarify::pg {

// Where the counter starts at each start of shared memory: the microseconds since 2020-01-01,
// shifted left by 12 bits.
uint64 first_decision_id();
uint64 next_decision_id();

}  // namespace clarify::pg
