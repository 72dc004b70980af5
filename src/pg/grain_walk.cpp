#include "pg.hpp"
#include "compat.hpp"
#include "grain_walk.hpp"
#include "grain_foreign.hpp"
#include "grain_proof.hpp"
#include "grain_totals.hpp"
#include "grain_union.hpp"

extern "C" {
#include "catalog/partition.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
}

namespace clarify::pg {

namespace {

using grain::Collapse;
using grain::Proofs;

// A plan with many aggregates over deep joins is traced within this many steps per aggregate;
// past it the aggregate counts as unproven (fail closed), so the work stays bounded.
constexpr int kStepsPerAggregate = 20000;

struct Step {
    Plan *join;
    bool from_outer;
};

struct Trace {
    PlannedStmt *stmt;
    const bool *watched;
    Proofs proofs;
    // The aggregate being traced.
    Oid aggregate;
    bool distinct;
    List *grouped;    // grain::ScanColumn *: the columns the aggregate groups by
    List *path;       // Step *: the joins between the current node and the aggregate
    List *route;      // the CteScans between the current node and the aggregate
    List *collapses;  // Collapse *: on the way, outermost first
    int repeaters;    // set-returning projections and recursive unions on the way
    // Values repeated on many rows on the way (initplan values, window functions, grouping sets):
    // no GROUP BY on a key below them makes each row's value its own.
    int totals;
    int gathers;       // Gathers on the way: a GROUP BY below one groups one worker's rows
    List *init_plans;  // SubPlan *: every initplan of the statement
    Plan *merged;      // an Append whose rows a whole-row DISTINCT above it merges (UNION)
    int steps_left;
    bool gave_up;
    // The facts found.
    AggregateFact *facts;
    int count, capacity;
};

void trace_output(Trace *t, Plan *plan, AttrNumber attno);

struct ExprAt {
    Trace *trace;
    Plan *plan;
};

// Relations scanned under `plan` (partitions as their partitioned table), at most `room`.
void relations_under(Trace *t, Plan *plan, Oid *out, int *n, int room, int depth) {
    if (!plan || *n >= room || depth > 32) return;
    if (grain::is_relation_scan(plan)) {
        RangeTblEntry *rte = rt_fetch(((Scan *)plan)->scanrelid, t->stmt->rtable);
        if (rte->rtekind != RTE_RELATION) return;
        Oid relid = rte->relid;
        while (get_rel_relispartition(relid)) relid = get_partition_parent(relid, true);
        for (int i = 0; i < *n; ++i)
            if (out[i] == relid) return;
        out[(*n)++] = relid;
        return;
    }
    relations_under(t, plan->lefttree, out, n, room, depth + 1);
    relations_under(t, plan->righttree, out, n, room, depth + 1);
    if (IsA(plan, SubqueryScan))
        relations_under(t, ((SubqueryScan *)plan)->subplan, out, n, room, depth + 1);
    if (IsA(plan, CteScan))
        relations_under(t, grain::subplan_of(t->stmt, ((CteScan *)plan)->ctePlanId), out, n, room,
                        depth + 1);
    ListCell *lc;
    if (IsA(plan, Append))
        foreach (lc, ((Append *)plan)->appendplans)
            relations_under(t, (Plan *)lfirst(lc), out, n, room, depth + 1);
    if (IsA(plan, MergeAppend))
        foreach (lc, ((MergeAppend *)plan)->mergeplans)
            relations_under(t, (Plan *)lfirst(lc), out, n, room, depth + 1);
}

void add_fact(Trace *t, const AggregateFact &fact) {
    if (t->count == t->capacity) {
        t->capacity *= 2;
        t->facts = (AggregateFact *)repalloc(t->facts, sizeof(AggregateFact) * t->capacity);
    }
    t->facts[t->count++] = fact;
}

// A read of range entry `rti` the walk cannot follow to its rows (through `joined`, a join of
// unknown cardinality): column `attnum` (0: every governed column), grouped by `per_value`.
void add_unproven(Trace *t, int rti, AttrNumber attnum, bool joined,
                  const Bitmapset *per_value = nullptr) {
    if (rti < 1 || rti > list_length(t->stmt->rtable)) return;
    RangeTblEntry *rte = rt_fetch(rti, t->stmt->rtable);
    if (!t->watched[rti - 1] || rte->rtekind != RTE_RELATION || attnum < 0) return;
    AggregateFact fact = {};
    fact.relation = rte->relid;
    fact.attnum = attnum;
    fact.aggregate = t->aggregate;
    fact.distinct = t->distinct;
    fact.via = (Oid *)palloc(sizeof(Oid));
    if (joined) fact.via[fact.n_via++] = InvalidOid;
    fact.per_value = (AttrNumber *)palloc(sizeof(AttrNumber) * (bms_num_members(per_value) + 1));
    int a = -1;
    while ((a = bms_next_member(per_value, a)) >= 0) fact.per_value[fact.n_per_value++] = a;
    add_fact(t, fact);
}

// The column's scan: record the aggregate with the joins on its way that may repeat its rows.
constexpr int kRoom = 8;  // relations named per fact

// The joins among the first `joins` on the way that repeat rows, and the repeaters, as `via`.
void add_path(Trace *t, AggregateFact *fact, int joins, bool repeated) {
    fact->via = (Oid *)palloc(sizeof(Oid) * kRoom);
    for (int i = 0; i < joins; ++i) {
        Step *step = (Step *)list_nth(t->path, i);
        if (!grain::join_repeats(&t->proofs, step->join, step->from_outer)) continue;
        Plan *other = step->from_outer ? step->join->righttree : step->join->lefttree;
        int before = fact->n_via;
        relations_under(t, other, fact->via, &fact->n_via, kRoom, 0);
        if (fact->n_via == before && fact->n_via < kRoom) fact->via[fact->n_via++] = InvalidOid;
    }
    if ((t->gave_up || repeated || t->totals > 0) && fact->n_via < kRoom)
        fact->via[fact->n_via++] = InvalidOid;
}

// Column `attnum` of range entry `rti` read through a foreign or custom scan of no single
// relation (`joined`: of several, by a join the walk cannot follow).
void reach_opaque(Trace *t, int rti, AttrNumber attnum, bool joined) {
    if (rti < 1 || rti > list_length(t->stmt->rtable)) return;
    RangeTblEntry *rte = rt_fetch(rti, t->stmt->rtable);
    if (!t->watched[rti - 1] || rte->rtekind != RTE_RELATION || attnum < 0) return;
    AggregateFact fact = {};
    fact.relation = rte->relid;
    fact.attnum = attnum;
    fact.aggregate = t->aggregate;
    fact.distinct = t->distinct;
    add_path(t, &fact, list_length(t->path), joined || t->repeaters > 0);
    fact.per_value = (AttrNumber *)palloc(sizeof(AttrNumber));
    add_fact(t, fact);
}

void reach_scan(Trace *t, Scan *scan, AttrNumber attnum) {
    RangeTblEntry *rte = rt_fetch(scan->scanrelid, t->stmt->rtable);
    // attnum 0: a whole-row reference reads every column (sum((o).amount) is sum(o.amount)).
    if (rte->rtekind != RTE_RELATION || attnum < 0 || !t->watched[scan->scanrelid - 1]) return;
    Bitmapset *single = grain::scan_single_valued(&t->proofs, scan);
    Collapse *collapse = grain::collapse_for(&t->proofs, t->collapses, scan, t->route, rte->relid,
                                             single, &t->steps_left);
    if (t->steps_left < 0) t->gave_up = true;
    int joins = collapse ? collapse->path_length : list_length(t->path);
    int repeaters = collapse ? collapse->repeaters : t->repeaters;
    AggregateFact fact = {};
    fact.relation = rte->relid;
    fact.attnum = attnum;
    fact.aggregate = t->aggregate;
    fact.distinct = t->distinct;
    add_path(t, &fact, joins, repeaters > 0);
    // Grouped by a column of this very scan: another scan of the table holds other values.
    single = bms_join(single, grain::columns_of_scan(t->grouped, scan, t->route));
    fact.per_value = (AttrNumber *)palloc(sizeof(AttrNumber) * (bms_num_members(single) + 1));
    int a = -1;
    while ((a = bms_next_member(single, a)) >= 0) fact.per_value[fact.n_per_value++] = a;
    add_fact(t, fact);
}

// A foreign or custom scan's column: the columns its scan target list entry reads (an expression
// the foreign server computes, a column of a join or an aggregate it computes).
void reach_foreign(Trace *t, Scan *scan, Var *var) {
    bool joined = bms_num_members(grain::opaque_relids(&scan->plan)) > 1;
    List *vars = grain::scan_tlist_vars(scan, var);
    if (vars == NIL && scan->scanrelid == 0) {
        // Not an entry of its scan target list: any column of any relation it reads.
        int rti = -1;
        while ((rti = bms_next_member(grain::opaque_relids(&scan->plan), rti)) >= 0)
            reach_opaque(t, rti, 0, true);
    }
    ListCell *lc;
    foreach (lc, vars) {
        Var *v = (Var *)lfirst(lc);
        if (scan->scanrelid == 0)
            reach_opaque(t, v->varno, v->varattno, joined);
        else if (v->varno == (int)scan->scanrelid)
            reach_scan(t, scan, v->varattno);
    }
}

bool trace_expr_walker(Node *node, void *context);

// Function, VALUES and table-function scans: their rows are computed, from values a nested loop
// may hand them from its outer side (LATERAL).
bool is_lateral_source(const Plan *plan) {
    return IsA(plan, FunctionScan) || IsA(plan, ValuesScan) || IsA(plan, TableFuncScan);
}

bool collect_exec_params(Node *node, void *context) {
    if (!node) return false;
    if (IsA(node, Param) && ((Param *)node)->paramkind == PARAM_EXEC)
        *(Bitmapset **)context = bms_add_member(*(Bitmapset **)context, ((Param *)node)->paramid);
    return expression_tree_walker(node, WALKER(collect_exec_params), context);
}

// A computed scan's rows carry the outer values a nested loop on the way hands it: each such
// value is traced into that loop's outer side, through a join that repeats it once per row the
// scan computes (unless proven otherwise).
void trace_lateral(Trace *t, Plan *plan) {
    Node *exprs = nullptr;
    if (IsA(plan, FunctionScan)) exprs = (Node *)((FunctionScan *)plan)->functions;
    if (IsA(plan, ValuesScan)) exprs = (Node *)((ValuesScan *)plan)->values_lists;
    if (IsA(plan, TableFuncScan)) exprs = (Node *)((TableFuncScan *)plan)->tablefunc;
    Bitmapset *params = nullptr;
    collect_exec_params(exprs, static_cast<void *>(&params));
    if (bms_is_empty(params)) return;
    List *saved = t->path, *saved_collapses = t->collapses;
    for (int i = list_length(saved) - 1; i >= 0; --i) {
        Step *step = (Step *)list_nth(saved, i);
        if (!IsA(step->join, NestLoop) || step->from_outer) continue;
        ListCell *lc;
        foreach (lc, ((NestLoop *)step->join)->nestParams) {
            NestLoopParam *nlp = (NestLoopParam *)lfirst(lc);
            if (!bms_is_member(nlp->paramno, params)) continue;
            // The loop itself is added as the join its outer value passes.
            t->path = list_copy_head(saved, i);
            // Only the nodes above the loop are on the outer value's way.
            t->collapses = NIL;
            ListCell *c;
            foreach (c, saved_collapses)
                if (((Collapse *)lfirst(c))->path_length <= i)
                    t->collapses = lappend(t->collapses, lfirst(c));
            ExprAt at = {t, step->join};
            trace_expr_walker((Node *)nlp->paramval, &at);
            t->path = saved;
            t->collapses = saved_collapses;
        }
    }
}

// UNION ALL branches that each read the same column hand on its rows once per branch.
void trace_branches(Trace *t, Plan *append, List *branches, AttrNumber attno) {
    int first = t->count, b = 0;
    int *ends = (int *)palloc(sizeof(int) * (list_length(branches) + 1));
    ListCell *lc;
    foreach (lc, branches) {
        trace_output(t, (Plan *)lfirst(lc), attno);
        ends[b++] = t->count;
    }
    if (append != t->merged) grain::mark_repeated_branches(t->facts, first, ends, b, kRoom);
}

void trace_var(Trace *t, Plan *plan, Var *var) {
    check_stack_depth();
    CHECK_FOR_INTERRUPTS();
    if (--t->steps_left < 0) {
        t->gave_up = true;
        return;
    }
    if (var->varlevelsup != 0) return;
    if (grain::is_relation_scan(plan)) {
        Scan *scan = (Scan *)plan;
        AttrNumber attnum = grain::scan_column(scan, var);
        if (var->varno == (int)scan->scanrelid || attnum > 0)
            reach_scan(t, scan, attnum);
        else if (IsA(plan, ForeignScan) || IsA(plan, CustomScan))
            reach_foreign(t, scan, var);
        return;
    }
    if (is_lateral_source(plan)) {
        trace_lateral(t, plan);
        return;
    }
    if (grain::is_join(plan)) {
        bool from_outer = var->varno == OUTER_VAR;
        if (!from_outer && var->varno != INNER_VAR) return;
        Step *step = (Step *)palloc(sizeof(Step));
        *step = Step{plan, from_outer};
        t->path = lappend(t->path, step);
        trace_output(t, from_outer ? plan->lefttree : plan->righttree, var->varattno);
        t->path = list_delete_last(t->path);
        return;
    }
    switch (nodeTag(plan)) {
        case T_SubqueryScan:
            if (var->varno == (int)((Scan *)plan)->scanrelid)
                trace_output(t, ((SubqueryScan *)plan)->subplan, var->varattno);
            return;
        case T_CteScan:
            if (var->varno == (int)((Scan *)plan)->scanrelid) {
                // Each read of a CTE is a scan of its own.
                List *saved = t->route;
                t->route = lappend(list_copy(saved), plan);
                trace_output(t, grain::subplan_of(t->stmt, ((CteScan *)plan)->ctePlanId),
                             var->varattno);
                t->route = saved;
            }
            return;
        case T_ForeignScan:
        case T_CustomScan:
            // A join or aggregate done elsewhere (scanrelid 0): its rows are not known here.
            reach_foreign(t, (Scan *)plan, var);
            return;
        case T_Append:
            trace_branches(t, plan, ((Append *)plan)->appendplans, var->varattno);
            return;
        case T_MergeAppend:
            trace_branches(t, plan, ((MergeAppend *)plan)->mergeplans, var->varattno);
            return;
        case T_RecursiveUnion:
        case T_ProjectSet:
            // Each row may come out several times: from the recursion, or once per element.
            ++t->repeaters;
            trace_output(t, plan->lefttree, var->varattno);
            if (IsA(plan, RecursiveUnion)) trace_output(t, plan->righttree, var->varattno);
            --t->repeaters;
            return;
        default: {
            // Upper nodes compute over their children's rows.
            Plan *saved = t->merged;
            if (!IsA(plan, Sort) && !IsA(plan, IncrementalSort) && !IsA(plan, Gather) &&
                !IsA(plan, GatherMerge))
                t->merged = grain::merged_append(plan);
            int gather = IsA(plan, Gather) || IsA(plan, GatherMerge) ? 1 : 0;
            t->gathers += gather;
            if (var->varno == OUTER_VAR) trace_output(t, plan->lefttree, var->varattno);
            if (var->varno == INNER_VAR) trace_output(t, plan->righttree, var->varattno);
            t->gathers -= gather;
            t->merged = saved;
            return;
        }
    }
}

// Vars of an expression, and of aggregates in it (a total of totals is still the measure).
bool trace_expr_walker(Node *node, void *context) {
    if (!node) return false;
    if (IsA(node, Var)) {
        ExprAt *at = (ExprAt *)context;
        trace_var(at->trace, at->plan, (Var *)node);
        return false;
    }
    // A SubPlan is a statement of its own, whose aggregates are found where its plan is walked;
    // what this plan's rows hand it (its arguments, the left side of an IN) carries them on.
    if (IsA(node, SubPlan)) {
        SubPlan *sub = (SubPlan *)node;
        return trace_expr_walker(sub->testexpr, context) ||
               trace_expr_walker((Node *)sub->args, context);
    }
    // An initplan's value is computed once and repeated for every row that reads it.
    if (IsA(node, Param) && ((Param *)node)->paramkind == PARAM_EXEC) {
        Trace *t = ((ExprAt *)context)->trace;
        // A step like a column's: values of values stay within the budget.
        if (--t->steps_left < 0) {
            t->gave_up = true;
            return false;
        }
        ListCell *lc;
        foreach (lc, t->init_plans) {
            SubPlan *sub = (SubPlan *)lfirst(lc);
            ListCell *set;
            foreach (set, sub->setParam) {
                if (lfirst_int(set) != ((Param *)node)->paramid) continue;
                ++t->totals;
                trace_output(t, grain::subplan_of(t->stmt, sub->plan_id),
                             foreach_current_index(set) + 1);
                --t->totals;
            }
        }
        return false;
    }
    // A window function's value is computed over many rows and repeated on each of them (a
    // total, a running sum, first_value): an aggregate over it counts them again.
    if (IsA(node, WindowFunc)) {
        Trace *t = ((ExprAt *)context)->trace;
        ++t->totals;
        bool stop = expression_tree_walker(node, WALKER(trace_expr_walker), context);
        --t->totals;
        return stop;
    }
    return expression_tree_walker(node, WALKER(trace_expr_walker), context);
}

void trace_output(Trace *t, Plan *plan, AttrNumber attno) {
    if (!plan || attno < 1 || attno > list_length(plan->targetlist)) return;
    Expr *expr = list_nth_node(TargetEntry, plan->targetlist, attno - 1)->expr;
    // Grouping sets hand each row on once per set (the subtotals repeat the details).
    int repeats = grain::repeats_rows(plan) ? 1 : 0;
    Collapse *collapse = t->gathers > 0
                             ? nullptr
                             : grain::collapse_at(t->stmt, plan, expr, list_length(t->path),
                                                  t->repeaters, t->route, &t->steps_left);
    if (t->steps_left < 0) t->gave_up = true;
    List *saved = t->collapses;
    if (collapse) t->collapses = lappend(list_copy(saved), collapse);
    t->totals += repeats;
    ExprAt at = {t, plan};
    trace_expr_walker((Node *)expr, &at);
    t->totals -= repeats;
    t->collapses = saved;
}

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
    t->proofs.budget = kStepsPerAggregate;
    for (int i = 0; i < n_groups; ++i)
        t->grouped =
            list_concat(t->grouped, grain::base_columns(t->stmt, plan->lefttree, groups[i], NIL));
    ExprAt at = {t, plan};
    trace_expr_walker((Node *)args, &at);
    if (t->gave_up) assume_every_watched(t);
}

struct AggregatesAt {
    Trace *trace;
    Plan *plan;
};

bool aggregate_walker(Node *node, void *context) {
    if (!node) return false;
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
    if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan)) return false;
    return expression_tree_walker(node, WALKER(aggregate_walker), context);
}

// Every Agg and WindowAgg of the plan tree (subplans and CTEs are walked from the statement).
void find_aggregates(Trace *t, Plan *plan, int depth) {
    if (!plan) return;
    check_stack_depth();
    CHECK_FOR_INTERRUPTS();
    if (IsA(plan, Agg) || IsA(plan, WindowAgg)) {
        AggregatesAt at = {t, plan};
        aggregate_walker((Node *)plan->targetlist, &at);
        aggregate_walker((Node *)plan->qual, &at);
    }
    find_aggregates(t, plan->lefttree, depth + 1);
    find_aggregates(t, plan->righttree, depth + 1);
    ListCell *lc;
    switch (nodeTag(plan)) {
        case T_SubqueryScan:
            find_aggregates(t, ((SubqueryScan *)plan)->subplan, depth + 1);
            break;
        case T_Append:
            foreach (lc, ((Append *)plan)->appendplans)
                find_aggregates(t, (Plan *)lfirst(lc), depth + 1);
            break;
        case T_MergeAppend:
            foreach (lc, ((MergeAppend *)plan)->mergeplans)
                find_aggregates(t, (Plan *)lfirst(lc), depth + 1);
            break;
        case T_CustomScan:
            find_pushed_aggregates(t, plan);
            foreach (lc, ((CustomScan *)plan)->custom_plans)
                find_aggregates(t, (Plan *)lfirst(lc), depth + 1);
            break;
        case T_ForeignScan:
            find_pushed_aggregates(t, plan);
            break;
        default:
            break;
    }
}

// Parameters a nested loop sets from its outer row: a column compared with one is not fixed;
// and the initplans, whose values aggregates may read.
void collect_loop_params(Trace *t, Bitmapset **params, Plan *plan, PlannedStmt *stmt, int depth) {
    if (!plan || depth > 1000) return;
    ListCell *lc;
    t->init_plans = list_concat(t->init_plans, plan->initPlan);
    if (IsA(plan, NestLoop))
        foreach (lc, ((NestLoop *)plan)->nestParams)
            *params = bms_add_member(*params, ((NestLoopParam *)lfirst(lc))->paramno);
    collect_loop_params(t, params, plan->lefttree, stmt, depth + 1);
    collect_loop_params(t, params, plan->righttree, stmt, depth + 1);
    if (IsA(plan, SubqueryScan))
        collect_loop_params(t, params, ((SubqueryScan *)plan)->subplan, stmt, depth + 1);
    if (IsA(plan, Append))
        foreach (lc, ((Append *)plan)->appendplans)
            collect_loop_params(t, params, (Plan *)lfirst(lc), stmt, depth + 1);
    if (IsA(plan, MergeAppend))
        foreach (lc, ((MergeAppend *)plan)->mergeplans)
            collect_loop_params(t, params, (Plan *)lfirst(lc), stmt, depth + 1);
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
    t.capacity = 4;
    t.facts = (AggregateFact *)palloc(sizeof(AggregateFact) * t.capacity);
    collect_loop_params(&t, &t.proofs.loop_params, stmt->planTree, stmt, 0);
    ListCell *lc;
    foreach (lc, stmt->subplans)
        collect_loop_params(&t, &t.proofs.loop_params, (Plan *)lfirst(lc), stmt, 0);
    find_aggregates(&t, stmt->planTree, 0);
    foreach (lc, stmt->subplans) find_aggregates(&t, (Plan *)lfirst(lc), 0);
    return AggregateFacts{t.facts, t.count};
}

}  // namespace clarify::pg
