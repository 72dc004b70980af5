// The relations a plan node reads rows from, named in a grain fact's `via`
// (pg/plan/grain/walk.cpp): computed once per node, so a CTE under many references is not walked
// again.
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

namespace clarify::pg::grain {

constexpr int kRelationsNamed = 8;  // relations named per fact

// Adds to out[0, *n) the relations scanned under `plan` (partitions as their partitioned table)
// not there yet, in the order a walk from `plan` meets them, until *n reaches `room` (at most
// kRelationsNamed). `memo` keeps what each node was found to read.
void relations_under(PlannedStmt *stmt, walk_budget::Memo *memo, Plan *plan, Oid *out, int *n,
                     int room);

}  // namespace clarify::pg::grain
