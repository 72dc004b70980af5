// Subqueries in the grain trace (docs/reference.md, "Grain"): a SubPlan is evaluated once per row
// of the plan node holding it, from the outer values it is handed (parParam set from args). Its
// rows reach an outer aggregate once per such row unless each row of the measure's scan is
// handed one outer row only.
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/grain/proof.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
}

namespace clarify::pg::grain {

// A step of the trace between a measure's scan and its aggregate: a join (the rows coming from
// its outer or inner side), or a subquery's value (`sub` set) evaluated at `at`, in an
// aggregate's argument (once per input row of `at`) or not (once per row of `at`).
struct Step {
    Plan *join;
    bool from_outer;
    SubPlan *sub;
    Plan *at;
    bool in_aggregate;
};

// Where a SubPlan of the statement is evaluated.
struct SubPlanUse {
    SubPlan *sub;
    Plan *at;
    bool in_aggregate;
};

// Every SubPlan of every plan node of the statement (SubPlanUse *).
List *subplan_uses(PlannedStmt *stmt);

// Whether the subquery of step `index` of `path` may hand a row of `scan` to several outer rows:
// unless the scan compares a column with an outer value (or an inner join on the way pairs the
// row with one row, by a unique key, of a scan that does), and the rows the subquery is
// evaluated for are unique on the values compared.
bool subplan_repeats(Proofs *p, List *path, int index, Scan *scan);

// Whether a value of an outer row, read at `at` inside `sub`'s plan, is read once per execution
// of the subquery: by its one result row, or by a node of at most one row.
bool read_once(PlannedStmt *stmt, const SubPlan *sub, Plan *at, bool in_aggregate);

// Which of `sub`'s arguments sets PARAM_EXEC `paramid` (-1: none).
int handed_index(const SubPlan *sub, int paramid);

// `path` without the step of `sub` (an outer value goes into its own row's execution only).
List *path_outside(List *path, const SubPlan *sub);

// `params` with the values handed to the subqueries on `path`: they vary per outer row.
Bitmapset *with_subquery_params(Bitmapset *params, List *path);

}  // namespace clarify::pg::grain
