// SQL-callable functions (docs/reference.md, "Functions"): thin extern "C" shells over C++ bodies.
#include "pg/pg.hpp"
#include "pg/audit/queue.hpp"
#include "pg/boundary.hpp"
#include "pg/functions/check.hpp"
#include "pg/executor/hooks.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "core/render/payload.hpp"
#include "pg/functions/approval_wait.hpp"
#include "pg/settings.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "utils/timestamp.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "commands/trigger.h"
#include "funcapi.h"
#include "fmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(clarify_resolve);
PG_FUNCTION_INFO_V1(clarify_check);
PG_FUNCTION_INFO_V1(clarify_mentions);
PG_FUNCTION_INFO_V1(clarify_last_decision);
PG_FUNCTION_INFO_V1(clarify_gated);
PG_FUNCTION_INFO_V1(clarify_catalog_changed);
PG_FUNCTION_INFO_V1(clarify_audit_queue);
PG_FUNCTION_INFO_V1(clarify_audit_purge_begin);
PG_FUNCTION_INFO_V1(clarify_audit_wait);
PG_FUNCTION_INFO_V1(clarify_approval_wait);
}

#include <algorithm>
#include <stdexcept>
#include <string>

namespace clarify::pg {
namespace {

std::string text_arg(FunctionCallInfo fcinfo, int n) {
    if (PG_ARGISNULL(n)) return {};
    char *value = pg_guard([&] { return text_to_cstring(PG_GETARG_TEXT_PP(n)); });
    return value;
}

Datum jsonb_datum(const std::string &json) {
    const char *text = json.c_str();
    return pg_guard([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(text)); });
}

std::shared_ptr<const Catalog> require_catalog() {
    std::shared_ptr<const Catalog> catalog = governance_catalog();
    if (!catalog)
        throw ReportedError(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                            "pg_clarify is not installed in this database");
    return catalog;
}

// Who confirmed a choice is shown only to a caller that is no agent and could read it in
// clarify.approvals anyway: resolve() reveals nothing the caller's privileges do not.
bool may_see_confirmer() {
    if (session_is_gated()) return false;
    return pg_guard([] {
        Oid approvals = get_relname_relid("approvals", get_namespace_oid("clarify", false));
        if (!OidIsValid(approvals)) return false;
        Oid user = GetUserId();
        if (pg_class_aclcheck(approvals, user, ACL_SELECT) == ACLCHECK_OK) return true;
        AttrNumber column = get_attnum(approvals, "confirmed_by");
        return column != InvalidAttrNumber &&
               pg_attribute_aclcheck(approvals, column, user, ACL_SELECT) == ACLCHECK_OK;
    });
}

// A wait's timeout in milliseconds: negative is none, and at most an hour.
int timeout_arg_ms(const Interval *span) {
    double ms =
        (span->time / 1000.0) + (span->day * 86400000.0) + (span->month * 30.0 * 86400000.0);
    return ms <= 0 ? 0 : ms >= 3600000.0 ? 3600000 : int(ms);
}

}  // namespace
}  // namespace clarify::pg

using namespace clarify::pg;

extern "C" Datum clarify_resolve(PG_FUNCTION_ARGS) {
    return cpp_entry([&] {
        if (PG_ARGISNULL(0))
            throw ReportedError(ERRCODE_NULL_VALUE_NOT_ALLOWED, "term must not be null");
        std::shared_ptr<const clarify::Catalog> catalog = require_catalog();
        clarify::TermResolution r = clarify::resolve_term(
            *catalog, clarify::pg::agent_context(*catalog), current_record(), text_arg(fcinfo, 0),
            text_arg(fcinfo, 1), &current_mentions(catalog));
        return jsonb_datum(clarify::resolution_json(*catalog, r, may_see_confirmer()));
    });
}

extern "C" Datum clarify_check(PG_FUNCTION_ARGS) {
    return cpp_entry([&] { return jsonb_datum(check_statement(text_arg(fcinfo, 0).c_str())); });
}

// clarify.mentions(question, term): the matching the gate applies, for clarify.mentioned_terms().
extern "C" Datum clarify_mentions(PG_FUNCTION_ARGS) {
    return BoolGetDatum(cpp_entry(
        [&] { return clarify::mentions_term(text_arg(fcinfo, 0), text_arg(fcinfo, 1)); }));
}

extern "C" Datum clarify_last_decision(PG_FUNCTION_ARGS) {
    Datum result = 0;
    bool found = cpp_entry([&] {
        std::string json = last_decision_json();
        if (json.empty()) return false;
        result = jsonb_datum(json);
        return true;
    });
    if (!found) PG_RETURN_NULL();
    return result;
}

extern "C" Datum clarify_gated(PG_FUNCTION_ARGS) {
    return BoolGetDatum(cpp_entry([] { return session_is_gated(); }));
}

extern "C" Datum clarify_catalog_changed(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("catalog_changed() must be called as a trigger")));
    Oid table = RelationGetRelid(((TriggerData *)fcinfo->context)->tg_relation);
    cpp_entry([&] { announce_catalog_change(table); });
    // Texts published for short queue entries may belong to tables the extension had before it
    // was created again: decisions after this change carry their texts until they are stored.
    cpp_entry([] { pg_guard([] { audit_forget_published(MyDatabaseId); }); });
    return PointerGetDatum(nullptr);
}

// clarify.audit_queue(): plain PostgreSQL calls only, no C++ objects.
extern "C" Datum clarify_audit_queue(PG_FUNCTION_ARGS) {
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    for (int i = 0; i < audit_queue_count(); ++i) {
        QueueStats stats;
        if (!audit_queue_stats(i, &stats)) continue;
        Datum values[10];
        bool nulls[10] = {false};
        char *dbname = get_database_name(stats.database);
        nulls[0] = dbname == nullptr;
        values[1] = Int32GetDatum(stats.writer_pid);
        nulls[1] = stats.writer_pid == 0;
        values[2] = Int64GetDatum((int64)stats.enqueued);
        values[3] = Int64GetDatum((int64)stats.written);
        values[4] = Int64GetDatum((int64)stats.dropped);
        values[5] = Int64GetDatum((int64)stats.timeouts);
        values[6] = Int64GetDatum((int64)stats.failed_batches);
        values[7] = Int64GetDatum((int64)stats.malformed);
        values[8] = Int64GetDatum((int64)stats.pending_bytes);
        values[9] = CStringGetTextDatum(stats.last_error);
        nulls[9] = stats.last_error[0] == '\0';
        // The name column takes a NameData.
        NameData name;
        if (dbname) {
            namestrcpy(&name, dbname);
            values[0] = NameGetDatum(&name);
        }
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    return (Datum)0;
}

// clarify.audit_wait(timeout interval): true once every decision made in this database before the
// call is in clarify.audit (durable sync decisions the writer had not yet materialised included).
extern "C" Datum clarify_audit_wait(PG_FUNCTION_ARGS) {
    int timeout_ms = timeout_arg_ms(PG_GETARG_INTERVAL_P(0));
    Oid schema = get_namespace_oid("clarify", false);
    Oid audit = get_relname_relid("audit", schema);
    if (!OidIsValid(audit) || pg_class_aclcheck(audit, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied for function audit_wait"),
                        errhint("clarify.audit_wait() is for roles that may read clarify.audit.")));
    bool visible = cpp_entry(
        [&] { return pg_guard([&] { return audit_wait_visible(MyDatabaseId, timeout_ms); }); });
    PG_RETURN_BOOL(visible);
}

// clarify.approval_wait(approval_id, timeout): true once this server shows the approval to the
// caller (replayed, on a standby); false on timeout. Agents may call it: see
// pg/functions/approval_wait.hpp.
extern "C" Datum clarify_approval_wait(PG_FUNCTION_ARGS) {
    int64 approval_id = PG_GETARG_INT64(0);
    int timeout_ms = timeout_arg_ms(PG_GETARG_INTERVAL_P(1));
    bool replayed = cpp_entry(
        [&] { return pg_guard([&] { return approval_replayed(approval_id, timeout_ms); }); });
    PG_RETURN_BOOL(replayed);
}

// Called by clarify.purge_audit() while it holds its locks on the audit's texts, before it
// deletes any: the hashes that decisions still queued refer to without their texts. As uuid[],
// or, for a database still at catalog 1.0 (whose function returns bigint[]), as the 64-bit
// identities the writer stores there (pg/audit/writer.cpp).
extern "C" Datum clarify_audit_purge_begin(PG_FUNCTION_ARGS) {
    return cpp_entry([&] {
        size_t cap = audit_purge_keep_capacity();
        auto *keep = pg_guard([&] {
            return static_cast<clarify::AuditHash *>(palloc(sizeof(clarify::AuditHash) * cap));
        });
        int64 found = pg_guard([&] { return audit_purge_begin(MyDatabaseId, keep, cap); });
        if (found < 0) throw std::logic_error("the audit queue named more texts than it can hold");
        size_t n = static_cast<size_t>(found);
        auto before = [](const clarify::AuditHash &a, const clarify::AuditHash &b) {
            return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
        };
        std::sort(keep, keep + n, before);
        n = static_cast<size_t>(std::unique(keep, keep + n) - keep);
        bool wide = pg_guard([&] { return get_fn_expr_rettype(fcinfo->flinfo) != INT8ARRAYOID; });
        return pg_guard([&] {
            Datum *elems = static_cast<Datum *>(palloc(sizeof(Datum) * Max(n, size_t(1))));
            if (!wide) {
                for (size_t i = 0; i < n; ++i) elems[i] = Int64GetDatum(int64(keep[i].lo));
                return PointerGetDatum(construct_array(elems, static_cast<int>(n), INT8OID,
                                                       sizeof(int64), FLOAT8PASSBYVAL,
                                                       TYPALIGN_DOUBLE));
            }
            for (size_t i = 0; i < n; ++i) {
                auto *uuid = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
                clarify::hash_to_bytes(keep[i], uuid->data);
                elems[i] = UUIDPGetDatum(uuid);
            }
            return PointerGetDatum(construct_array(elems, static_cast<int>(n), UUIDOID, UUID_LEN,
                                                   false, TYPALIGN_CHAR));
        });
    });
}
