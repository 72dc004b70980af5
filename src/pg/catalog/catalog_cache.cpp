#include "pg/pg.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "pg/catalog/catalog_load.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/role_rename.hpp"

extern "C" {
#include "access/xact.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
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

void on_memberships(Datum, int, uint32) {
    state.membership_stale = true;
    ++state.membership_generation;
}

// Rows name roles (catalog 1.2): a role created, dropped or renamed changes which OIDs they mean,
// so a role created after a restore is gated at its first statement.
void on_roles(Datum arg, int cache, uint32 hash) {
    on_memberships(arg, cache, hash);
    state.roles_stale = true;
    state.catalog_stale = true;
}

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
            // By name, and by the OID recorded for it here (renamed in another database).
            Rows roles = query(
                catalog_has_column("agent_roles", "role_oid")
                    ? "SELECT DISTINCT r.oid::text FROM clarify.agent_roles a "
                      "JOIN pg_catalog.pg_roles r ON r.rolname = a.agent_role OR r.oid = a.role_oid"
                    : "SELECT agent_role::oid::text FROM clarify.agent_roles");
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

}  // namespace

void register_invalidation_callbacks() {
    CacheRegisterRelcacheCallback(on_relcache, PointerGetDatum(nullptr));
    CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, on_memberships, PointerGetDatum(nullptr));
    CacheRegisterSyscacheCallback(AUTHOID, on_roles, PointerGetDatum(nullptr));
    install_role_rename_hook();
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
            load_catalog(*fresh, state.governed_relations);
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

AgentContext agent_context_for(const Catalog &catalog, Oid session_role, Oid acting_role) {
    AgentContext ctx;
    ctx.now = unix_micros_now();
    for (RoleId role : catalog.referenced_roles()) {
        bool member = pg_guard([&] {
            return (OidIsValid(session_role) && is_member_of_role_nosuper(session_role, role)) ||
                   (OidIsValid(acting_role) && is_member_of_role_nosuper(acting_role, role));
        });
        if (member) ctx.member_of.insert(role);
    }
    return ctx;
}

void follow_role_rename(const char *old_name, const char *new_name) {
    cpp_entry([&] {
        if (!extension_present() || pg_guard([] { return creating_extension; })) return;
        as_extension_owner([&] {
            if (!catalog_has_column("agent_roles", "role_oid")) return;
            pg_guard([&] {
                Oid types[2] = {OIDOID, TEXTOID};
                Datum args[2] = {ObjectIdGetDatum(get_role_oid(new_name, false)),
                                 CStringGetTextDatum(old_name)};
                if (SPI_execute_with_args(
                        "SELECT clarify_internal.role_renamed($1, $2::pg_catalog.name)", 2, types,
                        args, nullptr, false, 0) != SPI_OK_SELECT)
                    elog(ERROR, "pg_clarify: the catalog could not follow the role's rename");
            });
        });
    });
}

void run_as_extension_owner(const std::function<void()> &body) {
    as_extension_owner([&] { body(); });
}

void announce_catalog_change(Oid table) {
    pg_guard([&] { CacheInvalidateRelcacheByRelid(table); });
}

}  // namespace clarify::pg
