// State shared by all backends: decision identifiers and the audit queue.
#pragma once

#include "pg.hpp"

namespace clarify::pg {

void install_shared_memory();

// Unique across backends and restarts: seconds since 2020 at startup, shifted, plus a counter.
uint64 next_decision_id();

}  // namespace clarify::pg
