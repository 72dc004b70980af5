// What every plan analysis (read set, row order, grain, time quals) shares about plan nodes:
// which nodes scan what, the children a walk follows, and the equality conditions a node
// applies. Plain C-style routines on the final plan: call them inside pg_guard.
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
}

namespace clarify::pg::plan_nodes {

// What a plan node reads its rows from.
enum class ScanKind {
    None,             // not a scan: a join or an upper node, over its children's rows
    Relation,         // a table's rows: Seq, Sample, Index, IndexOnly, BitmapHeap, Tid, TidRange
    BitmapIndex,      // an index's TIDs for the BitmapHeapScan above it (scanrelid: the heap's)
    ForeignOrCustom,  // rows another server or provider computes (policy: is_relation_scan)
    Subquery,         // a SubqueryScan's subplan
    Cte,              // a CteScan's shared subplan
    Computed,         // FunctionScan, TableFuncScan, ValuesScan: rows computed from values
    Tuplestore,       // NamedTuplestoreScan, WorkTableScan: rows another node stored
};
ScanKind scan_kind(const Plan *plan);

// Whether `plan` reads the rows of one relation, range table entry scanrelid: the Relation kind,
// and a foreign or custom scan of one relation (scanrelid > 0), which reads its rows like any
// scan. A foreign or custom scan of a join or an aggregate done elsewhere (scanrelid 0) is not:
// no analysis can follow its rows, and each says what it makes of it (the read set: everything
// the entries it covers select is read; grain: unproven).
bool is_relation_scan(const Plan *plan);

// NestLoop, HashJoin, MergeJoin.
bool is_join(const Plan *plan);

// The plan whose rows a SubqueryScan or CteScan returns; nullptr for other nodes.
Plan *scanned_subplan(PlannedStmt *stmt, Plan *plan);

// The expression under any RelabelType (a binary-compatible cast, which changes no value).
Expr *strip_relabels(Expr *e);
// The Var under relabels; nullptr when `e` is anything else.
Var *plain_var(Expr *e);

// Every qual a node applies (implicitly ANDed, a fresh list): its filter, its index conditions
// (IndexScan's indexqualorig, IndexOnlyScan's indexqual, BitmapHeapScan's bitmapqualorig) and
// its join clauses.
List *node_quals(Plan *plan);
// Whether `qual` is `left = right` for an equality operator (mergejoinable or hashjoinable),
// its sides in *left and *right (as written, relabels kept).
bool equality_sides(Node *qual, Expr **left, Expr **right);

// Which children of a node a walk follows.
enum Children : unsigned {
    kTree = 1u << 0,      // lefttree and righttree
    kAppended = 1u << 1,  // the members of an Append or MergeAppend
    kBitmaps = 1u << 2,   // the members of a BitmapAnd or BitmapOr
    kSubquery = 1u << 3,  // a SubqueryScan's subplan
    kCte = 1u << 4,       // a CteScan's plan (a subplan of the statement)
    kCustom = 1u << 5,    // a CustomScan's custom_plans
};

// The members of an Append or MergeAppend (NIL for other nodes).
List *appended_plans(const Plan *plan);

// Calls visit(child) for each child of `plan` that `which` names: lefttree, righttree, then the
// node's own (only one kind of which applies to any node).
template <typename Visit>
void for_each_child(PlannedStmt *stmt, Plan *plan, unsigned which, Visit visit);

// The plan of CTE or subplan plan_id; nullptr when out of range.
Plan *subplan_of(PlannedStmt *stmt, int plan_id);

template <typename Visit>
void for_each_child(PlannedStmt *stmt, Plan *plan, unsigned which, Visit visit) {
    if (which & kTree) {
        if (plan->lefttree) visit(plan->lefttree);
        if (plan->righttree) visit(plan->righttree);
    }
    List *members = NIL;
    if (which & kAppended) members = appended_plans(plan);
    if ((which & kBitmaps) && IsA(plan, BitmapAnd)) members = ((BitmapAnd *)plan)->bitmapplans;
    if ((which & kBitmaps) && IsA(plan, BitmapOr)) members = ((BitmapOr *)plan)->bitmapplans;
    if ((which & kCustom) && IsA(plan, CustomScan)) members = ((CustomScan *)plan)->custom_plans;
    ListCell *lc;
    foreach (lc, members) visit((Plan *)lfirst(lc));
    if ((which & kSubquery) && IsA(plan, SubqueryScan)) visit(((SubqueryScan *)plan)->subplan);
    if ((which & kCte) && IsA(plan, CteScan))
        if (Plan *cte = subplan_of(stmt, ((CteScan *)plan)->ctePlanId)) visit(cte);
}

}  // namespace clarify::pg::plan_nodes
