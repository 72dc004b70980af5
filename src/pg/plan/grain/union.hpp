// Set operations that repeat a measure's rows: UNION ALL branches reading the same column, unless
// a whole-row DISTINCT above them (UNION, INTERSECT, EXCEPT) merges the copies.
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/grain/walk.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

namespace clarify::pg::grain {

// The Append below `plan` whose rows `plan` deduplicates whole (UNION's HashAggregate or Unique,
// INTERSECT/EXCEPT's SetOp), through sorts and gathers; nullptr when there is none.
Plan *merged_append(Plan *plan);

// Gives every fact found in two branches of an Append (facts[first, ends[branches - 1]), branch
// i ending at ends[i]) for the same column of the same relation: each is read again (`branches`).
void mark_repeated_branches(AggregateFact *facts, int first, const int *ends, int branches);

// Removes the facts of facts[first, end) equal to an earlier one there (same column, aggregate,
// joins and single-valued columns), keeping the order; returns the new end.
int drop_duplicate_facts(AggregateFact *facts, int first, int end);

}  // namespace clarify::pg::grain
