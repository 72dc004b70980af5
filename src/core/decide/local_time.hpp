// Instants as a zone's clock shows them. The core knows no time zones: the glue's ZoneClock
// (pg/executor/zone_clock.cpp) reads them from PostgreSQL; without one, instants read in UTC.
#pragma once
#include "core/core_guard.hpp"
#include "core/model/model.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace clarify {

// A calendar day and the time of day on it, in one zone.
struct LocalTime {
    int year = 1970, month = 1, day = 1;
    std::int64_t micros_of_day = 0;  // 0: the day's midnight
    bool operator==(const LocalTime &o) const {
        return year == o.year && month == o.month && day == o.day &&
               micros_of_day == o.micros_of_day;
    }
};

class ZoneClock {
  public:
    virtual ~ZoneClock() = default;
    // `unix_micros` in `zone` (an IANA name; "" for the session's TimeZone).
    virtual LocalTime local(Timestamp unix_micros, const std::string &zone) const = 0;
};

// Days since 1970-01-01 of a civil date (proleptic Gregorian), and back.
std::int64_t days_from_civil(int year, int month, int day);
LocalTime civil_from_days(std::int64_t days);

// The instant in `zone` on `clock`; in UTC when there is no clock.
LocalTime local_time(const ZoneClock *clock, Timestamp unix_micros, const std::string &zone);

// The first day whose midnight in the zone is at or after the instant, as days since the epoch:
// a date column's rows from that instant on (dates compared in the zone, §16).
std::int64_t first_day_at_or_after(const LocalTime &local);

}  // namespace clarify
