#include "pg.hpp"
#include "governance.hpp"
#include "boundary.hpp"

extern "C" {
#include "access/xact.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "catalog/namespace.h"
}

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace clarify::pg {

namespace {

// Backend-local state. The callbacks only flip flags: they must not touch the catalogs.
struct State {
    bool catalog_stale = true;
    bool roles_stale = true;
    bool membership_stale = true;
    bool loading = false;
    // Shared: a statement keeps the catalog it started with even if a reload replaces it.
    std::shared_ptr<const Catalog> catalog;
    uint64 catalog_generation = 0;
    uint64 membership_generation = 0;  // moved by every pg_auth_members / pg_authid change
    std::vector<Oid> agent_roles;
    std::unordered_set<Oid> catalog_tables;
    std::unordered_set<Oid> governed_relations;  // and their partitions and children
    Oid session = InvalidOid, outer = InvalidOid, current = InvalidOid;
    bool gated = false;
    Oid extension_owner = InvalidOid;
};
State state;

void on_relcache(Datum, Oid relid) {
    if (relid == InvalidOid || state.catalog_tables.count(relid)) {
        state.catalog_stale = true;
        state.roles_stale = true;
        state.membership_stale = true;
    } else if (state.governed_relations.count(relid)) {
        state.catalog_stale = true;  // columns renamed or dropped, partitions attached
    }
}

void on_roles(Datum, int, uint32) {
    state.membership_stale = true;
    ++state.membership_generation;
}

// Rows of one query, as text (nullptr for NULL), copied out of SPI by the caller.
struct Rows {
    uint64 count = 0;
    int width = 0;
    char **values = nullptr;  // row-major, palloc'd in the SPI procedure context
    const char *at(uint64 row, int col) const { return values[row * width + col]; }
};

Rows query(const char *sql) {
    return pg_guard([&]() -> Rows {
        Rows rows;
        if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
            elog(ERROR, "pg_clarify: catalog query failed: %s", sql);
        rows.count = SPI_processed;
        rows.width = SPI_tuptable->tupdesc->natts;
        rows.values = static_cast<char **>(palloc0(sizeof(char *) * rows.count * rows.width + 1));
        for (uint64 r = 0; r < rows.count; ++r)
            for (int c = 0; c < rows.width; ++c)
                rows.values[r * rows.width + c] =
                    SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, c + 1);
        return rows;
    });
}

std::string text(const Rows &rows, uint64 r, int c) {
    const char *v = rows.at(r, c);
    return v ? std::string(v) : std::string();
}

long long integer(const Rows &rows, uint64 r, int c) {
    const char *v = rows.at(r, c);
    return v ? std::stoll(v) : 0;
}

// Timestamps cross as microseconds since the Unix epoch; NULL and ±infinity become open bounds.
#define CLARIFY_MICROS(col, open)                       \
    "CASE WHEN " col " IS NULL THEN " open " WHEN " col \
    " = 'infinity' THEN "                               \
    "'9223372036854775807' WHEN " col                   \
    " = '-infinity' THEN '-9223372036854775808' "       \
    "ELSE (extract(epoch FROM " col ") * 1000000)::int8::text END"
#define CLARIFY_OPEN_END "'9223372036854775807'"
#define CLARIFY_OPEN_START "'-9223372036854775808'"

// Runs body with SPI connected and the extension owner as the current user, so that loading
// works whoever the caller is (agents cannot read approvals) and the caller's search_path and
// row security cannot change what is read.
template <typename Body>
void as_extension_owner(Body &&body) {
    struct Saved {
        Oid user;
        int sec;
        int guc_level;
    };
    Saved saved = pg_guard([]() -> Saved {
        Saved s{};
        GetUserIdAndSecContext(&s.user, &s.sec);
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "pg_clarify: SPI_connect failed");
        // The newest committed state, even inside a REPEATABLE READ transaction: the cache
        // outlives the transaction that fills it. In parallel mode (a worker deciding a nested
        // statement) no new snapshot may be taken: the leader's is the newest there is.
        if (IsInParallelMode() && ActiveSnapshotSet())
            PushActiveSnapshot(GetActiveSnapshot());
        else
            PushActiveSnapshot(GetLatestSnapshot());
        // The caller's search_path must not choose the functions run as the owner.
        s.guc_level = NewGUCNestLevel();
        set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
                          GUC_ACTION_SAVE, true, 0, false);
        return s;
    });
    state.loading = true;
    try {
        Rows owner = query(
            "SELECT extowner::oid::text FROM pg_catalog.pg_extension WHERE extname = 'pg_clarify'");
        state.extension_owner = owner.count ? static_cast<Oid>(integer(owner, 0, 0)) : InvalidOid;
        if (state.extension_owner != InvalidOid) {
            pg_guard([&] {
                SetUserIdAndSecContext(state.extension_owner, saved.sec |
                                                                  SECURITY_LOCAL_USERID_CHANGE |
                                                                  SECURITY_RESTRICTED_OPERATION);
            });
            body();
        }
    } catch (...) {
        state.loading = false;
        throw;  // the transaction's abort restores the user and releases SPI
    }
    state.loading = false;
    pg_guard([&] {
        SetUserIdAndSecContext(saved.user, saved.sec);
        AtEOXact_GUC(true, saved.guc_level);
        PopActiveSnapshot();
        SPI_finish();
    });
}

Timestamp unix_micros_now() {
    TimestampTz now = GetCurrentStatementStartTimestamp();
    return now + (Timestamp(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
}

void watch_catalog_tables() {
    Rows tables = query(
        "SELECT c.oid::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = 'clarify' AND c.relkind IN ('r', 'p')");
    for (uint64 r = 0; r < tables.count; ++r)
        state.catalog_tables.insert(static_cast<Oid>(integer(tables, r, 0)));
}

void load_roles() {
    state.agent_roles.clear();
    if (pg_guard([] { return creating_extension; })) return;
    // Cleared before loading: an invalidation that arrives meanwhile marks it stale again.
    state.roles_stale = false;
    state.membership_stale = true;
    try {
        as_extension_owner([] {
            watch_catalog_tables();
            Rows roles = query("SELECT agent_role::oid::text FROM clarify.agent_roles");
            for (uint64 r = 0; r < roles.count; ++r)
                state.agent_roles.push_back(static_cast<Oid>(integer(roles, r, 0)));
        });
    } catch (...) {
        state.roles_stale = true;
        throw;
    }
    // Loaded with the parallel operation's snapshot, maybe older than a change whose invalidation
    // was already read: good for this statement, loaded again after it.
    if (pg_guard([] { return IsInParallelMode(); })) state.roles_stale = true;
}

// Whether the catalog table has a column: a database not yet updated to 1.1 lacks the newer ones.
bool catalog_has_column(const char *table, const char *column) {
    return pg_guard([&] {
        Oid relid = get_relname_relid(table, get_namespace_oid("clarify", false));
        return OidIsValid(relid) && get_attnum(relid, column) != InvalidAttrNumber;
    });
}

bool approvals_have_question() {
    return catalog_has_column("approvals", "question");
}

// Time windows, dated measures and impacts (catalog 1.1): without them, no time rules apply and
// every term has high impact.
void load_time_catalog(Catalog &catalog) {
    if (catalog_has_column("terms", "impact")) {
        Rows impacts = query("SELECT term, impact FROM clarify.terms");
        for (uint64 r = 0; r < impacts.count; ++r)
            catalog.set_impact(text(impacts, r, 0),
                               parse_impact(text(impacts, r, 1)).value_or(Impact::High));
    }
    if (!catalog_has_column("concept_columns", "time_column")) return;
    // A time column that no longer exists leaves number 0, which no condition restricts: a
    // required period is then asked for rather than silently dropped.
    Rows policies = query(
        "WITH RECURSIVE family(root, member) AS ("
        "  SELECT DISTINCT relation::oid, relation::oid FROM clarify.concept_columns"
        "  UNION"
        "  SELECT f.root, i.inhrelid FROM family f JOIN pg_catalog.pg_inherits i"
        "    ON i.inhparent = f.member) "
        "SELECT cc.concept_id, m.attrelid::text, m.attnum::text, coalesce(t.attnum, 0)::text, "
        "       cc.time_column::text, cc.requires_time_range::text "
        "FROM clarify.concept_columns cc "
        "JOIN pg_catalog.pg_attribute r ON r.attrelid = cc.relation AND r.attnum = cc.attnum "
        "  AND NOT r.attisdropped "
        "JOIN family f ON f.root = cc.relation::oid "
        "JOIN pg_catalog.pg_attribute m ON m.attrelid = f.member AND m.attname = r.attname "
        "  AND m.attnum > 0 AND NOT m.attisdropped "
        "LEFT JOIN pg_catalog.pg_attribute t ON t.attrelid = f.member "
        "  AND t.attname = cc.time_column AND t.attnum > 0 AND NOT t.attisdropped "
        "WHERE cc.time_column IS NOT NULL");
    for (uint64 r = 0; r < policies.count; ++r) {
        TimePolicy p;
        p.concept_id = text(policies, r, 0);
        p.time_attnum = static_cast<std::int16_t>(integer(policies, r, 3));
        p.time_column = text(policies, r, 4);
        p.requires_range = text(policies, r, 5) == "true";
        catalog.add_time_policy(ColumnKey{static_cast<Oid>(integer(policies, r, 1)),
                                          static_cast<AttrNumber>(integer(policies, r, 2))},
                                std::move(p));
    }
}

// Keys declared unique (clarify.unique_keys), by attribute number: one row per key column.
void load_unique_keys(Catalog &catalog) {
    Rows keys = query(
        "SELECT k.relation::oid::text, k.columns::text, a.attnum::text "
        "FROM clarify.unique_keys k CROSS JOIN LATERAL unnest(k.columns) AS c(name) "
        "JOIN pg_catalog.pg_attribute a ON a.attrelid = k.relation AND a.attname = c.name "
        "  AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY 1, 2");
    std::vector<std::int16_t> attnums;
    for (uint64 r = 0; r < keys.count; ++r) {
        attnums.push_back(static_cast<std::int16_t>(integer(keys, r, 2)));
        bool last = r + 1 == keys.count || text(keys, r + 1, 0) != text(keys, r, 0) ||
                    text(keys, r + 1, 1) != text(keys, r, 1);
        if (!last) continue;
        catalog.add_unique_key(static_cast<std::uint32_t>(integer(keys, r, 0)), attnums);
        attnums.clear();
    }
}

void load_catalog(Catalog &catalog) {
    state.governed_relations.clear();
    // Grain columns came with catalog 1.1: a database not yet updated has every metric additive,
    // any aggregate allowed and no declared keys.
    const bool grain = catalog_has_column("concepts", "additivity");
    const std::string concepts_sql =
        std::string(
            "SELECT id, kind, label, description, owner, status, available::text, version::text, "
            "array_to_json(aliases)::text, " CLARIFY_MICROS(
                "valid_from", CLARIFY_OPEN_START) ", " CLARIFY_MICROS("valid_until",
                                                                      CLARIFY_OPEN_END) ", ") +
        (catalog_has_column("concepts", "window_start") ? "window_start, window_end, "
                                                        : "'', '', ") +
        (grain ? "additivity, array_to_json(allowed_aggregates)::text" : "'additive', NULL") +
        " FROM clarify.concepts";
    Rows concepts = query(concepts_sql.c_str());
    for (uint64 r = 0; r < concepts.count; ++r) {
        Concept c;
        c.id = text(concepts, r, 0);
        c.kind = parse_kind(text(concepts, r, 1)).value_or(ConceptKind::Metric);
        c.label = text(concepts, r, 2);
        c.description = text(concepts, r, 3);
        c.owner = text(concepts, r, 4);
        c.status = parse_status(text(concepts, r, 5)).value_or(ConceptStatus::Draft);
        c.available = text(concepts, r, 6) == "true";
        c.version = static_cast<int>(integer(concepts, r, 7));
        c.aliases = parse_aliases(text(concepts, r, 8));
        c.valid_from = integer(concepts, r, 9);
        c.valid_until = integer(concepts, r, 10);
        c.window_start = text(concepts, r, 11);
        c.window_end = text(concepts, r, 12);
        c.additivity = parse_additivity(text(concepts, r, 13)).value_or(Additivity::Additive);
        if (concepts.at(r, 14)) {
            c.has_allowed_aggregates = true;
            c.allowed_aggregates = parse_aliases(text(concepts, r, 14));
        }
        catalog.add_concept(std::move(c));
    }
    Rows terms = query("SELECT term, concept_id FROM clarify.terms");
    for (uint64 r = 0; r < terms.count; ++r) catalog.add_term(text(terms, r, 0), text(terms, r, 1));

    Rows defaults = query(
        "SELECT id::text, term, concept_id, coalesce(applies_to::oid, 0)::text, "
        "approved_by, " CLARIFY_MICROS("valid_until", CLARIFY_OPEN_END) " FROM clarify.defaults");
    for (uint64 r = 0; r < defaults.count; ++r) {
        Default d;
        d.id = integer(defaults, r, 0);
        d.term = text(defaults, r, 1);
        d.concept_id = text(defaults, r, 2);
        d.applies_to = static_cast<RoleId>(integer(defaults, r, 3));
        d.approved_by = text(defaults, r, 4);
        d.valid_until = integer(defaults, r, 5);
        catalog.add_default(std::move(d));
    }
    // approvals.question came with catalog 1.1: a database not yet updated has none, and its
    // approvals hold for any question text, as they did.
    const std::string approvals_sql =
        std::string(
            "SELECT id::text, question_id, coalesce(term, ''), concept_id, "
            "granted_to::oid::text, confirmed_by, " CLARIFY_MICROS("expires_at",
                                                                   CLARIFY_OPEN_END) ", ") +
        (approvals_have_question() ? "coalesce(question, '')" : "''") +
        " FROM clarify.approvals WHERE revoked_at IS NULL AND expires_at > pg_catalog.now()";
    Rows approvals = query(approvals_sql.c_str());
    for (uint64 r = 0; r < approvals.count; ++r) {
        Approval a;
        a.id = integer(approvals, r, 0);
        a.question_id = text(approvals, r, 1);
        a.term = text(approvals, r, 2);
        a.concept_id = text(approvals, r, 3);
        a.granted_to = static_cast<RoleId>(integer(approvals, r, 4));
        a.confirmed_by = text(approvals, r, 5);
        a.expires_at = integer(approvals, r, 6);
        a.question = text(approvals, r, 7);
        catalog.add_approval(std::move(a));
    }
    // Every governed column with its partitions' and children's copies, in one query: the
    // mapped column is followed by number (a rename keeps it governed), the family's by the
    // mapped column's current name (their numbers may differ).
    // A snapshot column is followed by name in each member, like the mapped column.
    const std::string columns_sql =
        std::string(
            "WITH RECURSIVE family(root, member) AS ("
            "  SELECT DISTINCT relation::oid, relation::oid FROM clarify.concept_columns"
            "  UNION"
            "  SELECT f.root, i.inhrelid FROM family f JOIN pg_catalog.pg_inherits i"
            "    ON i.inhparent = f.member) "
            "SELECT cc.concept_id, m.attrelid::text, m.attnum::text, "
            "       pg_catalog.format('%s.%s.%s', n.nspname, c.relname, m.attname), ") +
        (grain ? "s.attnum::text, s.attname::text " : "NULL, NULL ") +
        "FROM clarify.concept_columns cc "
        "JOIN pg_catalog.pg_attribute r ON r.attrelid = cc.relation AND r.attnum = cc.attnum "
        "  AND NOT r.attisdropped "
        "JOIN family f ON f.root = cc.relation::oid "
        "JOIN pg_catalog.pg_attribute m ON m.attrelid = f.member AND m.attname = r.attname "
        "  AND m.attnum > 0 AND NOT m.attisdropped " +
        (grain ? "LEFT JOIN pg_catalog.pg_attribute s ON s.attrelid = f.member "
                 "  AND s.attname = cc.snapshot_column AND s.attnum > 0 AND NOT s.attisdropped "
               : "") +
        "JOIN pg_catalog.pg_class c ON c.oid = m.attrelid "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace";
    Rows columns = query(columns_sql.c_str());
    for (uint64 r = 0; r < columns.count; ++r) {
        Oid relation = static_cast<Oid>(integer(columns, r, 1));
        catalog.add_column(ColumnKey{relation, static_cast<AttrNumber>(integer(columns, r, 2))},
                           text(columns, r, 3), text(columns, r, 0),
                           static_cast<std::int16_t>(integer(columns, r, 4)), text(columns, r, 5));
        state.governed_relations.insert(relation);
    }
    load_time_catalog(catalog);
    if (grain) load_unique_keys(catalog);
    // Mappings that match nothing any more (a dropped table or column) are said in the log.
    Rows lost = query(
        "SELECT cc.concept_id, cc.relation::oid::text, cc.column_name::text "
        "FROM clarify.concept_columns cc WHERE NOT EXISTS ("
        "  SELECT 1 FROM pg_catalog.pg_attribute r WHERE r.attrelid = cc.relation"
        "  AND r.attnum = cc.attnum AND NOT r.attisdropped)");
    for (uint64 r = 0; r < lost.count; ++r) {
        const char *concept = lost.at(r, 0), *relation = lost.at(r, 1), *column = lost.at(r, 2);
        pg_guard([&] {
            ereport(LOG, (errmsg("pg_clarify: column \"%s\" of relation %s, mapped to %s, no "
                                 "longer exists and is not governed",
                                 column, relation, concept)));
        });
    }
    catalog.finalize();
}

}  // namespace

void register_invalidation_callbacks() {
    CacheRegisterRelcacheCallback(on_relcache, PointerGetDatum(nullptr));
    CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, on_roles, PointerGetDatum(nullptr));
    CacheRegisterSyscacheCallback(AUTHOID, on_roles, PointerGetDatum(nullptr));
}

bool loading_governance() {
    return state.loading;
}

bool extension_present() {
    // The schema first: a syscache probe, so databases without the extension pay nothing more.
    return pg_guard([] {
        return OidIsValid(get_namespace_oid("clarify", true)) &&
               OidIsValid(get_extension_oid("pg_clarify", true));
    });
}

bool cached_not_gated(Oid session, Oid outer, Oid current) {
    return !state.roles_stale && !state.membership_stale && !state.gated &&
           session == state.session && outer == state.outer && current == state.current;
}

bool session_is_gated() {
    struct Who {
        Oid session, outer, current;
    };
    Who who = pg_guard([] { return Who{GetSessionUserId(), GetOuterUserId(), GetUserId()}; });
    if (!state.roles_stale && !state.membership_stale && who.session == state.session &&
        who.outer == state.outer && who.current == state.current)
        return state.gated;
    if (state.roles_stale) {
        if (!extension_present()) return false;
        load_roles();
    }
    bool gated = false;
    for (Oid role : state.agent_roles) {
        gated = pg_guard([&] {
            return is_member_of_role_nosuper(who.session, role) ||
                   is_member_of_role_nosuper(who.outer, role) ||
                   is_member_of_role_nosuper(who.current, role);
        });
        if (gated) break;
    }
    state.session = who.session;
    state.outer = who.outer;
    state.current = who.current;
    state.gated = gated;
    state.membership_stale = false;
    return gated;
}

std::shared_ptr<const Catalog> governance_catalog() {
    if (!state.catalog_stale && state.catalog) return state.catalog;
    if (!extension_present() || pg_guard([] { return creating_extension; })) return nullptr;
    struct Mode {
        bool parallel, transaction_snapshot;
    };
    Mode mode = pg_guard([] { return Mode{IsInParallelMode(), IsolationUsesXactSnapshot()}; });
    // In parallel mode no newer snapshot than the operation's can be taken; under REPEATABLE READ
    // or SERIALIZABLE that is the transaction's, from before changes (a revoked approval) that
    // must apply: refuse rather than decide on them.
    if (mode.parallel && mode.transaction_snapshot)
        throw ReportedError(ERRCODE_FEATURE_NOT_SUPPORTED,
                            "pg_clarify cannot load the governance catalog inside a parallel "
                            "operation under REPEATABLE READ or SERIALIZABLE",
                            "A parallel operation sees only the transaction's snapshot, which may "
                            "predate a change that must apply to this statement (a revoked "
                            "approval).",
                            "Run it again after the transaction, or mark the function that runs "
                            "it PARALLEL RESTRICTED.");
    auto fresh = std::make_shared<Catalog>();
    state.catalog_stale = false;
    try {
        as_extension_owner([&] {
            watch_catalog_tables();
            load_catalog(*fresh);
        });
    } catch (...) {
        state.catalog_stale = true;
        throw;
    }
    state.catalog = std::move(fresh);
    ++state.catalog_generation;
    if (mode.parallel) state.catalog_stale = true;  // as for the roles: loaded again after it
    return state.catalog;
}

uint64 catalog_generation() {
    return state.catalog_generation;
}
uint64 membership_generation() {
    return state.membership_generation;
}
Timestamp statement_time() {
    return unix_micros_now();
}

AgentContext agent_context(const Catalog &catalog) {
    // Memberships are cached per (session user, outer role, catalog): the roles a catalog names
    // change only with it, and memberships only with pg_auth_members (the syscache callback).
    struct Cached {
        const Catalog *catalog = nullptr;
        uint64 generation = ~0ULL, memberships = ~0ULL;
        Oid session = InvalidOid, outer = InvalidOid;
        std::unordered_set<RoleId> member_of;
    };
    static Cached cached;
    struct Who {
        Oid session, outer;
    };
    Who who = pg_guard([] { return Who{GetSessionUserId(), GetOuterUserId()}; });
    if (cached.catalog != &catalog || cached.generation != state.catalog_generation ||
        cached.session != who.session || cached.outer != who.outer ||
        cached.memberships != state.membership_generation) {
        cached.member_of.clear();
        for (RoleId role : catalog.referenced_roles()) {
            bool member = pg_guard([&] {
                return is_member_of_role_nosuper(who.session, role) ||
                       is_member_of_role_nosuper(who.outer, role);
            });
            if (member) cached.member_of.insert(role);
        }
        cached.catalog = &catalog;
        cached.generation = state.catalog_generation;
        cached.memberships = state.membership_generation;
        cached.session = who.session;
        cached.outer = who.outer;
    }
    AgentContext ctx;
    ctx.now = unix_micros_now();
    ctx.member_of = cached.member_of;
    return ctx;
}

void announce_catalog_change(Oid table) {
    pg_guard([&] { CacheInvalidateRelcacheByRelid(table); });
}

}  // namespace clarify::pg
