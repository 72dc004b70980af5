// Periods as people read them (docs/reference.md, "Units and time zones"): a half-open range
// whose sides fall on midnights reads as days with its last day included ("1 Jul – 30 Sep
// 2026"); any other reads as times, the end said to be excluded. JSON keeps the instants.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/local_time.hpp"
#include "core/decide/time_range.hpp"

#include <optional>
#include <string>

namespace clarify {

// A range's sides as one zone's clock shows them (absent: open).
struct LocalRange {
    std::optional<LocalTime> start, end;
};

LocalRange local_range(const TimeRange &range, const ZoneClock *clock, const std::string &zone);

// "1 Jul – 30 Sep 2026", "1 Dec 2025 – 28 Feb 2026", "1 Mar 2026", "from 1 Jul 2026",
// "until 30 Sep 2026", "1 Jul 2026 13:00 – 1 Oct 2026 13:00, end excluded",
// "from 1 Jul 2026 13:00", "before 1 Oct 2026 13:00", "all time".
std::string period_text(const LocalRange &range);

// The same after a verb: "over 1 Jul – 30 Sep 2026", "from 1 Jul 2026", "over all time".
std::string period_phrase(const LocalRange &range);

}  // namespace clarify
