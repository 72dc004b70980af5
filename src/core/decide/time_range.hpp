// Time ranges as half-open intervals [start, end) of instants, and the impact of a term: the
// algebra the gate applies to a statement's conditions on a time column (docs/reference.md,
// "Time ranges and impact").
#pragma once
#include "core/core_guard.hpp"
#include "core/model/model.hpp"

#include <optional>
#include <string>

namespace clarify {

// Instants are microseconds since the Unix epoch (UTC); an empty side is open.
struct TimeRange {
    std::optional<Timestamp> start, end;
    bool bounded() const { return start.has_value() && end.has_value(); }
    bool operator==(const TimeRange &o) const { return start == o.start && end == o.end; }
    bool operator!=(const TimeRange &o) const { return !(*this == o); }
};

enum class CompareOp { Less, LessEqual, Equal, GreaterEqual, Greater };

// One condition `column OP value` on a time column. `at` is the value as an instant; `next` is
// the first instant after every value equal to it: the next midnight when the column side is a
// date (so `d <= x` counts as `d < x + 1`), the end of the unit for date_trunc(unit, col) = x,
// and at + 1 microsecond otherwise.
struct TimeCondition {
    CompareOp op = CompareOp::Equal;
    Timestamp at = 0;
    Timestamp next = 0;
};

// `value OP column` read as `column OP' value`.
CompareOp commuted(CompareOp op);

// Narrows `range` by one condition (conditions on a scan are ANDed).
void restrict_range(TimeRange &range, const TimeCondition &condition);

// The smallest range holding both (several scans of one relation: the statement reads the
// rows of either).
TimeRange hull(const TimeRange &a, const TimeRange &b);

// "2026-07-01T00:00:00Z" (fractional seconds only when not whole): JSON's instants. People read
// periods as core/render/period_text.hpp writes them.
std::string format_instant(Timestamp unix_micros);

// How much an ambiguity can change the answer; ordered (Low < Medium < High).
enum class Impact { Low, Medium, High };
const char *to_string(Impact impact);
std::optional<Impact> parse_impact(const std::string &text);

}  // namespace clarify
