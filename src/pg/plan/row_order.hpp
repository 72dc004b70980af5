// Whether the order of a plan node's rows reaches its consumer, child by child: the keys of an
// index scan are reads only when the order of the rows it returns can be seen
// (pg/plan/read_set.cpp).
#pragma once

#include "pg/pg.hpp"
extern "C" {
#include "nodes/plannodes.h"
}

namespace clarify::pg {

// Given whether the order of this node's rows reaches its consumer (*outer and *inner on entry),
// whether that of its outer and inner children's rows does (on return).
void rows_order(Plan *plan, Bitmapset *demand, bool demand_all, bool *outer, bool *inner);

}  // namespace clarify::pg
