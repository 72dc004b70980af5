#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/grain/walk.hpp"
#include "pg/plan/grain/foreign.hpp"
#include "pg/plan/grain/subplans.hpp"
#include "pg/plan/grain/totals.hpp"
#include "pg/plan/grain/trace.hpp"
#include "pg/plan/plan_nodes.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
}

namespace clarify::pg {

namespace {

using grain::add_unproven;
using grain::charge;
using grain::ExprAt;
using grain::Trace;
using grain::trace_expr_walker;

// A plan with many aggregates over deep joins is traced within this many steps per aggregate;
// past it the aggregate counts as unproven (fail closed), so the work stays bounded.
constexpr int kStepsPerAggregate = 20000;
// And all aggregates of a statement within this many: past it the rest count as unproven too.
constexpr int kStepsPerStatement = 200000;

// Past its budget an aggregate may read any watched relation the trace did not reach, through
// joins it did not look at: each counts as read whole through an unproven join.
void assume_every_watched(Trace *t) {
    for (int i = 1; i <= list_length(t->stmt->rtable); ++i) add_unproven(t, i, 0, true);
}

// Aggregates a foreign server or custom provider computes itself: over the columns they read,
// grouped by the scan's grouping columns, through an unproven join when it joined relations.
void find_pushed_aggregates(Trace *t, Plan *plan) {
    bool joined = bms_num_members(grain::opaque_relids(plan)) > 1;
    ListCell *lc;
    foreach (lc, grain::pushed_reads(plan)) {
        grain::PushedRead *read = (grain::PushedRead *)lfirst(lc);
        t->aggregate = read->aggregate;
        t->distinct = read->distinct;
        add_unproven(t, read->rti, read->attnum, joined, read->grouped);
    }
}

// Traces one aggregate's arguments, evaluated over `plan`'s child rows.
void trace_aggregate(Trace *t, Plan *plan, Oid aggregate, bool distinct, List *args, int n_groups,
                     const AttrNumber *groups) {
    t->aggregate = aggregate;
    t->distinct = distinct;
    t->grouped = NIL;
    t->path = NIL;
    t->route = NIL;
    t->collapses = NIL;
    t->repeaters = 0;
    t->totals = 0;
    t->gathers = 0;
    t->steps_left = kStepsPerAggregate;
    t->gave_up = false;
    ++t->serial;
    t->proofs.budget = kStepsPerAggregate;
    // The grouping columns' scans, within the aggregate's budget (past it: unproven).
    for (int i = 0; i < n_groups && !t->gave_up; ++i) {
        int before = t->steps_left;
        t->grouped = list_concat(t->grouped, grain::base_columns(t->stmt, plan->lefttree, groups[i],
                                                                 NIL, &t->steps_left));
        charge(t, before);
    }
    ExprAt at = {t, plan, true};
    trace_expr_walker((Node *)args, &at);
    if (t->gave_up) assume_every_watched(t);
}

struct AggregatesAt {
    Trace *trace;
    Plan *plan;
};

bool aggregate_walker(Node *node, void *context) {
    if (!node) return false;
    CHECK_FOR_INTERRUPTS();
    AggregatesAt *at = (AggregatesAt *)context;
    Plan *plan = at->plan;
    if (IsA(node, Aggref) && IsA(plan, Agg)) {
        Aggref *ref = (Aggref *)node;
        Agg *agg = (Agg *)plan;
        // A partial aggregate is traced from the aggregate that finishes it; under grouping
        // sets, an aggregate is grouped by the columns every set holds.
        if (!DO_AGGSPLIT_SKIPFINAL(ref->aggsplit)) {
            int n = 0;
            AttrNumber *groups = grain::common_grouping_columns(agg, &n);
            trace_aggregate(at->trace, plan, ref->aggfnoid, ref->aggdistinct != NIL, ref->args, n,
                            groups);
        }
        return false;
    }
    if (IsA(node, WindowFunc) && IsA(plan, WindowAgg)) {
        WindowFunc *fn = (WindowFunc *)node;
        WindowAgg *wa = (WindowAgg *)plan;
        if (fn->winagg)
            trace_aggregate(at->trace, plan, fn->winfnoid, false, fn->args, wa->partNumCols,
                            wa->partColIdx);
        return false;
    }
    // An aggregate handed to a subquery (its argument reads this level only, agglevelsup) is
    // this plan's: the subquery's own are found where its plan is walked.
    if (IsA(node, SubPlan))
        return aggregate_walker(((SubPlan *)node)->testexpr, context) ||
               aggregate_walker((Node *)((SubPlan *)node)->args, context);
    return expression_tree_walker(node, WALKER(aggregate_walker), context);
}

// Every Agg and WindowAgg of the plan tree (subplans and CTEs are walked from the statement).
void find_aggregates(Trace *t, Plan *plan, int depth) {
    if (!plan) return;
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::Grain);
    if (IsA(plan, Agg) || IsA(plan, WindowAgg)) {
        AggregatesAt at = {t, plan};
        aggregate_walker((Node *)plan->targetlist, &at);
        aggregate_walker((Node *)plan->qual, &at);
    }
    using namespace plan_nodes;
    auto below = [&](Plan *child) { find_aggregates(t, child, depth + 1); };
    for_each_child(t->stmt, plan, kTree, below);
    if (scan_kind(plan) == ScanKind::ForeignOrCustom) find_pushed_aggregates(t, plan);
    for_each_child(t->stmt, plan, kSubquery | kAppended | kCustom, below);
}

// Parameters a nested loop sets from its outer row: a column compared with one is not fixed;
// and the initplans, whose values aggregates may read.
void collect_loop_params(Trace *t, Bitmapset **params, Plan *plan, PlannedStmt *stmt, int depth) {
    if (!plan || depth > 1000) return;
    walk_budget::step(walk_budget::Kind::Grain);
    ListCell *lc;
    t->init_plans = list_concat(t->init_plans, plan->initPlan);
    if (IsA(plan, NestLoop))
        foreach (lc, ((NestLoop *)plan)->nestParams)
            *params = bms_add_member(*params, ((NestLoopParam *)lfirst(lc))->paramno);
    using namespace plan_nodes;
    for_each_child(stmt, plan, kTree | kSubquery | kAppended,
                   [&](Plan *child) { collect_loop_params(t, params, child, stmt, depth + 1); });
}

}  // namespace

AggregateFacts plan_aggregate_facts(PlannedStmt *stmt, const bool *watched, DeclaredKeyFn declared,
                                    void *declared_context) {
    Trace t = {};
    t.stmt = stmt;
    t.watched = watched;
    t.proofs.stmt = stmt;
    t.proofs.declared = declared;
    t.proofs.declared_context = declared_context;
    t.statement_steps_left = kStepsPerStatement;
    t.relations = walk_budget::memo_create();
    t.traced = walk_budget::memo_create();
    t.proofs.known = walk_budget::memo_create();
    t.proofs.equated = walk_budget::memo_create();
    t.capacity = 4;
    t.facts = (AggregateFact *)palloc(sizeof(AggregateFact) * t.capacity);
    collect_loop_params(&t, &t.proofs.loop_params, stmt->planTree, stmt, 0);
    ListCell *lc;
    foreach (lc, stmt->subplans)
        collect_loop_params(&t, &t.proofs.loop_params, (Plan *)lfirst(lc), stmt, 0);
    t.subplan_uses = grain::subplan_uses(stmt);
    find_aggregates(&t, stmt->planTree, 0);
    foreach (lc, stmt->subplans) find_aggregates(&t, (Plan *)lfirst(lc), 0);
    return AggregateFacts{t.facts, t.count};
}

}  // namespace clarify::pg
