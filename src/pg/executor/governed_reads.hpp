// Which governed columns a statement reads: from its range table or its plan's read set, and the
// per-plan cache that lets a prepared statement run over and over be traced once per catalog.
#pragma once

#include "pg/pg.hpp"
#include "core/model/catalog.hpp"
#include "core/decide/decision.hpp"
#include "core/decide/segments.hpp"
#include "pg/plan/read_set.hpp"

#include <memory>
#include <vector>

namespace clarify::pg {

using GovernedReads = std::vector<const GovernedColumn *>;

struct TimeQuals;
struct EntityQuals;

// What a plan reads, how it aggregates it and its conditions on time columns: computed once per
// plan, cached together.
struct PlanFacts {
    GovernedReads read;
    std::vector<AggregateUse> aggregates;   // over governed columns (pg/plan/grain/walk.hpp)
    const TimeQuals *time = nullptr;        // in the plan's memory context; nullptr: none scanned
    const EntityQuals *entities = nullptr;  // likewise (pg/plan/entity/); nullptr: no name filtered
    SegmentFacts segments;                  // pg/plan/segment/scans.hpp
};

// Which range table entries are governed relations or have segments; nullptr when none is (the
// common case).
bool *watched_entries(const Catalog &catalog, List *range_table);
// The governed columns among reads, and among what a plan reads (traced from its output).
GovernedReads governed_reads(const Catalog &catalog, ReadSet reads);
// The governed columns a plan reads and its aggregates over them (not its time conditions).
PlanFacts plan_facts(const Catalog &catalog, PlannedStmt *stmt);
// plan_facts, with the time conditions, through the plan cache; nullptr when the plan touches no
// governed relation.
std::shared_ptr<const PlanFacts> cached_plan_facts(const std::shared_ptr<const Catalog> &catalog,
                                                   PlannedStmt *stmt);

}  // namespace clarify::pg
