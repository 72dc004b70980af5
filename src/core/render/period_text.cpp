#include "core/render/period_text.hpp"

#include <cstdio>

namespace clarify {

namespace {

// Fixed English abbreviations, whatever the server's locale.
const char *const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::int64_t kSecond = 1000000;

std::string day_text(const LocalTime &t, bool with_year = true) {
    std::string out = std::to_string(t.day) + " " + kMonths[(t.month + 11) % 12];
    return with_year ? out + " " + std::to_string(t.year) : out;
}

// "1 Jul 2026 13:00"; seconds and their fraction only when not zero, so that a side a second
// past midnight never reads as midnight.
std::string moment_text(const LocalTime &t) {
    const std::int64_t secs = t.micros_of_day / kSecond, frac = t.micros_of_day % kSecond;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60));
    std::string out = day_text(t) + " " + buf;
    if (secs % 60 || frac) {
        std::snprintf(buf, sizeof buf, ":%02lld", static_cast<long long>(secs % 60));
        out += buf;
    }
    if (frac) {
        std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(frac));
        std::string digits = buf;
        digits.erase(digits.find_last_not_of('0') + 1);
        out += digits;
    }
    return out;
}

bool at_midnight(const std::optional<LocalTime> &t) {
    return !t || t->micros_of_day == 0;
}

std::int64_t day_number(const LocalTime &t) {
    return days_from_civil(t.year, t.month, t.day);
}

}  // namespace

LocalRange local_range(const TimeRange &range, const ZoneClock *clock, const std::string &zone) {
    LocalRange out;
    if (range.start) out.start = local_time(clock, *range.start, zone);
    if (range.end) out.end = local_time(clock, *range.end, zone);
    return out;
}

std::string period_text(const LocalRange &r) {
    if (!r.start && !r.end) return "all time";
    if (at_midnight(r.start) && at_midnight(r.end)) {
        if (!r.end) return "from " + day_text(*r.start);
        // The day before the excluded end's midnight: the last day the range includes.
        const LocalTime last = civil_from_days(day_number(*r.end) - 1);
        if (!r.start) return "until " + day_text(last);
        const std::int64_t first = day_number(*r.start), final_day = day_number(last);
        if (final_day == first) return day_text(last);
        if (final_day > first)
            return day_text(*r.start, r.start->year != last.year) + " \u2013 " + day_text(last);
    }
    if (!r.end) return "from " + moment_text(*r.start);
    if (!r.start) return "before " + moment_text(*r.end);
    return moment_text(*r.start) + " \u2013 " + moment_text(*r.end) + ", end excluded";
}

std::string period_phrase(const LocalRange &r) {
    const std::string text = period_text(r);
    return r.start.has_value() == r.end.has_value() ? "over " + text : text;
}

}  // namespace clarify
