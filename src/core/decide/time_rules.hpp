// The time rules of one request: a dated measure's range against the time window the record
// binds, or against its policy when none is bound (docs/reference.md, "Time ranges and impact").
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/rules.hpp"

#include <optional>

namespace clarify::detail {

// Checks the period of `column` read as `concept_id` under `policy`. Returns the failing slot;
// otherwise records the range read (and the window bound) in `coverage` when one is given.
std::optional<Slot> check_period(const Catalog &catalog, const Rules &rules,
                                 const ResolutionRecord &record, const TimeFacts &facts,
                                 const GovernedColumn &column, const TimePolicy &policy,
                                 const std::string &concept_id, Coverage *coverage);

}  // namespace clarify::detail
