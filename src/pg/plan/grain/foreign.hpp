// Foreign and custom scans of no single relation (scanrelid 0: a join or an aggregate the foreign
// server or the provider computes): the walk cannot follow their rows (docs/reference.md,
// "Grain"); the grain trace records them as unproven.
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
}

namespace clarify::pg::grain {

// The range table entries a foreign or custom scan reads; nullptr for other nodes.
Bitmapset *opaque_relids(const Plan *plan);

// The columns (Var *, of the range table) that `var`, evaluated at a foreign or custom scan, reads
// through its scan target list (INDEX_VAR); NIL when it is not such a reference.
List *scan_tlist_vars(Scan *scan, Var *var);

// A column an aggregate computed inside a foreign or custom scan reads.
struct PushedRead {
    int rti;
    AttrNumber attnum;
    Oid aggregate;
    bool distinct;
    Bitmapset *grouped;  // the columns of `rti` the scan groups by
};

// The columns (PushedRead *) the aggregates in the scan target list of a foreign or custom scan
// of no single relation read; NIL for any other node. Its grouping columns are the plain columns
// of that list labelled with a sort-group reference (as the planner labels a grouped target).
List *pushed_reads(Plan *plan);

}  // namespace clarify::pg::grain
