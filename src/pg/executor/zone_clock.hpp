// The core's ZoneClock (core/decide/local_time.hpp) read from PostgreSQL's time zone data: the
// session's TimeZone, or a window's window_time_zone (docs/reference.md, "Units and time zones").
#pragma once

#include "pg/pg.hpp"
#include "core/decide/local_time.hpp"

#include <string>

namespace clarify::pg {

// The clock (one per backend); its local() may throw a PgError, as pg_guard does.
const ZoneClock &zone_clock();

// The session's TimeZone as PostgreSQL names it. PostgreSQL level.
std::string session_zone_name();

}  // namespace clarify::pg
