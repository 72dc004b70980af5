// The expression side of the plan walk (pg/plan/read_set.cpp): the reads an expression makes,
// traced through the frame it is evaluated in, and the subplans it references.
#include "pg/pg.hpp"
#include "pg/plan/read_set_walk.hpp"
#include "pg/compat.hpp"

extern "C" {
extern "C" {
#include "access/sysattr.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}
}

namespace clarify::pg::plan_walk {

namespace {
bool expr_walker(Node *node, void *context);
void walk_subplan_ref(Walk *w, const SubPlan *sp);
}  // namespace

void record(Walk *w, Index rti, AttrNumber attnum) {
    if (rti < 1 || rti > (Index)list_length(w->stmt->rtable) || !w->watched[rti - 1]) return;
    Oid relation = entry_relation(rt_fetch(rti, w->stmt->rtable));
    if (!OidIsValid(relation) || attnum < 0) return;
    for (int i = 0; i < w->count; ++i)
        if (w->reads[i].relation == relation && w->reads[i].attnum == attnum) return;
    if (w->count == w->capacity) {
        w->capacity *= 2;
        w->reads = (ColumnRead *)repalloc(w->reads, sizeof(ColumnRead) * w->capacity);
    }
    w->reads[w->count].relation = relation;
    w->reads[w->count].attnum = attnum;
    w->count++;
}

// Every column a range table entry selects: used where a plan cannot be traced precisely, and
// for views (whose own entry keeps exactly the columns the statement uses).
void record_selected(Walk *w, Index rti) {
    if (!OidIsValid(entry_relation(rt_fetch(rti, w->stmt->rtable)))) return;
    Bitmapset *selected = selected_columns(w->stmt, rti);
    int col = -1;
    while ((col = bms_next_member(selected, col)) >= 0)
        record(w, rti, col + FirstLowInvalidHeapAttributeNumber);
}

// An index scan returns rows in the order of the index's keys: a LIMIT or the client sees that
// order, so the key columns are read even when nothing else mentions them.
void record_index_keys(Walk *w, Index rti, Oid index) {
    if (rti < 1 || rti > (Index)list_length(w->stmt->rtable) || !w->watched[rti - 1]) return;
    HeapTuple tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
    if (!HeapTupleIsValid(tuple)) return;
    Form_pg_index form = (Form_pg_index)GETSTRUCT(tuple);
    bool expressions = false;
    for (int k = 0; k < form->indnkeyatts; ++k) {
        if (form->indkey.values[k] == 0)
            expressions = true;
        else
            record(w, rti, form->indkey.values[k]);
    }
    ReleaseSysCache(tuple);
    if (expressions) record(w, rti, 0);  // keys computed from columns: count them all
}

// Walks subplan plan_id for `demand` unless earlier references covered it already.
void walk_subplan(Walk *w, int plan_id, Bitmapset *demand, bool demand_all, bool ordered) {
    if (plan_id < 1 || plan_id > list_length(w->stmt->subplans)) return;
    int i = plan_id - 1;
    bool new_order = ordered && !w->subplan_ordered[i];
    if (w->subplan_all[i] && !new_order) return;
    if (w->subplan_seen[i] && !demand_all && !new_order &&
        bms_is_subset(demand, w->subplan_demand[i]))
        return;
    w->subplan_seen[i] = true;
    w->subplan_ordered[i] = w->subplan_ordered[i] || ordered;
    ordered = w->subplan_ordered[i];
    demand_all = demand_all || w->subplan_all[i];
    if (demand_all) {
        w->subplan_all[i] = true;
    } else {
        w->subplan_demand[i] = bms_add_members(w->subplan_demand[i], demand);
        demand = w->subplan_demand[i];
    }
    walk_plan(w, (Plan *)list_nth(w->stmt->subplans, i), bms_copy(demand), demand_all, ordered);
}

namespace {

// A sublink's rows: only an ARRAY(SELECT ...) keeps their order (a LIMIT inside makes its own
// input ordered); EXISTS, IN, ANY/ALL and a scalar subquery do not.
void walk_subplan_ref(Walk *w, const SubPlan *sp) {
    walk_subplan(w, sp->plan_id, nullptr, true, sp->subLinkType == ARRAY_SUBLINK);
}

bool expr_walker(Node *node, void *context) {
    if (!node) return false;
    CHECK_FOR_INTERRUPTS();
    Frame *f = (Frame *)context;
    if (IsA(node, Var)) {
        Var *var = (Var *)node;
        if (var->varlevelsup != 0) return false;
        if ((Index)var->varno == (Index)OUTER_VAR) {
            for (int i = 0; i < f->n_outer; ++i)
                f->outer_demand[i] = bms_add_member(f->outer_demand[i], var->varattno);
        } else if (var->varno == INNER_VAR) {
            if (f->inner_demand) *f->inner_demand = bms_add_member(*f->inner_demand, var->varattno);
        } else if (var->varno == INDEX_VAR) {
            if (f->index_tlist && var->varattno >= 1 &&
                var->varattno <= list_length(f->index_tlist)) {
                TargetEntry *te = (TargetEntry *)list_nth(f->index_tlist, var->varattno - 1);
                expr_walker((Node *)te->expr, context);
            }
        } else if (!IS_SPECIAL_VARNO(var->varno)) {
            // A relation's column; outputs of functions, VALUES and the like are not relations,
            // and their inputs are walked whole by the scan.
            record(f->walk, var->varno, var->varattno);
        }
        return false;
    }
    if (IsA(node, SubPlan)) {
        SubPlan *sp = (SubPlan *)node;
        walk_subplan_ref(f->walk, sp);
        expression_tree_walker((Node *)sp->testexpr, WALKER(expr_walker), context);
        expression_tree_walker((Node *)sp->args, WALKER(expr_walker), context);
        return false;
    }
    return expression_tree_walker(node, WALKER(expr_walker), context);
}

}  // namespace

void walk_exprs(Frame *f, void *exprs) {
    expr_walker((Node *)exprs, f);
}

// Whether nothing upstream uses this entry and skipping it hides nothing: only a plain column
// reference passed along. Anything computed is evaluated whether or not it is used (a
// set-returning or volatile function, a division that can fail, a materialized CTE's columns),
// so it is a read.
bool skippable(const TargetEntry *te, Bitmapset *demand, bool demand_all) {
    if (demand_all || bms_is_member(te->resno, demand) || bms_is_member(0, demand)) return false;
    return te->expr && IsA(te->expr, Var);
}

void walk_tlist(Frame *f, List *tlist, Bitmapset *demand, bool demand_all) {
    ListCell *lc;
    foreach (lc, tlist) {
        TargetEntry *te = (TargetEntry *)lfirst(lc);
        if (!skippable(te, demand, demand_all)) walk_exprs(f, te->expr);
    }
}

void demand_columns(Bitmapset **demand, int n, const AttrNumber *cols) {
    for (int i = 0; i < n; ++i) *demand = bms_add_member(*demand, cols[i]);
}

bool scan_var_walker(Node *node, void *context) {
    if (!node) return false;
    CHECK_FOR_INTERRUPTS();
    ScanVarContext *c = (ScanVarContext *)context;
    if (IsA(node, Var) && (Index)((Var *)node)->varno == c->scanrelid &&
        ((Var *)node)->varlevelsup == 0) {
        c->demand = bms_add_member(c->demand, ((Var *)node)->varattno);
        return false;
    }
    if (IsA(node, Var)) return expr_walker(node, c->frame);
    if (IsA(node, SubPlan)) return expr_walker(node, c->frame);
    return expression_tree_walker(node, WALKER(scan_var_walker), context);
}

}  // namespace clarify::pg::plan_walk
