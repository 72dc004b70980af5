#include "pg/pg.hpp"
#include "pg/plan/grain/totals.hpp"
#include "pg/plan/plan_nodes.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "parser/parsetree.h"
}

namespace clarify::pg::grain {

namespace {

// Where base_columns collects: the statement, the steps left and the columns found.
struct Collect {
    PlannedStmt *stmt;
    int *steps;
    List *out;
};

void collect(Collect *c, Plan *plan, AttrNumber attno, List *route, int depth);

void collect_children(Collect *c, List *plans, AttrNumber attno, List *route, int depth) {
    ListCell *lc;
    foreach (lc, plans) collect(c, (Plan *)lfirst(lc), attno, route, depth + 1);
}

// A CTE's column copied through many references (a chain of CTEs of UNION ALLs) names
// exponentially many (scan, route) pairs: the steps bound the walk (tests: walk_budget.sql).
void collect(Collect *c, Plan *plan, AttrNumber attno, List *route, int depth) {
    if (!plan || depth > 64 || attno < 1 || attno > list_length(plan->targetlist)) return;
    walk_budget::step(walk_budget::Kind::Grain);
    if (--*c->steps < 0) return;
    PlannedStmt *stmt = c->stmt;
    Var *v = plan_nodes::plain_var(list_nth_node(TargetEntry, plan->targetlist, attno - 1)->expr);
    if (!v || v->varlevelsup != 0) return;
    if (plan_nodes::is_relation_scan(plan)) {
        Scan *scan = (Scan *)plan;
        AttrNumber a = scan_column(scan, v);
        if (a > 0 && rt_fetch(scan->scanrelid, stmt->rtable)->rtekind == RTE_RELATION) {
            ScanColumn *column = (ScanColumn *)palloc(sizeof(ScanColumn));
            *column = ScanColumn{scan, route, a};
            c->out = lappend(c->out, column);
        }
        return;
    }
    switch (nodeTag(plan)) {
        case T_SubqueryScan:
            collect(c, ((SubqueryScan *)plan)->subplan, v->varattno, route, depth + 1);
            return;
        case T_CteScan:
            collect(c, plan_nodes::subplan_of(stmt, ((CteScan *)plan)->ctePlanId), v->varattno,
                    lappend(list_copy(route), plan), depth + 1);
            return;
        case T_Append:
        case T_MergeAppend:
            collect_children(c, plan_nodes::appended_plans(plan), v->varattno, route, depth);
            return;
        default:
            if (v->varno == OUTER_VAR) collect(c, plan->lefttree, v->varattno, route, depth + 1);
            if (v->varno == INNER_VAR) collect(c, plan->righttree, v->varattno, route, depth + 1);
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

List *base_columns(PlannedStmt *stmt, Plan *plan, AttrNumber attno, List *route, int *steps) {
    Collect c = {stmt, steps, NIL};
    collect(&c, plan, attno, route, 0);
    return c.out;
}

bool same_route(const List *a, const List *b) {
    if (list_length(a) != list_length(b)) return false;
    for (int i = 0; i < list_length(a); ++i)
        if (list_nth(a, i) != list_nth(b, i)) return false;
    return true;
}

bool route_within(const List *route, const List *prefix) {
    if (list_length(route) < list_length(prefix)) return false;
    for (int i = 0; i < list_length(prefix); ++i)
        if (list_nth(route, i) != list_nth(prefix, i)) return false;
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
    if (!keys || !plan_nodes::plain_var(expr)) return nullptr;
    *steps -= n;
    if (*steps < 0) return nullptr;
    Collapse *c = (Collapse *)palloc(sizeof(Collapse));
    *c = Collapse{path_length, repeaters, NIL};
    for (int i = 0; i < n; ++i)
        c->keys = lappend(c->keys, base_columns(stmt, plan->lefttree, keys[i], route, steps));
    if (*steps < 0) return nullptr;
    return c;
}

Bitmapset *columns_of_scan(List *columns, Scan *scan, List *route, int *steps) {
    Bitmapset *out = nullptr;
    ListCell *lc;
    foreach (lc, columns) {
        --*steps;
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
            Bitmapset *mine = columns_of_scan((List *)lfirst(k), scan, route, steps);
            all = all && !bms_is_empty(mine);
            attnums = bms_join(attnums, mine);
        }
        if (all && key_of(p, relid, attnums)) return c;
    }
    return nullptr;
}

}  // namespace clarify::pg::grain
