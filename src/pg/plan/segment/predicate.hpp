// A segment's predicate as an expression tree (docs/reference.md, "Segments"): parsed as the
// WHERE clause of one scan of its relation, and the conditions compared with a scan's.
// Plain C-style routines: call them inside pg_guard.
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
}

namespace clarify::pg::segment {

// Parses `predicate` as `SELECT 1 FROM relation WHERE (predicate)` with pg_catalog first on the
// search path, without running it; raises unless it reads that relation's columns only, without
// subquery, aggregate or volatile function. Returns the analysed clause (Vars of range table
// entry 1).
Node *parse_predicate(Oid relation, const char *predicate);

// The ANDed conjuncts of an analysed clause as the planner would keep them: constant-folded,
// AND/OR flattened, each normalised (normal_condition).
List *conjuncts(Node *clause);

// A copy of `condition` compared apart from its scan: its Vars of range table entry `varno`
// renumbered 1 (other names and nulling cleared), a comparison with the column on the right
// commuted; nullptr when it reads another relation's Var or an outer query's.
Node *normal_condition(Node *condition, Index varno);

}  // namespace clarify::pg::segment
