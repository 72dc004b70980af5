#include "pg/pg.hpp"
#include "pg/executor/zone_clock.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "datatype/timestamp.h"
#include "pgtime.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
}

namespace clarify::pg {

namespace {

constexpr int64 kUnixShift = int64(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

class PostgresZoneClock final : public ZoneClock {
  public:
    LocalTime local(clarify::Timestamp unix_micros, const std::string &zone) const override {
        struct Fields {
            bool ok;
            int year, month, day;
            int64 micros;
        };
        const char *name = zone.c_str();
        Fields f = pg_guard([&] {
            Fields out{};
            // A zone the server no longer knows: pg/catalog/time_windows.cpp refused its window
            // already; its days read in the session's zone rather than fail the rendering.
            pg_tz *tz = *name ? pg_tzset(name) : nullptr;
            struct pg_tm tm;
            fsec_t fsec = 0;
            int offset = 0;
            out.ok = timestamp2tm(unix_micros - kUnixShift, &offset, &tm, &fsec, nullptr,
                                  tz ? tz : session_timezone) == 0;
            if (out.ok) {
                out.year = tm.tm_year;
                out.month = tm.tm_mon;
                out.day = tm.tm_mday;
                out.micros =
                    ((int64(tm.tm_hour) * 60 + tm.tm_min) * 60 + tm.tm_sec) * USECS_PER_SEC + fsec;
            }
            return out;
        });
        // Out of PostgreSQL's range: read in UTC, as the core does without a clock.
        if (!f.ok) return local_time(nullptr, unix_micros, "UTC");
        LocalTime t;
        t.year = f.year;
        t.month = f.month;
        t.day = f.day;
        t.micros_of_day = f.micros;
        return t;
    }
};

const PostgresZoneClock clock_instance;

}  // namespace

const ZoneClock &zone_clock() {
    return clock_instance;
}

std::string session_zone_name() {
    const char *name = pg_guard([] { return pg_get_timezone_name(session_timezone); });
    return name ? name : "";
}

}  // namespace clarify::pg
