#include "pg/pg.hpp"
#include "pg/catalog/entities.hpp"
#include "pg/catalog/catalog_load.hpp"

#include <string>

namespace clarify::pg {

void load_entities(Catalog &catalog, std::unordered_set<Oid> &watched) {
    if (!catalog_has_column("entities", "name_column")) return;  // catalog older than 1.2
    Rows rows = query(
        "SELECT e.relation::oid::text, n.nspname || '.' || c.relname, e.label, e.match, "
        "  e.max_options::text, e.name_column::text, an.attnum::text, e.key_column::text, "
        "  ak.attnum::text "
        "FROM clarify.entities e "
        "JOIN pg_catalog.pg_class c ON c.oid = e.relation "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_catalog.pg_attribute an ON an.attrelid = e.relation "
        "  AND an.attname = e.name_column AND an.attnum > 0 AND NOT an.attisdropped "
        "JOIN pg_catalog.pg_attribute ak ON ak.attrelid = e.relation "
        "  AND ak.attname = e.key_column AND ak.attnum > 0 AND NOT ak.attisdropped "
        "ORDER BY 1, 6");
    // The detail columns that exist, in detail_columns order.
    Rows details = query(
        "SELECT e.relation::oid::text, e.name_column::text, d.col::text, a.attnum::text "
        "FROM clarify.entities e CROSS JOIN LATERAL unnest(e.detail_columns) "
        "  WITH ORDINALITY AS d(col, ord) "
        "JOIN pg_catalog.pg_attribute a ON a.attrelid = e.relation AND a.attname = d.col "
        "  AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY 1, 2, d.ord");
    for (uint64 r = 0; r < rows.count; ++r) {
        Entity e;
        e.relation = static_cast<std::uint32_t>(integer(rows, r, 0));
        e.relation_name = text(rows, r, 1);
        e.label = text(rows, r, 2);
        e.case_insensitive = text(rows, r, 3) != "exact";
        e.max_options = static_cast<int>(integer(rows, r, 4));
        e.name_column = text(rows, r, 5);
        e.name_attnum = static_cast<std::int16_t>(integer(rows, r, 6));
        e.key_column = text(rows, r, 7);
        e.key_attnum = static_cast<std::int16_t>(integer(rows, r, 8));
        for (uint64 d = 0; d < details.count; ++d) {
            if (text(details, d, 0) != text(rows, r, 0) || text(details, d, 1) != e.name_column)
                continue;
            e.detail_columns.push_back(text(details, d, 2));
            e.detail_attnums.push_back(static_cast<std::int16_t>(integer(details, d, 3)));
        }
        watched.insert(static_cast<Oid>(e.relation));
        catalog.add_entity(std::move(e));
    }
}

}  // namespace clarify::pg
