// Everything that differs between PostgreSQL major versions lives here (tested target: 15).
#pragma once

#include "pg.hpp"
extern "C" {
#include "executor/executor.h"
}

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "pg_clarify is written for PostgreSQL 15; port src/pg/compat.hpp first"
#endif

namespace clarify::pg {

// PG16 moved permission data from RangeTblEntry into RTEPermissionInfo and changed the hook.
using CheckPermsHook = ExecutorCheckPerms_hook_type;
#define CLARIFY_CHECK_PERMS_ARGS List *range_table, bool ereport_on_violation
#define CLARIFY_CHECK_PERMS_CALL(hook) (hook)(range_table, ereport_on_violation)

inline Bitmapset *selected_columns(const RangeTblEntry *rte) {
    return rte->selectedCols;
}

}  // namespace clarify::pg
