// A statement's range on each dated measure's time column, read from the conditions on the
// scans of its relation (docs/reference.md, "Time ranges and impact"). Finding the conditions is
// done once per plan; their values are evaluated per execution, with the parameters bound.
// Node-type specifics sit in small functions in pg/plan/time_quals.cpp (ported per PostgreSQL
// version).
#pragma once

#include "pg/pg.hpp"
#include "core/decide/decision.hpp"

extern "C" {
#include "nodes/params.h"
#include "nodes/plannodes.h"
}

namespace clarify::pg {

// The conditions of one plan on time columns: palloc'd in the plan's memory context, so they
// live exactly as long as the plan whose expressions they point into.
struct TimeQuals;

// Finds the conditions on every scan of a relation that has a dated measure (PostgreSQL level;
// nullptr when the plan scans none).
TimeQuals *find_time_quals(const Catalog &catalog, PlannedStmt *stmt);

// The range of every time column scanned, evaluated now. `params`: the execution's bound
// parameters (nullptr: a parameter restricts nothing). Only built-in functions are evaluated, so
// clarify.check() runs no one's code.
std::vector<std::pair<ColumnKey, TimeRange>> evaluate_time_quals(const TimeQuals *quals,
                                                                 ParamListInfo params);

// The scanned time columns of type date (dates compared in a window's zone, §16).
std::vector<ColumnKey> date_columns_of(const TimeQuals *quals);

}  // namespace clarify::pg
