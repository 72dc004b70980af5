// The version-dependent accessors declared in pg/compat.hpp. Plain PostgreSQL code: call them
// inside pg_guard unless they say they never raise.
#include "pg/pg.hpp"
#include "pg/compat.hpp"

extern "C" {
#include "access/sysattr.h"
#include "nodes/makefuncs.h"
#include "nodes/pathnodes.h"
#include "parser/parsetree.h"
#include "replication/message.h"
#include "replication/slot.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"
#include "utils/guc_hooks.h"
#endif
}

#include <cstdlib>

namespace clarify::pg {

bool is_view_entry(const RangeTblEntry *rte) {
#if PG_VERSION_NUM >= 160000
    if (rte->rtekind == RTE_SUBQUERY && OidIsValid(rte->relid) && rte->relkind == RELKIND_VIEW)
        return true;
#endif
    return rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_VIEW;
}

Oid entry_relation(const RangeTblEntry *rte) {
    if (rte->rtekind == RTE_RELATION || is_view_entry(rte)) return rte->relid;
    return InvalidOid;
}

PlannedStmt *range_table_statement(List *range_table, List *perminfos) {
    PlannedStmt *stmt = makeNode(PlannedStmt);
    stmt->rtable = range_table;
#if PG_VERSION_NUM >= 160000
    stmt->permInfos = perminfos;
#else
    (void)perminfos;
#endif
    return stmt;
}

#if PG_VERSION_NUM >= 160000
namespace {

// A parent's column set in a child's numbers: system columns and the whole row keep theirs.
Bitmapset *translate_columns(Bitmapset *parent, const AppendRelInfo *relation) {
    Bitmapset *child = nullptr;
    int col = -1;
    while ((col = bms_next_member(parent, col)) >= 0) {
        AttrNumber attnum = col + FirstLowInvalidHeapAttributeNumber;
        if (attnum <= 0) {
            child = bms_add_member(child, col);
            continue;
        }
        if (attnum > list_length(relation->translated_vars)) continue;
        auto *var = static_cast<Var *>(list_nth(relation->translated_vars, attnum - 1));
        if (var && IsA(var, Var))
            child = bms_add_member(child, var->varattno - FirstLowInvalidHeapAttributeNumber);
    }
    return child;
}

}  // namespace
#endif

Bitmapset *selected_columns(const PlannedStmt *stmt, Index rti) {
    RangeTblEntry *rte = rt_fetch(rti, stmt->rtable);
#if PG_VERSION_NUM >= 160000
    if (rte->perminfoindex > 0) return getRTEPermissionInfo(stmt->permInfos, rte)->selectedCols;
    ListCell *lc;
    foreach (lc, stmt->appendRelations) {
        auto *relation = lfirst_node(AppendRelInfo, lc);
        if (relation->child_relid == rti && relation->parent_relid != rti)
            return translate_columns(selected_columns(stmt, relation->parent_relid), relation);
    }
    return nullptr;
#else
    return rte->selectedCols;
#endif
}

void check_views_as(Query *query, Oid user) {
#if PG_VERSION_NUM >= 160000
    ListCell *lc;
    foreach (lc, query->rteperminfos) {
        auto *perminfo = lfirst_node(RTEPermissionInfo, lc);
        if (!OidIsValid(perminfo->checkAsUser) && get_rel_relkind(perminfo->relid) == RELKIND_VIEW)
            perminfo->checkAsUser = user;
    }
#else
    ListCell *lc;
    foreach (lc, query->rtable) {
        auto *rte = static_cast<RangeTblEntry *>(lfirst(lc));
        if (is_view_entry(rte) && !OidIsValid(rte->checkAsUser)) rte->checkAsUser = user;
    }
#endif
}

void check_select_privileges(PlannedStmt *stmt) {
#if PG_VERSION_NUM >= 160000
    ExecCheckPermissions(stmt->rtable, stmt->permInfos, true);
#else
    ExecCheckRTPerms(stmt->rtable, true);
#endif
}

void check_select_privilege(Oid relid, Bitmapset *selected) {
    RangeTblEntry *rte = makeNode(RangeTblEntry);
    rte->rtekind = RTE_RELATION;
    rte->relid = relid;
    rte->relkind = get_rel_relkind(relid);
    rte->rellockmode = AccessShareLock;
#if PG_VERSION_NUM >= 160000
    List *perminfos = NIL;
    RTEPermissionInfo *perminfo = addRTEPermissionInfo(&perminfos, rte);
    perminfo->requiredPerms = ACL_SELECT;
    perminfo->selectedCols = selected;
    ExecCheckPermissions(list_make1(rte), perminfos, true);
#else
    rte->requiredPerms = ACL_SELECT;
    rte->selectedCols = selected;
    ExecCheckRTPerms(list_make1(rte), true);
#endif
}

SetOpColumns setop_columns(const SetOp *setop) {
#if PG_VERSION_NUM >= 180000
    return SetOpColumns{setop->numCols, setop->cmpColIdx, 0, true};
#else
    return SetOpColumns{setop->numCols, setop->dupColIdx, setop->flagColIdx, false};
#endif
}

std::vector<int> op_btree_strategies(Oid opno) {
    std::vector<int> out;
#if PG_VERSION_NUM >= 180000
    List *interpretations = get_op_index_interpretation(opno);
    ListCell *lc;
    foreach (lc, interpretations)
        out.push_back(static_cast<int>(((OpIndexInterpretation *)lfirst(lc))->cmptype));
#else
    List *interpretations = get_op_btree_interpretation(opno);
    ListCell *lc;
    foreach (lc, interpretations) out.push_back(((OpBtreeInterpretation *)lfirst(lc))->strategy);
#endif
    return out;
}

bool is_right_semi_or_anti(JoinType type) {
#if PG_VERSION_NUM >= 180000
    return type == JOIN_RIGHT_SEMI || type == JOIN_RIGHT_ANTI;
#elif PG_VERSION_NUM >= 160000
    return type == JOIN_RIGHT_ANTI;
#else
    (void)type;
    return false;
#endif
}

::config_generic **guc_variables(int *count) {
#if PG_VERSION_NUM >= 160000
    return get_guc_variables(count);
#else
    *count = GetNumConfigOptions();
    return get_guc_variables();
#endif
}

void *guc_alloc(size_t size) {
#if PG_VERSION_NUM >= 160000
    return guc_malloc(LOG, size);
#else
    return std::malloc(size);
#endif
}

void guc_release(void *block) {
#if PG_VERSION_NUM >= 160000
    guc_free(block);
#else
    std::free(block);
#endif
}

void set_commit_level(int level) {
    synchronous_commit = level;
    assign_synchronous_commit(level, nullptr);
}

XLogRecPtr log_logical_message(const char *prefix, const char *bytes, size_t length) {
#if PG_VERSION_NUM >= 170000
    return LogLogicalMessage(prefix, bytes, length, false, false);
#else
    return LogLogicalMessage(prefix, bytes, length, false);
#endif
}

void create_physical_slot(const char *name) {
#if PG_VERSION_NUM >= 170000
    ReplicationSlotCreate(name, false, RS_PERSISTENT, false, false, false);
#else
    ReplicationSlotCreate(name, false, RS_PERSISTENT, false);
#endif
}

void acquire_slot(const char *name) {
#if PG_VERSION_NUM >= 180000
    ReplicationSlotAcquire(name, true, true);
#else
    ReplicationSlotAcquire(name, true);
#endif
}

}  // namespace clarify::pg
