// While a gated statement that scans a dated measure runs (or its cursor stays open), the session's
// TimeZone cannot change: the scans would read the period in another zone than the gate did.
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "nodes/execnodes.h"
}

namespace clarify::pg {

// Wraps TimeZone's check and assign hooks (at library load).
void install_time_zone_hold();

// Holds TimeZone until `estate` is freed: the statement ends, its cursor closes, or it aborts.
void hold_time_zone(EState *estate);

}  // namespace clarify::pg
