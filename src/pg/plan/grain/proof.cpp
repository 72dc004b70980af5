#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/grain/proof.hpp"
#include "pg/plan/plan_nodes.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
}

#include <utility>

namespace clarify::pg::grain {

namespace {

// Which special varnos (OUTER_VAR, INNER_VAR) an expression refers to.
struct Sides {
    bool outer, inner, other;
};
bool sides_walker(Node *node, void *context) {
    if (!node) return false;
    if (IsA(node, Var)) {
        Sides *s = (Sides *)context;
        Var *v = (Var *)node;
        if (v->varno == OUTER_VAR)
            s->outer = true;
        else if (v->varno == INNER_VAR)
            s->inner = true;
        else
            s->other = true;
        return false;
    }
    return expression_tree_walker(node, WALKER(sides_walker), context);
}
Sides sides_of(Node *node) {
    Sides s = {false, false, false};
    sides_walker(node, &s);
    return s;
}

bool has_param(Node *node, void *context) {
    if (!node) return false;
    if (IsA(node, Param) && ((Param *)node)->paramkind == PARAM_EXEC &&
        bms_is_member(((Param *)node)->paramid, (Bitmapset *)context))
        return true;
    return expression_tree_walker(node, WALKER(has_param), context);
}

// The key columns (by output attno) of `side` that the join's equalities compare with the other
// side: keys the other side must be unique on. A nested loop's parameters count when the inner
// side compares them for equality.
Bitmapset *join_keys(Proofs *p, Plan *join, bool of_outer);

bool param_equated(Proofs *p, Plan *plan, int param);

bool param_equated_here(Proofs *p, Plan *plan, int param) {
    ListCell *lc;
    foreach (lc, plan_nodes::node_quals(plan)) {
        Expr *l = nullptr, *r = nullptr;
        if (!plan_nodes::equality_sides((Node *)lfirst(lc), &l, &r)) continue;
        l = plan_nodes::strip_relabels(l);
        r = plan_nodes::strip_relabels(r);
        for (int turn = 0; turn < 2; ++turn, std::swap(l, r))
            if (IsA(l, Param) && ((Param *)l)->paramid == param && plan_nodes::plain_var(r))
                return true;
    }
    if (param_equated(p, plan->lefttree, param) || param_equated(p, plan->righttree, param))
        return true;
    if (IsA(plan, Append)) {
        foreach (lc, ((Append *)plan)->appendplans)
            if (!param_equated(p, (Plan *)lfirst(lc), param)) return false;
        return list_length(((Append *)plan)->appendplans) > 0;
    }
    return param_equated(p, plan_nodes::scanned_subplan(p->stmt, plan), param);
}

// Whether `param` is compared for equality with a column somewhere in `plan`'s subtree (each
// (node, param) decided once: a CTE referenced many times is not walked again).
bool param_equated(Proofs *p, Plan *plan, int param) {
    if (!plan) return false;
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::Proof);
    if (void *known = walk_budget::memo_get(p->equated, plan, param))
        return known == walk_budget::memo_bool(true);
    bool equated = param_equated_here(p, plan, param);
    walk_budget::memo_put(p->equated, plan, param, walk_budget::memo_bool(equated));
    return equated;
}

Bitmapset *equality_keys(Plan *join, bool of_outer) {
    Bitmapset *keys = nullptr;
    ListCell *lc;
    List *quals = plan_nodes::node_quals(join);
    // A filter above an outer join does not say which rows matched.
    if (((Join *)join)->jointype != JOIN_INNER) {
        quals = list_difference_ptr(quals, join->qual);
    }
    foreach (lc, quals) {
        Expr *left = nullptr, *right = nullptr;
        if (!plan_nodes::equality_sides((Node *)lfirst(lc), &left, &right)) continue;
        Node *l = (Node *)left, *r = (Node *)right;
        Sides ls = sides_of(l), rs = sides_of(r);
        for (int turn = 0; turn < 2; ++turn) {
            Var *v = plan_nodes::plain_var((Expr *)l);
            bool mine = v && v->varno == (of_outer ? OUTER_VAR : INNER_VAR);
            bool theirs_only = of_outer ? (rs.inner && !rs.outer && !rs.other)
                                        : (rs.outer && !rs.inner && !rs.other);
            if (mine && theirs_only) keys = bms_add_member(keys, v->varattno);
            std::swap(l, r);
            std::swap(ls, rs);
        }
    }
    return keys;
}

bool declared_or_indexed(Proofs *p, Oid relid, Bitmapset *attnums, bool inherited_only) {
    if (bms_is_empty(attnums)) return false;
    if (!inherited_only && p->declared && p->declared(p->declared_context, relid, attnums))
        return true;
    Relation rel = RelationIdGetRelation(relid);
    if (!RelationIsValid(rel)) return false;
    List *indexes = RelationGetIndexList(rel);
    RelationClose(rel);
    bool found = false;
    ListCell *lc;
    foreach (lc, indexes) {
        Oid index = lfirst_oid(lc);
        HeapTuple tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
        if (!HeapTupleIsValid(tuple)) continue;
        Form_pg_index form = (Form_pg_index)GETSTRUCT(tuple);
        // Deferrable constraints may hold duplicates until commit; partial and invalid indexes
        // prove nothing about the rows they do not cover.
        bool usable = form->indisunique && form->indimmediate && form->indisvalid &&
                      heap_attisnull(tuple, Anum_pg_index_indpred, nullptr) &&
                      heap_attisnull(tuple, Anum_pg_index_indexprs, nullptr);
        for (int k = 0; usable && k < form->indnkeyatts; ++k)
            usable = bms_is_member(form->indkey.values[k], attnums);
        ReleaseSysCache(tuple);
        // A partition's own unique index says nothing across partitions; one it inherits from
        // its partitioned table includes the partition key.
        if (usable && inherited_only) usable = get_rel_relispartition(index);
        if (usable) {
            found = true;
            break;
        }
    }
    list_free(indexes);
    return found;
}

bool at_most_one_row(Plan *plan) {
    switch (nodeTag(plan)) {
        case T_Agg: {
            Agg *agg = (Agg *)plan;
            return agg->aggstrategy == AGG_PLAIN && agg->numCols == 0 && agg->groupingSets == NIL;
        }
        case T_Result:
            return plan->lefttree == nullptr;
        case T_Limit: {
            // WITH TIES returns every row that ties with the last one.
            if (((Limit *)plan)->limitOption == LIMIT_OPTION_WITH_TIES) return false;
            Node *count = ((Limit *)plan)->limitCount;
            if (!count || !IsA(count, Const) || ((Const *)count)->constisnull) return false;
            return DatumGetInt64(((Const *)count)->constvalue) <= 1;
        }
        case T_ValuesScan:
            return list_length(((ValuesScan *)plan)->values_lists) <= 1;
        default:
            return false;
    }
}

bool unique_on(Proofs *p, Plan *plan, Bitmapset *keys, bool inherited_only = false);

// FETCH FIRST 1 ROWS WITH TIES over rows unique on the columns it orders by is one row.
bool ties_of_one_row(Proofs *p, Plan *plan) {
    if (!IsA(plan, Limit) || ((Limit *)plan)->limitOption != LIMIT_OPTION_WITH_TIES) return false;
    Limit *limit = (Limit *)plan;
    Node *count = limit->limitCount;
    if (!count || !IsA(count, Const) || ((Const *)count)->constisnull ||
        DatumGetInt64(((Const *)count)->constvalue) > 1 || limit->uniqNumCols == 0)
        return false;
    Bitmapset *tied = nullptr;
    for (int i = 0; i < limit->uniqNumCols; ++i) tied = bms_add_member(tied, limit->uniqColIdx[i]);
    return unique_on(p, plan->lefttree, tied);
}

// Output columns `keys` of `plan` as the columns of its child they are plain copies of.
Bitmapset *through_tlist(Plan *plan, Bitmapset *keys, int varno) {
    Bitmapset *out = nullptr;
    int k = -1;
    while ((k = bms_next_member(keys, k)) >= 0) {
        if (k > list_length(plan->targetlist)) continue;
        Var *v = plan_nodes::plain_var(list_nth_node(TargetEntry, plan->targetlist, k - 1)->expr);
        if (v && (varno == 0 || v->varno == varno)) out = bms_add_member(out, v->varattno);
    }
    return out;
}

bool columns_cover(Bitmapset *keys, int n, const AttrNumber *cols) {
    for (int i = 0; i < n; ++i)
        if (!bms_is_member(cols[i], keys)) return false;
    return true;
}

bool scan_unique_on(Proofs *p, Scan *scan, Bitmapset *keys, bool inherited_only) {
    Bitmapset *attnums = nullptr;
    int k = -1;
    while ((k = bms_next_member(keys, k)) >= 0) {
        if (k > list_length(scan->plan.targetlist)) continue;
        TargetEntry *te = list_nth_node(TargetEntry, scan->plan.targetlist, k - 1);
        Var *v = plan_nodes::plain_var(te->expr);
        AttrNumber a = v ? scan_column(scan, v) : 0;
        if (a > 0) attnums = bms_add_member(attnums, a);
    }
    return scan_columns_unique(p, scan, attnums, inherited_only);
}

}  // namespace

bool scan_columns_unique(Proofs *p, Scan *scan, Bitmapset *attnums, bool inherited_only) {
    RangeTblEntry *rte = rt_fetch(scan->scanrelid, p->stmt->rtable);
    if (rte->rtekind != RTE_RELATION) return false;
    // Columns compared with a value (a constant, a parameter, the outer row of a nested loop)
    // are fixed for the rows this scan returns at once.
    ListCell *lc;
    foreach (lc, plan_nodes::node_quals(&scan->plan)) {
        Expr *l = nullptr, *r = nullptr;
        if (!plan_nodes::equality_sides((Node *)lfirst(lc), &l, &r)) continue;
        for (int turn = 0; turn < 2; ++turn, std::swap(l, r)) {
            Var *v = plan_nodes::plain_var(l);
            if (v && !contain_var_clause((Node *)r) && !contain_volatile_functions((Node *)r)) {
                AttrNumber a = scan_column(scan, v);
                if (a > 0) attnums = bms_add_member(attnums, a);
            }
        }
    }
    return declared_or_indexed(p, rte->relid, attnums, inherited_only);
}

namespace {

bool join_unique_on(Proofs *p, Plan *join, Bitmapset *keys) {
    Bitmapset *outer_keys = through_tlist(join, keys, OUTER_VAR);
    Bitmapset *inner_keys = through_tlist(join, keys, INNER_VAR);
    JoinType type = ((Join *)join)->jointype;
    if (type == JOIN_SEMI || type == JOIN_ANTI) return unique_on(p, join->lefttree, outer_keys);
    if (is_right_semi_or_anti(type)) return unique_on(p, join->righttree, inner_keys);
    bool outer_unique = unique_on(p, join->lefttree, outer_keys);
    bool inner_unique = unique_on(p, join->righttree, inner_keys);
    if (outer_unique && inner_unique) return true;
    if (outer_unique && !join_repeats(p, join, true)) return true;
    return inner_unique && !join_repeats(p, join, false);
}

bool partitioned_append(PlannedStmt *stmt, Append *append) {
    int rti = 0;
    if (!bms_get_singleton_member(append->apprelids, &rti)) return false;
    RangeTblEntry *rte = rt_fetch(rti, stmt->rtable);
    return rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_PARTITIONED_TABLE;
}

bool unique_on(Proofs *p, Plan *plan, Bitmapset *keys, bool inherited_only) {
    if (!plan) return false;
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::Proof);
    if (--p->budget < 0) return false;
    if (at_most_one_row(plan) || ties_of_one_row(p, plan)) return true;
    if (plan_nodes::is_relation_scan(plan))
        return scan_unique_on(p, (Scan *)plan, keys, inherited_only);
    if (plan_nodes::is_join(plan)) return join_unique_on(p, plan, keys);
    switch (nodeTag(plan)) {
        case T_SubqueryScan:
        case T_CteScan:
            return unique_on(p, plan_nodes::scanned_subplan(p->stmt, plan),
                             through_tlist(plan, keys, ((Scan *)plan)->scanrelid));
        case T_Agg: {
            Agg *agg = (Agg *)plan;
            return agg->groupingSets == NIL && agg->numCols > 0 &&
                   columns_cover(through_tlist(plan, keys, OUTER_VAR), agg->numCols,
                                 agg->grpColIdx);
        }
        case T_Unique: {
            Unique *u = (Unique *)plan;
            Bitmapset *below = through_tlist(plan, keys, OUTER_VAR);
            return columns_cover(below, u->numCols, u->uniqColIdx) ||
                   unique_on(p, plan->lefttree, below);
        }
        case T_SetOp: {
            SetOp *op = (SetOp *)plan;
            SetOpColumns compared = setop_columns(op);
            return (op->cmd == SETOPCMD_INTERSECT || op->cmd == SETOPCMD_EXCEPT) &&
                   columns_cover(keys, compared.count, compared.columns);
        }
        case T_Append: {
            Append *append = (Append *)plan;
            List *children = append->appendplans;
            if (list_length(children) == 1) return unique_on(p, (Plan *)linitial(children), keys);
            if (!partitioned_append(p->stmt, append) || children == NIL) return false;
            ListCell *lc;
            foreach (lc, children)
                if (!unique_on(p, (Plan *)lfirst(lc), keys, true)) return false;
            return true;
        }
        case T_Sort:
        case T_IncrementalSort:
        case T_Material:
        case T_Memoize:
        case T_Hash:
        case T_Gather:
        case T_GatherMerge:
        case T_LockRows:
        case T_Limit:
        case T_Result:
            return unique_on(p, plan->lefttree, through_tlist(plan, keys, OUTER_VAR),
                             inherited_only);
        default:
            return false;
    }
}

}  // namespace

bool rows_unique(Proofs *p, Plan *plan, Bitmapset *keys) {
    return unique_on(p, plan, keys);
}

bool key_of(Proofs *p, Oid relid, Bitmapset *attnums) {
    return declared_or_indexed(p, relid, attnums, false);
}

bool at_most_one(Plan *plan) {
    return plan && at_most_one_row(plan);
}

AttrNumber scan_column(Scan *scan, Var *var) {
    if (var->varno == (int)scan->scanrelid) return var->varattno;
    if (var->varno == INDEX_VAR && (IsA(scan, ForeignScan) || IsA(scan, CustomScan))) {
        List *scan_tlist = IsA(scan, ForeignScan) ? ((ForeignScan *)scan)->fdw_scan_tlist
                                                  : ((CustomScan *)scan)->custom_scan_tlist;
        if (var->varattno < 1 || var->varattno > list_length(scan_tlist)) return 0;
        Var *v =
            plan_nodes::plain_var(list_nth_node(TargetEntry, scan_tlist, var->varattno - 1)->expr);
        return v && v->varno == (int)scan->scanrelid ? v->varattno : 0;
    }
    if (var->varno == INDEX_VAR && IsA(scan, IndexOnlyScan)) {
        List *index_tlist = ((IndexOnlyScan *)scan)->indextlist;
        if (var->varattno < 1 || var->varattno > list_length(index_tlist)) return 0;
        Var *v =
            plan_nodes::plain_var(list_nth_node(TargetEntry, index_tlist, var->varattno - 1)->expr);
        return v ? v->varattno : 0;
    }
    return 0;
}

Bitmapset *scan_single_valued(Proofs *p, Scan *scan, List **values) {
    Bitmapset *out = nullptr;
    ListCell *lc;
    foreach (lc, plan_nodes::node_quals(&scan->plan)) {
        Expr *l = nullptr, *r = nullptr;
        if (!plan_nodes::equality_sides((Node *)lfirst(lc), &l, &r)) continue;
        for (int turn = 0; turn < 2; ++turn, std::swap(l, r)) {
            Var *v = plan_nodes::plain_var(l);
            if (!v || contain_var_clause((Node *)r) || contain_volatile_functions((Node *)r) ||
                has_param((Node *)r, p->loop_params))
                continue;
            AttrNumber a = scan_column(scan, v);
            if (a <= 0 || bms_is_member(a, out)) continue;
            out = bms_add_member(out, a);
            if (values) {
                FixedColumn *fixed = (FixedColumn *)palloc(sizeof(FixedColumn));
                *fixed = FixedColumn{a, r};
                *values = lappend(*values, fixed);
            }
        }
    }
    return out;
}

bool join_repeats(Proofs *p, Plan *join, bool from_outer) {
    if (void *known = walk_budget::memo_get(p->known, join, from_outer))
        return known == walk_budget::memo_bool(true);
    JoinType type = ((Join *)join)->jointype;
    bool repeats;
    if (type == JOIN_SEMI || type == JOIN_ANTI)
        repeats = false;  // each outer row at most once; the inner side returns nothing
    else if (is_right_semi_or_anti(type))
        repeats = false;  // each inner row at most once; the outer side returns nothing
    else if (from_outer && ((Join *)join)->inner_unique)
        repeats = false;  // the planner proved each outer row matches at most one inner row
    else
        repeats = !unique_on(p, from_outer ? join->righttree : join->lefttree,
                             join_keys(p, join, !from_outer));
    walk_budget::memo_put(p->known, join, from_outer, walk_budget::memo_bool(repeats));
    return repeats;
}

namespace {
Bitmapset *join_keys(Proofs *p, Plan *join, bool of_outer) {
    Bitmapset *keys = equality_keys(join, of_outer);
    if (!of_outer || !IsA(join, NestLoop)) return keys;
    ListCell *lc;
    foreach (lc, ((NestLoop *)join)->nestParams) {
        NestLoopParam *np = (NestLoopParam *)lfirst(lc);
        Var *v = plan_nodes::plain_var((Expr *)np->paramval);
        if (v && v->varno == OUTER_VAR && param_equated(p, join->righttree, np->paramno))
            keys = bms_add_member(keys, v->varattno);
    }
    return keys;
}
}  // namespace

}  // namespace clarify::pg::grain
