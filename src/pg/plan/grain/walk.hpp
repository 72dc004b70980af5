// The grain facts of a plan (docs/reference.md, "Grain"): every aggregate, or aggregate used as a
// window function, whose argument reads a column of a watched relation, with the joins between
// that column's scan and the aggregate that are not proven to keep the scan's rows unrepeated.
// Computed once per plan with the read set (pg/executor/governed_reads.cpp caches both).
#pragma once

#include "pg/pg.hpp"
extern "C" {
#include "nodes/bitmapset.h"
#include "nodes/plannodes.h"
}

namespace clarify::pg {

struct AggregateFact {
    Oid relation;  // the scanned relation whose column the argument reads
    AttrNumber attnum;
    Oid aggregate;  // pg_proc OID
    bool distinct;
    // Relations on the other side of each unproven join (InvalidOid: a join the walk could not
    // follow to the end).
    Oid *via;
    int n_via;
    // Columns of `relation` grouped or partitioned by, or restricted to one value by the scan.
    AttrNumber *per_value;
    int n_per_value;
    // Read again, the same rows of `relation`, by another branch of a UNION ALL above.
    bool branches;
    // Which aggregate of the plan (facts of one aggregate share it), and the columns of `per_value`
    // the scan's quals fix rather than the aggregate groups by, each with its value's key
    // (pg/plan/grain/units.hpp): two scans fixing a unit column to other values mix units.
    int serial;
    AttrNumber *fixed;
    const char **fixed_values;
    int n_fixed;
};

struct AggregateFacts {
    AggregateFact *facts;  // palloc'd
    int count;
};

// Whether the DBA declared a unique key of `relation` covered by `attnums` (clarify.unique_keys).
using DeclaredKeyFn = bool (*)(void *context, Oid relation, const Bitmapset *attnums);

// Plain C-style routine: call it inside pg_guard. `watched[rti - 1]` as for plan_read_set.
AggregateFacts plan_aggregate_facts(PlannedStmt *stmt, const bool *watched, DeclaredKeyFn declared,
                                    void *declared_context);

}  // namespace clarify::pg
