// Proofs that a join does not repeat one side's rows, from the plan and the database: semi and
// anti joins, the planner's inner_unique, and the other side unique on the join's equality keys
// (unique index or primary key, declared key, grouping, DISTINCT, at most one row).
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/grain/walk.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
}

namespace clarify::pg::grain {

struct Proofs {
    PlannedStmt *stmt;
    DeclaredKeyFn declared;
    void *declared_context;
    walk_budget::Memo *known;    // (join, from_outer): memo_bool(whether it repeats)
    walk_budget::Memo *equated;  // (plan, param id): memo_bool(whether equated below it)
    Bitmapset *loop_params;      // PARAM_EXEC ids a nested loop sets: they vary per outer row
    int budget;                  // steps left before a proof gives up (unproven)
};

// Whether `join` can return a row of the side the rows come from (outer or inner) more than once.
bool join_repeats(Proofs *p, Plan *join, bool from_outer);

// The columns of the relation `scan` reads that its quals fix to one value for the whole
// execution (constants, statement parameters, initplan results).
// With `values`, also appends each column's FixedColumn (the value its first qual gives it).
struct FixedColumn {
    AttrNumber attnum;
    Expr *value;
};
Bitmapset *scan_single_valued(Proofs *p, Scan *scan, List **values = nullptr);

// The base column a Var evaluated at `scan` stands for (0 when none).
AttrNumber scan_column(Scan *scan, Var *var);

// Whether `plan`'s rows are unique on its output columns `keys` (proven as for joins).
bool rows_unique(Proofs *p, Plan *plan, Bitmapset *keys);

// Whether the rows of the relation `scan` reads are unique on its columns `attnums` (with those
// its quals compare with a value).
bool scan_columns_unique(Proofs *p, Scan *scan, Bitmapset *attnums, bool inherited_only = false);

// Whether a unique key of `relid` (index, primary key or declared key) lies within `attnums`.
bool key_of(Proofs *p, Oid relid, Bitmapset *attnums);

// Whether `plan` returns at most one row.
bool at_most_one(Plan *plan);

}  // namespace clarify::pg::grain
