// The plan walk behind pg/plan/read_set.cpp: its state, the frame an expression is evaluated in,
// and the expression side of the walk (pg/plan/read_set_exprs.cpp); pg/plan/row_order.cpp
// reads its demands.
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/read_set.hpp"
#include "pg/compat.hpp"

extern "C" {
#include "nodes/bitmapset.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
}

namespace clarify::pg::plan_walk {

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

// Records a read of column attnum of range table entry rti, when that entry is watched.
void record(Walk *w, Index rti, AttrNumber attnum);
// Every column a range table entry selects.
void record_selected(Walk *w, Index rti);
// The key columns of `index` on entry rti: an index scan returns rows in their order.
void record_index_keys(Walk *w, Index rti, Oid index);
// Walks subplan plan_id for `demand` unless earlier references covered it already.
void walk_subplan(Walk *w, int plan_id, Bitmapset *demand, bool demand_all, bool ordered);
void walk_exprs(Frame *f, void *exprs);
// Whether target entry `te` can be skipped: nothing upstream uses it, and it computes nothing.
bool skippable(const TargetEntry *te, Bitmapset *demand, bool demand_all);
void walk_tlist(Frame *f, List *tlist, Bitmapset *demand, bool demand_all);
void demand_columns(Bitmapset **demand, int n, const AttrNumber *cols);

// A scan of a subquery or CTE: a Var of the scanned entry is a demand on the producing plan.
struct ScanVarContext {
    Index scanrelid;
    Bitmapset *demand;
    Frame *frame;
};
bool scan_var_walker(Node *node, void *context);

}  // namespace clarify::pg::plan_walk
