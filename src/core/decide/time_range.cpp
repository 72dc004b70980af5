#include "core/decide/time_range.hpp"

#include <algorithm>
#include <cstdio>

namespace clarify {

CompareOp commuted(CompareOp op) {
    switch (op) {
        case CompareOp::Less:
            return CompareOp::Greater;
        case CompareOp::LessEqual:
            return CompareOp::GreaterEqual;
        case CompareOp::GreaterEqual:
            return CompareOp::LessEqual;
        case CompareOp::Greater:
            return CompareOp::Less;
        case CompareOp::Equal:
            break;
    }
    return op;
}

namespace {
void raise_start(TimeRange &r, Timestamp t) {
    if (!r.start || *r.start < t) r.start = t;
}
void lower_end(TimeRange &r, Timestamp t) {
    if (!r.end || *r.end > t) r.end = t;
}
}  // namespace

void restrict_range(TimeRange &range, const TimeCondition &c) {
    switch (c.op) {
        case CompareOp::Less:
            lower_end(range, c.at);
            break;
        case CompareOp::LessEqual:
            lower_end(range, c.next);
            break;
        case CompareOp::Equal:
            raise_start(range, c.at);
            lower_end(range, c.next);
            break;
        case CompareOp::GreaterEqual:
            raise_start(range, c.at);
            break;
        case CompareOp::Greater:
            raise_start(range, c.next);
            break;
    }
}

TimeRange hull(const TimeRange &a, const TimeRange &b) {
    TimeRange out;
    if (a.start && b.start) out.start = std::min(*a.start, *b.start);
    if (a.end && b.end) out.end = std::max(*a.end, *b.end);
    return out;
}

std::string format_instant(Timestamp micros) {
    // Days since the epoch, floored, then the civil date (proleptic Gregorian).
    constexpr Timestamp kDay = 86400LL * 1000000LL;
    Timestamp days = micros / kDay, rest = micros % kDay;
    if (rest < 0) {
        rest += kDay;
        --days;
    }
    long long z = days + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long y = yoe + era * 400;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long d = doy - (153 * mp + 2) / 5 + 1;
    long long m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) ++y;
    long long secs = rest / 1000000, frac = rest % 1000000;
    char buf[64];
    if (frac)
        std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%06lldZ", y, m, d,
                      secs / 3600, secs / 60 % 60, secs % 60, frac);
    else
        std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", y, m, d,
                      secs / 3600, secs / 60 % 60, secs % 60);
    return buf;
}

const char *to_string(Impact impact) {
    switch (impact) {
        case Impact::Low:
            return "low";
        case Impact::Medium:
            return "medium";
        case Impact::High:
            return "high";
    }
    return "high";
}

std::optional<Impact> parse_impact(const std::string &text) {
    if (text == "low") return Impact::Low;
    if (text == "medium") return Impact::Medium;
    if (text == "high") return Impact::High;
    return std::nullopt;
}

}  // namespace clarify
