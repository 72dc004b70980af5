// One aggregate's argument traced down the plan to the scans whose columns it reads, with the
// joins, subqueries and repeaters on the way (docs/reference.md, "Grain"): the trace's state,
// following a column through plan nodes (pg/plan/grain/trace.cpp), and the facts recorded at
// the scan it reaches (pg/plan/grain/facts.cpp). pg/plan/grain/walk.cpp starts a trace per
// aggregate.
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/grain/proof.hpp"
#include "pg/plan/grain/relations.hpp"
#include "pg/plan/grain/walk.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
}

namespace clarify::pg::grain {

constexpr int kRoom = kRelationsNamed;  // relations named per fact

struct Trace {
    PlannedStmt *stmt;
    const bool *watched;
    Proofs proofs;
    // The aggregate being traced.
    Oid aggregate;
    bool distinct;
    List *grouped;    // grain::ScanColumn *: the columns the aggregate groups by
    List *path;       // Step *: the joins and subqueries between this node and the aggregate
    List *route;      // the CteScans between the current node and the aggregate
    List *collapses;  // Collapse *: on the way, outermost first
    int repeaters;    // set-returning projections, recursive unions, outer values on the way
    // Values repeated on many rows on the way (initplan values, window functions, grouping sets):
    // no GROUP BY on a key below them makes each row's value its own.
    int totals;
    int gathers;         // Gathers on the way: a GROUP BY below one groups one worker's rows
    List *init_plans;    // SubPlan *: every initplan of the statement
    List *subplan_uses;  // grain::SubPlanUse *: where each SubPlan is evaluated
    Plan *merged;        // an Append whose rows a whole-row DISTINCT above it merges (UNION)
    int steps_left;
    int statement_steps_left;
    bool gave_up;
    // Memos (pg/plan/walk_budget.hpp): the relations under each node (for the statement), and, for
    // the aggregate numbered `serial`, the subplans already traced (Traced *), so that a CTE read
    // by many references is walked once.
    walk_budget::Memo *relations;
    walk_budget::Memo *traced;
    int serial;
    int copies;  // facts copied from `traced`: where they may repeat facts already found
    // The facts found.
    AggregateFact *facts;
    int count, capacity;
};

// Where an expression is evaluated: at `plan`'s rows, or at its input rows (`in_aggregate`).
struct ExprAt {
    Trace *trace;
    Plan *plan;
    bool in_aggregate;  // within an aggregate's argument: evaluated per input row of `plan`
};

// Traces output column attno of `plan`: the scans whose columns it copies or computes from.
void trace_output(Trace *t, Plan *plan, AttrNumber attno);
// The Vars of an expression evaluated at `((ExprAt *)context)->plan`, and of aggregates in it.
bool trace_expr_walker(Node *node, void *context);

// Appends a fact to the trace's.
void add_fact(Trace *t, const AggregateFact &fact);
// A read of range entry `rti` the walk cannot follow to its rows (through `joined`, a join of
// unknown cardinality): column `attnum` (0: every governed column), grouped by `per_value`.
void add_unproven(Trace *t, int rti, AttrNumber attnum, bool joined,
                  const Bitmapset *per_value = nullptr);
// Charges the steps spent since `before` (of the aggregate's budget) to the statement's too;
// past either the aggregate is unproven.
void charge(Trace *t, int before);
// The column's scan: records the aggregate with the joins on its way that may repeat its rows.
void reach_scan(Trace *t, Scan *scan, AttrNumber attnum);
// A foreign or custom scan's column: the columns its scan target list entry reads.
void reach_foreign(Trace *t, Scan *scan, Var *var);
// A copy of `fact` whose `via` the trace may extend.
AggregateFact copy_fact(const AggregateFact &fact);

}  // namespace clarify::pg::grain
