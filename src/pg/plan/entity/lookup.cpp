#include "pg/pg.hpp"
#include "pg/plan/entity/lookup.hpp"
#include "pg/boundary.hpp"
#include "pg/plan/entity/probe.hpp"

extern "C" {
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/formatting.h"
#include "utils/lsyscache.h"
}

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

namespace clarify::pg {

namespace {

bool running = false;

struct Running {
    bool saved;
    Running() : saved(running) { running = true; }
    ~Running() { running = saved; }
    Running(const Running &) = delete;
    Running &operator=(const Running &) = delete;
};

// The rows of one lookup as text, copied out of SPI (or read by probe_entity).
using Found = LookupRows;

// "lower(col::text)" or "col::text": how the match rule compares names.
void append_name(StringInfo sql, const char *column, bool ci) {
    if (ci)
        appendStringInfo(sql, "pg_catalog.lower(%s::pg_catalog.text)", column);
    else
        appendStringInfo(sql, "%s::pg_catalog.text", column);
}

// The lookup's SQL: the entity's rows named `$1` (prefix: whose names start with it), in name
// then key order, at most max_options + 1. PostgreSQL level: call inside pg_guard.
char *lookup_sql(const Entity &e, bool ci, bool prefix, const bool *readable) {
    Oid relation = static_cast<Oid>(e.relation);
    StringInfoData sql;
    initStringInfo(&sql);
    const char *key = quote_identifier(e.key_column.c_str());
    const char *name = quote_identifier(e.name_column.c_str());
    appendStringInfo(&sql, "SELECT %s::pg_catalog.text, %s::pg_catalog.text", key, name);
    for (size_t i = 0; i < e.detail_columns.size(); ++i)
        if (readable[i])
            appendStringInfo(&sql, ", %s::pg_catalog.text",
                             quote_identifier(e.detail_columns[i].c_str()));
    appendStringInfo(&sql, " FROM %s WHERE ",
                     quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
                                                get_rel_name(relation)));
    if (prefix) {
        appendStringInfoString(&sql, "pg_catalog.starts_with(");
        append_name(&sql, name, ci);
        appendStringInfoString(&sql, ci ? ", pg_catalog.lower($1))" : ", $1)");
    } else if (ci) {
        append_name(&sql, name, true);
        appendStringInfoString(&sql, " = pg_catalog.lower($1)");
    } else {
        // Compared in the column's own type, so that an index on it serves the lookup; without
        // a type modifier (a bare "character" would mean char(1) and cut the name).
        appendStringInfo(&sql, "%s = $1::%s", name,
                         format_type_extended(get_atttype(relation, e.name_attnum), -1,
                                              FORMAT_TYPE_TYPEMOD_GIVEN));
    }
    appendStringInfo(&sql, " ORDER BY 2, 1 LIMIT %d", e.max_options + 1);
    return sql.data;
}

// Prepared lookups by their SQL, kept for the session: a point query by name plans its lookup
// once (the plan cache replans it when the relation, a policy or the user's row security changes).
std::unordered_map<std::string, SPIPlanPtr> &prepared() {
    static auto *plans = new std::unordered_map<std::string, SPIPlanPtr>;
    return *plans;
}
constexpr size_t kMaxPrepared = 64;

SPIPlanPtr prepared_plan(const char *sql) {
    auto &plans = prepared();
    auto found = plans.find(sql);
    if (found != plans.end()) return found->second;
    if (plans.size() >= kMaxPrepared) {
        for (auto &entry : plans) {
            SPIPlanPtr old = entry.second;
            pg_guard([&] { SPI_freeplan(old); });
        }
        plans.clear();
    }
    SPIPlanPtr plan = pg_guard([&] {
        Oid types[1] = {TEXTOID};
        SPIPlanPtr p = SPI_prepare(sql, 1, types);
        if (!p) elog(ERROR, "pg_clarify: entity lookup could not be prepared: %s", sql);
        if (SPI_keepplan(p) != 0) elog(ERROR, "pg_clarify: SPI_keepplan failed");
        return p;
    });
    plans.emplace(sql, plan);
    return plan;
}

// Runs one lookup through SPI (connected by the caller), read-only. PostgreSQL level.
Found run_lookup(SPIPlanPtr plan, const char *value) {
    Datum values[1] = {CStringGetTextDatum(value)};
    if (SPI_execute_plan(plan, values, nullptr, true, 0) != SPI_OK_SELECT)
        elog(ERROR, "pg_clarify: entity lookup failed");
    Found f{SPI_processed, SPI_tuptable->tupdesc->natts, nullptr};
    MemoryContext old = MemoryContextSwitchTo(SPI_tuptable->tuptabcxt->parent);
    f.values = static_cast<char **>(palloc0(sizeof(char *) * (f.count * f.width + 1)));
    MemoryContextSwitchTo(old);
    for (uint64 r = 0; r < f.count; ++r)
        for (int c = 0; c < f.width; ++c)
            f.values[r * f.width + c] =
                SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, c + 1);
    return f;
}

std::vector<EntityOption> options_of(const Entity &e, const Found &f, const bool *readable) {
    std::vector<EntityOption> out;
    for (uint64 r = 0; r < f.count; ++r) {
        const char *key = f.values[r * f.width], *name = f.values[r * f.width + 1];
        if (!key) continue;
        bool seen = false;
        for (const EntityOption &o : out) seen = seen || o.value == key;
        if (seen) continue;
        std::vector<std::optional<std::string>> details;
        int column = 2;
        for (size_t i = 0; i < e.detail_columns.size(); ++i) {
            if (!readable[i]) continue;
            const char *d = f.values[r * f.width + column++];
            details.push_back(d ? std::optional<std::string>(d) : std::nullopt);
        }
        out.push_back({key, entity_option_label(name ? name : "", details)});
    }
    return out;
}

// What the lookup needs to read of the entity that the current user may not: the key or the name
// column (nullptr: both readable), and the GRANT that would let it. PostgreSQL level.
const char *unreadable_column(const Entity &e, bool whole, Oid user, const char **grant) {
    Oid relation = static_cast<Oid>(e.relation);
    const std::pair<std::int16_t, const char *> columns[2] = {
        {e.key_attnum, e.key_column.c_str()}, {e.name_attnum, e.name_column.c_str()}};
    for (const auto &[attnum, column] : columns) {
        if (whole || pg_attribute_aclcheck(relation, attnum, user, ACL_SELECT) == ACLCHECK_OK)
            continue;
        *grant =
            psprintf("GRANT SELECT (%s) ON %s TO %s", quote_identifier(column),
                     quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
                                                get_rel_name(relation)),
                     quote_identifier(GetUserNameFromId(user, false)));
        return column;
    }
    return nullptr;
}

// The name as the case-insensitive match rule compares it: lower(), as the lookup's SQL does.
std::string folded(const std::string &value) {
    const char *f =
        pg_guard([&] { return str_tolower(value.c_str(), value.size(), DEFAULT_COLLATION_OID); });
    return f;
}

// The SPI connection of one lookup_entities call, made when a lookup first needs it (the index
// probe needs none). An error ends the statement: the abort releases SPI, as for the catalog's
// loading (pg/catalog/catalog_cache.cpp).
struct Connection {
    bool connected = false;
    void need() {
        if (connected) return;
        pg_guard([] {
            if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "pg_clarify: SPI_connect failed");
        });
        connected = true;
    }
    void finish() {
        if (connected) pg_guard([] { SPI_finish(); });
        connected = false;
    }
};

// Details the user may not read are left out of the query and of the options (`readable`); an
// unreadable key or name is not looked up (its values are never shown). PostgreSQL level.
bool *readable_details(const Entity &e, const char **unreadable, const char **grant) {
    Oid relation = static_cast<Oid>(e.relation), user = GetUserId();
    bool whole = pg_class_aclcheck(relation, user, ACL_SELECT) == ACLCHECK_OK;
    *unreadable = unreadable_column(e, whole, user, grant);
    bool *r = static_cast<bool *>(palloc0(e.detail_attnums.size() + 1));
    for (size_t i = 0; i < e.detail_attnums.size(); ++i)
        r[i] = whole || pg_attribute_aclcheck(relation, e.detail_attnums[i], user, ACL_SELECT) ==
                            ACLCHECK_OK;
    return r;
}

// The rows named `value` (`folded`: lower-cased, case-insensitive): from the index when
// probe_entity can answer exactly, otherwise from the lookup's SQL.
Found exact_rows(const Entity &e, bool ci, const std::string &value, const std::string &lowered,
                 const bool *readable, Connection &spi) {
    Found found{0, 0, nullptr};
    const char *probe_value = ci ? lowered.c_str() : value.c_str();
    if (pg_guard([&] { return probe_entity(e, ci, probe_value, readable, &found); })) return found;
    spi.need();
    const char *v = value.c_str();
    const char *sql = pg_guard([&] { return lookup_sql(e, ci, false, readable); });
    SPIPlanPtr plan = prepared_plan(sql);
    return pg_guard([&] { return run_lookup(plan, v); });
}

}  // namespace

bool entity_lookup_running() {
    return running;
}

std::vector<EntityLookup> lookup_entities(const std::vector<EntityName> &names) {
    std::vector<EntityLookup> out;
    if (names.empty()) return out;
    Running guard;
    Connection spi;
    // Names that are one by the match rule ("Acme", "ACME") are looked up once.
    std::vector<std::pair<const Entity *, std::string>> seen;
    for (const EntityName &n : names) {
        const Entity &e = *n.entity;
        std::string lowered;
        if (n.case_insensitive) {
            std::pair<const Entity *, std::string> one{&e, folded(n.value)};
            if (std::find(seen.begin(), seen.end(), one) != seen.end()) continue;
            lowered = one.second;
            seen.push_back(std::move(one));
        }
        const char *unreadable = nullptr, *grant = nullptr;
        bool *readable = pg_guard([&] { return readable_details(e, &unreadable, &grant); });
        EntityLookup l;
        l.entity = &e;
        l.value = n.value;
        if (unreadable) {
            l.unreadable_column = unreadable;
            l.grant = grant;
            out.push_back(std::move(l));
            continue;
        }
        Found found = exact_rows(e, n.case_insensitive, n.value, lowered, readable, spi);
        l.matches = options_of(e, found, readable);
        if (l.matches.empty()) {
            spi.need();
            std::string start = utf8_prefix(n.value, 3);
            const char *prefix = start.c_str();
            const char *prefix_sql =
                pg_guard([&] { return lookup_sql(e, n.case_insensitive, true, readable); });
            SPIPlanPtr near_plan = prepared_plan(prefix_sql);
            Found near = pg_guard([&] { return run_lookup(near_plan, prefix); });
            l.prefix = options_of(e, near, readable);
            l.prefix_truncated = l.prefix.size() > static_cast<size_t>(e.max_options);
            if (l.prefix_truncated) l.prefix.resize(static_cast<size_t>(e.max_options));
        }
        out.push_back(std::move(l));
    }
    spi.finish();
    return out;
}

}  // namespace clarify::pg
