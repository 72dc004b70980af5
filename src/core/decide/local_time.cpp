#include "core/decide/local_time.hpp"

namespace clarify {

namespace {
constexpr Timestamp kDay = 86400LL * 1000000LL;
}

std::int64_t days_from_civil(int year, int month, int day) {
    // Howard Hinnant's days_from_civil: eras of 400 years from 0000-03-01.
    std::int64_t y = year - (month <= 2 ? 1 : 0);
    std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    std::int64_t yoe = y - era * 400;
    std::int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

LocalTime civil_from_days(std::int64_t days) {
    std::int64_t z = days + 719468;
    std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    std::int64_t doe = z - era * 146097;
    std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    std::int64_t mp = (5 * doy + 2) / 153;
    LocalTime t;
    t.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    t.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    t.year = static_cast<int>(yoe + era * 400 + (t.month <= 2 ? 1 : 0));
    return t;
}

LocalTime local_time(const ZoneClock *clock, Timestamp unix_micros, const std::string &zone) {
    if (clock) return clock->local(unix_micros, zone);
    std::int64_t days = unix_micros / kDay, rest = unix_micros % kDay;
    if (rest < 0) {
        rest += kDay;
        --days;
    }
    LocalTime t = civil_from_days(days);
    t.micros_of_day = rest;
    return t;
}

std::int64_t first_day_at_or_after(const LocalTime &local) {
    return days_from_civil(local.year, local.month, local.day) + (local.micros_of_day ? 1 : 0);
}

}  // namespace clarify
