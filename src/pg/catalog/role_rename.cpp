#include "pg/pg.hpp"
#include "pg/catalog/role_rename.hpp"
#include "pg/catalog/catalog_cache.hpp"

extern "C" {
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
}

namespace clarify::pg {

namespace {

ProcessUtility_hook_type prev_process_utility = nullptr;

// Holds no C++ object: an ERROR of the command or of the follow-up passes through it as in C.
void clarify_process_utility(PlannedStmt *pstmt, const char *query_string, bool read_only_tree,
                             ProcessUtilityContext context, ParamListInfo params,
                             QueryEnvironment *query_env, DestReceiver *dest, QueryCompletion *qc) {
    char *old_name = nullptr, *new_name = nullptr;
    if (auto *rename = IsA(pstmt->utilityStmt, RenameStmt)
                           ? castNode(RenameStmt, pstmt->utilityStmt)
                           : nullptr;
        rename && rename->renameType == OBJECT_ROLE) {
        old_name = pstrdup(rename->subname);
        new_name = pstrdup(rename->newname);
    }
    if (prev_process_utility)
        prev_process_utility(pstmt, query_string, read_only_tree, context, params, query_env, dest,
                             qc);
    else
        standard_ProcessUtility(pstmt, query_string, read_only_tree, context, params, query_env,
                                dest, qc);
    if (old_name) follow_role_rename(old_name, new_name);
}

}  // namespace

void install_role_rename_hook() {
    prev_process_utility = ProcessUtility_hook;
    ProcessUtility_hook = clarify_process_utility;
}

}  // namespace clarify::pg
