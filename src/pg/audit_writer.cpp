// The audit writer: one background worker per database, draining that database's queue into
// clarify.audit_log in batches, one transaction per batch (the group commit of sync mode).
// Errors are caught, counted and retried with back-off; the worker never dies in a loop.
// The first pg_clarify.audit_writers queues have reserved writers, registered at server start:
// each waits, unconnected, for a backend's request, serves that database, leaves when idle and
// is restarted at once by the postmaster, so its worker slot is never free for anyone else.
#include "pg.hpp"
#include "audit_record.hpp"
#include "audit_queue.hpp"
#include "audit_writer.hpp"
#include "boundary.hpp"
#include "compat.hpp"
#include "gate.hpp"
#include "settings.hpp"
#include "shared.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PGDLLEXPORT void clarify_audit_writer_main(Datum arg);
PGDLLEXPORT void clarify_reserved_writer_main(Datum arg);
}

#include <algorithm>
#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace clarify::pg {
namespace {

// An idle writer leaves (and frees its queue) well within the 5 s DROP DATABASE waits for
// other sessions to go.
constexpr long kIdleExitMs = 2000;
constexpr long kMaxBackoffMs = 5000;
// Async decisions do not wake the writer: it collects them this often (the manual's "about a
// second" of async loss is an upper bound).
constexpr long kAsyncPollMs = 100;

using HashSet = std::unordered_set<AuditHash, AuditHashHasher>;

// Statements, records and decision shapes repeat: each is stored once, under its keyed hash
// (audit_hash.hpp). The writer remembers which it stored itself or found holding the same
// bytes; purge_audit() may delete orphans, and bumps a generation the writer checks under the
// lock that purge also takes.
HashSet stored;
// What the last batch written stored (texts and shapes, inserted or already there), and the
// purge generation it began under: published after its commit for short entries.
std::vector<AuditHash> batch_stored;
uint64 batch_purge_seen = 0;
// The purge generation `stored` is valid for (one for every instantiation of write_batch).
uint64 seen_generation = 0;
// What this writer has published and not seen emptied since (a subset of `stored`).
HashSet published;
using HashMap = std::unordered_map<AuditHash, AuditHash, AuditHashHasher>;
// Identities the audit holds with other bytes than the decisions carrying them, and where this
// writer stored those decisions' own bytes instead (cleared with `stored`; never published).
HashMap diverted;
// The audit's text tables as the last batch found them: tables recreated meanwhile (DROP and
// CREATE EXTENSION) hold none of what was stored or published before.
Oid texts_relid = InvalidOid, shapes_relid = InvalidOid;
// Whether the last batch found 16-byte identities (catalog 1.1) or a 1.0 catalog's bigint ones:
// ALTER EXTENSION UPDATE changes them in place, under new values (see the update script).
enum class Width { Unknown, Narrow, Wide };
Width last_width = Width::Unknown;

using Column = std::vector<std::optional<std::string>>;

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

// Statements are prepared once per writer and kept (SPI_keepplan); PostgreSQL re-plans them if
// the audit tables are recreated.
struct Statement {
    const char *sql;
    int nargs;
    SPIPlanPtr plan;
    const Oid *types;  // nullptr: every parameter is text[]
};

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

// A one-dimensional array of a fixed-width, by-value type (int8, timestamptz, oid, int4).
template <typename T>
Datum value_array(const std::vector<T> &values, const std::vector<bool> *nulls, Oid type) {
    static_assert(sizeof(T) == 8 || sizeof(T) == 4, "int8, timestamptz, oid or int4");
    int n = static_cast<int>(values.size());
    const T *v = values.data();
    if (!nulls && n > 0) {
        // Without nulls the array's data is the values as they are in memory: one copy, where
        // construct_md_array would store them one element at a time.
        return pg_guard([&] {
            Size bytes = ARR_OVERHEAD_NONULLS(1) + Size(n) * sizeof(T);
            auto *array = static_cast<ArrayType *>(palloc0(bytes));
            SET_VARSIZE(array, bytes);
            array->ndim = 1;
            array->dataoffset = 0;
            array->elemtype = type;
            ARR_DIMS(array)[0] = n;
            ARR_LBOUND(array)[0] = 1;
            memcpy(ARR_DATA_PTR(array), v, Size(n) * sizeof(T));
            return PointerGetDatum(array);
        });
    }
    std::vector<char> isnull(n, 0);
    if (nulls)
        for (int i = 0; i < n; ++i) isnull[i] = (*nulls)[i];
    const char *nl = isnull.data();
    return pg_guard([&] {
        Datum *elems = static_cast<Datum *>(palloc(sizeof(Datum) * (n + 1)));
        bool *flags = static_cast<bool *>(palloc(sizeof(bool) * (n + 1)));
        for (int i = 0; i < n; ++i) {
            flags[i] = nl[i];
            if constexpr (sizeof(T) == 8)
                elems[i] = Int64GetDatum(static_cast<int64>(v[i]));
            else
                elems[i] = Int32GetDatum(static_cast<int32>(v[i]));
        }
        int dims[1] = {n}, lbs[1] = {1};
        bool eight = sizeof(T) == 8;
        return PointerGetDatum(construct_md_array(elems, flags, 1, dims, lbs, type, eight ? 8 : 4,
                                                  eight ? FLOAT8PASSBYVAL : true,
                                                  eight ? TYPALIGN_DOUBLE : TYPALIGN_INT));
    });
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
AuditHash identity_of(const AuditHash &h, Width width) {
    return width == Width::Wide ? h : AuditHash{h.lo, 0};
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

std::string number(long long v) {
    return std::to_string(v);
}

// Works on owned records (the fallback path) and on views into the queue (the hot path).
// A sync decision is durable before its backend goes on, whatever the server's default (at least
// `on`, or the configured remote_write / remote_apply: a synchronous standby has it too); a batch
// of async decisions only needs to reach the WAL soon. Set for one batch, then restored, without
// the cost of a GUC change per transaction (the setting is read at commit).
class CommitLevel {
  public:
    explicit CommitLevel(bool any_sync) : saved_(synchronous_commit) {
        set_commit_level(any_sync ? Max(saved_, static_cast<int>(SYNCHRONOUS_COMMIT_ON))
                                  : static_cast<int>(SYNCHRONOUS_COMMIT_OFF));
    }
    ~CommitLevel() { set_commit_level(saved_); }
    CommitLevel(const CommitLevel &) = delete;
    CommitLevel &operator=(const CommitLevel &) = delete;

  private:
    int saved_;
};

// A batch's commit is under way. A die request set during it acts, once the commit record is
// written (interrupts are held from there on), only on a wait for a synchronous standby, which
// PostgreSQL then gives up; before that point it aborts the batch, which stays queued.
volatile sig_atomic_t in_commit = 0;
// A cancel request (pg_cancel_backend) arrived during the commit: it too gives up that wait.
volatile sig_atomic_t cancel_in_commit = 0;
// Whether the last batch written was committed without its synchronous standby's confirmation.
bool last_batch_unconfirmed = false;

// Texts and shapes a batch inserts, each under its identity.
struct TextRows {
    std::vector<AuditHash> ids;
    Column body;
};
struct ShapeRows {
    std::vector<AuditHash> ids;
    Column allowed, state, reason, columns, bindings, payload;
};

// A batch's decisions: the identities they refer to, and which of them each carried itself
// (bit 1: statement, 2: record, 4: shape) rather than naming them in a short entry.
struct Carriers {
    const std::vector<uint8> &carried;
    std::vector<AuditHash> &statement, &record, &shape;
};

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

// Inserts a batch's new texts and shapes. One whose identity the audit already holds with
// other bytes is never reused: it is stored again under a random identity, the decisions that
// carried it refer to that one instead, and `moved` maps the one to the other.
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

// The statement text and shape that stand in for those a short entry names but the audit no
// longer holds (its tables were recreated while the decision was queued).
constexpr const char *kLostText =
    "(not available: the audit's tables were recreated while this decision was queued)";
constexpr const char *kLostRecord =
    "{\"not_available\": \"the audit's tables were recreated while this decision was queued\"}";

template <typename Entry>
void write_batch(AuditSlot *slot, const std::vector<Entry> &batch) {
    bool any_sync = false;
    for (const Entry &a : batch) any_sync = any_sync || a.sync;
    CommitLevel level(any_sync);
    pg_guard([&] {
        SetCurrentStatementStartTimestamp();
        StartTransactionCommand();
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
        PushActiveSnapshot(GetTransactionSnapshot());
        pgstat_report_activity(STATE_RUNNING, "pg_clarify: writing audit batch");
    });
    // Purge deletes unreferenced texts under a conflicting lock and moves the generation.
    auto lock_table = [](const char *name) {
        return pg_guard([name] {
            return RangeVarGetRelid(
                makeRangeVar(const_cast<char *>("clarify"), const_cast<char *>(name), -1),
                RowExclusiveLock, false);
        });
    };
    Oid texts = lock_table("audit_texts");
    Oid shapes = lock_table("audit_shapes");
    Width width = identity_width(texts);
    {
        bool recreated =
            (texts_relid != InvalidOid && (texts != texts_relid || shapes != shapes_relid)) ||
            (last_width != Width::Unknown && width != last_width);
        if (width == Width::Narrow && last_width != Width::Narrow)
            pg_guard([] {
                ereport(LOG, (errmsg("pg_clarify audit writer: the audit of database %u is at "
                                     "catalog 1.0: decisions are written with their texts, "
                                     "under 64-bit identities",
                                     MyDatabaseId),
                              errhint("Run ALTER EXTENSION pg_clarify UPDATE.")));
            });
        // Nothing published before holds for new tables; nor does what this batch would publish.
        if (recreated) pg_guard([] { audit_forget_published(MyDatabaseId); });
        // Read under the lock purge_audit() conflicts with: a purge that deleted texts has
        // committed (or not begun) by now.
        uint64 generation = pg_guard([] { return purge_generation(); });
        if (generation != seen_generation || recreated || stored.size() > 200000) {
            stored.clear();
            published.clear();
            diverted.clear();
        }
        seen_generation = generation;
        batch_purge_seen = generation;
        texts_relid = texts;
        shapes_relid = shapes;
        last_width = width;
    }
    batch_stored.clear();

    TextRows new_texts;
    ShapeRows new_shapes;
    std::vector<int64> id, at, query_id;
    std::vector<AuditHash> statement, shape, record;
    // Per decision: which of its statement (1), record (2) and shape (4) it carried itself.
    std::vector<uint8> carried;
    std::vector<bool> record_null;
    std::vector<Oid> session_role, acting_role;
    std::vector<int32> pid;
    Column question;
    Column note_id, note_at, note_text;
    HashSet fresh;
    // The hashes short entries name that this writer has not stored itself (after its start, a
    // purge or recreated tables): looked up once; one the audit does not hold is replaced by a
    // stand-in, so that no row refers to a text that is not there.
    HashSet missing;
    {
        std::vector<AuditHash> unknown;
        const Entry *previous = nullptr;
        for (const Entry &a : batch) {
            if (!a.texts_stored) continue;
            if (previous && previous->statement_hash == a.statement_hash &&
                previous->shape_hash == a.shape_hash && previous->record_hash == a.record_hash)
                continue;
            previous = &a;
            for (const AuditHash &h : {a.statement_hash, a.shape_hash, a.record_hash})
                if (h && !stored.count(h) && missing.insert(h).second) unknown.push_back(h);
        }
        if (!unknown.empty()) {
            Datum hashes = identity_array(unknown, nullptr, width);
            run(existing_hashes[width == Width::Wide], &hashes);
            HashSet found;
            uint64 rows = pg_guard([] { return SPI_processed; });
            for (uint64 i = 0; i < rows; ++i)
                found.insert(pg_guard([i, width] {
                    bool isnull;
                    Datum d =
                        SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
                    if (isnull) return AuditHash{};
                    return width == Width::Wide
                               ? hash_from_bytes(DatumGetUUIDP(d)->data)
                               : AuditHash{static_cast<uint64>(DatumGetInt64(d)), 0};
                }));
            // Found: its text is there, as the writer that published it stored it. Not taken
            // as stored by this one, which has not compared its bytes: a decision carrying it
            // gets it compared.
            for (const AuditHash &h : unknown)
                if (found.count(identity_of(h, width))) missing.erase(h);
        }
    }
    HashSet to_publish;
    std::vector<AuditHash> batch_publish;
    AuditHash last_hashes[3];
    // Queues the shape's row unless it is stored already; returns its hash.
    auto remember_shape = [&](const auto &a, const AuditHash &h) {
        if (auto d = diverted.find(h); d != diverted.end()) return d->second;
        if (!stored.count(h) && fresh.insert(h).second) {
            new_shapes.ids.push_back(h);
            new_shapes.allowed.push_back(a.allowed ? "true" : "false");
            new_shapes.state.push_back(std::string(to_string(a.state)));
            new_shapes.reason.push_back(std::string(a.reason));
            new_shapes.columns.push_back(std::string(a.columns));
            new_shapes.bindings.push_back(std::string(a.bindings));
            new_shapes.payload.push_back(a.payload.empty() ? std::nullopt
                                                           : std::optional<std::string>(a.payload));
        }
        return h;
    };
    auto remember_text = [&](const char *kind, std::string_view body, const AuditHash &given) {
        AuditHash h = given ? given : content_hash(audit_key(), kind, body);
        if (auto d = diverted.find(h); d != diverted.end()) return d->second;
        if (!stored.count(h) && fresh.insert(h).second) {
            new_texts.ids.push_back(h);
            new_texts.body.push_back(std::string(body));
        }
        return h;
    };
    for (const Entry &a : batch) {
        if (!a.note.empty()) {
            note_id.push_back(number(static_cast<long long>(a.decision_id)));
            note_at.push_back(number(a.decided_at));
            note_text.push_back(std::string(a.note));
            continue;
        }
        if (a.texts_stored) {
            // A short entry: its backend saw every one of these published, so the audit holds
            // them (a purge since then kept the ones queued entries refer to).
            bool lost_record = a.record_hash && missing.count(a.record_hash);
            bool lost_statement = missing.count(a.statement_hash) > 0;
            statement.push_back(lost_statement ? remember_text("statement", kLostText, {})
                                               : a.statement_hash);
            record_null.push_back(a.record_hash.none());
            record.push_back(lost_record ? remember_text("record", kLostRecord, {})
                                         : a.record_hash);
            bool lost_shape = missing.count(a.shape_hash) > 0;
            if (lost_shape) {
                AuditRecord lost;
                lost.allowed = a.allowed;
                lost.state = a.state;
                lost.reason = kLostText;
                lost.columns = "[]";
                lost.bindings = "[]";
                shape.push_back(remember_shape(lost, shape_hash_of(audit_key(), lost)));
            } else {
                shape.push_back(a.shape_hash);
            }
            carried.push_back(
                uint8((lost_statement ? 1 : 0) | (lost_record ? 2 : 0) | (lost_shape ? 4 : 0)));
        } else {
            statement.push_back(remember_text("statement", a.statement, a.statement_hash));
            record_null.push_back(a.record.empty());
            record.push_back(a.record.empty() ? AuditHash{}
                                              : remember_text("record", a.record, a.record_hash));
            shape.push_back(
                remember_shape(a, a.shape_hash ? a.shape_hash : shape_hash_of(audit_key(), a)));
            carried.push_back(uint8(1 | (a.record.empty() ? 0 : 2) | 4));
        }
        // Published for short entries once seen again (stored by an earlier batch): a statement
        // run once would only crowd the published set.
        AuditHash now_hashes[3] = {statement.back(), shape.back(), record.back()};
        if (!(now_hashes[0] == last_hashes[0] && now_hashes[1] == last_hashes[1] &&
              now_hashes[2] == last_hashes[2])) {
            for (int i = 0; i < 3; ++i) last_hashes[i] = now_hashes[i];
            for (const AuditHash &h : now_hashes)
                if (h && stored.count(h) && !published.count(h) && to_publish.insert(h).second)
                    batch_publish.push_back(h);
        }
        id.push_back(static_cast<int64>(a.decision_id));
        at.push_back(a.decided_at);
        session_role.push_back(a.session_role);
        acting_role.push_back(a.acting_role);
        pid.push_back(a.pid);
        query_id.push_back(a.query_id);
        question.push_back(a.question_id.empty() ? std::nullopt
                                                 : std::optional<std::string>(a.question_id));
    }
    HashMap moved;
    {
        Carriers carriers{carried, statement, record, shape};
        store_texts_and_shapes(width, new_texts, new_shapes, carriers, fresh, moved);
    }
    if (!id.empty()) {
        auto [first, last] = std::minmax_element(at.begin(), at.end());
        Datum values[12] = {
            Int64GetDatum(*first),
            Int64GetDatum(*last),
            value_array(id, nullptr, INT8OID),
            value_array(at, nullptr, TIMESTAMPTZOID),
            value_array(session_role, nullptr, OIDOID),
            value_array(acting_role, nullptr, OIDOID),
            value_array(pid, nullptr, INT4OID),
            value_array(query_id, nullptr, INT8OID),
            identity_array(statement, nullptr, width),
            identity_array(shape, nullptr, width),
            identity_array(record, &record_null, width),
            text_array(question),
        };
        run(insert_batch[width == Width::Wide], values);
    }
    // A 1.0 catalog's identities are 64 bits wide: decisions keep carrying their texts there,
    // so that each is compared before it is reused.
    if (width != Width::Wide) batch_publish.clear();
    if (!note_id.empty()) execute(insert_notes, {note_id, note_at, note_text});
    pg_guard([&] {
        SPI_finish();
        PopActiveSnapshot();
        cancel_in_commit = 0;
        in_commit = 1;
        // Stopping: do not start a wait for a synchronous standby that may never come.
        if (ShutdownRequestPending && any_sync) {
            ProcDiePending = true;
            InterruptPending = true;
        }
        CommitTransactionCommand();
        in_commit = 0;
        // A die or cancel request during the commit may have given up a synchronous standby's
        // confirmation (PostgreSQL logs it): the batch's sync decisions are then not confirmed
        // (also when no standby was waited for: failing closed costs a retry). A die request
        // stops the writer at its next interrupt check.
        last_batch_unconfirmed = any_sync && (ProcDiePending || cancel_in_commit);
        pgstat_report_activity(STATE_IDLE, nullptr);
    });
    // Committed: nothing may throw from here on, or the batch would stay queued and be written
    // again by the next writer. `stored` only saves inserts that ON CONFLICT would skip anyway.
    try {
        batch_stored = std::move(batch_publish);
        for (const AuditHash &h : fresh) stored.insert(h);
        diverted.insert(moved.begin(), moved.end());
    } catch (...) {
        batch_stored.clear();
        stored.clear();
        published.clear();
        diverted.clear();
    }
}

// After a commit published batch_stored: remembered, unless the published set was full and
// emptied first (then what this writer published is forgotten: it publishes again as it meets
// those hashes). No throw: the batch is committed.
void note_published(bool kept) noexcept {
    try {
        if (!kept) published.clear();
        if (batch_purge_seen == purge_generation())
            for (const AuditHash &h : batch_stored) published.insert(h);
    } catch (...) {
        published.clear();
    }
    batch_stored.clear();
}

// Tries one write; on failure rolls back, counts and logs it, and returns the error text.
template <typename Entry>
std::optional<std::string> try_write(AuditSlot *slot, const std::vector<Entry> &batch) {
    try {
        write_batch(slot, batch);
        return std::nullopt;
    } catch (const PgError &e) {
        in_commit = 0;
        // Copied first: the error data lives in the transaction's memory, freed by the abort.
        std::string message = e.what();
        const char *text = message.c_str();
        size_t n = batch.size();
        pg_guard([&] {
            AbortCurrentTransaction();
            // Counted before the log line: its interrupt check may end a writer asked to stop.
            audit_worker_failed(slot, text);
            ereport(LOG,
                    (errmsg("pg_clarify audit writer: writing %zu decisions failed: %s", n, text)));
        });
        return message;
    }
}

// What can always be stored of a decision whose full row cannot be: who, when, the outcome.
AuditRecord unwritable(const AuditRecord &a, const std::string &error) {
    AuditRecord safe = a;
    safe.texts_stored = false;  // its texts are given here
    // Its content differs from the shape and record the backend hashed: hash it anew.
    safe.shape_hash = AuditHash{};
    safe.record_hash = AuditHash{};
    safe.statement_hash = AuditHash{};
    safe.columns = "[]";
    safe.bindings = "[]";
    safe.payload.clear();
    safe.record.clear();
    safe.statement = "(not stored: the decision's row could not be written)";
    safe.reason = "unwritable decision for question \"" + a.question_id.substr(0, 200) + "\" (" +
                  error.substr(0, 200) + ")";
    safe.question_id.clear();
    for (char &c : safe.reason)
        if (c == '\0') c = ' ';
    return safe;
}

// Drains what is queued now: the number of decisions written, or -1 when writing failed (what
// failed stays queued; the caller backs off). After repeated failures entries are written one
// by one, and one that cannot be written even alone is stored reduced to its essentials, so a
// single bad entry never stops the audit of a database.
long drain(AuditSlot *slot, std::vector<char> &buffer) {
    static int failures = 0;
    long total = 0;
    for (;;) {
        uint64 from = 0, bytes = 0;
        char *scratch = buffer.data();
        uint64 cap = buffer.size();
        const char *buf =
            pg_guard([&] { return audit_worker_peek(slot, scratch, cap, &from, &bytes); });
        if (bytes == 0) return total;
        static std::vector<AuditView>
            batch;  // views into the ring (or `buffer`), valid until committed
        static std::vector<uint64> ends;  // end offset of each decoded entry
        batch.clear();
        ends.clear();
        uint64 malformed = 0;
        for (uint64 pos = 0; pos < bytes;) {
            uint32 length;
            memcpy(&length, buf + pos, sizeof(uint32));
            try {
                batch.push_back(decode_view(std::string_view(buf + pos + sizeof(uint32), length)));
                ends.push_back(pos + sizeof(uint32) + length);
            } catch (const AuditFormatError &) {
                ++malformed;
            }
            pos += sizeof(uint32) + length;
        }
        if (failures < 3 || batch.size() <= 1) {
            if (!batch.empty() && try_write(slot, batch)) {
                ++failures;
                if (batch.size() > 1 || failures < 3) return -1;
            } else {
                failures = 0;
                bool kept = pg_guard([&] {
                    return audit_worker_commit(slot, from + bytes, batch.size(), malformed,
                                               !last_batch_unconfirmed, batch_stored.data(),
                                               batch_stored.size(), batch_purge_seen);
                });
                note_published(kept);
                total += static_cast<long>(batch.size());
                // Sync decisions are waited for: go on at once. Async ones can gather into the
                // next batch unless the queue is filling up (a quarter of it wakes us anyway).
                bool any_sync = false;
                for (const AuditView &a : batch) any_sync = any_sync || a.sync;
                uint64 pending = pg_guard([&] { return audit_pending_bytes(slot); });
                if (!any_sync && pending * 4 <= audit_ring_size() && !ShutdownRequestPending)
                    return total;
                continue;
            }
        }
        // One entry at a time, each in its own transaction.
        for (size_t i = 0; i < batch.size(); ++i) {
            std::vector<AuditRecord> one{to_record(batch[i])};
            if (auto error = try_write(slot, one)) {
                std::vector<AuditRecord> reduced{unwritable(one[0], *error)};
                if (try_write(slot, reduced)) return -1;  // the audit itself is unavailable
            }
            uint64 upto = i + 1 == batch.size() ? bytes : ends[i];
            bool kept = pg_guard([&] {
                return audit_worker_commit(slot, from + upto, 1,
                                           i + 1 == batch.size() ? malformed : 0,
                                           !last_batch_unconfirmed, batch_stored.data(),
                                           batch_stored.size(), batch_purge_seen);
            });
            note_published(kept);
            ++total;
        }
        failures = 0;
    }
}

void writer_loop(Oid database) {
    AuditSlot *slot = pg_guard([&] { return audit_worker_attach(database); });
    if (!slot) return;  // another writer serves this database
    std::vector<char> buffer(Max(audit_ring_size(), uint64(4 * 1024 * 1024)));
    long backoff = 0;
    TimestampTz last_work = pg_guard([] { return GetCurrentTimestamp(); });
    for (;;) {
        long written = drain(slot, buffer);
        if (ShutdownRequestPending) return;
        TimestampTz now = pg_guard([] { return GetCurrentTimestamp(); });
        if (written != 0) last_work = now;
        backoff = written < 0 ? Min(Max(backoff * 2, 100L), kMaxBackoffMs) : 0;
        if (written == 0 && TimestampDifferenceExceeds(last_work, now, kIdleExitMs) &&
            pg_guard([&] { return audit_worker_release_if_idle(slot); }))
            return;
        long timeout = backoff ? backoff : kAsyncPollMs;
        pg_guard([&] {
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, timeout,
                            PG_WAIT_EXTENSION);
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
            if (ConfigReloadPending) {
                ConfigReloadPending = false;
                ProcessConfigFile(PGC_SIGHUP);
            }
        });
    }
}

// A reserved writer waits, holding its worker slot, until a backend asks it to serve a
// database; InvalidOid when asked to stop first.
Oid wait_for_request(int index) {
    for (;;) {
        Oid database = audit_reserved_take_request(index);
        if (database != InvalidOid || ShutdownRequestPending) return database;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
    }
}

// What a reserved writer took, for its exit callback.
int reserved_index = -1;
Oid reserved_database = InvalidOid;

void leave_reserved(int, Datum) {
    audit_reserved_leave(reserved_index, reserved_database);
}

}  // namespace

void register_reserved_writers() {
    for (int i = 0; i < audit_reserved_writers(); ++i) {
        BackgroundWorker worker;
        memset(&worker, 0, sizeof(worker));
        worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
        worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
        // Restarted at once after it leaves (exit code 1): the slot stays ours.
        worker.bgw_restart_time = 0;
        snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_clarify");
        snprintf(worker.bgw_function_name, BGW_MAXLEN, "clarify_reserved_writer_main");
        snprintf(worker.bgw_name, BGW_MAXLEN, "pg_clarify audit writer %d", i + 1);
        snprintf(worker.bgw_type, BGW_MAXLEN, "pg_clarify audit writer");
        worker.bgw_main_arg = Int32GetDatum(i);
        RegisterBackgroundWorker(&worker);
    }
}

}  // namespace clarify::pg

// SIGTERM (shutdown, pg_terminate_backend): finish what is queued, then leave. A commit waiting
// for a synchronous standby that does not answer is given up as a backend's is (the batch stays
// committed locally; PostgreSQL warns that it may not have reached the standby), so a fast
// shutdown is not held up by it.
static void clarify_audit_writer_sigterm(SIGNAL_ARGS) {
    int save_errno = errno;
    ShutdownRequestPending = true;
    if (clarify::pg::in_commit) {
        ProcDiePending = true;
        InterruptPending = true;
    }
    SetLatch(MyLatch);
    errno = save_errno;
}

// SIGINT (pg_cancel_backend): as for any backend, and noted when it falls in a commit.
static void clarify_audit_writer_sigint(SIGNAL_ARGS) {
    if (clarify::pg::in_commit) clarify::pg::cancel_in_commit = 1;
    StatementCancelHandler(postgres_signal_arg);
}

static void clarify_writer_setup() {
    clarify::pg::mark_audit_writer();
#ifdef __GLIBC__
    // A batch's arrays, its tuple and TOAST's buffers are a few hundred kB each, above glibc's
    // mmap threshold: every batch would map them afresh and fault their pages in (a quarter of
    // the writer's CPU, measured). Kept on the heap and reused instead; a writer leaves when idle.
    mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
#endif
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, clarify_audit_writer_sigterm);
    pqsignal(SIGINT, clarify_audit_writer_sigint);
    BackgroundWorkerUnblockSignals();
}

static void clarify_writer_serve(Oid database) {
    BackgroundWorkerInitializeConnectionByOid(database, InvalidOid, 0);
    // Everything the writer runs resolves in pg_catalog or names its schema.
    SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
    clarify::pg::cpp_entry([&] { clarify::pg::writer_loop(database); });
}

// A dynamic writer, started by a backend for its database when no reserved writer serves its
// queue; never restarted.
void clarify_audit_writer_main(Datum arg) {
    clarify_writer_setup();
    clarify_writer_serve(DatumGetObjectId(arg));
    proc_exit(0);
}

// A reserved writer. It always leaves with exit code 1, which the postmaster answers by starting
// it again (exit code 0 would unregister it and free its slot).
void clarify_reserved_writer_main(Datum arg) {
    clarify::pg::reserved_index = DatumGetInt32(arg);
    clarify_writer_setup();
    before_shmem_exit(clarify::pg::leave_reserved, 0);
    Oid database = clarify::pg::wait_for_request(clarify::pg::reserved_index);
    clarify::pg::reserved_database = database;
    if (database != InvalidOid) clarify_writer_serve(database);
    proc_exit(1);
}
