// Proofs that a join does not repeat one side's rows, from the plan and the database: semi and
// anti joins, the planner's inner_unique, and the other side unique on the join's equality keys
// (unique index or primary key, declared key, grouping, DISTINCT, at most one row). Internal to
// grain_walk.cpp and grain_proof.cpp.
#pragma once

#include "pg.hpp"
#include "grain_walk.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
}

namespace clarify::pg::grain {

struct Proofs {
    PlannedStmt *stmt;
    DeclaredKeyFn declared;
    void *declared_context;
    List *known;             // JoinProof *: joins already decided, per side
    Bitmapset *loop_params;  // PARAM_EXEC ids a nested loop sets: they vary per outer row
    int budget;              // steps left before a proof gives up (unproven)
};

// Whether `join` can return a row of the side the rows come from (outer or inner) more than once.
bool join_repeats(Proofs *p, Plan *join, bool from_outer);

// The columns of the relation `scan` reads that its quals fix to one value for the whole
// execution (constants, statement parameters, initplan results).
Bitmapset *scan_single_valued(Proofs *p, Scan *scan);

// The base column a Var evaluated at `scan` stands for (0 when none).
AttrNumber scan_column(Scan *scan, Var *var);

// Whether `attnums` cover a unique key of `relid` (index, primary key or declared key).
bool unique_key(Proofs *p, Oid relid, Bitmapset *attnums);

bool is_join(const Plan *plan);
bool is_relation_scan(const Plan *plan);

// The plan of CTE or subplan plan_id; nullptr when out of range.
Plan *subplan_of(PlannedStmt *stmt, int plan_id);

}  // namespace clarify::pg::grain
