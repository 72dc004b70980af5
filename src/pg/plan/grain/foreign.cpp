#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/grain/foreign.hpp"

extern "C" {
#include "nodes/nodeFuncs.h"
}

namespace clarify::pg::grain {

namespace {

struct Pushed {
    Oid aggregate;
    bool distinct;
    List *reads;
    List *tlist;
};

// The columns of range entry `rti` the scan target list groups by.
Bitmapset *grouping_columns(List *tlist, int rti) {
    Bitmapset *out = nullptr;
    ListCell *lc;
    foreach (lc, tlist) {
        TargetEntry *te = (TargetEntry *)lfirst(lc);
        if (te->ressortgroupref == 0 || !IsA(te->expr, Var)) continue;
        Var *v = (Var *)te->expr;
        if ((int)v->varno == rti && v->varlevelsup == 0 && v->varattno > 0)
            out = bms_add_member(out, v->varattno);
    }
    return out;
}

bool pushed_vars(Node *node, void *context) {
    if (!node) return false;
    if (IsA(node, Var) && ((Var *)node)->varlevelsup == 0) {
        Pushed *p = (Pushed *)context;
        PushedRead *read = (PushedRead *)palloc(sizeof(PushedRead));
        int rti = (int)((Var *)node)->varno;
        *read = PushedRead{rti, ((Var *)node)->varattno, p->aggregate, p->distinct,
                           grouping_columns(p->tlist, rti)};
        p->reads = lappend(p->reads, read);
        return false;
    }
    return expression_tree_walker(node, WALKER(pushed_vars), context);
}

bool pushed_aggregates(Node *node, void *context) {
    if (!node) return false;
    if (IsA(node, Aggref)) {
        Pushed *p = (Pushed *)context;
        p->aggregate = ((Aggref *)node)->aggfnoid;
        p->distinct = ((Aggref *)node)->aggdistinct != NIL;
        return expression_tree_walker(node, WALKER(pushed_vars), context);
    }
    return expression_tree_walker(node, WALKER(pushed_aggregates), context);
}

bool collect_vars(Node *node, void *context) {
    if (!node) return false;
    if (IsA(node, Var) && ((Var *)node)->varlevelsup == 0) {
        *(List **)context = lappend(*(List **)context, node);
        return false;
    }
    return expression_tree_walker(node, WALKER(collect_vars), context);
}

}  // namespace

List *scan_tlist_vars(Scan *scan, Var *var) {
    List *tlist = NIL;
    if (IsA(scan, ForeignScan)) tlist = ((ForeignScan *)scan)->fdw_scan_tlist;
    if (IsA(scan, CustomScan)) tlist = ((CustomScan *)scan)->custom_scan_tlist;
    if (var->varno != INDEX_VAR || var->varattno < 1 || var->varattno > list_length(tlist))
        return NIL;
    List *out = NIL;
    collect_vars((Node *)list_nth_node(TargetEntry, tlist, var->varattno - 1)->expr,
                 static_cast<void *>(&out));
    return out;
}

Bitmapset *opaque_relids(const Plan *plan) {
    if (IsA(plan, ForeignScan)) return ((const ForeignScan *)plan)->fs_relids;
    if (IsA(plan, CustomScan)) return ((const CustomScan *)plan)->custom_relids;
    return nullptr;
}

List *pushed_reads(Plan *plan) {
    List *tlist = NIL;
    if (IsA(plan, ForeignScan)) tlist = ((ForeignScan *)plan)->fdw_scan_tlist;
    if (IsA(plan, CustomScan)) tlist = ((CustomScan *)plan)->custom_scan_tlist;
    if (!tlist || ((Scan *)plan)->scanrelid != 0) return NIL;
    Pushed p = {InvalidOid, false, NIL, tlist};
    pushed_aggregates((Node *)tlist, &p);
    return p.reads;
}

}  // namespace clarify::pg::grain
