// Everything that differs between PostgreSQL major versions lives here and in pg/compat.cpp
// (tested: 15, 17 and 18). Code that walks range tables or plans asks these accessors instead of
// reading the version-dependent fields itself.
#pragma once

#include "pg/pg.hpp"

#include <vector>

extern "C" {
#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "replication/syncrep.h"
#include "catalog/pg_class.h"
#include "storage/lockdefs.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
// EnableQueryId(): the query jumble moved to nodes/ in 16.
#if PG_VERSION_NUM >= 160000
#include "nodes/queryjumble.h"
#else
#include "utils/queryjumble.h"
#endif
}

#if PG_VERSION_NUM < 150000 || (PG_VERSION_NUM >= 160000 && PG_VERSION_NUM < 170000) || \
    PG_VERSION_NUM >= 190000
#error "pg_clarify is tested on PostgreSQL 15, 17 and 18; port src/pg/compat.hpp first"
#endif

struct config_generic;  // utils/guc_tables.h

namespace clarify::pg {

// 16 moved permission data from RangeTblEntry into RTEPermissionInfo, and the hook takes both.
using CheckPermsHook = ExecutorCheckPerms_hook_type;
#if PG_VERSION_NUM >= 160000
#define CLARIFY_CHECK_PERMS_ARGS List *range_table, List *perminfos, bool ereport_on_violation
#define CLARIFY_CHECK_PERMS_CALL(hook) (hook)(range_table, perminfos, ereport_on_violation)
#define CLARIFY_CHECK_PERMS_PERMINFOS perminfos
#else
#define CLARIFY_CHECK_PERMS_ARGS List *range_table, bool ereport_on_violation
#define CLARIFY_CHECK_PERMS_CALL(hook) (hook)(range_table, ereport_on_violation)
#define CLARIFY_CHECK_PERMS_PERMINFOS NIL
#endif

// 16 declares tree walkers with their real signature; 15 as bool (*)(), reached through a
// generic function pointer.
#if PG_VERSION_NUM >= 160000
#define WALKER(fn) (fn)
#else
#define WALKER(fn) reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(fn))
#endif

// The same for tree mutators; and 16's Var.varnullingrels (outer joins that may null it), which
// a condition compared apart from its place in the join tree clears.
#if PG_VERSION_NUM >= 160000
#define MUTATOR(fn) (fn)
#define CLARIFY_CLEAR_NULLING(var) ((var)->varnullingrels = nullptr)
#else
#define MUTATOR(fn) reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(fn))
#define CLARIFY_CLEAR_NULLING(var) ((void)(var))
#endif

// 18 gave index_beginscan the scan's instrumentation (nullptr: none).
#if PG_VERSION_NUM >= 180000
#define CLARIFY_INDEX_BEGINSCAN(heap, index, snapshot, nkeys) \
    index_beginscan((heap), (index), (snapshot), nullptr, (nkeys), 0)
#else
#define CLARIFY_INDEX_BEGINSCAN(heap, index, snapshot, nkeys) \
    index_beginscan((heap), (index), (snapshot), (nkeys), 0)
#endif

// --- range table entries ----------------------------------------------------------------------

// Whether the entry is a view. From 16 the rewriter turns a view's entry into a subquery entry
// that keeps the view's relid and relkind for the permission check.
bool is_view_entry(const RangeTblEntry *rte);

// The relation whose columns an entry's reads are: a table (or any RTE_RELATION) or a view;
// InvalidOid for subqueries, functions, joins and the like.
Oid entry_relation(const RangeTblEntry *rte);

// A range table with the permission entries that go with it (16+: a separate list).
PlannedStmt *range_table_statement(List *range_table, List *perminfos);

// The columns entry rti of the statement's range table selects, as offsets from
// FirstLowInvalidHeapAttributeNumber. An inheritance child or partition (which has no permission
// entry from 16) selects its parent's columns, translated to its own numbers.
Bitmapset *selected_columns(const PlannedStmt *stmt, Index rti);

// Makes the privilege checks of the views the query itself names (not those of its subqueries)
// those of `user`, where they were the current user's.
void check_views_as(Query *query, Oid user);

// The permission checks executing the plan would make (raises on a violation).
void check_select_privileges(PlannedStmt *stmt);

// The check COPY relation TO makes: SELECT on the selected columns (offset by
// FirstLowInvalidHeapAttributeNumber, as in selected_columns).
void check_select_privilege(Oid relid, Bitmapset *selected);

// --- plan nodes -------------------------------------------------------------------------------

// The columns a SetOp compares, and which of its inputs read them. Up to 17 a SetOp has one
// input (an Append of both sides with a flag column, `flag`); from 18 it has two (INTERSECT and
// EXCEPT read the right side's rows too), both compared on the same columns.
struct SetOpColumns {
    int count;
    const AttrNumber *columns;
    AttrNumber flag;  // 0: none
    bool both_inputs;
};
SetOpColumns setop_columns(const SetOp *setop);

// The btree strategies (BTLessStrategyNumber...) an operator has in the operator families that
// know it (18 generalised the lookup to comparison types, numbered alike).
std::vector<int> op_btree_strategies(Oid opno);

// Joins that return each row of their inner side at most once and nothing of their outer side:
// a right anti join (16) and a right semi join (18), chosen to hash the smaller side.
bool is_right_semi_or_anti(JoinType type);

// --- settings ---------------------------------------------------------------------------------

// Every setting the server knows, and how many (16 made the count an out-parameter).
::config_generic **guc_variables(int *count);

// Memory for a GUC check hook's `extra` and for a string value it replaces: from 16 it must come
// from the GUC memory context (PostgreSQL frees it with pfree). Returns nullptr when out of
// memory; it never raises (the allocation reports at LOG).
void *guc_alloc(size_t size);
void guc_release(void *block);

// The setting that makes every query parallel, for testing (renamed in 16).
constexpr const char *kParallelDebugSetting =
    PG_VERSION_NUM >= 160000 ? "debug_parallel_query" : "force_parallel_mode";

// Sets this backend's synchronous_commit for the next commits without a GUC change: the variable
// and what its assign hook derives from it (the synchronous-replication wait mode; without it a
// commit at `on` would not wait for a synchronous standby).
void set_commit_level(int level);

// A non-transactional logical message, not flushed (the caller flushes): 17 added `flush`.
XLogRecPtr log_logical_message(const char *prefix, const char *bytes, size_t length);
// Creates the physical slot `name` and makes it this process's (17 added failover and synced).
void create_physical_slot(const char *name);
// Makes the existing slot `name` this process's, waiting for it (18 added error_if_invalid).
void acquire_slot(const char *name);

}  // namespace clarify::pg
