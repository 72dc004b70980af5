#include "pg/pg.hpp"
#include "pg/catalog/catalog_load.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/entities.hpp"
#include "pg/plan/segment/trees.hpp"

extern "C" {
#include "executor/spi.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
#include "catalog/namespace.h"
}

#include <string>
#include <unordered_set>
#include <vector>

namespace clarify::pg {

namespace {

// Releases what a catalog query's own resource owner still holds: its locks. PostgreSQL never
// shrinks a backend's local lock table and scans every bucket of it at each transaction's end, so
// the load's dozens of locks, kept to the end of the first transaction, would cost every later
// transaction of the session (sql/catalog_locks.sql). Its rows are already copied out.
void release_query_owner(ResourceOwner owner) {
    ResourceOwnerRelease(owner, RESOURCE_RELEASE_BEFORE_LOCKS, false, false);
    ResourceOwnerRelease(owner, RESOURCE_RELEASE_LOCKS, false, false);
    ResourceOwnerRelease(owner, RESOURCE_RELEASE_AFTER_LOCKS, false, false);
    ResourceOwnerDelete(owner);
}

}  // namespace

Rows query(const char *sql) {
    return pg_guard([&]() -> Rows {
        ResourceOwner caller = CurrentResourceOwner;
        ResourceOwner own =
            caller ? ResourceOwnerCreate(caller, "pg_clarify catalog query") : nullptr;
        Rows rows;
        if (own) CurrentResourceOwner = own;
        PG_TRY();
        {
            if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
                elog(ERROR, "pg_clarify: catalog query failed: %s", sql);
            rows.count = SPI_processed;
            rows.width = SPI_tuptable->tupdesc->natts;
            rows.values =
                static_cast<char **>(palloc0(sizeof(char *) * rows.count * rows.width + 1));
            for (uint64 r = 0; r < rows.count; ++r)
                for (int c = 0; c < rows.width; ++c)
                    rows.values[r * rows.width + c] =
                        SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, c + 1);
        }
        PG_FINALLY();
        {
            // On an error `own` stays a child of the caller's owner, released by the abort.
            CurrentResourceOwner = caller;
        }
        PG_END_TRY();
        if (own) release_query_owner(own);
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

bool catalog_has_column(const char *table, const char *column) {
    return pg_guard([&] {
        Oid relid = get_relname_relid(table, get_namespace_oid("clarify", false));
        return OidIsValid(relid) && get_attnum(relid, column) != InvalidAttrNumber;
    });
}

namespace {

// Timestamps cross as microseconds since the Unix epoch; NULL and ±infinity become open bounds.
#define CLARIFY_MICROS(col, open)                       \
    "CASE WHEN " col " IS NULL THEN " open " WHEN " col \
    " = 'infinity' THEN "                               \
    "'9223372036854775807' WHEN " col                   \
    " = '-infinity' THEN '-9223372036854775808' "       \
    "ELSE (extract(epoch FROM " col ") * 1000000)::int8::text END"
#define CLARIFY_OPEN_END "'9223372036854775807'"
#define CLARIFY_OPEN_START "'-9223372036854775808'"

// The governed columns, one row per mapping and column: by the mapped relation's OID and column
// number while that column lives, and by the mapping's names (catalog 1.2) once the relation or
// column was dropped and one of those names exists again. Then the relations' families.
std::string mapped_and_family() {
    std::string by_oid =
        "SELECT cc.ctid, r.attrelid, r.attname FROM clarify.concept_columns cc "
        "JOIN pg_catalog.pg_attribute r ON r.attrelid = cc.relation AND r.attnum = cc.attnum "
        "  AND r.attnum > 0 AND NOT r.attisdropped";
    if (catalog_has_column("concept_columns", "table_name"))
        by_oid +=
            " UNION "
            "SELECT cc.ctid, c.oid, a.attname FROM clarify.concept_columns cc "
            "JOIN pg_catalog.pg_namespace n ON n.nspname = cc.schema_name "
            "JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = cc.table_name "
            "  AND c.relkind IN ('r', 'p', 'v', 'm', 'f') "
            "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = cc.column_name "
            "  AND a.attnum > 0 AND NOT a.attisdropped";
    return "WITH RECURSIVE mapped(row_id, rel, att) AS (" + by_oid +
           "), family(root, member) AS ("
           "  SELECT DISTINCT rel, rel FROM mapped"
           "  UNION"
           "  SELECT f.root, i.inhrelid FROM family f JOIN pg_catalog.pg_inherits i"
           "    ON i.inhparent = f.member) ";
}

// A role named by a 1.2 row: the role of that name, else the one with the OID recorded in this
// cluster (renamed in another database); rows whose role does not exist match nobody. Inline SQL,
// not a function: a parallel worker running a function's body would decide it again.
#define CLARIFY_ROLE_OF(name, oid)                                              \
    "coalesce((SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = " name \
    "), "                                                                       \
    "(SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.oid = " oid "))"

bool roles_by_name() {
    return catalog_has_column("agent_roles", "role_oid");
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
    const std::string policies_sql =
        mapped_and_family() +
        "SELECT cc.concept_id, m.attrelid::text, m.attnum::text, coalesce(t.attnum, 0)::text, "
        "       cc.time_column::text, cc.requires_time_range::text "
        "FROM mapped mp JOIN clarify.concept_columns cc ON cc.ctid = mp.row_id "
        "JOIN family f ON f.root = mp.rel "
        "JOIN pg_catalog.pg_attribute m ON m.attrelid = f.member AND m.attname = mp.att "
        "  AND m.attnum > 0 AND NOT m.attisdropped "
        "LEFT JOIN pg_catalog.pg_attribute t ON t.attrelid = f.member "
        "  AND t.attname = cc.time_column AND t.attnum > 0 AND NOT t.attisdropped "
        "WHERE cc.time_column IS NOT NULL";
    Rows policies = query(policies_sql.c_str());
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

// Units and time zones (catalog 1.2, §16). A unit column that no longer exists leaves number 0,
// which no grouping or condition names: every aggregate of the measure is then refused.
void load_units(Catalog &catalog) {
    if (!catalog_has_column("concept_columns", "unit_column")) return;
    Rows concepts = query(
        "SELECT id, coalesce(unit, ''), coalesce(window_time_zone, '') "
        "FROM clarify.concepts WHERE unit IS NOT NULL OR window_time_zone IS NOT NULL");
    for (uint64 r = 0; r < concepts.count; ++r)
        catalog.set_units(text(concepts, r, 0), text(concepts, r, 1), text(concepts, r, 2));
    const std::string units_sql =
        mapped_and_family() +
        "SELECT cc.concept_id, m.attrelid::text, m.attnum::text, coalesce(u.attnum, 0)::text, "
        "       cc.unit_column::text "
        "FROM mapped mp JOIN clarify.concept_columns cc ON cc.ctid = mp.row_id "
        "JOIN family f ON f.root = mp.rel "
        "JOIN pg_catalog.pg_attribute m ON m.attrelid = f.member AND m.attname = mp.att "
        "  AND m.attnum > 0 AND NOT m.attisdropped "
        "LEFT JOIN pg_catalog.pg_attribute u ON u.attrelid = f.member "
        "  AND u.attname = cc.unit_column AND u.attnum > 0 AND NOT u.attisdropped "
        "WHERE cc.unit_column IS NOT NULL";
    Rows units = query(units_sql.c_str());
    for (uint64 r = 0; r < units.count; ++r)
        catalog.add_unit_column(ColumnKey{static_cast<Oid>(integer(units, r, 1)),
                                          static_cast<AttrNumber>(integer(units, r, 2))},
                                text(units, r, 0), static_cast<std::int16_t>(integer(units, r, 3)),
                                text(units, r, 4));
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

// Concepts, with their windows (catalog 1.1) and grain (`grain`: catalog 1.1's additivity).
void load_concepts(Catalog &catalog, bool grain) {
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
}

void load_terms(Catalog &catalog) {
    Rows terms = query("SELECT term, concept_id FROM clarify.terms");
    for (uint64 r = 0; r < terms.count; ++r) catalog.add_term(text(terms, r, 0), text(terms, r, 1));
}

// `by_name`: catalog 1.2's roles kept by name (CLARIFY_ROLE_OF).
void load_defaults(Catalog &catalog, bool by_name) {
    // Versions recorded came with catalog 1.2 (0: not recorded, holds for any version).
    const char *approved_version =
        catalog_has_column("defaults", "concept_version") ? ", concept_version::text" : ", '0'";
    const std::string defaults_sql =
        std::string("SELECT id::text, term, concept_id, ") +
        (by_name ? "coalesce(" CLARIFY_ROLE_OF("d.applies_to", "d.applies_to_oid") ", 0)::text, "
                 : "coalesce(applies_to::oid, 0)::text, ") +
        "approved_by, " CLARIFY_MICROS("valid_until", CLARIFY_OPEN_END) + approved_version +
        " FROM clarify.defaults" +
        (by_name ? " d WHERE d.applies_to IS NULL OR " CLARIFY_ROLE_OF(
                       "d.applies_to", "d.applies_to_oid") " IS NOT NULL"
                 : "");
    Rows defaults = query(defaults_sql.c_str());
    for (uint64 r = 0; r < defaults.count; ++r) {
        Default d;
        d.id = integer(defaults, r, 0);
        d.term = text(defaults, r, 1);
        d.concept_id = text(defaults, r, 2);
        d.applies_to = static_cast<RoleId>(integer(defaults, r, 3));
        d.approved_by = text(defaults, r, 4);
        d.valid_until = integer(defaults, r, 5);
        d.concept_version = static_cast<int>(integer(defaults, r, 6));
        catalog.add_default(std::move(d));
    }
}

// approvals.question came with catalog 1.1: a database not yet updated has none, and its
// approvals hold for any question text, as they did.
void load_approvals(Catalog &catalog, bool by_name) {
    const char *approved_version =
        catalog_has_column("approvals", "concept_version") ? ", concept_version::text" : ", '0'";
    const std::string approvals_sql =
        std::string("SELECT id::text, question_id, coalesce(term, ''), concept_id, ") +
        (by_name ? CLARIFY_ROLE_OF("a.granted_to", "a.granted_to_oid") "::text, "
                 : "granted_to::oid::text, ") +
        "confirmed_by, " CLARIFY_MICROS("expires_at", CLARIFY_OPEN_END) ", " +
        (approvals_have_question() ? "coalesce(question, '')" : "''") + approved_version +
        " FROM clarify.approvals a WHERE revoked_at IS NULL AND expires_at > pg_catalog.now()" +
        (by_name ? " AND " CLARIFY_ROLE_OF("a.granted_to", "a.granted_to_oid") " IS NOT NULL" : "");
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
        a.concept_version = static_cast<int>(integer(approvals, r, 8));
        catalog.add_approval(std::move(a));
    }
}

// Every governed column with its partitions' and children's copies, in one query: the
// mapped column is followed by number (a rename keeps it governed), the family's by the
// mapped column's current name (their numbers may differ).
// A snapshot column is followed by name in each member, like the mapped column.
void load_columns(Catalog &catalog, bool grain, std::unordered_set<Oid> &governed_relations) {
    const std::string columns_sql =
        mapped_and_family() +
        "SELECT cc.concept_id, m.attrelid::text, m.attnum::text, "
        "       pg_catalog.format('%s.%s.%s', n.nspname, c.relname, m.attname), " +
        (grain ? "s.attnum::text, s.attname::text " : "NULL, NULL ") +
        "FROM mapped mp JOIN clarify.concept_columns cc ON cc.ctid = mp.row_id "
        "JOIN family f ON f.root = mp.rel "
        "JOIN pg_catalog.pg_attribute m ON m.attrelid = f.member AND m.attname = mp.att "
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
        governed_relations.insert(relation);
    }
}

// Mappings that match nothing any more (a dropped table or column) are said in the log.
void log_lost_mappings() {
    const std::string lost_sql =
        mapped_and_family() + "SELECT cc.concept_id, " +
        (catalog_has_column("concept_columns", "table_name")
             ? "coalesce(pg_catalog.format('%I.%I', cc.schema_name, cc.table_name), "
               "cc.relation::oid::text), "
             : "cc.relation::oid::text, ") +
        "cc.column_name::text FROM clarify.concept_columns cc "
        "WHERE NOT EXISTS (SELECT 1 FROM mapped mp WHERE mp.row_id = cc.ctid)";
    Rows lost = query(lost_sql.c_str());
    for (uint64 r = 0; r < lost.count; ++r) {
        const char *concept = lost.at(r, 0), *relation = lost.at(r, 1), *column = lost.at(r, 2);
        pg_guard([&] {
            ereport(LOG, (errmsg("pg_clarify: column \"%s\" of relation %s, mapped to %s, does "
                                 "not exist: governed again once it does",
                                 column, relation, concept)));
        });
    }
}

}  // namespace

void load_catalog(Catalog &catalog, std::unordered_set<Oid> &governed_relations) {
    governed_relations.clear();
    // Grain columns came with catalog 1.1: a database not yet updated has every metric additive,
    // any aggregate allowed and no declared keys.
    const bool grain = catalog_has_column("concepts", "additivity");
    load_concepts(catalog, grain);
    segment::load_segments(catalog, governed_relations);
    load_terms(catalog);
    const bool by_name = roles_by_name();
    load_defaults(catalog, by_name);
    load_approvals(catalog, by_name);
    load_columns(catalog, grain, governed_relations);
    load_time_catalog(catalog);
    load_units(catalog);
    if (grain) load_unique_keys(catalog);
    load_entities(catalog, governed_relations);
    log_lost_mappings();
    catalog.finalize();
}

}  // namespace clarify::pg
