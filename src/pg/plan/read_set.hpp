// The read set of a statement: which columns of which relations it actually reads
// (docs/reference.md, "The read set"). Computed from the final plan by propagating demand from the
// statement's output down to the scans, so a view's or subquery's unused columns are not reads,
// while quals, join clauses, sort and group keys, RETURNING, sublinks and inlined function bodies
// are.
#pragma once

#include "pg/pg.hpp"
extern "C" {
#include "nodes/plannodes.h"
}

namespace clarify::pg {

struct ColumnRead {
    Oid relation;
    AttrNumber attnum;  // 0: the whole row
};

struct ReadSet {
    ColumnRead *reads;  // palloc'd
    int count;
};

// Plain C-style routines: call them inside pg_guard. `watched[rti - 1]` says whether range table
// entry rti is worth recording (a governed relation); reads of other entries are not kept.
ReadSet plan_read_set(PlannedStmt *stmt, const bool *watched);
// For callers with a range table but no plan (COPY table TO): the selected columns. `perminfos`
// goes with the range table from PostgreSQL 16 (NIL before).
ReadSet range_table_read_set(List *range_table, List *perminfos, const bool *watched);

}  // namespace clarify::pg
