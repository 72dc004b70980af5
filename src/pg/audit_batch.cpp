#include "pg.hpp"
#include "audit_batch.hpp"
#include "audit_protocol.hpp"
#include "audit_record.hpp"
#include "audit_tables.hpp"
#include "boundary.hpp"
#include "compat.hpp"
#include "settings.hpp"
#include "shared_memory.hpp"

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
#include <cstring>
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

// Statements, records and decision shapes repeat: each is stored once, under its keyed hash
// (audit_hash.hpp). The writer remembers which it stored itself or found holding the same
// bytes; purge_audit() may delete orphans, and bumps a generation the writer checks under the
// lock that purge also takes.
HashSet stored;
// What the last batch written stored (texts and shapes, inserted or already there), and the
// purge generation it began under: published after its commit for short entries.
std::vector<AuditHash> batch_to_publish;
uint64 batch_purge_seen = 0;
// The purge generation `stored` is valid for (one for every instantiation of write_batch).
uint64 seen_generation = 0;
// What this writer has published and not seen emptied since (a subset of `stored`).
HashSet published;
// Identities the audit holds with other bytes than the decisions carrying them, and where this
// writer stored those decisions' own bytes instead (cleared with `stored`; never published).
HashMap diverted;
// The audit's text tables as the last batch found them: tables recreated meanwhile (DROP and
// CREATE EXTENSION) hold none of what was stored or published before.
Oid texts_relid = InvalidOid, shapes_relid = InvalidOid;
// The identity width the last batch found (a change means the tables were updated or recreated).
Width last_width = Width::Unknown;

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

// Whether the last batch written was committed without its synchronous standby's confirmation.
bool last_batch_unconfirmed = false;

// The statement text and shape that stand in for those a short entry names but the audit no
// longer holds (its tables were recreated while the decision was queued).
constexpr const char *kLostText =
    "(not available: the audit's tables were recreated while this decision was queued)";
constexpr const char *kLostRecord =
    "{\"not_available\": \"the audit's tables were recreated while this decision was queued\"}";

// Works on owned records (the fallback path) and on views into the queue (the hot path).
// Set while clarify.audit_ingest() writes a standby's batch in its caller's transaction: no
// transaction of its own, no commit level, nothing remembered or published (not the writer).
bool in_caller_transaction = false;

template <typename Entry>
void write_batch(AuditSlot *slot, const std::vector<Entry> &batch) {
    bool any_sync = false;
    for (const Entry &a : batch) any_sync = any_sync || a.sync;
    CommitLevel level(any_sync && !in_caller_transaction);
    pg_guard([&] {
        if (!in_caller_transaction) {
            SetCurrentStatementStartTimestamp();
            StartTransactionCommand();
        }
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
        PushActiveSnapshot(GetTransactionSnapshot());
        if (!in_caller_transaction)
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
                const char *name = get_database_name(MyDatabaseId);
                ereport(LOG, (errmsg("pg_clarify audit writer: the audit of database \"%s\" is at "
                                     "catalog 1.0: decisions are written with their texts, "
                                     "under 64-bit identities",
                                     name ? name : "?"),
                              errhint("Run ALTER EXTENSION pg_clarify UPDATE.")));
            });
        // Nothing published before holds for new tables; nor does what this batch would publish.
        if (recreated && !in_caller_transaction)
            pg_guard([] { audit_forget_published(MyDatabaseId); });
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
    batch_to_publish.clear();

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
            if (!a.is_short) continue;
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
            note_id.push_back(std::to_string(static_cast<long long>(a.decision_id)));
            note_at.push_back(std::to_string(a.decided_at));
            note_text.push_back(std::string(a.note));
            continue;
        }
        if (a.is_short) {
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
    if (in_caller_transaction) {
        pg_guard([] {
            SPI_finish();
            PopActiveSnapshot();
        });
        return;
    }
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
        batch_to_publish = std::move(batch_publish);
        for (const AuditHash &h : fresh) stored.insert(h);
        diverted.insert(moved.begin(), moved.end());
    } catch (...) {
        batch_to_publish.clear();
        stored.clear();
        published.clear();
        diverted.clear();
    }
}

// After a commit published batch_to_publish: remembered, unless the published set was full and
// emptied first (then what this writer published is forgotten: it publishes again as it meets
// those hashes). No throw: the batch is committed.
void note_published(bool kept) noexcept {
    try {
        if (!kept) published.clear();
        if (batch_may_publish(batch_purge_seen, purge_generation()))
            for (const AuditHash &h : batch_to_publish) published.insert(h);
    } catch (...) {
        published.clear();
    }
    batch_to_publish.clear();
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
    safe.is_short = false;  // its texts are given here
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

}  // namespace

void write_forwarded(const std::vector<AuditView> &batch) {
    // This backend's caches describe no writer's work: every text is compared on insert.
    stored.clear();
    published.clear();
    diverted.clear();
    struct Flag {
        Flag() { in_caller_transaction = true; }
        ~Flag() { in_caller_transaction = false; }
    } ingesting;
    write_batch(nullptr, batch);
    batch_to_publish.clear();
}

// After repeated failures entries are written one
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
                                               !last_batch_unconfirmed, batch_to_publish.data(),
                                               batch_to_publish.size(), batch_purge_seen);
                });
                note_published(kept);
                total += static_cast<long>(batch.size());
                // Decisions are durable (sync) or queued (async) already: the next batch
                // gathers unless the queue is filling up (a quarter of it wakes us anyway).
                uint64 pending = pg_guard([&] { return audit_pending_bytes(slot); });
                if (pending * 4 <= audit_ring_size() && !ShutdownRequestPending) return total;
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
                                           !last_batch_unconfirmed, batch_to_publish.data(),
                                           batch_to_publish.size(), batch_purge_seen);
            });
            note_published(kept);
            ++total;
        }
        failures = 0;
    }
}

}  // namespace clarify::pg
