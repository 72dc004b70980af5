#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/grain/trace.hpp"
#include "pg/plan/grain/subplans.hpp"
#include "pg/plan/grain/totals.hpp"
#include "pg/plan/grain/union.hpp"
#include "pg/plan/plan_nodes.hpp"

extern "C" {
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
}

namespace clarify::pg::grain {

namespace {

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
    // Values of a subquery's outer row, or of initplans: the scan may compute several rows of each.
    ExprAt values = {t, plan, false};
    bool repeats = !grain::at_most_one(plan);
    t->repeaters += repeats;
    trace_expr_walker(exprs, &values);
    t->repeaters -= repeats;
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
            ExprAt at = {t, step->join, false};
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
    if (append != t->merged) grain::mark_repeated_branches(t->facts, first, ends, b);
    // Copies of one fact (a CTE under each branch) say no more than one: keep one.
    t->count = grain::drop_duplicate_facts(t->facts, first, t->count);
}

// A CTE's or initplan's output column as it was traced for the current aggregate, and the way
// there: traced again along the same way, it finds the same facts.
struct Traced {
    int serial;
    bool busy;
    Step *path;
    int n_path;
    bool repeated;
    bool totals;   // a total repeated on every row on the way
    bool gathers;  // a Gather on the way (no GROUP BY below it collapses)
    Plan *merged;
    AggregateFact *facts;
    int n_facts;
};

bool same_way(const Trace *t, const Traced *memo) {
    if (memo->serial != t->serial || memo->busy || memo->n_path != list_length(t->path) ||
        memo->repeated != (t->repeaters > 0) || memo->totals != (t->totals > 0) ||
        memo->gathers != (t->gathers > 0) || memo->merged != t->merged)
        return false;
    for (int i = 0; i < memo->n_path; ++i) {
        const Step *step = (const Step *)list_nth(t->path, i);
        const Step &seen = memo->path[i];
        if (step->join != seen.join || step->from_outer != seen.from_outer ||
            step->sub != seen.sub || step->at != seen.at || step->in_aggregate != seen.in_aggregate)
            return false;
    }
    return true;
}

// Whether a column of `columns` (ScanColumn *) is read through the current route: a scan the
// trace may reach from here, whose facts then depend on the way here (not only on the subplan).
bool read_from_here(Trace *t, List *columns) {
    ListCell *lc;
    foreach (lc, columns) {
        --t->steps_left;
        const List *route = ((grain::ScanColumn *)lfirst(lc))->route;
        if (grain::route_within(route, t->route)) return true;
    }
    return false;
}

// Whether the grouping columns or the collapses on the way name a scan under the current route:
// then the facts found from here depend on this reference, and are not shared with others.
bool depends_on_route(Trace *t) {
    int before = t->steps_left;
    bool depends = read_from_here(t, t->grouped);
    ListCell *lc, *k;
    foreach (lc, t->collapses)
        foreach (k, ((Collapse *)lfirst(lc))->keys)
            depends = depends || read_from_here(t, (List *)lfirst(k));
    charge(t, before);
    return depends;
}

// Traces output column attno of a subplan that many references may share (a CTE, an initplan):
// along a way it was traced before for this aggregate, its facts are copied instead.
void trace_shared(Trace *t, Plan *subplan, AttrNumber attno) {
    if (!subplan) return;
    if (depends_on_route(t)) {
        trace_output(t, subplan, attno);
        return;
    }
    Traced *memo = (Traced *)walk_budget::memo_get(t->traced, subplan, attno);
    if (memo && same_way(t, memo)) {
        // A copy is a step: facts copied into facts copied stay within the budget.
        for (int i = 0; i < memo->n_facts; ++i) {
            if (--t->steps_left < 0 || --t->statement_steps_left < 0) {
                t->gave_up = true;
                return;
            }
            add_fact(t, copy_fact(memo->facts[i]));
            ++t->copies;
        }
        return;
    }
    memo = (Traced *)palloc0(sizeof(Traced));
    *memo = Traced{t->serial,        true,
                   nullptr,          list_length(t->path),
                   t->repeaters > 0, t->totals > 0,
                   t->gathers > 0,   t->merged,
                   nullptr,          0};
    memo->path = (Step *)palloc(sizeof(Step) * (memo->n_path + 1));
    for (int i = 0; i < memo->n_path; ++i) memo->path[i] = *(Step *)list_nth(t->path, i);
    walk_budget::memo_put(t->traced, subplan, attno, memo);
    int first = t->count;
    trace_output(t, subplan, attno);
    memo->n_facts = t->count - first;
    memo->facts = (AggregateFact *)palloc(sizeof(AggregateFact) * (memo->n_facts + 1));
    for (int i = 0; i < memo->n_facts; ++i) memo->facts[i] = copy_fact(t->facts[first + i]);
    memo->busy = false;
}

// Through a node that is neither a relation's scan, a computed scan nor a join: a subquery or
// CTE, an opaque scan, a set of branches, or an upper node over its children's rows.
void trace_through(Trace *t, Plan *plan, Var *var) {
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
                trace_shared(t, plan_nodes::subplan_of(t->stmt, ((CteScan *)plan)->ctePlanId),
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
        case T_MergeAppend:
            trace_branches(t, plan, plan_nodes::appended_plans(plan), var->varattno);
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
                t->merged = merged_append(plan);
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

// A column of `plan`'s output, traced to the scans it reads.
void trace_var(Trace *t, Plan *plan, Var *var) {
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::Grain);
    if (--t->steps_left < 0 || --t->statement_steps_left < 0) {
        t->gave_up = true;
        return;
    }
    if (var->varlevelsup != 0) return;
    if (plan_nodes::is_relation_scan(plan)) {
        Scan *scan = (Scan *)plan;
        AttrNumber attnum = scan_column(scan, var);
        if (var->varno == (int)scan->scanrelid || attnum > 0)
            reach_scan(t, scan, attnum);
        else if (IsA(plan, ForeignScan) || IsA(plan, CustomScan))
            reach_foreign(t, scan, var);
        return;
    }
    // Function, VALUES and table-function scans: their rows are computed, from values a nested
    // loop may hand them from its outer side (LATERAL).
    if (plan_nodes::scan_kind(plan) == plan_nodes::ScanKind::Computed) {
        trace_lateral(t, plan);
        return;
    }
    if (plan_nodes::is_join(plan)) {
        bool from_outer = var->varno == OUTER_VAR;
        if (!from_outer && var->varno != INNER_VAR) return;
        Step *step = (Step *)palloc(sizeof(Step));
        *step = Step{plan, from_outer};
        t->path = lappend(t->path, step);
        trace_output(t, from_outer ? plan->lefttree : plan->righttree, var->varattno);
        t->path = list_delete_last(t->path);
        return;
    }
    trace_through(t, plan, var);
}

ExprAt *at_of(void *context) {
    return (ExprAt *)context;
}

// A subquery's value: its first column, through the rows of its plan, each of which an outer
// row may share with others (the step decides when a scan is reached).
void trace_subplan_value(ExprAt *at, SubPlan *sub) {
    Trace *t = at->trace;
    Step *step = (Step *)palloc(sizeof(Step));
    *step = Step{nullptr, false, sub, at->plan, at->in_aggregate};
    t->path = lappend(t->path, step);
    trace_output(t, plan_nodes::subplan_of(t->stmt, sub->plan_id), 1);
    t->path = list_delete_last(t->path);
}

// A value a subquery is handed by its outer row: the expression the SubPlan evaluates for it,
// repeated by the subquery's rows that read it unless one row does.
void trace_outer_value(ExprAt *at, Param *param) {
    Trace *t = at->trace;
    ListCell *lc;
    foreach (lc, t->subplan_uses) {
        grain::SubPlanUse *use = (grain::SubPlanUse *)lfirst(lc);
        int index = grain::handed_index(use->sub, param->paramid);
        if (index < 0) continue;
        bool repeats = !grain::read_once(t->stmt, use->sub, at->plan, at->in_aggregate);
        List *saved = t->path;
        t->path = grain::path_outside(saved, use->sub);
        t->repeaters += repeats;
        ExprAt outer = {t, use->at, use->in_aggregate};
        trace_expr_walker((Node *)list_nth(use->sub->args, index), &outer);
        t->repeaters -= repeats;
        t->path = saved;
    }
}

}  // namespace

// Vars of an expression, and of aggregates in it (a total of totals is still the measure).
bool trace_expr_walker(Node *node, void *context) {
    if (!node) return false;
    CHECK_FOR_INTERRUPTS();
    if (IsA(node, Var)) {
        ExprAt *at = (ExprAt *)context;
        trace_var(at->trace, at->plan, (Var *)node);
        return false;
    }
    // A SubPlan is a statement of its own, whose aggregates are found where its plan is walked;
    // what this plan's rows hand it (its arguments, the left side of an IN) carries them on, and
    // its value is its first column, computed once per row evaluating it.
    if (IsA(node, SubPlan)) {
        SubPlan *sub = (SubPlan *)node;
        if (trace_expr_walker(sub->testexpr, context) ||
            trace_expr_walker((Node *)sub->args, context))
            return true;
        if (sub->subLinkType == EXPR_SUBLINK || sub->subLinkType == ARRAY_SUBLINK)
            trace_subplan_value(at_of(context), sub);
        return false;
    }
    // A window function's value is computed over many rows and repeated on each of them (a
    // total, a running sum, first_value): an aggregate over it counts them again.
    if (IsA(node, Aggref) || IsA(node, WindowFunc)) {
        ExprAt inside = *at_of(context);
        inside.in_aggregate = true;
        int total = IsA(node, WindowFunc) ? 1 : 0;
        inside.trace->totals += total;
        bool stop = expression_tree_walker(node, WALKER(trace_expr_walker), &inside);
        inside.trace->totals -= total;
        return stop;
    }
    // An initplan's value is computed once and repeated for every row that reads it.
    if (IsA(node, Param) && ((Param *)node)->paramkind == PARAM_EXEC) {
        Trace *t = ((ExprAt *)context)->trace;
        // A step like a column's: values of values stay within the budget.
        if (--t->steps_left < 0 || --t->statement_steps_left < 0) {
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
                trace_shared(t, plan_nodes::subplan_of(t->stmt, sub->plan_id),
                             foreach_current_index(set) + 1);
                --t->totals;
            }
        }
        trace_outer_value(at_of(context), (Param *)node);
        return false;
    }
    return expression_tree_walker(node, WALKER(trace_expr_walker), context);
}

void trace_output(Trace *t, Plan *plan, AttrNumber attno) {
    if (!plan || attno < 1 || attno > list_length(plan->targetlist)) return;
    Expr *expr = list_nth_node(TargetEntry, plan->targetlist, attno - 1)->expr;
    // Grouping sets hand each row on once per set (the subtotals repeat the details).
    int repeats = grain::repeats_rows(plan) ? 1 : 0;
    int before = t->steps_left;
    Collapse *collapse = t->gathers > 0
                             ? nullptr
                             : grain::collapse_at(t->stmt, plan, expr, list_length(t->path),
                                                  t->repeaters, t->route, &t->steps_left);
    charge(t, before);
    List *saved = t->collapses;
    if (collapse) t->collapses = lappend(list_copy(saved), collapse);
    t->totals += repeats;
    int first = t->count, copies = t->copies;
    ExprAt at = {t, plan, false};
    trace_expr_walker((Node *)expr, &at);
    // One expression reading a CTE's column twice (x + x): its facts twice say no more than once
    // (branches of a UNION ALL below were told apart already).
    if (t->copies != copies) t->count = grain::drop_duplicate_facts(t->facts, first, t->count);
    t->totals -= repeats;
    t->collapses = saved;
}

}  // namespace clarify::pg::grain
