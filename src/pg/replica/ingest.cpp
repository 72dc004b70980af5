// The primary side of forwarding: clarify.audit_ingest(origin, entries), which the standbys'
// writers call. It accepts only what a standby's writer sends (full entries of this database,
// ids carrying the origin's node), writes them with the writer's own code (pg/audit/batch.cpp) in
// the caller's transaction (committed durably when a decision in the batch is sync), and skips what
// it already holds: a batch sent again after a lost connection is written once.
#include "pg/pg.hpp"
#include "pg/audit/batch.hpp"
#include "pg/replica/origin.hpp"
#include "core/audit/record.hpp"
#include "core/audit/decision_id.hpp"
#include "core/audit/forward_batch.hpp"
#include "core/audit/ingest_rules.hpp"
#include "pg/audit/held_ids.hpp"
#include "pg/boundary.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(clarify_audit_ingest);
}

#include <algorithm>
#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace clarify::pg {

namespace {

[[noreturn]] void refuse(const std::string &why) {
    throw ReportedError(ERRCODE_INVALID_PARAMETER_VALUE,
                        "pg_clarify refuses the forwarded audit batch: " + why, {},
                        "Only a standby's pg_clarify audit writer sends these batches.");
}

// Splits the frames and decodes each entry in place (views into `bytes`), gives short entries the
// texts earlier entries of the batch carried (core/audit/forward_batch.hpp). Identities are this
// server's, never the sender's: computed here, once per text the batch carries.
std::vector<AuditView> decode_batch(const char *bytes, size_t size, const std::string &origin) {
    std::vector<AuditView> batch;
    try {
        batch = split_frames(std::string_view(bytes, size));
    } catch (const AuditFormatError &e) {
        refuse(e.what());
    }
    if (std::string why = entries_refusal(batch, MyDatabaseId, origin); !why.empty()) refuse(why);
    if (std::string why = resolve_short_entries(batch); !why.empty()) refuse(why);
    (void)identify_forwarded(batch, audit_key());
    return batch;
}

// The notes among the batch's the audit holds, by decision id and text. Inside an SPI connection.
HeldNotes held_notes(const std::vector<AuditView> &batch) {
    HeldNotes held;
    pg_guard([&] {
        Datum *elems = static_cast<Datum *>(palloc(sizeof(Datum) * (batch.size() + 1)));
        int n = 0;
        for (const AuditView &a : batch) elems[n++] = Int64GetDatum(int64(a.decision_id));
        Oid type = INT8ARRAYOID;
        Datum ids = PointerGetDatum(
            construct_array(elems, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
        int rc = SPI_execute_with_args(
            "SELECT decision_id, note FROM clarify.audit_notes "
            "WHERE decision_id OPERATOR(pg_catalog.=) ANY ($1)",
            1, &type, &ids, nullptr, false, 0);
        if (rc != SPI_OK_SELECT) elog(ERROR, "reading the audit's notes failed");
        for (uint64 i = 0; i < SPI_processed; ++i) {
            bool isnull = false;
            Datum d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
            char *note = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
            held.emplace(uint64(DatumGetInt64(d)), note ? note : "");
        }
    });
    return held;
}

// Drops what the audit holds already (core/audit/ingest_rules.hpp): decisions by id among this
// origin's batches, from the earliest decided_at on; notes by id and text.
void drop_held(std::vector<AuditView> &batch, const std::string &origin) {
    HeldLookup lookup = held_lookup(batch);
    if (!lookup.refusal.empty()) refuse(lookup.refusal);
    const std::unordered_set<uint64> wanted(lookup.ids.begin(), lookup.ids.end());
    pg_guard([] {
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
    });
    std::unordered_set<uint64> held = held_decision_ids(wanted, lookup.earliest, &origin);
    HeldNotes notes;
    if (lookup.notes) notes = held_notes(batch);
    pg_guard([] { SPI_finish(); });
    clarify::drop_held(batch, held, notes);
}

// The row of clarify.audit_origins that holds the origin's node: the origin's own, or else
// another origin's; the origin is registered (with its node and the calling role) first when
// neither is there.
struct OriginRow {
    char origin[kMaxOriginBytes + 1] = "";
    Oid forwarded_by = InvalidOid;
};
OriginRow origin_row(const std::string &origin, uint32 node) {
    OriginRow row;
    pg_guard([&] {
        if (!OidIsValid(get_relname_relid("audit_origins", get_namespace_oid("clarify", false))))
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("pg_clarify refuses the forwarded audit batch: this database's "
                                   "catalog has no clarify.audit_origins"),
                            errhint("ALTER EXTENSION pg_clarify UPDATE on the primary.")));
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
        Oid types[3] = {TEXTOID, INT2OID, OIDOID};
        Datum values[3] = {
            PointerGetDatum(cstring_to_text_with_len(origin.data(), int(origin.size()))),
            Int16GetDatum(int16(node)), ObjectIdGetDatum(GetSessionUserId())};
        // Prepared once per session: a standby's writer calls once per batch.
        static SPIPlanPtr read = nullptr, insert = nullptr;
        auto prepare = [&types](const char *sql, int nargs) {
            SPIPlanPtr plan = SPI_prepare(sql, nargs, types);
            if (!plan) elog(ERROR, "preparing the origin's lookup failed");
            SPI_keepplan(plan);
            return plan;
        };
        if (!read)
            read = prepare(
                "SELECT origin, forwarded_by::pg_catalog.oid FROM clarify.audit_origins "
                "WHERE origin OPERATOR(pg_catalog.=) $1 OR node OPERATOR(pg_catalog.=) $2 "
                "ORDER BY origin OPERATOR(pg_catalog.=) $1 DESC LIMIT 1",
                2);
        if (!insert)
            insert = prepare(
                "INSERT INTO clarify.audit_origins (origin, node, forwarded_by) "
                "VALUES ($1, $2, $3::pg_catalog.regrole) ON CONFLICT DO NOTHING",
                3);
        int rc = SPI_execute_plan(read, values, nullptr, false, 0);
        if (rc == SPI_OK_SELECT && SPI_processed == 0) {
            rc = SPI_execute_plan(insert, values, nullptr, false, 0);
            if (rc != SPI_OK_INSERT) elog(ERROR, "registering the origin failed");
            rc = SPI_execute_plan(read, values, nullptr, false, 0);
        }
        if (rc != SPI_OK_SELECT || SPI_processed != 1) elog(ERROR, "reading the origin failed");
        char *name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
        bool isnull = false;
        row.forwarded_by = DatumGetObjectId(
            SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
        strlcpy(row.origin, name ? name : "", sizeof(row.origin));
        SPI_finish();
    });
    return row;
}

// Registers the origin's node and the calling role, or refuses: ids of two origins sharing a
// node could collide, and a role other than the origin's could write as it.
void claim_origin(const std::string &origin, uint32 node) {
    OriginRow row = origin_row(origin, node);
    std::string holder = row.origin;
    if (holder != origin)
        throw ReportedError(ERRCODE_UNIQUE_VIOLATION,
                            "pg_clarify refuses the forwarded audit batch: the origin \"" + origin +
                                "\" has decision id node " + std::to_string(node) +
                                ", which the origin \"" + holder + "\" holds",
                            "Decision ids of two origins with one node could collide.",
                            "Give this standby another cluster_name (or delete \"" + holder +
                                "\" from clarify.audit_origins if that server is gone).");
    if (row.forwarded_by != GetSessionUserId())
        throw ReportedError(ERRCODE_INSUFFICIENT_PRIVILEGE,
                            "pg_clarify refuses the forwarded audit batch: the origin \"" + origin +
                                "\" forwards as another role",
                            "Each origin is bound to the role that first forwarded its decisions.",
                            "Use that role in this standby's pg_clarify.audit_conninfo, or delete "
                            "the origin from clarify.audit_origins to bind it anew.");
}

// One ingest per origin at a time: a batch sent again while its first sending is still being
// written waits for it, then finds it held (drop_held reads after the wait, with a new snapshot).
// The lock is the origin's row in clarify.audit_origins, which no agent may lock (no privilege on
// it): an advisory lock's key is one any role can take first.
void lock_origin(const std::string &origin) {
    bool found = pg_guard([&] {
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
        static SPIPlanPtr lock = nullptr;
        if (!lock) {
            Oid type = TEXTOID;
            SPIPlanPtr plan = SPI_prepare(
                "SELECT 1 FROM clarify.audit_origins WHERE origin "
                "OPERATOR(pg_catalog.=) $1 FOR UPDATE",
                1, &type);
            if (!plan) elog(ERROR, "preparing the origin's lock failed");
            SPI_keepplan(plan);
            lock = plan;
        }
        Datum value = PointerGetDatum(cstring_to_text_with_len(origin.data(), int(origin.size())));
        int rc = SPI_execute_plan(lock, &value, nullptr, false, 0);
        if (rc != SPI_OK_SELECT) elog(ERROR, "locking the origin failed");
        bool locked = SPI_processed == 1;
        SPI_finish();
        return locked;
    });
    if (!found)
        refuse("the origin \"" + origin + "\" was deleted from clarify.audit_origins meanwhile");
}

int64 ingest(const std::string &origin, const char *bytes, size_t size) {
#ifdef __GLIBC__
    // The connection is a standby writer's: its batches (a few MB with their arrays) would be
    // mapped afresh and faulted in on every call above glibc's mmap threshold, as in the writer.
    static bool tuned = false;
    if (!tuned) {
        mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
        mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
        tuned = true;
    }
#endif
    if (pg_guard([] { return RecoveryInProgress(); }))
        refuse("this server is a standby itself; forward to the primary");
    if (std::string why = origin_refusal(origin, server_origin()); !why.empty()) refuse(why);
    std::vector<AuditView> batch = decode_batch(bytes, size, origin);
    claim_origin(origin, origin_node(origin));
    bool any_sync =
        std::any_of(batch.begin(), batch.end(), [](const AuditView &a) { return a.sync; });
    lock_origin(origin);
    pg_guard([&] {
        // A batch with a sync decision is durable (flushed, and confirmed by synchronous
        // standbys) before the caller hears of it, whatever the caller's own setting; one of
        // async decisions only is committed as the writer commits those here (not waited for).
        (void)set_config_option("synchronous_commit", any_sync ? "on" : "off", PGC_USERSET,
                                PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
    });
    drop_held(batch, origin);
    if (batch.empty()) return 0;
    IngestOrigin as_origin(origin);
    write_forwarded(batch);
    return static_cast<int64>(batch.size());
}

}  // namespace

}  // namespace clarify::pg

// clarify.audit_ingest(origin text, entries bytea) → bigint: the decisions and notes written.
extern "C" Datum clarify_audit_ingest(PG_FUNCTION_ARGS) {
    text *origin = PG_GETARG_TEXT_PP(0);
    bytea *entries = PG_GETARG_BYTEA_PP(1);
    int64 written = clarify::pg::cpp_entry([&] {
        return clarify::pg::ingest(std::string(VARDATA_ANY(origin), VARSIZE_ANY_EXHDR(origin)),
                                   VARDATA_ANY(entries), VARSIZE_ANY_EXHDR(entries));
    });
    PG_RETURN_INT64(written);
}
