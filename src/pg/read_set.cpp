#include "pg.hpp"
#include "read_set.hpp"
#include "compat.hpp"

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

namespace clarify::pg {

namespace {

// PostgreSQL 15 declares walkers as bool (*)(); route the cast through a generic pointer.
#define WALKER(fn) reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(fn))

struct Walk {
    PlannedStmt *stmt;
    const bool *watched;
    ColumnRead *reads;
    int count;
    int capacity;
    // What each subplan (by plan_id - 1) was already walked for: a subplan or CTE referenced
    // many times is walked again only for columns no earlier reference demanded, so the walk
    // stays linear in the plan's size (a CTE chain referencing each link twice would otherwise
    // be walked 2^N times).
    bool *subplan_seen;
    bool *subplan_all;
    bool *subplan_ordered;
    Bitmapset **subplan_demand;
};

// The node an expression is evaluated in, so Vars can be traced to what they stand for.
struct Frame {
    Walk *walk;
    Plan *plan;
    Index scanrelid;           // 0 when the node scans no range table entry
    List *index_tlist;         // what INDEX_VAR refers to, when anything
    Bitmapset **outer_demand;  // per outer child (Append has several), NULL when none
    int n_outer;
    Bitmapset **inner_demand;
};

// `ordered`: whether the order of the rows this plan returns can reach the client (or a table, or
// a choice of rows: LIMIT, an order-sensitive aggregate or window function). Only then are the
// keys of an index it scans reads: the rows come out in the keys' order.
void walk_plan(Walk *w, Plan *plan, Bitmapset *demand, bool demand_all, bool ordered);

void record(Walk *w, Index rti, AttrNumber attnum) {
    if (rti < 1 || rti > (Index)list_length(w->stmt->rtable) || !w->watched[rti - 1]) return;
    RangeTblEntry *rte = rt_fetch(rti, w->stmt->rtable);
    if (rte->rtekind != RTE_RELATION || attnum < 0) return;
    for (int i = 0; i < w->count; ++i)
        if (w->reads[i].relation == rte->relid && w->reads[i].attnum == attnum) return;
    if (w->count == w->capacity) {
        w->capacity *= 2;
        w->reads = (ColumnRead *)repalloc(w->reads, sizeof(ColumnRead) * w->capacity);
    }
    w->reads[w->count].relation = rte->relid;
    w->reads[w->count].attnum = attnum;
    w->count++;
}

// Every column a range table entry selects: used where a plan cannot be traced precisely, and
// for views (whose own entry keeps exactly the columns the statement uses).
void record_selected(Walk *w, Index rti) {
    RangeTblEntry *rte = rt_fetch(rti, w->stmt->rtable);
    if (rte->rtekind != RTE_RELATION) return;
    int col = -1;
    while ((col = bms_next_member(selected_columns(rte), col)) >= 0)
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

// A sublink's rows: only an ARRAY(SELECT ...) keeps their order (a LIMIT inside makes its own
// input ordered); EXISTS, IN, ANY/ALL and a scalar subquery do not.
void walk_subplan_ref(Walk *w, const SubPlan *sp) {
    walk_subplan(w, sp->plan_id, nullptr, true, sp->subLinkType == ARRAY_SUBLINK);
}

bool expr_walker(Node *node, void *context) {
    if (!node) return false;
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

// A scan of a subquery or CTE: a Var of the scanned entry is a demand on the producing plan.
struct ScanVarContext {
    Index scanrelid;
    Bitmapset *demand;
    Frame *frame;
};

bool scan_var_walker(Node *node, void *context) {
    if (!node) return false;
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
        if (skippable(tle, demand, demand_all)) continue;
        if (!IsA(tle->expr, Var) || ((Var *)tle->expr)->varno != OUTER_VAR) return false;
        bool key = false;
        for (int i = 0; i < u->numCols && !key; ++i)
            key = u->uniqColIdx[i] == ((Var *)tle->expr)->varattno;
        if (!key) return false;
    }
    return true;
}

// Whether the order of each child's rows reaches this node's consumer, given whether the order
// of this node's own rows does (both start as `ordered`). A sort starts a new order; a join's
// output follows its outer side, and the inner side's within each outer row; semi- and anti-joins
// return outer rows only; a plain or sorted aggregate keeps only what order-sensitive aggregates
// make of it; a LIMIT chooses rows by their order; a window keeps it and order-sensitive window
// functions show it; DISTINCT keeps only the order of what it compares. `demand`: the columns of
// this node's output its consumer uses.
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

void walk_plan(Walk *w, Plan *plan, Bitmapset *demand, bool demand_all, bool ordered) {
    if (!plan) return;
    check_stack_depth();
    CHECK_FOR_INTERRUPTS();

    Bitmapset *outer = nullptr, *inner = nullptr;
    Frame f = {};
    f.walk = w;
    f.plan = plan;
    f.outer_demand = &outer;
    f.n_outer = 1;
    f.inner_demand = &inner;

    // A CTE's plan hangs here too, but is read only as far as its CteScans demand it.
    ListCell *lc;
    foreach (lc, plan->initPlan) {
        SubPlan *init = (SubPlan *)lfirst(lc);
        if (init->subLinkType != CTE_SUBLINK) walk_exprs(&f, init);
    }

    switch (nodeTag(plan)) {
        case T_SeqScan:
        case T_SampleScan:
        case T_IndexScan:
        case T_IndexOnlyScan:
        case T_BitmapIndexScan:
        case T_BitmapHeapScan:
        case T_TidScan:
        case T_TidRangeScan: {
            Scan *scan = (Scan *)plan;
            f.scanrelid = scan->scanrelid;
            f.outer_demand = nullptr;
            f.n_outer = 0;
            f.inner_demand = nullptr;
            if (IsA(plan, IndexOnlyScan)) f.index_tlist = ((IndexOnlyScan *)plan)->indextlist;
            walk_tlist(&f, plan->targetlist, demand, demand_all);
            walk_exprs(&f, plan->qual);
            switch (nodeTag(plan)) {
                case T_SampleScan:
                    walk_exprs(&f, ((SampleScan *)plan)->tablesample);
                    break;
                case T_IndexScan:
                    walk_exprs(&f, ((IndexScan *)plan)->indexqualorig);
                    walk_exprs(&f, ((IndexScan *)plan)->indexorderbyorig);
                    if (ordered)
                        record_index_keys(w, scan->scanrelid, ((IndexScan *)plan)->indexid);
                    break;
                case T_IndexOnlyScan:
                    if (ordered)
                        record_index_keys(w, scan->scanrelid, ((IndexOnlyScan *)plan)->indexid);
                    walk_exprs(&f, ((IndexOnlyScan *)plan)->indexqual);
                    walk_exprs(&f, ((IndexOnlyScan *)plan)->recheckqual);
                    walk_exprs(&f, ((IndexOnlyScan *)plan)->indexorderby);
                    break;
                case T_BitmapIndexScan:
                    walk_exprs(&f, ((BitmapIndexScan *)plan)->indexqualorig);
                    break;
                case T_BitmapHeapScan:
                    walk_exprs(&f, ((BitmapHeapScan *)plan)->bitmapqualorig);
                    walk_plan(w, plan->lefttree, nullptr, false, false);
                    break;
                case T_TidScan:
                    walk_exprs(&f, ((TidScan *)plan)->tidquals);
                    break;
                case T_TidRangeScan:
                    walk_exprs(&f, ((TidRangeScan *)plan)->tidrangequals);
                    break;
                default:
                    break;
            }
            return;
        }
        case T_SubqueryScan:
        case T_CteScan: {
            Scan *scan = (Scan *)plan;
            f.scanrelid = scan->scanrelid;
            f.outer_demand = nullptr;
            f.n_outer = 0;
            f.inner_demand = nullptr;
            ScanVarContext c = {scan->scanrelid, nullptr, &f};
            ListCell *tc;
            foreach (tc, plan->targetlist) {
                TargetEntry *te = (TargetEntry *)lfirst(tc);
                if (!skippable(te, demand, demand_all)) scan_var_walker((Node *)te->expr, &c);
            }
            scan_var_walker((Node *)plan->qual, &c);
            bool all = bms_is_member(0, c.demand);
            if (IsA(plan, SubqueryScan)) {
                walk_plan(w, ((SubqueryScan *)plan)->subplan, c.demand, all, ordered);
            } else {
                walk_subplan(w, ((CteScan *)plan)->ctePlanId, c.demand, all, ordered);
            }
            return;
        }
        case T_FunctionScan:
        case T_TableFuncScan:
        case T_ValuesScan:
        case T_NamedTuplestoreScan:
        case T_WorkTableScan: {
            f.scanrelid = ((Scan *)plan)->scanrelid;
            f.outer_demand = nullptr;
            f.n_outer = 0;
            f.inner_demand = nullptr;
            walk_tlist(&f, plan->targetlist, demand, demand_all);
            walk_exprs(&f, plan->qual);
            if (IsA(plan, FunctionScan)) walk_exprs(&f, ((FunctionScan *)plan)->functions);
            if (IsA(plan, TableFuncScan)) walk_exprs(&f, ((TableFuncScan *)plan)->tablefunc);
            if (IsA(plan, ValuesScan)) walk_exprs(&f, ((ValuesScan *)plan)->values_lists);
            return;
        }
        case T_ForeignScan:
        case T_CustomScan: {
            // Opaque to us: everything the entries select counts as read.
            Bitmapset *relids = IsA(plan, ForeignScan) ? ((ForeignScan *)plan)->fs_relids
                                                       : ((CustomScan *)plan)->custom_relids;
            Index scanrelid = ((Scan *)plan)->scanrelid;
            if (scanrelid > 0) record_selected(w, scanrelid);
            int rti = -1;
            while ((rti = bms_next_member(relids, rti)) >= 0) record_selected(w, rti);
            f.outer_demand = nullptr;
            f.n_outer = 0;
            f.inner_demand = nullptr;
            f.scanrelid = scanrelid;
            // Partitions and children carry no selected columns of their own: what the scan
            // returns and filters on is read, whole.
            walk_tlist(&f, plan->targetlist, nullptr, true);
            walk_exprs(&f, plan->qual);
            if (IsA(plan, ForeignScan)) {
                walk_exprs(&f, ((ForeignScan *)plan)->fdw_exprs);
                walk_exprs(&f, ((ForeignScan *)plan)->fdw_recheck_quals);
                walk_exprs(&f, ((ForeignScan *)plan)->fdw_scan_tlist);
            } else {
                walk_exprs(&f, ((CustomScan *)plan)->custom_exprs);
                walk_exprs(&f, ((CustomScan *)plan)->custom_scan_tlist);
                ListCell *cc;
                foreach (cc, ((CustomScan *)plan)->custom_plans)
                    walk_plan(w, (Plan *)lfirst(cc), nullptr, true, true);
            }
            return;
        }
        case T_Append:
        case T_MergeAppend: {
            List *children = IsA(plan, Append) ? ((Append *)plan)->appendplans
                                               : ((MergeAppend *)plan)->mergeplans;
            if (IsA(plan, MergeAppend)) {
                MergeAppend *ma = (MergeAppend *)plan;
                if (ordered) demand_columns(&outer, ma->numCols, ma->sortColIdx);
            }
            walk_tlist(&f, plan->targetlist, demand, demand_all);
            walk_exprs(&f, plan->qual);
            bool all = demand_all || bms_is_member(0, outer);
            ListCell *cc;
            foreach (cc, children) walk_plan(w, (Plan *)lfirst(cc), outer, all, ordered);
            return;
        }
        case T_RecursiveUnion:
        case T_BitmapAnd:
        case T_BitmapOr: {
            // Recursive union feeds itself through its work table: every column is needed.
            if (IsA(plan, RecursiveUnion)) {
                walk_plan(w, plan->lefttree, nullptr, true, ordered);
                walk_plan(w, plan->righttree, nullptr, true, ordered);
            } else {
                List *children = IsA(plan, BitmapAnd) ? ((BitmapAnd *)plan)->bitmapplans
                                                      : ((BitmapOr *)plan)->bitmapplans;
                ListCell *cc;
                foreach (cc, children) walk_plan(w, (Plan *)lfirst(cc), nullptr, false, false);
            }
            return;
        }
        case T_ModifyTable: {
            ModifyTable *mt = (ModifyTable *)plan;
            f.inner_demand = nullptr;
            // Changing a row exposes it: constraint errors print it, triggers see OLD. The rows
            // an UPDATE, MERGE or ON CONFLICT DO UPDATE touches are read whole.
            if (mt->operation == CMD_UPDATE || mt->operation == CMD_MERGE ||
                mt->onConflictAction == ONCONFLICT_UPDATE) {
                ListCell *rc;
                foreach (rc, mt->resultRelations) record(w, lfirst_int(rc), 0);
            }
            walk_exprs(&f, mt->returningLists);
            walk_exprs(&f, mt->withCheckOptionLists);
            walk_exprs(&f, mt->onConflictSet);
            walk_exprs(&f, mt->onConflictWhere);
            ListCell *mc;
            foreach (mc, mt->mergeActionLists) {
                ListCell *ac;
                foreach (ac, (List *)lfirst(mc)) {
                    MergeAction *action = (MergeAction *)lfirst(ac);
                    walk_exprs(&f, action->qual);
                    walk_exprs(&f, action->targetList);
                }
            }
            // The rows to write (new values, join for MERGE) are wholly consumed, in their order
            // (a table's physical order shows it).
            walk_plan(w, plan->lefttree, nullptr, true, true);
            return;
        }
        default:
            break;
    }

    // Joins and upper nodes: expressions over their children's outputs.
    walk_tlist(&f, plan->targetlist, demand, demand_all);
    walk_exprs(&f, plan->qual);
    switch (nodeTag(plan)) {
        case T_Result:
            walk_exprs(&f, ((Result *)plan)->resconstantqual);
            break;
        case T_NestLoop: {
            walk_exprs(&f, ((Join *)plan)->joinqual);
            ListCell *nc;
            foreach (nc, ((NestLoop *)plan)->nestParams)
                walk_exprs(&f, ((NestLoopParam *)lfirst(nc))->paramval);
            break;
        }
        case T_MergeJoin:
            walk_exprs(&f, ((Join *)plan)->joinqual);
            walk_exprs(&f, ((MergeJoin *)plan)->mergeclauses);
            break;
        case T_HashJoin:
            walk_exprs(&f, ((Join *)plan)->joinqual);
            walk_exprs(&f, ((HashJoin *)plan)->hashclauses);
            walk_exprs(&f, ((HashJoin *)plan)->hashkeys);
            break;
        case T_Hash:
            walk_exprs(&f, ((Hash *)plan)->hashkeys);
            break;
        case T_Memoize:
            walk_exprs(&f, ((Memoize *)plan)->param_exprs);
            break;
        // A sort's keys are reads when the order it makes reaches the client or a choice of rows
        // (a grouping, join or window above demands its own keys).
        case T_Sort:
            if (ordered)
                demand_columns(&outer, ((Sort *)plan)->numCols, ((Sort *)plan)->sortColIdx);
            break;
        case T_IncrementalSort:
            if (ordered)
                demand_columns(&outer, ((IncrementalSort *)plan)->sort.numCols,
                               ((IncrementalSort *)plan)->sort.sortColIdx);
            break;
        case T_Group:
            demand_columns(&outer, ((Group *)plan)->numCols, ((Group *)plan)->grpColIdx);
            break;
        case T_Agg: {
            Agg *agg = (Agg *)plan;
            demand_columns(&outer, agg->numCols, agg->grpColIdx);
            ListCell *cc;
            foreach (cc, agg->chain) {
                Agg *link = (Agg *)lfirst(cc);
                demand_columns(&outer, link->numCols, link->grpColIdx);
                walk_tlist(&f, link->plan.targetlist, nullptr, true);
                walk_exprs(&f, link->plan.qual);
            }
            break;
        }
        case T_WindowAgg: {
            WindowAgg *wa = (WindowAgg *)plan;
            demand_columns(&outer, wa->partNumCols, wa->partColIdx);
            demand_columns(&outer, wa->ordNumCols, wa->ordColIdx);
            walk_exprs(&f, wa->startOffset);
            walk_exprs(&f, wa->endOffset);
            walk_exprs(&f, wa->runConditionOrig);
            break;
        }
        case T_Unique:
            demand_columns(&outer, ((Unique *)plan)->numCols, ((Unique *)plan)->uniqColIdx);
            break;
        case T_SetOp:
            demand_columns(&outer, ((SetOp *)plan)->numCols, ((SetOp *)plan)->dupColIdx);
            if (((SetOp *)plan)->flagColIdx > 0)
                outer = bms_add_member(outer, ((SetOp *)plan)->flagColIdx);
            break;
        case T_GatherMerge:
            if (ordered)
                demand_columns(&outer, ((GatherMerge *)plan)->numCols,
                               ((GatherMerge *)plan)->sortColIdx);
            break;
        case T_Limit: {
            Limit *limit = (Limit *)plan;
            walk_exprs(&f, limit->limitOffset);
            walk_exprs(&f, limit->limitCount);
            demand_columns(&outer, limit->uniqNumCols, limit->uniqColIdx);
            break;
        }
        case T_ProjectSet:
        case T_LockRows:
        case T_Material:
        case T_Gather:
            break;
        default:
            // A node we do not know: be safe, everything below is read.
            walk_plan(w, plan->lefttree, nullptr, true, true);
            walk_plan(w, plan->righttree, nullptr, true, true);
            return;
    }
    bool outer_all = bms_is_member(0, outer);
    bool inner_all = bms_is_member(0, inner);
    bool outer_ordered = ordered, inner_ordered = ordered;
    rows_order(plan, demand, demand_all, &outer_ordered, &inner_ordered);
    walk_plan(w, plan->lefttree, outer, outer_all, outer_ordered);
    walk_plan(w, plan->righttree, inner, inner_all, inner_ordered);
}

Walk new_walk(PlannedStmt *stmt, const bool *watched) {
    Walk w = {};
    w.stmt = stmt;
    w.watched = watched;
    w.capacity = 16;
    w.reads = (ColumnRead *)palloc(sizeof(ColumnRead) * w.capacity);
    int n = list_length(stmt->subplans) + 1;
    w.subplan_seen = (bool *)palloc0(sizeof(bool) * n);
    w.subplan_all = (bool *)palloc0(sizeof(bool) * n);
    w.subplan_ordered = (bool *)palloc0(sizeof(bool) * n);
    w.subplan_demand = (Bitmapset **)palloc0(sizeof(Bitmapset *) * n);
    return w;
}

// The walk's demand sets and scratch live in their own context, freed when the walk ends; only
// the reads are copied out (into the caller's context).
ReadSet copy_out(const Walk &w, MemoryContext walk_context, MemoryContext caller) {
    MemoryContextSwitchTo(caller);
    ReadSet out{(ColumnRead *)palloc(sizeof(ColumnRead) * (w.count + 1)), w.count};
    memcpy(out.reads, w.reads, sizeof(ColumnRead) * w.count);
    MemoryContextDelete(walk_context);
    return out;
}

}  // namespace

ReadSet plan_read_set(PlannedStmt *stmt, const bool *watched) {
    MemoryContext caller = CurrentMemoryContext;
    MemoryContext walk_context =
        AllocSetContextCreate(caller, "pg_clarify read set", ALLOCSET_DEFAULT_SIZES);
    MemoryContextSwitchTo(walk_context);
    Walk w = new_walk(stmt, watched);
    // A governed column of a view: no plan node scans the view, but its entry (kept for the
    // permission check) selects exactly the view columns the statement uses.
    for (int rti = 1; rti <= list_length(stmt->rtable); ++rti) {
        RangeTblEntry *rte = rt_fetch(rti, stmt->rtable);
        if (watched[rti - 1] && rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_VIEW)
            record_selected(&w, rti);
    }
    // The statement's output, junk columns (sort keys) included, is what the client asked for.
    walk_plan(&w, stmt->planTree, nullptr, true, true);
    // Subplans reached by no reference still run (data-modifying CTEs): their quals are reads.
    for (int i = 0; i < list_length(stmt->subplans); ++i)
        if (!w.subplan_seen[i]) walk_subplan(&w, i + 1, nullptr, false, false);
    return copy_out(w, walk_context, caller);
}

ReadSet range_table_read_set(List *range_table, const bool *watched) {
    PlannedStmt fake = {};
    fake.type = T_PlannedStmt;
    fake.rtable = range_table;
    Walk w = new_walk(&fake, watched);
    for (int rti = 1; rti <= list_length(range_table); ++rti) record_selected(&w, rti);
    return ReadSet{w.reads, w.count};
}

}  // namespace clarify::pg
