// Which governed columns a statement reads: from its range table or its plan's read set, and the
// per-plan cache that lets a prepared statement run over and over be traced once per catalog.
#pragma once

#include "pg.hpp"
#include "catalog.hpp"
#include "decision.hpp"
#include "read_set.hpp"

#include <memory>
#include <vector>

namespace clarify::pg {

using GovernedReads = std::vector<const GovernedColumn *>;

// What a plan reads and how it aggregates it: both computed once per plan, cached together.
struct PlanFacts {
    GovernedReads read;
    std::vector<AggregateUse> aggregates;  // over governed columns (grain_walk.hpp)
};

// Which range table entries are governed relations; nullptr when none is (the common case).
bool *watched_entries(const Catalog &catalog, List *range_table);
// The governed columns among reads, and among what a plan reads (traced from its output).
GovernedReads governed_reads(const Catalog &catalog, ReadSet reads);
PlanFacts plan_facts(const Catalog &catalog, PlannedStmt *stmt);
// plan_facts through the plan cache; nullptr when the plan touches no governed relation.
std::shared_ptr<const PlanFacts> cached_plan_facts(const std::shared_ptr<const Catalog> &catalog,
                                                   PlannedStmt *stmt);

}  // namespace clarify::pg
