// Everything that differs between PostgreSQL major versions lives here (tested target: 15).
#pragma once

#include "pg.hpp"
extern "C" {
#include "access/xact.h"
#include "executor/executor.h"
#include "replication/syncrep.h"
#include "catalog/pg_class.h"
#include "storage/lockdefs.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
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

// Makes the privilege checks of a view's entry those of `user` (when they were the current
// user's).
inline void check_views_as(RangeTblEntry *rte, Oid user) {
    if (rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_VIEW &&
        !OidIsValid(rte->checkAsUser))
        rte->checkAsUser = user;
}

// The permission checks executing the plan would make (raises on a violation).
inline void check_select_privileges(PlannedStmt *stmt) {
    ExecCheckRTPerms(stmt->rtable, true);
}

// The check COPY relation TO makes: SELECT on the selected columns (offset by
// FirstLowInvalidHeapAttributeNumber, as in selectedCols).
inline void check_select_privilege(Oid relid, Bitmapset *selected) {
    RangeTblEntry *rte = makeNode(RangeTblEntry);
    rte->rtekind = RTE_RELATION;
    rte->relid = relid;
    rte->relkind = get_rel_relkind(relid);
    rte->rellockmode = AccessShareLock;
    rte->requiredPerms = ACL_SELECT;
    rte->selectedCols = selected;
    ExecCheckRTPerms(list_make1(rte), true);
}

// Sets this backend's synchronous_commit for the next commits without a GUC change: the variable
// and what its assign hook derives from it (the synchronous-replication wait mode; without it a
// commit at `on` would not wait for a synchronous standby). PG16 declares the hook in
// utils/guc_hooks.h.
inline void set_commit_level(int level) {
    synchronous_commit = level;
    assign_synchronous_commit(level, nullptr);
}

}  // namespace clarify::pg
