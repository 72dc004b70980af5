#include "pg/pg.hpp"
#include "pg/plan/row_order.hpp"
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

namespace clarify::pg {

namespace {

bool pg_catalog_function_named(Oid fn, const char *const *names, size_t n) {
    if (get_func_namespace(fn) != PG_CATALOG_NAMESPACE) return false;
    char *name = get_func_name(fn);
    if (!name) return false;
    for (size_t i = 0; i < n; ++i)
        if (strcmp(name, names[i]) == 0) return true;
    return false;
}

// Aggregates whose result does not depend on the order of their input (without ORDER BY inside,
// array_agg, string_agg and the like do, and so may an aggregate we do not know).
const char *const insensitive_aggregates[] = {
    "count",      "sum",         "avg",       "min",       "max",        "bool_and",
    "bool_or",    "every",       "bit_and",   "bit_or",    "bit_xor",    "stddev",
    "stddev_pop", "stddev_samp", "variance",  "var_pop",   "var_samp",   "corr",
    "covar_pop",  "covar_samp",  "regr_avgx", "regr_avgy", "regr_count", "regr_intercept",
    "regr_r2",    "regr_slope",  "regr_sxx",  "regr_sxy",  "regr_syy",   "range_intersect_agg"};

bool order_insensitive_aggregate(const Aggref *agg) {
    if (agg->aggorder != NIL || agg->aggdistinct != NIL) return true;
    return pg_catalog_function_named(agg->aggfnoid, insensitive_aggregates,
                                     lengthof(insensitive_aggregates));
}

// Window functions whose values depend on the window's ORDER BY only, never on the order of
// peers: ranks, and order-insensitive aggregates over a frame of whole peer groups (RANGE or
// GROUPS). row_number(), lag(), first_value() and a ROWS frame follow the rows' order.
bool order_insensitive_window_func(const WindowFunc *wf, int frame_options) {
    static const char *const ranks[] = {"rank", "dense_rank", "percent_rank", "cume_dist"};
    if (!wf->winagg) return pg_catalog_function_named(wf->winfnoid, ranks, lengthof(ranks));
    return !(frame_options & FRAMEOPTION_ROWS) &&
           pg_catalog_function_named(wf->winfnoid, insensitive_aggregates,
                                     lengthof(insensitive_aggregates));
}

// Context: the frame options of the WindowAgg whose functions are looked at.
bool order_sensitive_walker(Node *node, void *context) {
    if (!node) return false;
    CHECK_FOR_INTERRUPTS();
    if (IsA(node, Aggref)) return !order_insensitive_aggregate((Aggref *)node);
    if (IsA(node, WindowFunc))
        return !order_insensitive_window_func((WindowFunc *)node, *(int *)context);
    return expression_tree_walker(node, WALKER(order_sensitive_walker), context);
}

// Whether the columns of a Unique's output that are used are all columns it compares: then the
// rows it keeps equal those it drops there, and its output order is that of the compared columns
// (DISTINCT; not DISTINCT ON, whose other columns come from the first row of each group).
bool unique_returns_only_keys(const Unique *u, Bitmapset *demand, bool demand_all) {
    ListCell *lc;
    foreach (lc, u->plan.targetlist) {
        TargetEntry *tle = (TargetEntry *)lfirst(lc);
        if (plan_walk::skippable(tle, demand, demand_all)) continue;
        if (!IsA(tle->expr, Var) || ((Var *)tle->expr)->varno != OUTER_VAR) return false;
        bool key = false;
        for (int i = 0; i < u->numCols && !key; ++i)
            key = u->uniqColIdx[i] == ((Var *)tle->expr)->varattno;
        if (!key) return false;
    }
    return true;
}

}  // namespace

// Whether the order of each child's rows reaches this node's consumer, given whether the order
// of this node's own rows does (both start as `ordered`). A sort starts a new order; a join's
// output follows its outer side, and the inner side's within each outer row; semi- and anti-joins
// return outer rows only; a plain or sorted aggregate keeps only what order-sensitive aggregates
// make of it; a LIMIT chooses rows by their order; a window keeps it and order-sensitive window
// functions show it; DISTINCT, INTERSECT and EXCEPT keep only the order of what they compare.
// `demand`: the columns of this node's output its consumer uses.
void rows_order(Plan *plan, Bitmapset *demand, bool demand_all, bool *outer, bool *inner) {
    switch (nodeTag(plan)) {
        case T_Sort:
        case T_IncrementalSort:
        case T_Group:
            *outer = *inner = false;
            break;
        case T_Agg: {
            // Hashed too: an order-sensitive aggregate takes each group's rows in input order.
            int no_frame = 0;
            *outer = order_sensitive_walker((Node *)plan->targetlist, &no_frame) ||
                     order_sensitive_walker((Node *)plan->qual, &no_frame);
            break;
        }
        case T_Limit:
            *outer = true;  // which rows are returned follows the order
            break;
        case T_WindowAgg: {
            // The output keeps the input's order; row_number() and a ROWS frame follow it too.
            int frame = ((WindowAgg *)plan)->frameOptions;
            *outer = *outer || order_sensitive_walker((Node *)plan->targetlist, &frame);
            break;
        }
        case T_Unique:
            if (unique_returns_only_keys((Unique *)plan, demand, demand_all)) *outer = false;
            break;
        case T_SetOp:
            // It returns only the columns it compares (already read), and rows equal on them are
            // equal: its inputs' order (18 takes it from index scans) shows nothing else.
            *outer = *inner = false;
            break;
        case T_NestLoop:
        case T_MergeJoin:
        case T_HashJoin: {
            JoinType type = ((Join *)plan)->jointype;
            // A hash join returns an outer row's matches in the order they were hashed (reversed).
            if (type == JOIN_SEMI || type == JOIN_ANTI) *inner = false;
            break;
        }
        default:
            break;
    }
}

}  // namespace clarify::pg
