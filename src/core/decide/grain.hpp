// Grain (docs/reference.md, "Grain"): whether the statement's aggregates over governed metrics
// give a true number. Fan-out (a join repeats the measure's rows) and additivity (the aggregate
// the measure's definition allows) become GRAIN slots that tell the agent how to rewrite.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/decision.hpp"

#include <string>
#include <vector>

namespace clarify {

namespace detail {
class Rules;
}

// Whether repeating the rows an aggregate reads cannot change its result: min, max, bool_and,
// bool_or, every and count(DISTINCT ...) of PostgreSQL's own; sum(DISTINCT ...) is not (two
// equal amounts are two amounts).
bool duplicate_insensitive(const AggregateUse &use);

// A relation's name as a business noun: "sales.order_lines" -> "order line".
std::string spoken_relation(const std::string &relation);

// The GRAIN slots of a statement's aggregates. A column's concept is the one `covered` resolved
// it to, else its first metric; aggregates over dimensions are never a grain problem.
std::vector<Slot> grain_slots(const Catalog &catalog, const detail::Rules &rules,
                              const std::vector<AggregateUse> &aggregates,
                              const std::vector<Coverage> &covered);

}  // namespace clarify
