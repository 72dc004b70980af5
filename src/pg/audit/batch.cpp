#include "pg/pg.hpp"
#include "pg/audit/batch.hpp"
#include "core/audit/batch_rows.hpp"
#include "core/audit/framing.hpp"
#include "core/audit/protocol.hpp"
#include "pg/audit/tables.hpp"
#include "pg/boundary.hpp"
#include "pg/compat.hpp"
#include "pg/settings.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/dbcommands.h"
#include "nodes/makefuncs.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/interrupt.h"
#include "utils/snapmgr.h"
#include "utils/uuid.h"
}

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace clarify::pg {

// A batch's commit is under way. A die request set during it acts, once the commit record is
// written (interrupts are held from there on), only on a wait for a synchronous standby, which
// PostgreSQL then gives up; before that point it aborts the batch, which stays queued.
volatile sig_atomic_t in_commit = 0;
// A cancel request (pg_cancel_backend) arrived during the commit: it too gives up that wait.
volatile sig_atomic_t cancel_in_commit = 0;

namespace {

// Who writes: the writer, in a transaction of its own per batch, or clarify.audit_ingest(), in
// its caller's transaction (no commit level, nothing published).
enum class Mode { Writer, Ingest };

// A sync decision is durable already (its backend flushed it to the WAL, and synchronous standbys
// confirmed it): its batch is flushed locally before the retention slot may pass it; a batch of
// async decisions only needs to reach the WAL soon. Set for one batch, then restored, without the
// cost of a GUC change per transaction (the setting is read at commit).
class CommitLevel {
  public:
    explicit CommitLevel(bool any_sync) : saved_(synchronous_commit) {
        set_commit_level(any_sync ? static_cast<int>(SYNCHRONOUS_COMMIT_LOCAL_FLUSH)
                                  : static_cast<int>(SYNCHRONOUS_COMMIT_OFF));
    }
    ~CommitLevel() { set_commit_level(saved_); }
    CommitLevel(const CommitLevel &) = delete;
    CommitLevel &operator=(const CommitLevel &) = delete;

  private:
    int saved_;
};

void begin_batch(Mode mode) {
    pg_guard([mode] {
        if (mode == Mode::Writer) {
            SetCurrentStatementStartTimestamp();
            StartTransactionCommand();
        }
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
        PushActiveSnapshot(GetTransactionSnapshot());
        if (mode == Mode::Writer)
            pgstat_report_activity(STATE_RUNNING, "pg_clarify: writing audit batch");
    });
}

// Locks the text tables against purge_audit(), which deletes unreferenced texts under a
// conflicting lock and moves the purge generation.
TextTables lock_text_tables() {
    auto lock_table = [](const char *name) {
        return pg_guard([name] {
            return RangeVarGetRelid(
                makeRangeVar(const_cast<char *>("clarify"), const_cast<char *>(name), -1),
                RowExclusiveLock, false);
        });
    };
    TextTables tables;
    tables.texts = lock_table("audit_texts");
    tables.shapes = lock_table("audit_shapes");
    tables.width = identity_width(tables.texts);
    return tables;
}

// Brings the writer's cache up to the tables and purges it finds.
void check_cache(WriterCache &cache, const TextTables &tables, Mode mode) {
    if (cache.first_narrow(tables))
        pg_guard([] {
            const char *name = get_database_name(MyDatabaseId);
            ereport(LOG, (errmsg("pg_clarify audit writer: the audit of database \"%s\" is at "
                                 "catalog 1.0: decisions are written with their texts, "
                                 "under 64-bit identities",
                                 name ? name : "?"),
                          errhint("Run ALTER EXTENSION pg_clarify UPDATE.")));
        });
    // Nothing published before holds for new tables; nor does what this batch would publish.
    if (cache.recreated(tables) && mode == Mode::Writer)
        pg_guard([] { audit_forget_published(MyDatabaseId); });
    // Read under the lock purge_audit() conflicts with: a purge that deleted texts has committed
    // (or not begun) by now.
    cache.begin_batch(pg_guard([] { return purge_generation(); }), tables);
}

// The hashes short entries name that the audit does not hold (the cache has not stored them and
// the audit's texts table lacks them): stand-ins replace them. One the audit holds is not taken
// as stored: this writer has not compared its bytes, so a decision carrying it gets it compared.
template <typename Entry>
HashSet missing_texts(const std::vector<Entry> &batch, const WriterCache &cache, Width width) {
    std::vector<AuditHash> unknown = hashes_to_look_up(batch, cache);
    HashSet missing(unknown.begin(), unknown.end());
    if (unknown.empty()) return missing;
    Datum hashes = identity_array(unknown, nullptr, width);
    run(existing_hashes[width == Width::Wide], &hashes);
    HashSet found;
    uint64 rows = pg_guard([] { return SPI_processed; });
    for (uint64 i = 0; i < rows; ++i)
        found.insert(pg_guard([i, width] {
            bool isnull;
            Datum d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
            if (isnull) return AuditHash{};
            return width == Width::Wide ? hash_from_bytes(DatumGetUUIDP(d)->data)
                                        : AuditHash{static_cast<uint64>(DatumGetInt64(d)), 0};
        }));
    for (const AuditHash &h : unknown)
        if (found.count(identity_of(h, width))) missing.erase(h);
    return missing;
}

// Inserts the batch's rows; returns where texts the audit holds with other bytes were stored.
HashMap insert_rows(BatchRows &rows, Width width) {
    HashMap moved;
    {
        Carriers carriers{rows.carried, rows.statement, rows.record, rows.shape};
        store_texts_and_shapes(width, rows.new_texts, rows.new_shapes, carriers, rows.fresh, moved);
    }
    if (!rows.id.empty()) {
        auto [first, last] = std::minmax_element(rows.at.begin(), rows.at.end());
        Datum values[13] = {
            Int64GetDatum(*first),
            Int64GetDatum(*last),
            value_array(rows.id, nullptr, INT8OID),
            value_array(rows.at, nullptr, TIMESTAMPTZOID),
            value_array(rows.session_role, nullptr, OIDOID),
            value_array(rows.acting_role, nullptr, OIDOID),
            value_array(rows.pid, nullptr, INT4OID),
            value_array(rows.query_id, nullptr, INT8OID),
            identity_array(rows.statement, nullptr, width),
            identity_array(rows.shape, nullptr, width),
            identity_array(rows.record, &rows.record_null, width),
            text_array(rows.question),
            rows.any_entity_bindings ? text_array(rows.entity_bindings) : Datum(0),
        };
        run((rows.any_entity_bindings ? insert_entity_batch : insert_batch)[width == Width::Wide],
            values);
    }
    if (!rows.note_id.empty()) execute(insert_notes, {rows.note_id, rows.note_at, rows.note_text});
    return moved;
}

// Commits the writer's batch. A die or cancel request during the commit may have given up a
// synchronous standby's confirmation (PostgreSQL logs it): the batch's sync decisions are then
// not confirmed (also when no standby was waited for: failing closed costs a retry). A die
// request stops the writer at its next interrupt check. Returns whether it was unconfirmed.
bool commit_batch(bool any_sync) {
    return pg_guard([any_sync] {
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
        bool unconfirmed = any_sync && (ProcDiePending || cancel_in_commit);
        pgstat_report_activity(STATE_IDLE, nullptr);
        return unconfirmed;
    });
}

// Works on owned records (the one-by-one path) and on views into the queue (the hot path).
template <typename Entry>
void write_batch(WriterState &state, Mode mode, const std::vector<Entry> &batch) {
    bool any_sync = std::any_of(batch.begin(), batch.end(), [](const Entry &a) { return a.sync; });
    CommitLevel level(any_sync && mode == Mode::Writer);
    begin_batch(mode);
    TextTables tables = lock_text_tables();
    check_cache(state.cache, tables, mode);
    HashSet missing = missing_texts(batch, state.cache, tables.width);
    BatchRows rows = batch_rows(batch, state.cache, missing, audit_key(), tables.width);
    HashMap moved = insert_rows(rows, tables.width);
    if (mode == Mode::Ingest) {
        pg_guard([] {
            SPI_finish();
            PopActiveSnapshot();
        });
        return;
    }
    state.unconfirmed = commit_batch(any_sync);
    // Committed: nothing may throw from here on, or the batch would stay queued and be written
    // again by the next writer.
    state.cache.committed(rows.fresh, moved, std::move(rows.to_publish));
}

// Tries one write; on failure rolls back, counts and logs it, and returns the error text.
template <typename Entry>
std::optional<std::string> try_write(WriterState &state, DatabaseQueue *queue,
                                     const std::vector<Entry> &batch) {
    try {
        write_batch(state, Mode::Writer, batch);
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
            audit_worker_failed(queue, text);
            ereport(LOG,
                    (errmsg("pg_clarify audit writer: writing %zu decisions failed: %s", n, text)));
        });
        return message;
    }
}

// Moves the committed position to `upto` and publishes what the batch stored.
void commit_entries(WriterState &state, DatabaseQueue *queue, uint64 upto, uint64 entries,
                    uint64 malformed) {
    const std::vector<AuditHash> &publish = state.cache.to_publish();
    uint64 purge_seen = state.cache.purge_seen();
    bool kept = pg_guard([&] {
        return audit_worker_commit(queue, upto, entries, malformed, !state.unconfirmed,
                                   publish.data(), publish.size(), purge_seen);
    });
    state.cache.note_published(kept, batch_may_publish(purge_seen, purge_generation()));
}

// What is queued now, decoded into state.batch (and state.ends).
struct Peeked {
    uint64 from = 0, bytes = 0, malformed = 0;
};
Peeked peek(WriterState &state, DatabaseQueue *queue, std::vector<char> &buffer) {
    Peeked p;
    char *scratch = buffer.data();
    uint64 cap = buffer.size();
    const char *bytes =
        pg_guard([&] { return audit_worker_peek(queue, scratch, cap, &p.from, &p.bytes); });
    state.batch.clear();
    state.ends.clear();
    p.malformed =
        decode_frames(std::string_view(bytes, p.bytes), [&](std::string_view, const AuditView &view,
                                                            uint64 end) {
            state.batch.push_back(view);
            state.ends.push_back(end);
            return true;
        }).malformed;
    return p;
}

// The batch one entry at a time, each in its own transaction: the number written, or -1 when
// even an entry's reduced row could not be written.
long write_one_by_one(WriterState &state, DatabaseQueue *queue, const Peeked &p) {
    size_t n = state.batch.size();
    for (size_t i = 0; i < n; ++i) {
        std::vector<AuditRecord> one{to_record(state.batch[i])};
        std::optional<std::string> error = try_write(state, queue, one);
        if (after_entry(error.has_value(), false) == EntryStep::Reduce) {
            std::vector<AuditRecord> reduced{unwritable(one[0], *error)};
            bool failed = try_write(state, queue, reduced).has_value();
            if (after_entry(failed, true) == EntryStep::BackOff) return -1;
        }
        bool last = i + 1 == n;
        commit_entries(state, queue, p.from + (last ? p.bytes : state.ends[i]), 1,
                       last ? p.malformed : 0);
    }
    return static_cast<long>(n);
}

}  // namespace

void write_forwarded(const std::vector<AuditView> &batch) {
    // This backend's cache describes no writer's work: every text is compared on insert.
    WriterState state;
    write_batch(state, Mode::Ingest, batch);
}

long drain(WriterState &state, DatabaseQueue *queue, std::vector<char> &buffer) {
    long total = 0;
    for (;;) {
        Peeked p = peek(state, queue, buffer);
        if (p.bytes == 0) return total;
        size_t n = state.batch.size();
        if (state.retry.whole(n)) {
            if (n == 0 || !try_write(state, queue, state.batch)) {
                state.retry.written();
                commit_entries(state, queue, p.from + p.bytes, n, p.malformed);
                total += static_cast<long>(n);
                // Decisions are durable (sync) or queued (async) already: the next batch
                // gathers unless the queue is filling up (a quarter of it wakes us anyway).
                uint64 pending = pg_guard([&] { return audit_pending_bytes(queue); });
                if (!drains_on(pending, audit_ring_size(), ShutdownRequestPending)) return total;
                continue;
            }
            if (state.retry.back_off(n)) return -1;
        }
        long written = write_one_by_one(state, queue, p);
        if (written < 0) return -1;
        total += written;
        state.retry.written();
    }
}

}  // namespace clarify::pg
