// The exact-match entity lookup read straight from a btree index of the name column, in place of
// the lookup's SQL (pg/plan/entity/lookup.cpp) when it gives exactly what that SQL gives: no
// row-level security, an index whose first key is the name column (or lower(name)) compared by
// texteq in the default collation, at most max_options matches. Otherwise the caller runs the SQL.
#pragma once

#include "pg/pg.hpp"
#include "core/entity/entity_model.hpp"

namespace clarify::pg {

// The rows of one lookup as text, as `col::text` renders them: key, name, then the readable
// details, row-major (nullptr for NULL), in the SQL's `ORDER BY name, key` order.
struct LookupRows {
    uint64 count;
    int width;
    char **values;
};

// The entity's rows whose name equals `value` (case_insensitive: lower(name) equals `value`,
// already lower-cased), read under the active snapshot; false (and *rows untouched) when the
// SQL must answer instead. `readable` as for the SQL: the detail columns it selects.
// PostgreSQL level: call inside pg_guard.
bool probe_entity(const Entity &e, bool case_insensitive, const char *value, const bool *readable,
                  LookupRows *rows);

}  // namespace clarify::pg
