#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/executor/time_zone_hold.hpp"

extern "C" {
#include "access/xact.h"
#include "pgtime.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"
}

#include <cstring>

namespace clarify::pg {

namespace {

int holds = 0;  // executions alive that hold TimeZone
GucStringCheckHook prev_check = nullptr;
GucStringAssignHook prev_assign = nullptr;

bool check_time_zone(char **newval, void **extra, GucSource source) {
    if (holds > 0) {
        GUC_check_errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE);
        GUC_check_errmsg(
            "TimeZone cannot change while a statement whose period depends on it runs");
        GUC_check_errhint("Close the cursor, or change TimeZone before the statement starts.");
        return false;
    }
    return prev_check ? prev_check(newval, extra, source) : true;
}

// RESET, RESET ALL and set_config(name, NULL) reach the reset value without the check hook: the
// change is refused here, before the zone moves. Never while a transaction ends (restoring).
void assign_time_zone(const char *newval, void *extra) {
    if (holds > 0 && IsTransactionState() && extra && *(pg_tz **)extra != session_timezone)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("TimeZone cannot change while a statement whose period depends on it runs"),
                 errhint("Close the cursor, or change TimeZone before the statement starts.")));
    if (prev_assign) prev_assign(newval, extra);
}

void release_hold(void *) {
    --holds;
}

}  // namespace

void install_time_zone_hold() {
    int n = 0;
    struct config_generic **variables = guc_variables(&n);
    for (int i = 0; i < n; ++i) {
        if (variables[i]->vartype != PGC_STRING || strcmp(variables[i]->name, "TimeZone") != 0)
            continue;
        struct config_string *zone = (struct config_string *)variables[i];
        if (zone->check_hook == check_time_zone) return;
        prev_check = zone->check_hook;
        zone->check_hook = check_time_zone;
        prev_assign = zone->assign_hook;
        zone->assign_hook = assign_time_zone;
        return;
    }
}

void hold_time_zone(EState *estate) {
    // The execution's memory goes when it ends, also on abort: the hold goes with it.
    MemoryContextCallback *callback = (MemoryContextCallback *)MemoryContextAlloc(
        estate->es_query_cxt, sizeof(MemoryContextCallback));
    callback->func = release_hold;
    callback->arg = nullptr;
    MemoryContextRegisterResetCallback(estate->es_query_cxt, callback);
    ++holds;
}

}  // namespace clarify::pg
