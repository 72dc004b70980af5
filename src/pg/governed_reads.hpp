// Which governed columns a statement reads: from its range table or its plan's read set, and the
// per-plan cache that lets a prepared statement run over and over be traced once per catalog.
#pragma once

#include "pg.hpp"
#include "catalog.hpp"
#include "read_set.hpp"

#include <memory>
#include <vector>

namespace clarify::pg {

using GovernedReads = std::vector<const GovernedColumn *>;

// Which range table entries are governed relations; nullptr when none is (the common case).
bool *watched_entries(const Catalog &catalog, List *range_table);
// The governed columns among reads, and among what a plan reads (traced from its output).
GovernedReads governed_reads(const Catalog &catalog, ReadSet reads);
GovernedReads plan_governed_reads(const Catalog &catalog, PlannedStmt *stmt);
struct TimeQuals;

// What the gate needs of one plan: the governed columns it reads (nullptr when it touches no
// governed relation) and its conditions on time columns (nullptr when it scans none).
struct PlanFacts {
    std::shared_ptr<const GovernedReads> read;
    const TimeQuals *time = nullptr;
};

// plan_governed_reads and find_time_quals through the plan cache.
PlanFacts cached_plan_facts(const std::shared_ptr<const Catalog> &catalog, PlannedStmt *stmt);

}  // namespace clarify::pg
