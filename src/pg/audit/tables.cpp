#include "pg/pg.hpp"
#include "pg/audit/tables.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/uuid.h"
}

namespace clarify::pg {

Datum text_array(const Column &values) {
    int n = static_cast<int>(values.size());
    std::vector<const char *> data(n);
    std::vector<int> lengths(n);
    std::vector<char> nulls(n);
    for (int i = 0; i < n; ++i) {
        nulls[i] = !values[i].has_value();
        data[i] = values[i] ? values[i]->data() : nullptr;
        lengths[i] = values[i] ? static_cast<int>(values[i]->size()) : 0;
    }
    const char *const *d = data.data();
    const int *l = lengths.data();
    const char *nl = nulls.data();
    return pg_guard([&] {
        Datum *elems = static_cast<Datum *>(palloc(sizeof(Datum) * (n + 1)));
        bool *isnull = static_cast<bool *>(palloc(sizeof(bool) * (n + 1)));
        for (int i = 0; i < n; ++i) {
            isnull[i] = nl[i];
            elems[i] = nl[i] ? Datum(0) : PointerGetDatum(cstring_to_text_with_len(d[i], l[i]));
        }
        int dims[1] = {n}, lbs[1] = {1};
        return PointerGetDatum(
            construct_md_array(elems, isnull, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
    });
}

void run(Statement &statement, const Datum *values) {
    pg_guard([&] {
        if (!statement.plan) {
            Oid types[16];
            for (int i = 0; i < statement.nargs; ++i)
                types[i] = statement.types ? statement.types[i] : TEXTARRAYOID;
            SPIPlanPtr plan = SPI_prepare(statement.sql, statement.nargs, types);
            if (!plan) elog(ERROR, "pg_clarify audit writer: cannot prepare: %s", statement.sql);
            SPI_keepplan(plan);
            statement.plan = plan;
        }
        int rc = SPI_execute_plan(statement.plan, const_cast<Datum *>(values), nullptr, false, 0);
        if (rc < 0) elog(ERROR, "pg_clarify audit writer: SPI error %d", rc);
    });
}

void execute(Statement &statement, const std::vector<Column> &columns) {
    std::vector<Datum> values;
    for (const Column &c : columns) values.push_back(text_array(c));
    run(statement, values.data());
}

// Microseconds since 2000 back to a timestamptz, with every operator spelled out: the writer is
// a superuser and must not run an operator someone put on its search_path (also pinned).
#define CLARIFY_TIMESTAMP                                                                    \
    "'epoch'::pg_catalog.timestamptz OPERATOR(pg_catalog.+) ((t::pg_catalog.int8 "           \
    "OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog.*) pg_catalog.interval '1 " \
    "microsecond')"

// A stored identity as the catalog keys it: the 16 bytes (uuid), or, in a database still at
// catalog 1.0, their first 8 (bigint). Two statements of each kind, one per width.
std::string identity_text(const AuditHash &h, Width width) {
    return width == Width::Wide ? hash_to_uuid_text(h) : std::to_string(static_cast<int64>(h.lo));
}

const Oid int8_array_type = INT8ARRAYOID;
const Oid uuid_array_type = UUIDARRAYOID;

#define CLARIFY_EXISTING_HASHES                                                        \
    "SELECT hash FROM clarify.audit_texts WHERE hash OPERATOR(pg_catalog.=) ANY ($1) " \
    "UNION ALL SELECT hash FROM clarify.audit_shapes WHERE hash OPERATOR(pg_catalog.=) ANY ($1)"
Statement existing_hashes[2] = {{CLARIFY_EXISTING_HASHES, 1, nullptr, &int8_array_type},
                                {CLARIFY_EXISTING_HASHES, 1, nullptr, &uuid_array_type}};

// Inserts the texts not stored yet and returns the positions (from 1) of those whose identity
// the audit already holds with other bytes: never reused, whatever the reason (the writer stores
// them anew under another identity). The check reads the table as it was before the insert.
#define CLARIFY_INSERT_TEXTS(type)                                                       \
    "WITH u AS (SELECT h::" type                                                         \
    " AS h, b, i FROM unnest($1, $2) "                                                   \
    "WITH ORDINALITY AS v(h, b, i)), "                                                   \
    "added AS (INSERT INTO clarify.audit_texts (hash, body) SELECT h, b FROM u "         \
    "ON CONFLICT DO NOTHING) "                                                           \
    "SELECT u.i FROM u JOIN clarify.audit_texts t ON t.hash OPERATOR(pg_catalog.=) u.h " \
    "WHERE t.body OPERATOR(pg_catalog.<>) u.b"
Statement insert_texts[2] = {{CLARIFY_INSERT_TEXTS("pg_catalog.int8"), 2, nullptr},
                             {CLARIFY_INSERT_TEXTS("pg_catalog.uuid"), 2, nullptr}};
// The same for decision shapes, compared field by field (jsonb by value).
#define CLARIFY_INSERT_SHAPES(type)                                                       \
    "WITH u AS (SELECT h::" type                                                          \
    " AS h, a::pg_catalog.bool AS a, s, r, c::pg_catalog.jsonb AS c, "                    \
    "b::pg_catalog.jsonb AS b, p::pg_catalog.jsonb AS p, i "                              \
    "FROM unnest($1, $2, $3, $4, $5, $6, $7) WITH ORDINALITY "                            \
    "AS v(h, a, s, r, c, b, p, i)), "                                                     \
    "added AS (INSERT INTO clarify.audit_shapes "                                         \
    "(hash, allowed, state, reason, columns, bindings, payload) "                         \
    "SELECT h, a, s, r, c, b, p FROM u ON CONFLICT DO NOTHING) "                          \
    "SELECT u.i FROM u JOIN clarify.audit_shapes t ON t.hash OPERATOR(pg_catalog.=) u.h " \
    "WHERE (t.allowed, t.state, t.reason, t.columns, t.bindings, t.payload) "             \
    "IS DISTINCT FROM (u.a, u.s, u.r, u.c, u.b, u.p)"
Statement insert_shapes[2] = {{CLARIFY_INSERT_SHAPES("pg_catalog.int8"), 7, nullptr},
                              {CLARIFY_INSERT_SHAPES("pg_catalog.uuid"), 7, nullptr}};
Statement insert_notes = {
    "INSERT INTO clarify.audit_notes (decision_id, noted_at, note) "
    "SELECT i::int8, " CLARIFY_TIMESTAMP " , n FROM unnest($1, $2, $3) AS u(i, t, n)",
    3, nullptr};
const Oid narrow_batch_types[] = {
    TIMESTAMPTZOID, TIMESTAMPTZOID, INT8ARRAYOID, 1185 /* timestamptz[] */,
    OIDARRAYOID,    OIDARRAYOID,    INT4ARRAYOID, INT8ARRAYOID,
    INT8ARRAYOID,   INT8ARRAYOID,   INT8ARRAYOID, TEXTARRAYOID};
const Oid wide_batch_types[] = {
    TIMESTAMPTZOID, TIMESTAMPTZOID, INT8ARRAYOID, 1185 /* timestamptz[] */,
    OIDARRAYOID,    OIDARRAYOID,    INT4ARRAYOID, INT8ARRAYOID,
    UUIDARRAYOID,   UUIDARRAYOID,   UUIDARRAYOID, TEXTARRAYOID};
#define CLARIFY_INSERT_BATCH                                                                      \
    "INSERT INTO clarify.audit_batches (first_decided_at, last_decided_at, decision_ids, "        \
    "decided_ats, session_roles, acting_roles, pids, query_ids, statement_hashes, shape_hashes, " \
    "record_hashes, question_ids) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
Statement insert_batch[2] = {{CLARIFY_INSERT_BATCH, 12, nullptr, narrow_batch_types},
                             {CLARIFY_INSERT_BATCH, 12, nullptr, wide_batch_types}};
// A batch with entity bindings (catalog 1.2, "Entity bindings per decision"): cast to jsonb here,
// so an entry whose bindings are no JSON fails this insert, never a later reader of the view.
const Oid narrow_entity_batch_types[] = {
    TIMESTAMPTZOID, TIMESTAMPTZOID, INT8ARRAYOID, 1185 /* timestamptz[] */,
    OIDARRAYOID,    OIDARRAYOID,    INT4ARRAYOID, INT8ARRAYOID,
    INT8ARRAYOID,   INT8ARRAYOID,   INT8ARRAYOID, TEXTARRAYOID,
    TEXTARRAYOID};
const Oid wide_entity_batch_types[] = {
    TIMESTAMPTZOID, TIMESTAMPTZOID, INT8ARRAYOID, 1185 /* timestamptz[] */,
    OIDARRAYOID,    OIDARRAYOID,    INT4ARRAYOID, INT8ARRAYOID,
    UUIDARRAYOID,   UUIDARRAYOID,   UUIDARRAYOID, TEXTARRAYOID,
    TEXTARRAYOID};
#define CLARIFY_INSERT_ENTITY_BATCH                                                               \
    "INSERT INTO clarify.audit_batches (first_decided_at, last_decided_at, decision_ids, "        \
    "decided_ats, session_roles, acting_roles, pids, query_ids, statement_hashes, shape_hashes, " \
    "record_hashes, question_ids, entity_bindings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "  \
    "$10, $11, $12, $13::pg_catalog.jsonb[])"
Statement insert_entity_batch[2] = {
    {CLARIFY_INSERT_ENTITY_BATCH, 13, nullptr, narrow_entity_batch_types},
    {CLARIFY_INSERT_ENTITY_BATCH, 13, nullptr, wide_entity_batch_types}};

// The identities of one column of a batch: uuid[] (16 bytes each, as they are), or bigint[].
Datum identity_array(const std::vector<AuditHash> &values, const std::vector<bool> *nulls,
                     Width width) {
    if (width != Width::Wide) {
        std::vector<int64> narrow(values.size());
        for (size_t i = 0; i < values.size(); ++i) narrow[i] = static_cast<int64>(values[i].lo);
        return value_array(narrow, nulls, INT8OID);
    }
    int n = static_cast<int>(values.size());
    std::vector<unsigned char> bytes(Size(n) * UUID_LEN + 1);
    for (int i = 0; i < n; ++i) hash_to_bytes(values[i], bytes.data() + Size(i) * UUID_LEN);
    std::vector<char> isnull(n, 0);
    bool any_null = false;
    for (int i = 0; nulls && i < n; ++i) {
        isnull[i] = (*nulls)[i];
        any_null = any_null || isnull[i];
    }
    const unsigned char *b = bytes.data();
    const char *nl = isnull.data();
    return pg_guard([&] {
        if (!any_null) {
            // uuid is 16 bytes, char-aligned: the array's data is the bytes back to back.
            Size size = ARR_OVERHEAD_NONULLS(1) + Size(n) * UUID_LEN;
            auto *array = static_cast<ArrayType *>(palloc0(size));
            SET_VARSIZE(array, size);
            array->ndim = 1;
            array->dataoffset = 0;
            array->elemtype = UUIDOID;
            ARR_DIMS(array)[0] = n;
            ARR_LBOUND(array)[0] = 1;
            memcpy(ARR_DATA_PTR(array), b, Size(n) * UUID_LEN);
            return PointerGetDatum(array);
        }
        Datum *elems = static_cast<Datum *>(palloc(sizeof(Datum) * (n + 1)));
        bool *flags = static_cast<bool *>(palloc(sizeof(bool) * (n + 1)));
        for (int i = 0; i < n; ++i) {
            flags[i] = nl[i];
            elems[i] = PointerGetDatum(b + Size(i) * UUID_LEN);
        }
        int dims[1] = {n}, lbs[1] = {1};
        return PointerGetDatum(construct_md_array(elems, flags, 1, dims, lbs, UUIDOID, UUID_LEN,
                                                  false, TYPALIGN_CHAR));
    });
}

// The width of the identities the database's audit tables key by: a database whose catalog is
// still at 1.0 (the library updated, ALTER EXTENSION UPDATE not run yet) has bigint ones.
Width identity_width(Oid texts) {
    return pg_guard([texts] {
        AttrNumber column = get_attnum(texts, "hash");
        return column != InvalidAttrNumber && get_atttype(texts, column) == UUIDOID ? Width::Wide
                                                                                    : Width::Narrow;
    });
}

// A fresh identity for a text or shape whose own is taken by other bytes: random, so it cannot
// meet any other identity.
AuditHash random_identity() {
    return pg_guard([] {
        unsigned char bytes[16];
        if (!pg_strong_random(bytes, sizeof(bytes)))
            elog(ERROR, "pg_clarify audit writer: could not draw a random identity");
        AuditHash h = hash_from_bytes(bytes);
        if (h.none()) h.lo = 1;
        return h;
    });
}

// The positions (from 1) the last statement returned in its first column.
std::vector<int64> returned_positions() {
    uint64 n = pg_guard([] { return SPI_processed; });
    std::vector<int64> positions;
    for (uint64 i = 0; i < n; ++i)
        positions.push_back(pg_guard([i] {
            bool isnull;
            Datum d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
            return isnull ? int64(0) : DatumGetInt64(d);
        }));
    return positions;
}

Column identity_texts(const std::vector<AuditHash> &ids, Width width) {
    Column out;
    out.reserve(ids.size());
    for (const AuditHash &h : ids) out.push_back(identity_text(h, width));
    return out;
}

// Positions (from 0) of the rows whose identity the audit held with other bytes.
std::vector<size_t> insert_checked(Statement &statement, const std::vector<Column> &columns) {
    execute(statement, columns);
    std::vector<size_t> taken;
    for (int64 p : returned_positions()) taken.push_back(static_cast<size_t>(p - 1));
    return taken;
}

void log_taken(const char *what, const AuditHash &taken, const AuditHash &instead, Width width) {
    std::string from = identity_text(taken, width), to = identity_text(instead, width);
    pg_guard([&] {
        ereport(WARNING,
                (errmsg("pg_clarify audit writer: the audit holds another %s under identity %s; "
                        "this batch stores its own under identity %s",
                        what, from.c_str(), to.c_str()),
                 errdetail("A stored text or shape is reused only when its bytes are the same. "
                           "Different bytes under one identity mean a defect or a changed "
                           "audit table.")));
    });
}

void store_texts_and_shapes(Width width, TextRows &texts, ShapeRows &shapes, Carriers &rows,
                            HashSet &fresh, HashMap &moved) {
    int wide = width == Width::Wide;
    auto redirect = [&rows](uint8 bit, std::vector<AuditHash> &column, const AuditHash &from,
                            const AuditHash &to) {
        for (size_t r = 0; r < column.size(); ++r)
            if ((rows.carried[r] & bit) && column[r] == from) column[r] = to;
    };
    TextRows texts_again;
    ShapeRows shapes_again;
    if (!texts.ids.empty())
        for (size_t k :
             insert_checked(insert_texts[wide], {identity_texts(texts.ids, width), texts.body})) {
            AuditHash taken = texts.ids[k], instead = random_identity();
            log_taken("text", taken, instead, width);
            fresh.erase(taken);
            moved[taken] = instead;
            redirect(1, rows.statement, taken, instead);
            redirect(2, rows.record, taken, instead);
            texts_again.ids.push_back(instead);
            texts_again.body.push_back(std::move(texts.body[k]));
        }
    if (!shapes.ids.empty())
        for (size_t k :
             insert_checked(insert_shapes[wide],
                            {identity_texts(shapes.ids, width), shapes.allowed, shapes.state,
                             shapes.reason, shapes.columns, shapes.bindings, shapes.payload})) {
            AuditHash taken = shapes.ids[k], instead = random_identity();
            log_taken("decision shape", taken, instead, width);
            fresh.erase(taken);
            moved[taken] = instead;
            redirect(4, rows.shape, taken, instead);
            shapes_again.ids.push_back(instead);
            shapes_again.allowed.push_back(std::move(shapes.allowed[k]));
            shapes_again.state.push_back(std::move(shapes.state[k]));
            shapes_again.reason.push_back(std::move(shapes.reason[k]));
            shapes_again.columns.push_back(std::move(shapes.columns[k]));
            shapes_again.bindings.push_back(std::move(shapes.bindings[k]));
            shapes_again.payload.push_back(std::move(shapes.payload[k]));
        }
    // Random identities meet nothing stored: one that does fails the batch, which is retried.
    bool taken_again =
        (!texts_again.ids.empty() &&
         !insert_checked(insert_texts[wide],
                         {identity_texts(texts_again.ids, width), texts_again.body})
              .empty()) ||
        (!shapes_again.ids.empty() &&
         !insert_checked(insert_shapes[wide],
                         {identity_texts(shapes_again.ids, width), shapes_again.allowed,
                          shapes_again.state, shapes_again.reason, shapes_again.columns,
                          shapes_again.bindings, shapes_again.payload})
              .empty());
    if (taken_again)
        pg_guard([] { elog(ERROR, "pg_clarify audit writer: a random identity was taken"); });
}

}  // namespace clarify::pg
