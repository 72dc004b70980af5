// Totals and the scans they come from (docs/reference.md, "Grain"): which scan a grouping column
// copies (a CTE read twice is two scans), which nodes hand on each input row's values more than
// once (an Agg of several grouping sets), and which return each value of their keys once
// (GROUP BY, DISTINCT).
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/grain/proof.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
}

namespace clarify::pg::grain {

// A column of one scan, read through the CteScans on `route` (outermost first).
struct ScanColumn {
    Scan *scan;
    List *route;
    AttrNumber attnum;
};

// The base columns (ScanColumn *) that output column `attno` of `plan` is a plain copy of, with
// `route` the CteScans passed above `plan`. Each node followed costs a step of `*steps` (none
// left: the columns found so far, fewer, and the caller gives up).
List *base_columns(PlannedStmt *stmt, Plan *plan, AttrNumber attno, List *route, int *steps);

// Whether two routes pass the same CteScans.
bool same_route(const List *a, const List *b);

// Whether `route` passes the CteScans of `prefix` first (then perhaps others).
bool route_within(const List *route, const List *prefix);

// Whether `plan` returns each input row's values more than once: an Agg computing several
// grouping sets (ROLLUP, CUBE, GROUPING SETS), whose subtotals repeat the details.
bool repeats_rows(const Plan *plan);

// The input columns every grouping set of `agg` groups by (all its grouping columns without
// grouping sets), palloc'd; *n their number.
AttrNumber *common_grouping_columns(const Agg *agg, int *n);

// A node on the way that returns each value of its keys once (GROUP BY, DISTINCT): when those
// keys are columns of the scan reached covering a unique key of its table, the joins and row
// repeaters below it repeat nothing (a total repeated on each row still counts).
struct Collapse {
    int path_length;  // the joins above it
    int repeaters;    // the row repeaters above it
    List *keys;       // per key column, a List of ScanColumn *
};

// The collapse `plan` is for an output `expr` that is a plain column (not an aggregate of its
// group), with the trace's joins, repeaters and route at `plan`; nullptr when none. Each key
// costs a step of `*steps` (none left: nullptr, and the caller gives up).
Collapse *collapse_at(PlannedStmt *stmt, Plan *plan, Expr *expr, int path_length, int repeaters,
                      List *route, int *steps);

// The outermost of `collapses` (Collapse *) whose keys are all columns of `scan` (on `route`)
// covering, with its single-valued columns, a unique key of `relid`; nullptr when none. Each
// collapse looked at costs a step of `*steps`.
Collapse *collapse_for(Proofs *p, List *collapses, Scan *scan, List *route, Oid relid,
                       Bitmapset *single, int *steps);

// The columns of this very scan, read through `route`, among `columns` (ScanColumn *). Each
// column looked at costs a step of `*steps`.
Bitmapset *columns_of_scan(List *columns, Scan *scan, List *route, int *steps);

// The input columns whose values `plan` returns once each (a grouping Agg, a Unique); nullptr
// when it is neither.
const AttrNumber *distinct_keys(const Plan *plan, int *n);

}  // namespace clarify::pg::grain
