// clarify_internal.evaluate_case() (catalog: pg_clarify--1.2.sql, "Evaluation"): one labelled
// case decided as check() decides, as its agent with the agent's role settings, and, when asked,
// its rows read as the agent: read-only, security-restricted, ungated and unaudited, bounded by
// a timeout, in a subtransaction that is always rolled back (nothing it does stays).
#include "pg/pg.hpp"
#include "pg/boundary.hpp"
#include "pg/executor/hooks.hpp"
#include "pg/functions/check.hpp"

extern "C" {
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_db_role_setting.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"
}

#include <nlohmann/json.hpp>

#include <string>

namespace clarify::pg {
namespace {

constexpr int default_timeout_ms = 30000;  // when the agent has no statement_timeout

std::string arg_text(FunctionCallInfo fcinfo, int n) {
    if (PG_ARGISNULL(n)) return {};
    char *value = pg_guard([&] { return text_to_cstring(PG_GETARG_TEXT_PP(n)); });
    return value;
}

// The settings the agent's sessions start with here (ALTER ROLE ... [IN DATABASE] SET), over the
// caller's, at session priority so that they win; undone with the case's GUC nest level.
void apply_role_settings(Oid role) {
    Relation settings = table_open(DbRoleSettingRelationId, AccessShareLock);
    Snapshot snapshot = RegisterSnapshot(GetCatalogSnapshot(DbRoleSettingRelationId));
    ApplySetting(snapshot, InvalidOid, role, settings, PGC_S_SESSION);
    ApplySetting(snapshot, MyDatabaseId, role, settings, PGC_S_SESSION);
    UnregisterSnapshot(snapshot);
    table_close(settings, AccessShareLock);
}

// The statement's rows as a JSON array of objects; raises what running it raises.
std::string rows_as_agent(const std::string &sql, Oid agent) {
    // The caller's memory context outlives SPI's; the copy below is freed once it is a string.
    std::string query =
        "SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r)), "
        "'[]'::pg_catalog.jsonb)::pg_catalog.text FROM (\n" +
        sql + "\n) r";
    const char *query_text = query.c_str();
    GateBypass bypass;  // already decided: evaluation is not a gated statement, nor audited
    char *rows = pg_guard([&] {
        Oid user;
        int sec;
        GetUserIdAndSecContext(&user, &sec);
        bool read_only = XactReadOnly;
        char *out = nullptr;
        PG_TRY();
        {
            SetUserIdAndSecContext(
                agent, sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
            XactReadOnly = true;
            if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
            if (SPI_execute(query_text, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
                elog(ERROR, "the case's SQL returned no rows to compare");
            bool isnull = false;
            Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
            out = isnull ? nullptr : TextDatumGetCString(d);
            if (out) out = MemoryContextStrdup(TopTransactionContext, out);
            SPI_finish();
        }
        PG_FINALLY();
        {
            XactReadOnly = read_only;
            SetUserIdAndSecContext(user, sec);
        }
        PG_END_TRY();
        return out;
    });
    std::string json = rows ? rows : "[]";
    if (rows) pg_guard([&] { pfree(rows); });
    return json;
}

// Arms statement_timeout for `ms` (never past a deadline the caller's statement already has);
// returns that outer deadline (0: none) for disarm().
TimestampTz arm(int ms) {
    return pg_guard([&] {
        TimestampTz outer =
            get_timeout_active(STATEMENT_TIMEOUT) ? get_timeout_finish_time(STATEMENT_TIMEOUT) : 0;
        TimestampTz mine = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), ms);
        enable_timeout_at(STATEMENT_TIMEOUT, outer != 0 && outer < mine ? outer : mine);
        return outer;
    });
}

void disarm(TimestampTz outer) {
    pg_guard([&] {
        if (outer != 0)
            enable_timeout_at(STATEMENT_TIMEOUT, outer);
        else
            disable_timeout(STATEMENT_TIMEOUT, false);
    });
}

struct CaseResult {
    nlohmann::json out = nlohmann::json::object();
};

// Decides (and reads) inside the subtransaction; throws what PostgreSQL raised.
void decide_and_read(CaseResult *r, const std::string &sql, Oid agent, const std::string &record,
                     bool rows) {
    const char *record_text = record.c_str();
    pg_guard([&] {
        apply_role_settings(agent);
        (void)set_config_option("pg_clarify.resolution", record_text, PGC_USERSET, PGC_S_SESSION,
                                GUC_ACTION_SET, true, 0, false);
    });
    ReplayedDecision decided = replay_statement(sql.c_str(), agent, agent);
    r->out["state"] = decided.state;
    r->out["detail"] = nlohmann::json::parse(decided.detail);
    if (!rows || decided.state != "RESOLVED") return;
    bool may_act = pg_guard([&] { return is_member_of_role(GetUserId(), agent); });
    if (!may_act) {
        r->out["rows_error"] =
            "evaluate() reads a case's rows as its agent, and the caller may "
            "not act as that role";
        return;
    }
    int ms = pg_guard([] { return StatementTimeout > 0 ? StatementTimeout : default_timeout_ms; });
    TimestampTz outer = arm(ms);
    try {
        r->out["rows"] = nlohmann::json::parse(rows_as_agent(sql, agent));
    } catch (const PgError &e) {
        disarm(outer);
        bool ours = e.edata()->sqlerrcode == ERRCODE_QUERY_CANCELED &&
                    (outer == 0 || pg_guard([&] { return GetCurrentTimestamp() < outer; }));
        if (e.edata()->sqlerrcode == ERRCODE_QUERY_CANCELED && !ours) throw;
        r->out["rows_error"] = e.what();
        return;
    } catch (...) {
        disarm(outer);
        throw;
    }
    disarm(outer);
}

std::string evaluate_one(const std::string &sql, Oid agent, const std::string &record, bool rows) {
    MemoryContext context = CurrentMemoryContext;
    ResourceOwner owner = CurrentResourceOwner;
    CaseResult result;
    pg_guard([] { BeginInternalSubTransaction(nullptr); });
    try {
        decide_and_read(&result, sql, agent, record, rows);
    } catch (const PgError &e) {
        if (e.edata()->sqlerrcode == ERRCODE_QUERY_CANCELED) {
            pg_guard([&] {
                RollbackAndReleaseCurrentSubTransaction();
                MemoryContextSwitchTo(context);
                CurrentResourceOwner = owner;
            });
            throw;
        }
        result.out["state"] = nullptr;
        result.out["detail"] = {{"reason", e.what()}};
    } catch (const ReportedError &e) {
        result.out["state"] = nullptr;
        result.out["detail"] = {{"reason", e.message}};
    } catch (...) {
        pg_guard([&] {
            RollbackAndReleaseCurrentSubTransaction();
            MemoryContextSwitchTo(context);
            CurrentResourceOwner = owner;
        });
        throw;
    }
    // Always rolled back: settings, the record, and whatever the rows' statement did.
    pg_guard([&] {
        RollbackAndReleaseCurrentSubTransaction();
        MemoryContextSwitchTo(context);
        CurrentResourceOwner = owner;
    });
    return result.out.dump();
}

}  // namespace
}  // namespace clarify::pg

extern "C" {
PG_FUNCTION_INFO_V1(clarify_evaluate_case);
}

// clarify_internal.evaluate_case(statement, agent, record, rows): one row of evaluate_cases().
extern "C" Datum clarify_evaluate_case(PG_FUNCTION_ARGS) {
    using namespace clarify::pg;
    return cpp_entry([&] {
        std::string sql = arg_text(fcinfo, 0);
        Oid agent = PG_ARGISNULL(1) ? InvalidOid : PG_GETARG_OID(1);
        std::string record = arg_text(fcinfo, 2);
        bool rows = !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
        std::string json;
        if (!OidIsValid(agent))
            json =
                R"({"state": null, "detail": {"reason": "the case's agent role does not exist"}})";
        else
            json = evaluate_one(sql, agent, record, rows);
        const char *text = json.c_str();
        return pg_guard([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(text)); });
    });
}
