// clarify.replay() (catalog: pg_clarify--1.2.sql, "Rolling out: replay"): re-decides one audited
// statement now, as its roles and under its record, by the check() machinery (it plans, runs
// nothing, audits nothing). In a subtransaction: a statement that no longer plans (its table
// dropped, parameters not recorded) is reported, and the record set for it is undone either way.
#include "pg/pg.hpp"
#include "pg/boundary.hpp"
#include "pg/functions/check.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
}

#include <nlohmann/json.hpp>

#include <string>

namespace clarify::pg {
namespace {

std::string arg_text(FunctionCallInfo fcinfo, int n) {
    if (PG_ARGISNULL(n)) return {};
    char *value = pg_guard([&] { return text_to_cstring(PG_GETARG_TEXT_PP(n)); });
    return value;
}

// Owner and audit readers only: the statements replayed are the audit's.
void require_audit_reader() {
    pg_guard([] {
        Oid schema = get_namespace_oid("clarify", false);
        Oid audit = get_relname_relid("audit", schema);
        if (!OidIsValid(audit) || pg_class_aclcheck(audit, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
            ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                            errmsg("permission denied for function replay"),
                            errhint("clarify.replay() is for roles that may read clarify.audit.")));
    });
}

// {"now_state", "now_detail"} for one statement; now_state null when it cannot be re-decided.
std::string replay_one(const std::string &sql, Oid session_role, Oid acting_role,
                       const std::string &record) {
    MemoryContext context = CurrentMemoryContext;
    ResourceOwner owner = CurrentResourceOwner;
    nlohmann::json out;
    pg_guard([] { BeginInternalSubTransaction(nullptr); });
    try {
        const char *record_text = record.c_str();
        int nest = pg_guard([&] {
            int level = NewGUCNestLevel();
            (void)set_config_option("pg_clarify.resolution", record_text, PGC_USERSET,
                                    PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
            return level;
        });
        ReplayedDecision decided = replay_statement(sql.c_str(), session_role, acting_role);
        pg_guard([&] {
            AtEOXact_GUC(false, nest);
            ReleaseCurrentSubTransaction();
            MemoryContextSwitchTo(context);
            CurrentResourceOwner = owner;
        });
        out["now_state"] = decided.state;
        out["now_detail"] = nlohmann::json::parse(decided.detail);
    } catch (...) {
        std::string why = "the statement could not be decided again";
        try {
            throw;
        } catch (const PgError &e) {
            why = e.what();
        } catch (const ReportedError &e) {
            why = e.message;
        } catch (...) {
            why += " (an unexpected error)";
        }
        pg_guard([&] {
            RollbackAndReleaseCurrentSubTransaction();
            MemoryContextSwitchTo(context);
            CurrentResourceOwner = owner;
        });
        out["now_state"] = nullptr;
        out["now_detail"] = {{"reason", why}};
    }
    return out.dump();
}

}  // namespace
}  // namespace clarify::pg

extern "C" {
PG_FUNCTION_INFO_V1(clarify_replay_decision);
}

// clarify.replay_decision(statement, session_role, acting_role, record): one row of replay().
extern "C" Datum clarify_replay_decision(PG_FUNCTION_ARGS) {
    using namespace clarify::pg;
    return cpp_entry([&] {
        require_audit_reader();
        std::string sql = arg_text(fcinfo, 0);
        Oid session = PG_ARGISNULL(1) ? InvalidOid : PG_GETARG_OID(1);
        Oid acting = PG_ARGISNULL(2) ? InvalidOid : PG_GETARG_OID(2);
        std::string record = arg_text(fcinfo, 3);
        std::string json = replay_one(sql, session, acting, record);
        const char *text = json.c_str();
        return pg_guard([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(text)); });
    });
}
