// Units (docs/reference.md, "Units and time zones"): an aggregate of a measure whose rows carry
// their unit in a column must not mix units. The snapshot rule of src/core/decide/grain.cpp on
// another column, with one more condition: scans fixing the column must fix it to one value.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/decision.hpp"

#include <optional>
#include <string>
#include <vector>

namespace clarify {

// The unit slot of `use` (an aggregate reading `column` as `concept`), given every aggregate use
// of the statement: allowed when it groups by the unit column of the scan it aggregates, or every
// scan of the measure reaching it fixes that column to one and the same value; count and
// count(DISTINCT ...) never mix units.
std::optional<Slot> unit_slot(const Concept &concept, const std::string &term,
                              const GovernedColumn &column, const AggregateUse &use,
                              const std::vector<AggregateUse> &all, const Catalog &catalog);

// "Booked revenue (EUR)": a concept's label with its fixed unit, as people read it.
std::string label_with_unit(const Concept &concept);

}  // namespace clarify
