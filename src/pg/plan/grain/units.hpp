// Units in the grain facts (docs/reference.md, "Units and time zones"): the values a scan's quals
// fix its columns to, as keys two scans of one aggregate can compare. Equal keys are the same
// value for the whole execution; a value the key cannot name gets a key of its own (fail closed).
#pragma once

#include "pg/pg.hpp"
#include "pg/plan/grain/walk.hpp"

extern "C" {
#include "nodes/pg_list.h"
}

namespace clarify::pg::grain {

// Records in `fact` the columns of `values` (FixedColumn *, pg/plan/grain/proof.hpp) that are not
// in `grouped`, sorted by column, with their values' keys. PostgreSQL level: may raise.
void record_fixed(AggregateFact *fact, List *values, const Bitmapset *grouped);

// Orders two facts' fixed columns and values (for drop_duplicate_facts).
int compare_fixed(const AggregateFact &x, const AggregateFact &y);

}  // namespace clarify::pg::grain
