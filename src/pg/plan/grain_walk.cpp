#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/grain_walk.hpp"
#include "pg/plan/grain_foreign.hpp"
#include "pg/plan/grain_proof.hpp"
#include "pg/plan/grain_relations.hpp"
#include "pg/plan/grain_subplans.hpp"
#include "pg/plan/grain_totals.hpp"
#include "pg/plan/grain_union.hpp"
#include "pg/plan/plan_nodes.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
}

namespace clarify::pg {

namespace {

using grain::Collapse;
using grain::Proofs;
using grain::Step;

// A plan with many aggregates over deep joins is traced within this many steps per aggregate;
// past it the aggregate counts as unproven (fail closed), so the work stays bounded.
constexpr int kStepsPerAggregate = 20000;
// And all aggregates of a statement within this many: past it the rest count as unproven too.
constexpr int kStepsPerStatement = 200000;
constexpr int kRoom = grain::kRelationsNamed;  // relations named per fact

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

void trace_output(Trace *t, Plan *plan, AttrNumber attno);

struct ExprAt {
    Trace *trace;
    Plan *plan;
    bool in_aggregate;  // within an aggregate's argument: evaluated per input row of `plan`
};

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

// Charges the steps spent since `before` (of the aggregate's budget) to the statement's too;
// past either the aggregate is unproven.
void charge(Trace *t, int before) {
    t->statement_steps_left -= before - t->steps_left;
    if (t->steps_left < 0 || t->statement_steps_left < 0) t->gave_up = true;
}

// The joins and subqueries among the first `joins` on the way that repeat rows of `scan`
// (nullptr: of no single relation, which no outer value picks), and the repeaters, as `via`.
void add_path(Trace *t, AggregateFact *fact, int joins, bool repeated, Scan *scan) {
    fact->via = (Oid *)palloc(sizeof(Oid) * kRoom);
    for (int i = 0; i < joins; ++i) {
        Step *step = (Step *)list_nth(t->path, i);
        // A subquery's rows repeat once per outer row it is evaluated for
        // (pg/plan/grain_subplans.hpp).
        if (step->sub ? scan && !grain::subplan_repeats(&t->proofs, t->path, i, scan)
                      : !grain::join_repeats(&t->proofs, step->join, step->from_outer))
            continue;
        Plan *other = step->sub          ? step->at
                      : step->from_outer ? step->join->righttree
                                         : step->join->lefttree;
        int before = fact->n_via;
        grain::relations_under(t->stmt, t->relations, other, fact->via, &fact->n_via, kRoom);
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
    add_path(t, &fact, list_length(t->path), joined || t->repeaters > 0, nullptr);
    fact.per_value = (AttrNumber *)palloc(sizeof(AttrNumber));
    add_fact(t, fact);
}

// The column's scan: record the aggregate with the joins on its way that may repeat its rows.
void reach_scan(Trace *t, Scan *scan, AttrNumber attnum) {
    RangeTblEntry *rte = rt_fetch(scan->scanrelid, t->stmt->rtable);
    // attnum 0: a whole-row reference reads every column (sum((o).amount) is sum(o.amount)).
    if (rte->rtekind != RTE_RELATION || attnum < 0 || !t->watched[scan->scanrelid - 1]) return;
    // Values handed to a subquery on the way vary with the outer row.
    Bitmapset *fixed_params = t->proofs.loop_params;
    t->proofs.loop_params = grain::with_subquery_params(fixed_params, t->path);
    Bitmapset *single = grain::scan_single_valued(&t->proofs, scan);
    t->proofs.loop_params = fixed_params;
    int before = t->steps_left;
    Collapse *collapse = grain::collapse_for(&t->proofs, t->collapses, scan, t->route, rte->relid,
                                             single, &t->steps_left);
    charge(t, before);
    int joins = collapse ? collapse->path_length : list_length(t->path);
    int repeaters = collapse ? collapse->repeaters : t->repeaters;
    AggregateFact fact = {};
    fact.relation = rte->relid;
    fact.attnum = attnum;
    fact.aggregate = t->aggregate;
    fact.distinct = t->distinct;
    add_path(t, &fact, joins, repeaters > 0, scan);
    // Grouped by a column of this very scan: another scan of the table holds other values.
    before = t->steps_left;
    single = bms_join(single, grain::columns_of_scan(t->grouped, scan, t->route, &t->steps_left));
    charge(t, before);
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
    if (append != t->merged) grain::mark_repeated_branches(t->facts, first, ends, b, kRoom);
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

AggregateFact copy_fact(const AggregateFact &fact) {
    AggregateFact copy = fact;
    copy.via = (Oid *)palloc(sizeof(Oid) * kRoom);
    memcpy(copy.via, fact.via, sizeof(Oid) * fact.n_via);
    return copy;  // per_value is never changed once made: shared
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
    walk_budget::step(walk_budget::Kind::Grain);
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
