#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/grain/subplans.hpp"
#include "pg/plan/plan_nodes.hpp"

extern "C" {
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
}

namespace clarify::pg::grain {

namespace {

struct UsesAt {
    List **uses;
    Plan *plan;
    bool in_aggregate;
};

bool uses_walker(Node *node, void *context) {
    if (!node) return false;
    UsesAt *at = (UsesAt *)context;
    if (IsA(node, Aggref) || IsA(node, WindowFunc)) {
        UsesAt inside = {at->uses, at->plan, true};
        return expression_tree_walker(node, WALKER(uses_walker), &inside);
    }
    if (IsA(node, SubPlan)) {
        SubPlanUse *use = (SubPlanUse *)palloc(sizeof(SubPlanUse));
        *use = SubPlanUse{(SubPlan *)node, at->plan, at->in_aggregate};
        *at->uses = lappend(*at->uses, use);
    }
    return expression_tree_walker(node, WALKER(uses_walker), context);
}

// The expressions a node evaluates besides its target list and filter.
List *node_expressions(Plan *plan) {
    switch (nodeTag(plan)) {
        case T_NestLoop:
            return ((Join *)plan)->joinqual;
        case T_HashJoin:
            return list_concat(list_copy(((Join *)plan)->joinqual),
                               ((HashJoin *)plan)->hashclauses);
        case T_MergeJoin:
            return list_concat(list_copy(((Join *)plan)->joinqual),
                               ((MergeJoin *)plan)->mergeclauses);
        case T_IndexScan:
            return list_concat(list_copy(((IndexScan *)plan)->indexqual),
                               ((IndexScan *)plan)->indexorderby);
        case T_IndexOnlyScan:
            return ((IndexOnlyScan *)plan)->indexqual;
        case T_BitmapHeapScan:
            return ((BitmapHeapScan *)plan)->bitmapqualorig;
        case T_FunctionScan:
            return ((FunctionScan *)plan)->functions;
        case T_ValuesScan:
            return ((ValuesScan *)plan)->values_lists;
        case T_TableFuncScan:
            return list_make1(((TableFuncScan *)plan)->tablefunc);
        case T_Result:
            return list_make1(((Result *)plan)->resconstantqual);
        case T_Limit:
            return list_make2(((Limit *)plan)->limitOffset, ((Limit *)plan)->limitCount);
        case T_WindowAgg:
            return list_make2(((WindowAgg *)plan)->startOffset, ((WindowAgg *)plan)->endOffset);
        default:
            return NIL;
    }
}

void collect_uses(List **uses, Plan *plan, int depth) {
    if (!plan || depth > 1000) return;
    check_stack_depth();
    UsesAt at = {uses, plan, false};
    uses_walker((Node *)plan->targetlist, &at);
    uses_walker((Node *)plan->qual, &at);
    uses_walker((Node *)node_expressions(plan), &at);
    using namespace plan_nodes;
    for_each_child(nullptr, plan, kTree | kSubquery | kAppended | kCustom,
                   [&](Plan *child) { collect_uses(uses, child, depth + 1); });
}

// The equalities of a column with a PARAM_EXEC the scan's own quals apply: the params (its rows
// are those of one value of each), or the columns compared with one of `params`.
Bitmapset *equalities(Scan *scan, const Bitmapset *params, bool columns) {
    Bitmapset *out = nullptr;
    ListCell *lc;
    foreach (lc, plan_nodes::node_quals(&scan->plan)) {
        Expr *l = nullptr, *r = nullptr;
        if (!plan_nodes::equality_sides((Node *)lfirst(lc), &l, &r)) continue;
        l = plan_nodes::strip_relabels(l);
        r = plan_nodes::strip_relabels(r);
        for (int turn = 0; turn < 2; ++turn) {
            if (IsA(l, Param) && ((Param *)l)->paramkind == PARAM_EXEC && IsA(r, Var)) {
                int id = ((Param *)l)->paramid;
                AttrNumber a = scan_column(scan, (Var *)r);
                if (!columns) out = bms_add_member(out, id);
                if (columns && bms_is_member(id, params) && a > 0) out = bms_add_member(out, a);
            }
            Expr *swap = l;
            l = r;
            r = swap;
        }
    }
    return out;
}

Bitmapset *equated_params(Scan *scan) {
    return equalities(scan, nullptr, false);
}

Bitmapset *columns_equated_to(Scan *scan, const Bitmapset *params) {
    return equalities(scan, params, true);
}

// The output columns of `plan`'s child on `varno`'s side that the Vars among `exprs` read.
Bitmapset *vars_of(List *exprs, int varno) {
    Bitmapset *out = nullptr;
    ListCell *lc;
    foreach (lc, exprs) {
        Expr *e = plan_nodes::strip_relabels((Expr *)lfirst(lc));
        if (e && IsA(e, Var) && ((Var *)e)->varno == varno && ((Var *)e)->varattno > 0)
            out = bms_add_member(out, ((Var *)e)->varattno);
    }
    return out;
}

// Whether the rows `at` evaluates an expression for (its input rows within an aggregate's
// argument) are unique on `exprs`.
bool rows_unique_on(Proofs *p, Plan *at, bool in_aggregate, List *exprs) {
    Plan *rows = in_aggregate ? at->lefttree : at;
    if (!rows) return false;
    if (at_most_one(rows)) return true;
    if (plan_nodes::is_relation_scan(at)) {
        Scan *scan = (Scan *)at;
        Bitmapset *attnums = nullptr;
        ListCell *lc;
        foreach (lc, exprs) {
            Expr *e = plan_nodes::strip_relabels((Expr *)lfirst(lc));
            AttrNumber a = e && IsA(e, Var) ? scan_column(scan, (Var *)e) : 0;
            if (a > 0) attnums = bms_add_member(attnums, a);
        }
        return scan_columns_unique(p, scan, attnums);
    }
    if (plan_nodes::is_join(at)) {
        bool outer = rows_unique(p, at->lefttree, vars_of(exprs, OUTER_VAR));
        bool inner = rows_unique(p, at->righttree, vars_of(exprs, INNER_VAR));
        return (outer && inner) || (outer && !join_repeats(p, at, true)) ||
               (inner && !join_repeats(p, at, false));
    }
    switch (nodeTag(at)) {
        case T_Agg: {
            Agg *agg = (Agg *)at;
            Bitmapset *keys = vars_of(exprs, OUTER_VAR);
            if (in_aggregate) return rows_unique(p, at->lefttree, keys);
            if (agg->groupingSets != NIL || agg->numCols == 0) return false;
            for (int i = 0; i < agg->numCols; ++i)
                if (!bms_is_member(agg->grpColIdx[i], keys)) return false;
            return true;
        }
        case T_WindowAgg:
        case T_Result:
        case T_Sort:
        case T_IncrementalSort:
        case T_Material:
        case T_Limit:
        case T_Unique:
        case T_LockRows:
            return rows_unique(p, at->lefttree, vars_of(exprs, OUTER_VAR));
        case T_SubqueryScan:
            return rows_unique(p, ((SubqueryScan *)at)->subplan,
                               vars_of(exprs, ((Scan *)at)->scanrelid));
        case T_CteScan:
            return rows_unique(p, plan_nodes::subplan_of(p->stmt, ((CteScan *)at)->ctePlanId),
                               vars_of(exprs, ((Scan *)at)->scanrelid));
        default:
            return false;
    }
}

// Output columns `cols` of `plan` as those of its child, through nodes that pass rows on.
Plan *below_copies(Plan *plan, Bitmapset **cols) {
    while (plan && (IsA(plan, Hash) || IsA(plan, Material) || IsA(plan, Memoize) ||
                    IsA(plan, Sort) || IsA(plan, IncrementalSort))) {
        Bitmapset *below = nullptr;
        int k = -1;
        while ((k = bms_next_member(*cols, k)) >= 0) {
            if (k > list_length(plan->targetlist)) continue;
            Expr *e = plan_nodes::strip_relabels(
                list_nth_node(TargetEntry, plan->targetlist, k - 1)->expr);
            if (e && IsA(e, Var) && ((Var *)e)->varno == OUTER_VAR)
                below = bms_add_member(below, ((Var *)e)->varattno);
        }
        *cols = below;
        plan = plan->lefttree;
    }
    return plan;
}

// Whether `e` is a Var of the join's side `varno`.
bool side_var(Expr *e, int varno) {
    e = plan_nodes::strip_relabels(e);
    return e && IsA(e, Var) && ((Var *)e)->varno == varno;
}

// The params that pick the one row an inner join pairs the traced row with: those compared with
// a column of a scan on the other side that the join's equalities (to the traced side's columns,
// or a nested loop's values from it) restrict to a unique key. Only these columns count: the
// subquery's outer values must not be what makes the scan's row unique.
Bitmapset *params_through_join(Proofs *p, const Step *step) {
    if (step->sub || ((Join *)step->join)->jointype != JOIN_INNER) return nullptr;
    Plan *join = step->join;
    int mine = step->from_outer ? OUTER_VAR : INNER_VAR;
    int theirs = step->from_outer ? INNER_VAR : OUTER_VAR;
    // The join's own clauses, not the filter above it.
    List *quals = list_difference_ptr(plan_nodes::node_quals(join), join->qual);
    Bitmapset *cols = nullptr;
    ListCell *lc;
    foreach (lc, quals) {
        Expr *l = nullptr, *r = nullptr;
        if (!plan_nodes::equality_sides((Node *)lfirst(lc), &l, &r)) continue;
        if (side_var(l, theirs) && side_var(r, mine))
            cols = bms_add_member(cols, ((Var *)plan_nodes::strip_relabels(l))->varattno);
        if (side_var(r, theirs) && side_var(l, mine))
            cols = bms_add_member(cols, ((Var *)plan_nodes::strip_relabels(r))->varattno);
    }
    Plan *other = below_copies(step->from_outer ? join->righttree : join->lefttree, &cols);
    if (!other || !plan_nodes::is_relation_scan(other)) return nullptr;
    Scan *scan = (Scan *)other;
    Bitmapset *attnums = nullptr;
    int k = -1;
    while ((k = bms_next_member(cols, k)) >= 0) {
        if (k > list_length(other->targetlist)) continue;
        Expr *e =
            plan_nodes::strip_relabels(list_nth_node(TargetEntry, other->targetlist, k - 1)->expr);
        AttrNumber a = e && IsA(e, Var) ? scan_column(scan, (Var *)e) : 0;
        if (a > 0) attnums = bms_add_member(attnums, a);
    }
    // A nested loop hands the inner scan values of the traced outer row.
    if (IsA(join, NestLoop) && step->from_outer) {
        Bitmapset *handed = nullptr;
        foreach (lc, ((NestLoop *)join)->nestParams)
            handed = bms_add_member(handed, ((NestLoopParam *)lfirst(lc))->paramno);
        attnums = bms_add_members(attnums, columns_equated_to(scan, handed));
    }
    RangeTblEntry *rte = rt_fetch(scan->scanrelid, p->stmt->rtable);
    if (rte->rtekind != RTE_RELATION || !key_of(p, rte->relid, attnums)) return nullptr;
    return equated_params(scan);
}

}  // namespace

List *subplan_uses(PlannedStmt *stmt) {
    List *uses = NIL;
    collect_uses(&uses, stmt->planTree, 0);
    ListCell *lc;
    foreach (lc, stmt->subplans) collect_uses(&uses, (Plan *)lfirst(lc), 0);
    return uses;
}

bool subplan_repeats(Proofs *p, List *path, int index, Scan *scan) {
    const Step *step = (const Step *)list_nth(path, index);
    Bitmapset *equated = equated_params(scan);
    for (int i = index + 1; i < list_length(path); ++i)
        equated = bms_add_members(equated, params_through_join(p, (Step *)list_nth(path, i)));
    List *keys = NIL;
    ListCell *param, *arg;
    forboth(param, step->sub->parParam, arg,
            step->sub->args) if (bms_is_member(lfirst_int(param), equated)) keys =
        lappend(keys, lfirst(arg));
    // With no outer value picking the scan's rows, every outer row gets them all: unique on no
    // column is one row at most.
    return !rows_unique_on(p, step->at, step->in_aggregate, keys);
}

bool read_once(PlannedStmt *stmt, const SubPlan *sub, Plan *at, bool in_aggregate) {
    if (!in_aggregate && sub->subLinkType == EXPR_SUBLINK &&
        at == plan_nodes::subplan_of(stmt, sub->plan_id))
        return true;
    return at_most_one(in_aggregate ? at->lefttree : at);
}

int handed_index(const SubPlan *sub, int paramid) {
    ListCell *id;
    foreach (id, sub->parParam)
        if (lfirst_int(id) == paramid)
            return foreach_current_index(id) < list_length(sub->args) ? foreach_current_index(id)
                                                                      : -1;
    return -1;
}

List *path_outside(List *path, const SubPlan *sub) {
    List *out = NIL;
    ListCell *lc;
    foreach (lc, path)
        if (((Step *)lfirst(lc))->sub != sub) out = lappend(out, lfirst(lc));
    return out;
}

Bitmapset *with_subquery_params(Bitmapset *params, List *path) {
    params = bms_copy(params);
    ListCell *lc, *param;
    foreach (lc, path) {
        const Step *step = (const Step *)lfirst(lc);
        if (!step->sub) continue;
        foreach (param, step->sub->parParam) params = bms_add_member(params, lfirst_int(param));
    }
    return params;
}

}  // namespace clarify::pg::grain
