#include "pg.hpp"
#include "grain_totals.hpp"

extern "C" {
#include "parser/parsetree.h"
}

namespace clarify::pg::grain {

namespace {

Var *plain_var(Expr *e) {
    while (e && IsA(e, RelabelType)) e = ((RelabelType *)e)->arg;
    return e && IsA(e, Var) ? (Var *)e : nullptr;
}

void collect(PlannedStmt *stmt, Plan *plan, AttrNumber attno, List *route, List **out, int depth);

void collect_children(PlannedStmt *stmt, List *plans, AttrNumber attno, List *route, List **out,
                      int depth) {
    ListCell *lc;
    foreach (lc, plans) collect(stmt, (Plan *)lfirst(lc), attno, route, out, depth + 1);
}

void collect(PlannedStmt *stmt, Plan *plan, AttrNumber attno, List *route, List **out, int depth) {
    if (!plan || depth > 64 || attno < 1 || attno > list_length(plan->targetlist)) return;
    Var *v = plain_var(list_nth_node(TargetEntry, plan->targetlist, attno - 1)->expr);
    if (!v || v->varlevelsup != 0) return;
    if (is_relation_scan(plan)) {
        Scan *scan = (Scan *)plan;
        AttrNumber a = scan_column(scan, v);
        if (a > 0 && rt_fetch(scan->scanrelid, stmt->rtable)->rtekind == RTE_RELATION) {
            ScanColumn *column = (ScanColumn *)palloc(sizeof(ScanColumn));
            *column = ScanColumn{scan, route, a};
            *out = lappend(*out, column);
        }
        return;
    }
    switch (nodeTag(plan)) {
        case T_SubqueryScan:
            collect(stmt, ((SubqueryScan *)plan)->subplan, v->varattno, route, out, depth + 1);
            return;
        case T_CteScan:
            collect(stmt, subplan_of(stmt, ((CteScan *)plan)->ctePlanId), v->varattno,
                    lappend(list_copy(route), plan), out, depth + 1);
            return;
        case T_Append:
            collect_children(stmt, ((Append *)plan)->appendplans, v->varattno, route, out, depth);
            return;
        case T_MergeAppend:
            collect_children(stmt, ((MergeAppend *)plan)->mergeplans, v->varattno, route, out,
                             depth);
            return;
        default:
            if (v->varno == OUTER_VAR)
                collect(stmt, plan->lefttree, v->varattno, route, out, depth + 1);
            if (v->varno == INNER_VAR)
                collect(stmt, plan->righttree, v->varattno, route, out, depth + 1);
            return;
    }
}

int sets_of(const Agg *agg) {
    int n = list_length(agg->groupingSets);
    ListCell *lc;
    foreach (lc, agg->chain) n += list_length(((Agg *)lfirst(lc))->groupingSets);
    return n;
}

}  // namespace

List *base_columns(PlannedStmt *stmt, Plan *plan, AttrNumber attno, List *route) {
    List *out = NIL;
    collect(stmt, plan, attno, route, &out, 0);
    return out;
}

bool same_route(const List *a, const List *b) {
    if (list_length(a) != list_length(b)) return false;
    for (int i = 0; i < list_length(a); ++i)
        if (list_nth(a, i) != list_nth(b, i)) return false;
    return true;
}

bool repeats_rows(const Plan *plan) {
    return IsA(plan, Agg) && sets_of((const Agg *)plan) > 1;
}

AttrNumber *common_grouping_columns(const Agg *agg, int *n) {
    AttrNumber *out = (AttrNumber *)palloc(sizeof(AttrNumber) * (agg->numCols + 1));
    *n = 0;
    if (agg->groupingSets == NIL) {
        for (int i = 0; i < agg->numCols; ++i) out[(*n)++] = agg->grpColIdx[i];
        return out;
    }
    // Each set of a node groups by a prefix of that node's grpColIdx (nodeAgg.c relies on it).
    Bitmapset *common = nullptr;
    bool first = true;
    List *nodes = lcons((void *)agg, list_copy(agg->chain));
    ListCell *lc, *set;
    foreach (lc, nodes) {
        const Agg *node = (const Agg *)lfirst(lc);
        foreach (set, node->groupingSets) {
            Bitmapset *cols = nullptr;
            for (int j = 0; j < list_length((List *)lfirst(set)) && j < node->numCols; ++j)
                cols = bms_add_member(cols, node->grpColIdx[j]);
            common = first ? cols : bms_int_members(common, cols);
            first = false;
        }
    }
    int a = -1;
    while ((a = bms_next_member(common, a)) >= 0 && *n < agg->numCols) out[(*n)++] = a;
    return out;
}

const AttrNumber *distinct_keys(const Plan *plan, int *n) {
    if (IsA(plan, Agg)) {
        const Agg *agg = (const Agg *)plan;
        if (agg->aggstrategy == AGG_PLAIN || agg->groupingSets != NIL || agg->numCols == 0 ||
            DO_AGGSPLIT_SKIPFINAL(agg->aggsplit))
            return nullptr;
        *n = agg->numCols;
        return agg->grpColIdx;
    }
    if (IsA(plan, Group)) {
        *n = ((const Group *)plan)->numCols;
        return *n > 0 ? ((const Group *)plan)->grpColIdx : nullptr;
    }
    if (IsA(plan, Unique)) {
        *n = ((const Unique *)plan)->numCols;
        return *n > 0 ? ((const Unique *)plan)->uniqColIdx : nullptr;
    }
    return nullptr;
}

Collapse *collapse_at(PlannedStmt *stmt, Plan *plan, Expr *expr, int path_length, int repeaters,
                      List *route, int *steps) {
    int n = 0;
    const AttrNumber *keys = distinct_keys(plan, &n);
    if (!keys || !plain_var(expr)) return nullptr;
    *steps -= n;
    if (*steps < 0) return nullptr;
    Collapse *c = (Collapse *)palloc(sizeof(Collapse));
    *c = Collapse{path_length, repeaters, NIL};
    for (int i = 0; i < n; ++i)
        c->keys = lappend(c->keys, base_columns(stmt, plan->lefttree, keys[i], route));
    return c;
}

Bitmapset *columns_of_scan(List *columns, Scan *scan, List *route) {
    Bitmapset *out = nullptr;
    ListCell *lc;
    foreach (lc, columns) {
        ScanColumn *c = (ScanColumn *)lfirst(lc);
        if (c->scan == scan && same_route(c->route, route)) out = bms_add_member(out, c->attnum);
    }
    return out;
}

Collapse *collapse_for(Proofs *p, List *collapses, Scan *scan, List *route, Oid relid,
                       Bitmapset *single, int *steps) {
    ListCell *lc, *k;
    foreach (lc, collapses) {
        if (--*steps < 0) return nullptr;
        Collapse *c = (Collapse *)lfirst(lc);
        Bitmapset *attnums = bms_copy(single);
        bool all = true;
        foreach (k, c->keys) {
            Bitmapset *mine = columns_of_scan((List *)lfirst(k), scan, route);
            all = all && !bms_is_empty(mine);
            attnums = bms_join(attnums, mine);
        }
        if (all && unique_key(p, relid, attnums)) return c;
    }
    return nullptr;
}

}  // namespace clarify::pg::grain
