#include "pg/pg.hpp"
#include "pg/plan/read_set.hpp"
#include "pg/compat.hpp"
#include "pg/plan/plan_nodes.hpp"
#include "pg/plan/read_set_walk.hpp"
#include "pg/plan/row_order.hpp"
#include "pg/plan/walk_budget.hpp"

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

using namespace plan_walk;

namespace plan_walk {

namespace {

// A node that scans range table entry `scanrelid`: its expressions see no child's output.
void as_scan(Frame *f, Index scanrelid) {
    f->scanrelid = scanrelid;
    f->outer_demand = nullptr;
    f->n_outer = 0;
    f->inner_demand = nullptr;
}

// A relation's scan (and a bitmap heap scan's index scans): its output as demanded, its quals
// and index conditions; the index keys when the order of its rows can be seen.
void walk_relation_scan(Walk *w, Plan *plan, Frame *f, Bitmapset *demand, bool demand_all,
                        bool ordered) {
    Scan *scan = (Scan *)plan;
    as_scan(f, scan->scanrelid);
    if (IsA(plan, IndexOnlyScan)) f->index_tlist = ((IndexOnlyScan *)plan)->indextlist;
    walk_tlist(f, plan->targetlist, demand, demand_all);
    walk_exprs(f, plan->qual);
    switch (nodeTag(plan)) {
        case T_SampleScan:
            walk_exprs(f, ((SampleScan *)plan)->tablesample);
            break;
        case T_IndexScan:
            walk_exprs(f, ((IndexScan *)plan)->indexqualorig);
            walk_exprs(f, ((IndexScan *)plan)->indexorderbyorig);
            if (ordered) record_index_keys(w, scan->scanrelid, ((IndexScan *)plan)->indexid);
            break;
        case T_IndexOnlyScan:
            if (ordered) record_index_keys(w, scan->scanrelid, ((IndexOnlyScan *)plan)->indexid);
            walk_exprs(f, ((IndexOnlyScan *)plan)->indexqual);
            walk_exprs(f, ((IndexOnlyScan *)plan)->recheckqual);
            walk_exprs(f, ((IndexOnlyScan *)plan)->indexorderby);
            break;
        case T_BitmapIndexScan:
            walk_exprs(f, ((BitmapIndexScan *)plan)->indexqualorig);
            break;
        case T_BitmapHeapScan:
            walk_exprs(f, ((BitmapHeapScan *)plan)->bitmapqualorig);
            walk_plan(w, plan->lefttree, nullptr, false, false);
            break;
        case T_TidScan:
            walk_exprs(f, ((TidScan *)plan)->tidquals);
            break;
        case T_TidRangeScan:
            walk_exprs(f, ((TidRangeScan *)plan)->tidrangequals);
            break;
        default:
            break;
    }
}

// A subquery's or CTE's scan: the columns of the entry it uses are a demand on the plan that
// produces them.
void walk_subquery_scan(Walk *w, Plan *plan, Frame *f, Bitmapset *demand, bool demand_all,
                        bool ordered) {
    Scan *scan = (Scan *)plan;
    as_scan(f, scan->scanrelid);
    ScanVarContext c = {scan->scanrelid, nullptr, f};
    ListCell *tc;
    foreach (tc, plan->targetlist) {
        TargetEntry *te = (TargetEntry *)lfirst(tc);
        if (!skippable(te, demand, demand_all)) scan_var_walker((Node *)te->expr, &c);
    }
    scan_var_walker((Node *)plan->qual, &c);
    bool all = bms_is_member(0, c.demand);
    if (IsA(plan, SubqueryScan))
        walk_plan(w, ((SubqueryScan *)plan)->subplan, c.demand, all, ordered);
    else
        walk_subplan(w, ((CteScan *)plan)->ctePlanId, c.demand, all, ordered);
}

// Rows computed from values (functions, VALUES, table functions) or stored by another node:
// what they are computed from is read.
void walk_computed_scan(Plan *plan, Frame *f, Bitmapset *demand, bool demand_all) {
    as_scan(f, ((Scan *)plan)->scanrelid);
    walk_tlist(f, plan->targetlist, demand, demand_all);
    walk_exprs(f, plan->qual);
    if (IsA(plan, FunctionScan)) walk_exprs(f, ((FunctionScan *)plan)->functions);
    if (IsA(plan, TableFuncScan)) walk_exprs(f, ((TableFuncScan *)plan)->tablefunc);
    if (IsA(plan, ValuesScan)) walk_exprs(f, ((ValuesScan *)plan)->values_lists);
}

// Foreign and custom scans are opaque to us: everything the entries they cover select counts
// as read, and their own expressions and child plans are read whole.
void walk_foreign_or_custom_scan(Walk *w, Plan *plan, Frame *f) {
    Bitmapset *relids = IsA(plan, ForeignScan) ? ((ForeignScan *)plan)->fs_relids
                                               : ((CustomScan *)plan)->custom_relids;
    Index scanrelid = ((Scan *)plan)->scanrelid;
    if (scanrelid > 0) record_selected(w, scanrelid);
    int rti = -1;
    while ((rti = bms_next_member(relids, rti)) >= 0) record_selected(w, rti);
    as_scan(f, scanrelid);
    // Partitions and children carry no selected columns of their own: what the scan
    // returns and filters on is read, whole.
    walk_tlist(f, plan->targetlist, nullptr, true);
    walk_exprs(f, plan->qual);
    if (IsA(plan, ForeignScan)) {
        walk_exprs(f, ((ForeignScan *)plan)->fdw_exprs);
        walk_exprs(f, ((ForeignScan *)plan)->fdw_recheck_quals);
        walk_exprs(f, ((ForeignScan *)plan)->fdw_scan_tlist);
    } else {
        walk_exprs(f, ((CustomScan *)plan)->custom_exprs);
        walk_exprs(f, ((CustomScan *)plan)->custom_scan_tlist);
        ListCell *cc;
        foreach (cc, ((CustomScan *)plan)->custom_plans)
            walk_plan(w, (Plan *)lfirst(cc), nullptr, true, true);
    }
}

// Append and MergeAppend: each member hands on the columns demanded of the node (and a merge's
// sort keys, when its order can be seen).
void walk_append(Walk *w, Plan *plan, Frame *f, Bitmapset **outer, Bitmapset *demand,
                 bool demand_all, bool ordered) {
    if (IsA(plan, MergeAppend)) {
        MergeAppend *ma = (MergeAppend *)plan;
        if (ordered) demand_columns(outer, ma->numCols, ma->sortColIdx);
    }
    walk_tlist(f, plan->targetlist, demand, demand_all);
    walk_exprs(f, plan->qual);
    bool all = demand_all || bms_is_member(0, *outer);
    ListCell *cc;
    foreach (cc, plan_nodes::appended_plans(plan))
        walk_plan(w, (Plan *)lfirst(cc), *outer, all, ordered);
}

// A recursive union feeds itself through its work table: every column is needed. A bitmap
// AND or OR returns TIDs only: its members' conditions are read, no column.
void walk_recursive_union_or_bitmap(Walk *w, Plan *plan, bool ordered) {
    if (IsA(plan, RecursiveUnion)) {
        walk_plan(w, plan->lefttree, nullptr, true, ordered);
        walk_plan(w, plan->righttree, nullptr, true, ordered);
        return;
    }
    List *children =
        IsA(plan, BitmapAnd) ? ((BitmapAnd *)plan)->bitmapplans : ((BitmapOr *)plan)->bitmapplans;
    ListCell *cc;
    foreach (cc, children) walk_plan(w, (Plan *)lfirst(cc), nullptr, false, false);
}

void walk_modify_table(Walk *w, Plan *plan, Frame *f) {
    ModifyTable *mt = (ModifyTable *)plan;
    f->inner_demand = nullptr;
    // Changing a row exposes it: constraint errors print it, triggers see OLD. The rows
    // an UPDATE, MERGE or ON CONFLICT DO UPDATE touches are read whole.
    if (mt->operation == CMD_UPDATE || mt->operation == CMD_MERGE ||
        mt->onConflictAction == ONCONFLICT_UPDATE) {
        ListCell *rc;
        foreach (rc, mt->resultRelations) record(w, lfirst_int(rc), 0);
    }
    walk_exprs(f, mt->returningLists);
    walk_exprs(f, mt->withCheckOptionLists);
    walk_exprs(f, mt->onConflictSet);
    walk_exprs(f, mt->onConflictWhere);
    ListCell *mc;
    foreach (mc, mt->mergeActionLists) {
        ListCell *ac;
        foreach (ac, (List *)lfirst(mc)) {
            MergeAction *action = (MergeAction *)lfirst(ac);
            walk_exprs(f, action->qual);
            walk_exprs(f, action->targetList);
        }
    }
    // The rows to write (new values, join for MERGE) are wholly consumed, in their order
    // (a table's physical order shows it).
    walk_plan(w, plan->lefttree, nullptr, true, true);
}

// The expressions of joins and of nodes that evaluate their own (Result, Hash, Memoize); false
// for any other node.
bool walk_join_exprs(Plan *plan, Frame *f) {
    switch (nodeTag(plan)) {
        case T_Result:
            walk_exprs(f, ((Result *)plan)->resconstantqual);
            return true;
        case T_NestLoop: {
            walk_exprs(f, ((Join *)plan)->joinqual);
            ListCell *nc;
            foreach (nc, ((NestLoop *)plan)->nestParams)
                walk_exprs(f, ((NestLoopParam *)lfirst(nc))->paramval);
            return true;
        }
        case T_MergeJoin:
            walk_exprs(f, ((Join *)plan)->joinqual);
            walk_exprs(f, ((MergeJoin *)plan)->mergeclauses);
            return true;
        case T_HashJoin:
            walk_exprs(f, ((Join *)plan)->joinqual);
            walk_exprs(f, ((HashJoin *)plan)->hashclauses);
            walk_exprs(f, ((HashJoin *)plan)->hashkeys);
            return true;
        case T_Hash:
            walk_exprs(f, ((Hash *)plan)->hashkeys);
            return true;
        case T_Memoize:
            walk_exprs(f, ((Memoize *)plan)->param_exprs);
            return true;
        default:
            return false;
    }
}

// A sort's keys are reads when the order it makes reaches the client or a choice of rows
// (a grouping, join or window above demands its own keys). False for a node that sorts nothing.
bool demand_sort_keys(Plan *plan, Bitmapset **outer, bool ordered) {
    switch (nodeTag(plan)) {
        case T_Sort:
            if (ordered) demand_columns(outer, ((Sort *)plan)->numCols, ((Sort *)plan)->sortColIdx);
            return true;
        case T_IncrementalSort:
            if (ordered)
                demand_columns(outer, ((IncrementalSort *)plan)->sort.numCols,
                               ((IncrementalSort *)plan)->sort.sortColIdx);
            return true;
        case T_GatherMerge:
            if (ordered)
                demand_columns(outer, ((GatherMerge *)plan)->numCols,
                               ((GatherMerge *)plan)->sortColIdx);
            return true;
        default:
            return false;
    }
}

// Nodes that choose rows by comparing columns (groups, windows, DISTINCT, set operations,
// LIMIT WITH TIES): the compared columns are read. False for any other node.
bool demand_compared_columns(Plan *plan, Frame *f, Bitmapset **outer, Bitmapset **inner) {
    switch (nodeTag(plan)) {
        case T_Group:
            demand_columns(outer, ((Group *)plan)->numCols, ((Group *)plan)->grpColIdx);
            return true;
        case T_Agg: {
            Agg *agg = (Agg *)plan;
            demand_columns(outer, agg->numCols, agg->grpColIdx);
            ListCell *cc;
            foreach (cc, agg->chain) {
                Agg *link = (Agg *)lfirst(cc);
                demand_columns(outer, link->numCols, link->grpColIdx);
                walk_tlist(f, link->plan.targetlist, nullptr, true);
                walk_exprs(f, link->plan.qual);
            }
            return true;
        }
        case T_WindowAgg: {
            WindowAgg *wa = (WindowAgg *)plan;
            demand_columns(outer, wa->partNumCols, wa->partColIdx);
            demand_columns(outer, wa->ordNumCols, wa->ordColIdx);
            walk_exprs(f, wa->startOffset);
            walk_exprs(f, wa->endOffset);
            walk_exprs(f, wa->runConditionOrig);
            return true;
        }
        case T_Unique:
            demand_columns(outer, ((Unique *)plan)->numCols, ((Unique *)plan)->uniqColIdx);
            return true;
        case T_SetOp: {
            // Both inputs' rows are compared (INTERSECT, EXCEPT): their compared columns are read.
            SetOpColumns setop = setop_columns((SetOp *)plan);
            demand_columns(outer, setop.count, setop.columns);
            if (setop.both_inputs) demand_columns(inner, setop.count, setop.columns);
            if (setop.flag > 0) *outer = bms_add_member(*outer, setop.flag);
            return true;
        }
        case T_Limit: {
            Limit *limit = (Limit *)plan;
            walk_exprs(f, limit->limitOffset);
            walk_exprs(f, limit->limitCount);
            demand_columns(outer, limit->uniqNumCols, limit->uniqColIdx);
            return true;
        }
        default:
            return false;
    }
}

// Nodes that pass their children's rows on and evaluate nothing of their own.
bool passes_rows_on(Plan *plan) {
    return IsA(plan, ProjectSet) || IsA(plan, LockRows) || IsA(plan, Material) || IsA(plan, Gather);
}

// Joins and upper nodes: expressions over their children's outputs, and the columns of those
// outputs they use, demanded of each child.
void walk_upper_node(Walk *w, Plan *plan, Frame *f, Bitmapset **outer, Bitmapset **inner,
                     Bitmapset *demand, bool demand_all, bool ordered) {
    walk_tlist(f, plan->targetlist, demand, demand_all);
    walk_exprs(f, plan->qual);
    if (!walk_join_exprs(plan, f) && !demand_sort_keys(plan, outer, ordered) &&
        !demand_compared_columns(plan, f, outer, inner) && !passes_rows_on(plan)) {
        // A node we do not know: be safe, everything below is read.
        walk_plan(w, plan->lefttree, nullptr, true, true);
        walk_plan(w, plan->righttree, nullptr, true, true);
        return;
    }
    bool outer_all = bms_is_member(0, *outer);
    bool inner_all = bms_is_member(0, *inner);
    bool outer_ordered = ordered, inner_ordered = ordered;
    rows_order(plan, demand, demand_all, &outer_ordered, &inner_ordered);
    walk_plan(w, plan->lefttree, *outer, outer_all, outer_ordered);
    walk_plan(w, plan->righttree, *inner, inner_all, inner_ordered);
}

}  // namespace

void walk_plan(Walk *w, Plan *plan, Bitmapset *demand, bool demand_all, bool ordered) {
    if (!plan) return;
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::ReadSet);
    Bitmapset *outer = nullptr, *inner = nullptr;
    Frame f = {};
    f.walk = w;
    f.outer_demand = &outer;
    f.n_outer = 1;
    f.inner_demand = &inner;
    // A CTE's plan hangs here too, but is read only as far as its CteScans demand it.
    ListCell *lc;
    foreach (lc, plan->initPlan) {
        SubPlan *init = (SubPlan *)lfirst(lc);
        if (init->subLinkType != CTE_SUBLINK) walk_exprs(&f, init);
    }
    switch (plan_nodes::scan_kind(plan)) {
        case plan_nodes::ScanKind::Relation:
        case plan_nodes::ScanKind::BitmapIndex:
            return walk_relation_scan(w, plan, &f, demand, demand_all, ordered);
        case plan_nodes::ScanKind::Subquery:
        case plan_nodes::ScanKind::Cte:
            return walk_subquery_scan(w, plan, &f, demand, demand_all, ordered);
        case plan_nodes::ScanKind::Computed:
        case plan_nodes::ScanKind::Tuplestore:
            return walk_computed_scan(plan, &f, demand, demand_all);
        case plan_nodes::ScanKind::ForeignOrCustom:
            return walk_foreign_or_custom_scan(w, plan, &f);
        case plan_nodes::ScanKind::None:
            break;
    }
    switch (nodeTag(plan)) {
        case T_Append:
        case T_MergeAppend:
            return walk_append(w, plan, &f, &outer, demand, demand_all, ordered);
        case T_RecursiveUnion:
        case T_BitmapAnd:
        case T_BitmapOr:
            return walk_recursive_union_or_bitmap(w, plan, ordered);
        case T_ModifyTable:
            return walk_modify_table(w, plan, &f);
        default:
            return walk_upper_node(w, plan, &f, &outer, &inner, demand, demand_all, ordered);
    }
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

}  // namespace plan_walk

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
        if (watched[rti - 1] && is_view_entry(rte)) record_selected(&w, rti);
    }
    // The statement's output, junk columns (sort keys) included, is what the client asked for.
    walk_plan(&w, stmt->planTree, nullptr, true, true);
    // Subplans reached by no reference still run (data-modifying CTEs): their quals are reads.
    for (int i = 0; i < list_length(stmt->subplans); ++i)
        if (!w.subplan_seen[i]) walk_subplan(&w, i + 1, nullptr, false, false);
    return copy_out(w, walk_context, caller);
}

ReadSet range_table_read_set(List *range_table, List *perminfos, const bool *watched) {
    Walk w = new_walk(range_table_statement(range_table, perminfos), watched);
    for (int rti = 1; rti <= list_length(range_table); ++rti) record_selected(&w, rti);
    return ReadSet{w.reads, w.count};
}

}  // namespace clarify::pg
