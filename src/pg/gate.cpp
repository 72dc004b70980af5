#include "pg.hpp"
#include "gate.hpp"
#include "audit_queue.hpp"
#include "audit_record.hpp"
#include "boundary.hpp"
#include "compat.hpp"
#include "governance.hpp"
#include "payload.hpp"
#include "read_set.hpp"
#include "settings.hpp"
#include "shared.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "commands/copy.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "tcop/tcopprot.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "tcop/dest.h"
#include "utils/inval.h"
#include "utils/timestamp.h"
}

#include <nlohmann/json.hpp>

#include <unordered_set>
#include <vector>

namespace clarify::pg {

namespace {

ExecutorStart_hook_type prev_executor_start = nullptr;
bool in_audit_writer = false;  // the writer's own statements are not decisions
CheckPermsHook prev_check_perms = nullptr;

// The statement whose ExecutorStart is under way: its plan lets the permission check hook
// trace demand precisely. Saved and restored around nested starts.
PlannedStmt *starting_stmt = nullptr;
const char *starting_text = nullptr;
bool starting_explain_only = false;
// In a parallel worker: whether the plan starting is the part of the leader's plan the worker
// runs (its output goes back to the leader through a tuple queue). The leader decided that one;
// anything else a worker starts (SQL run by a function) is a statement of its own.
bool starting_leader_part = false;
// Set while clarify.check() applies the caller's privilege checks: not a statement to decide.
bool checking_privileges = false;

// The session's most recent decision, as the audit received it.
struct LastDecision {
    bool present = false;
    AuditRecord audit;
    uint64 template_refresh = 0;     // which refresh of the decision cache audit's fields come from
    const char *audited = "";        // committed, queued, or why it was not audited
    bool refused_unaudited = false;  // QC005: the statement did not run
};
LastDecision last;

int sqlcode_of(State state) {
    const char *s = sqlstate_of(state);
    return MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4]);
}

}  // namespace

// Which range table entries are governed relations; nullptr when none is (the common case).
bool *watched_entries(const Catalog &catalog, List *range_table) {
    int n = pg_guard([&] { return list_length(range_table); });
    bool *watched = nullptr;
    for (int i = 0; i < n; ++i) {
        RangeTblEntry *rte = static_cast<RangeTblEntry *>(list_nth(range_table, i));
        if (rte->rtekind != RTE_RELATION || !catalog.governs_relation(rte->relid)) continue;
        if (!watched) watched = pg_guard([&] { return static_cast<bool *>(palloc0(n)); });
        watched[i] = true;
    }
    return watched;
}

GovernedReads governed_reads(const Catalog &catalog, ReadSet reads) {
    GovernedReads out;
    for (int i = 0; i < reads.count; ++i) {
        const ColumnRead &r = reads.reads[i];
        if (r.attnum == 0) {
            for (const GovernedColumn *c : catalog.columns_of(r.relation)) out.push_back(c);
        } else if (const GovernedColumn *c = catalog.column(ColumnKey{r.relation, r.attnum})) {
            out.push_back(c);
        }
    }
    return out;
}

GovernedReads plan_governed_reads(const Catalog &catalog, PlannedStmt *stmt) {
    bool *watched = watched_entries(catalog, stmt->rtable);
    if (!watched) return {};
    ReadSet reads = pg_guard([&] { return plan_read_set(stmt, watched); });
    return governed_reads(catalog, reads);
}

namespace {
template <typename Check>
void without_gate(Check &&check) {
    checking_privileges = true;
    try {
        pg_guard(check);
    } catch (...) {
        checking_privileges = false;
        throw;
    }
    checking_privileges = false;
}
}  // namespace

void check_plan_privileges(PlannedStmt *stmt) {
    without_gate([&] { check_select_privileges(stmt); });
}

void check_copy_privileges(Oid relation, Bitmapset *selected) {
    without_gate([&] { check_select_privilege(relation, selected); });
}

namespace {

// The statement as the audit keeps it: this statement's part of the source text, at most 64 kB
// (with a 64 kB record it always fits the smallest queue; padding cannot push a decision out).
constexpr size_t kMaxStatementBytes = 64 * 1024;

// Sets `out` to the statement's text (its own part of a multi-statement string, cut at
// kMaxStatementBytes) and returns whether it changed: a statement run again keeps its hash.
bool set_statement_text(std::string &out, const char *source, const PlannedStmt *stmt) {
    if (!source) {
        bool changed = !out.empty();
        out.clear();
        return changed;
    }
    size_t length = strlen(source), begin = 0, count = length;
    if (stmt && stmt->stmt_location >= 0 && static_cast<size_t>(stmt->stmt_location) <= length) {
        begin = stmt->stmt_location;
        count = stmt->stmt_len > 0 ? Min(static_cast<size_t>(stmt->stmt_len), length - begin)
                                   : length - begin;
    }
    if (count <= kMaxStatementBytes) {
        if (std::string_view(out) == std::string_view(source + begin, count)) return false;
        out.assign(source + begin, count);
        return true;
    }
    size_t cut = kMaxStatementBytes;
    while (cut > 0 && (static_cast<unsigned char>(source[begin + cut]) & 0xC0) == 0x80) --cut;
    out = std::string(source + begin, cut) + " ... [statement truncated: " + std::to_string(count) +
          " bytes]";
    return true;
}

const char *audit_outcome(EnqueueResult result) {
    switch (result) {
        case EnqueueResult::Committed:
            return "committed";
        case EnqueueResult::Queued:
            return "queued";
        case EnqueueResult::Dropped:
            return "dropped: the audit queue was full";
        case EnqueueResult::TimedOut:
            return "not committed within pg_clarify.audit_timeout";
        case EnqueueResult::Unconfirmed:
            return "the audit writer was stopped or cancelled before a synchronous standby "
                   "confirmed it";
        case EnqueueResult::QueueFull:
            return "the audit queue had no room within pg_clarify.audit_timeout";
        case EnqueueResult::NoWriter:
            return "no audit writer could serve this database";
        case EnqueueResult::TooLarge:
            return "larger than the audit queue";
    }
    return "unknown";
}

// Queues the note that a sync decision whose row is or will be in the audit (not committed in
// time, or not confirmed) was refused with QC005; written after that row: the queue keeps order.
void note_refusal(const AuditRecord &a, const char *why) {
    AuditRecord note;
    note.decision_id = a.decision_id;
    note.decided_at = pg_guard([] { return GetCurrentTimestamp(); });
    note.database = a.database;
    note.sync = false;
    note.note = std::string("refused with QC005: ") + why;
    std::string note_entry;
    encode(note, note_entry);
    const char *note_bytes = note_entry.data();
    uint32 note_length = static_cast<uint32>(note_entry.size());
    EnqueueResult noted =
        pg_guard([&] { return audit_enqueue(note_bytes, note_length, false, 0); });
    if (noted != EnqueueResult::Queued) {
        uint64 decision_id = a.decision_id;
        pg_guard([&] {
            ereport(WARNING, (errmsg("pg_clarify could not note that decision %lu was refused "
                                     "unaudited",
                                     (unsigned long)decision_id)));
        });
    }
}

// Decides one statement for a gated session, audits the decision (sync: committed before
// anything else happens) and throws the clarification error on rejection.
// The last decision and its rendered audit fields, reused while nothing it depends on moved:
// the same governed columns read, the same record, catalog, memberships and roles, and no
// validity window, default or approval starting or ending since. A prepared statement run over
// and over decides once.
struct DecisionCache {
    std::shared_ptr<const Catalog> catalog;  // keeps the GovernedColumn pointers alive
    uint64 catalog_generation = 0, membership_generation = 0;
    unsigned long record_generation = 0;
    Oid session = InvalidOid, outer = InvalidOid;
    Timestamp valid_from = 0, valid_until = 0;  // when the decision holds (clock steps back)
    std::vector<const GovernedColumn *> read;
    Decision decision;
    AuditRecord audit;   // without the per-statement facts
    uint64 refresh = 0;  // counts the times it was filled
};
DecisionCache cached;

void decide_statement(const std::shared_ptr<const Catalog> &catalog_ptr,
                      const std::vector<const GovernedColumn *> &read, const PlannedStmt *stmt,
                      const char *source) {
    const Catalog &catalog = *catalog_ptr;
    struct Key {
        Oid session, outer;
        Timestamp now;
    };
    Key key = pg_guard([] { return Key{GetSessionUserId(), GetOuterUserId(), statement_time()}; });
    bool hit = cached.catalog == catalog_ptr && cached.catalog_generation == catalog_generation() &&
               cached.membership_generation == membership_generation() &&
               cached.record_generation == record_generation() && cached.session == key.session &&
               cached.outer == key.outer && cached.valid_from <= key.now &&
               key.now < cached.valid_until && cached.read == read;
    if (!hit) {
        const ResolutionRecord &record = current_record();
        AgentContext ctx = agent_context(catalog);
        cached.decision = decide(catalog, ctx, record, read);
        // Captured now: a rejection's abort will undo any SET LOCAL of the record.
        cached.audit = audit_record_of(catalog, cached.decision, record);
        cached.audit.shape_hash = shape_hash_of(audit_key(), cached.audit);
        if (!cached.audit.record.empty())
            cached.audit.record_hash = content_hash(audit_key(), "record", cached.audit.record);
        cached.catalog = catalog_ptr;
        cached.catalog_generation = catalog_generation();
        cached.membership_generation = membership_generation();
        cached.record_generation = record_generation();
        cached.session = key.session;
        cached.outer = key.outer;
        cached.valid_from = key.now;
        cached.valid_until = catalog.next_change_after(key.now);
        cached.read = read;
        ++cached.refresh;
    }
    const Decision &decision = cached.decision;
    // The record is built in place in `last`: its shared fields are copied only when the cached
    // decision changed, the per-statement facts are overwritten every time.
    if (!last.present || last.template_refresh != cached.refresh) {
        last.audit = cached.audit;
        last.template_refresh = cached.refresh;
    }
    last.present = true;
    // Until the queue answers: an error out of the wait (a cancel) must not leave the previous
    // statement's outcome on this decision.
    last.audited = "not known: the statement was interrupted while its decision was queued";
    last.refused_unaudited = false;
    AuditRecord &audit = last.audit;
    struct Facts {
        uint64 id;
        TimestampTz at;
        Oid database, session_role, acting_role;
        int pid;
    };
    Facts facts = pg_guard([] {
        return Facts{next_decision_id(), GetCurrentTimestamp(), MyDatabaseId,
                     GetSessionUserId(), GetOuterUserId(),      MyProcPid};
    });
    audit.decision_id = facts.id;
    audit.decided_at = facts.at;
    audit.database = facts.database;
    audit.session_role = facts.session_role;
    audit.acting_role = facts.acting_role;
    audit.pid = facts.pid;
    audit.query_id = stmt ? static_cast<int64>(stmt->queryId) : 0;
    bool same_text = !set_statement_text(audit.statement, source, stmt) && audit.statement_hash;
    if (!same_text) audit.statement_hash = content_hash(audit_key(), "statement", audit.statement);
    audit.sync = audit_mode == static_cast<int>(AuditMode::Sync);

    // The queue entry: encoded anew when anything but the id and time differs from the last one,
    // else the last one with those two rewritten (a prepared statement run over and over).
    struct EntryKey {
        uint64 refresh;
        int64 query_id;
        uint32 database, session_role, acting_role;
        int32 pid;
        bool sync;
        bool operator==(const EntryKey &o) const {
            return refresh == o.refresh && query_id == o.query_id && database == o.database &&
                   session_role == o.session_role && acting_role == o.acting_role && pid == o.pid &&
                   sync == o.sync;
        }
    };
    static std::string entry;  // reused: no allocation per statement once it has grown
    // The same decision without the texts the audit may already hold: the queue takes it
    // instead when they are (a third of the bytes or less to copy in and for the writer to read).
    static std::string short_entry;
    static EntryKey entry_key{};
    EntryKey key_now{last.template_refresh, audit.query_id, audit.database, audit.session_role,
                     audit.acting_role,     audit.pid,      audit.sync};
    if (same_text && !entry.empty() && entry_key == key_now) {
        patch_entry(entry, audit.decision_id, audit.decided_at);
        if (!short_entry.empty()) patch_entry(short_entry, audit.decision_id, audit.decided_at);
    } else {
        entry_key = EntryKey{};  // no match until encode() has finished (it may throw)
        entry.clear();
        short_entry.clear();
        encode(audit, entry);
        if (can_encode_stored(audit)) encode_stored(audit, short_entry);
        entry_key = key_now;
    }
    const char *bytes = entry.data();
    uint32 length = static_cast<uint32>(entry.size());
    bool sync = audit.sync;
    ShortEntry stored_form{short_entry.data(),
                           static_cast<uint32>(short_entry.size()),
                           {audit.statement_hash, audit.shape_hash, audit.record_hash}};
    const ShortEntry *alternative = short_entry.empty() ? nullptr : &stored_form;
    EnqueueResult result =
        pg_guard([&] { return audit_enqueue(bytes, length, sync, audit_timeout_ms, alternative); });

    last.audited = audit_outcome(result);
    last.refused_unaudited = false;
    const AuditRecord &a = last.audit;
    auto id = [&a] { return std::to_string(a.decision_id); };

    // Fail closed in both modes: a decision runs only once it is committed (sync) or queued
    // (async); load never skips one.
    if (result != (sync ? EnqueueResult::Committed : EnqueueResult::Queued)) {
        // The statement will not run. A decision queued but not committed in time (or committed
        // without a synchronous standby's confirmation) has or will have its row: say so in the
        // audit too, after that row (queued without waiting; the queue keeps order). One never
        // queued (no room, no writer, too large) has no row to annotate: the server log says it.
        last.refused_unaudited = true;
        if (result == EnqueueResult::TimedOut || result == EnqueueResult::Unconfirmed) {
            note_refusal(a, last.audited);
        } else {
            uint64 decision_id = a.decision_id;
            const char *why = last.audited;
            pg_guard([&] {
                ereport(WARNING, (errmsg("pg_clarify refused decision %lu unaudited: %s",
                                         (unsigned long)decision_id, why)));
            });
        }
        nlohmann::json detail = {
            {"decision_id", id()},
            {"state", "AUDIT_UNAVAILABLE"},
            {"question_id",
             a.question_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.question_id)},
            {"status", "audit_unavailable"},
            {"gate_decision", a.allowed ? "allowed" : "rejected"},
            {"gate_state", to_string(a.state)},
            {"reason", last.audited},
            {"slots", nlohmann::json::array()}};
        throw ReportedError(
            MAKE_SQLSTATE('Q', 'C', '0', '0', '5'),
            std::string("the decision could not be written to the audit: ") + last.audited,
            detail.dump(),
            "The statement did not run. Retry it; if this persists, the DBA can "
            "look at clarify.audit_queue() and the server log.");
    }
    if (a.allowed) return;
    throw ReportedError(sqlcode_of(a.state), message_text(catalog, decision),
                        decision_json(catalog, decision, id(), a.question_id, false),
                        hint_text(catalog, decision));
}

// The governed columns each recently started plan reads. A plan is not changed while the memory
// context holding it lives, and the read set depends only on the plan and on which relations the
// catalog governs: a prepared statement run over and over is traced once per catalog. A reset
// callback on the plan's context forgets its entry before that memory can hold another plan.
struct PlanReads {
    const PlannedStmt *stmt = nullptr;  // nullptr: free
    const Plan *plan_tree = nullptr;    // checked too: a plan in reused memory has new parts
    const List *rtable = nullptr;
    std::shared_ptr<const Catalog> catalog;  // keeps the GovernedColumn pointers alive
    std::shared_ptr<const GovernedReads> read;
};
constexpr int kPlanReadsEntries = 16;
PlanReads plan_reads_cache[kPlanReadsEntries];
int plan_reads_next = 0;
// Plans whose memory context has our callback: one per plan, however often its entry is evicted
// and filled again (a plan run in turn with more than kPlanReadsEntries others would otherwise
// add a callback to its context at every run). Never destroyed: a context reset at exit may
// still call back.
std::unordered_set<const PlannedStmt *> &plans_watched() {
    static auto *plans = new std::unordered_set<const PlannedStmt *>;
    return *plans;
}

// Runs inside a memory context reset or delete, possibly during an abort: allocates nothing.
extern "C" void forget_plan_reads(void *arg) noexcept {
    const auto *stmt = static_cast<const PlannedStmt *>(arg);
    for (PlanReads &e : plan_reads_cache)
        if (e.stmt == stmt) e.stmt = nullptr;
    plans_watched().erase(stmt);
}

// The governed columns `stmt` reads, or nullptr when it touches no governed relation (such plans
// are not kept: the check is as cheap as a look-up, and they would push out the others). Assumes
// what PostgreSQL does: a PlannedStmt is a palloc'd chunk, and nothing changes it in place (plans
// are replaced, never edited, when invalidated).
std::shared_ptr<const GovernedReads> plan_reads(const std::shared_ptr<const Catalog> &catalog,
                                                PlannedStmt *stmt) {
    for (PlanReads &e : plan_reads_cache) {
        if (!e.catalog) continue;
        if (e.stmt && e.catalog == catalog) {
            if (e.stmt == stmt && e.plan_tree == stmt->planTree && e.rtable == stmt->rtable)
                return e.read;
        } else {
            // A plan that is gone, or a catalog that was replaced (it never comes back).
            e.stmt = nullptr;
            e.catalog.reset();
            e.read.reset();
        }
    }
    bool *watched = watched_entries(*catalog, stmt->rtable);
    if (!watched) return nullptr;
    auto read = std::make_shared<GovernedReads>();
    ReadSet reads = pg_guard([&] { return plan_read_set(stmt, watched); });
    *read = governed_reads(*catalog, reads);
    if (plans_watched().insert(stmt).second) {
        try {
            pg_guard([&] {
                MemoryContext context = GetMemoryChunkContext(stmt);
                auto *callback = static_cast<MemoryContextCallback *>(
                    MemoryContextAlloc(context, sizeof(MemoryContextCallback)));
                callback->func = forget_plan_reads;
                callback->arg = stmt;
                MemoryContextRegisterResetCallback(context, callback);
            });
        } catch (...) {
            plans_watched().erase(stmt);
            throw;
        }
    }
    PlanReads &e = plan_reads_cache[plan_reads_next];
    plan_reads_next = (plan_reads_next + 1) % kPlanReadsEntries;
    e.stmt = stmt;
    e.plan_tree = stmt->planTree;
    e.rtable = stmt->rtable;
    e.catalog = catalog;
    e.read = read;
    return read;
}

void gate_range_table(List *range_table) {
    if (!session_is_gated()) return;
    std::shared_ptr<const Catalog> catalog = governance_catalog();
    if (!catalog || catalog->column_count() == 0) return;

    PlannedStmt *stmt =
        starting_stmt && starting_stmt->rtable == range_table ? starting_stmt : nullptr;
    if (stmt) {
        if (starting_explain_only) return;  // plain EXPLAIN reads nothing
        std::shared_ptr<const GovernedReads> read = plan_reads(catalog, stmt);
        if (read && !read->empty()) decide_statement(catalog, *read, stmt, starting_text);
        return;
    }
    bool *watched = watched_entries(*catalog, range_table);
    if (!watched) return;
    ReadSet reads = pg_guard([&] { return range_table_read_set(range_table, watched); });
    GovernedReads read = governed_reads(*catalog, reads);
    if (!read.empty()) decide_statement(catalog, read, nullptr, debug_query_string);
}

void clarify_executor_start(QueryDesc *query_desc, int eflags) {
    // clarify.check() runs nothing: a function its planning reaches must not run statements
    // (table_to_xml, SQL in a PL/pgSQL function); the gate's own catalog loading excepted.
    if (check_is_planning() && !loading_governance())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("clarify.check() runs no statement while planning one"),
                        errdetail("Planning the statement called a function that runs SQL.")));
    PlannedStmt *saved_stmt = starting_stmt;
    const char *saved_text = starting_text;
    bool saved_explain = starting_explain_only;
    bool saved_leader_part = starting_leader_part;
    starting_stmt = query_desc->plannedstmt;
    starting_text = query_desc->sourceText;
    starting_explain_only = (eflags & EXEC_FLAG_EXPLAIN_ONLY) != 0;
    starting_leader_part =
        IsParallelWorker() && query_desc->dest && query_desc->dest->mydest == DestTupleQueue;
    PG_TRY();
    {
        if (prev_executor_start)
            prev_executor_start(query_desc, eflags);
        else
            standard_ExecutorStart(query_desc, eflags);
    }
    PG_FINALLY();
    {
        starting_stmt = saved_stmt;
        starting_text = saved_text;
        starting_explain_only = saved_explain;
        starting_leader_part = saved_leader_part;
    }
    PG_END_TRY();
}

bool clarify_check_perms(CLARIFY_CHECK_PERMS_ARGS) {
    if (prev_check_perms && !CLARIFY_CHECK_PERMS_CALL(prev_check_perms)) return false;
    if (!gate_enabled || loading_governance() || in_audit_writer || checking_privileges)
        return true;
    // A parallel worker's share of the leader's plan was decided by the leader.
    if (starting_leader_part && starting_stmt && starting_stmt->rtable == range_table) return true;
    // Changes committed since this transaction last took a lock (a revoked approval, a new
    // agent role) apply to this statement: a lock already held would not have read them.
    AcceptInvalidationMessages();
    if (known_not_gated(GetSessionUserId(), GetOuterUserId(), GetUserId())) return true;
    cpp_entry([&] { gate_range_table(range_table); });
    return true;
}

}  // namespace

void mark_audit_writer() {
    in_audit_writer = true;
}

bool gate_active() {
    return gate_enabled && !in_audit_writer && !loading_governance();
}

void install_gate() {
    prev_executor_start = ExecutorStart_hook;
    ExecutorStart_hook = clarify_executor_start;
    prev_check_perms = ExecutorCheckPerms_hook;
    ExecutorCheckPerms_hook = clarify_check_perms;
    install_check();
    install_statistics_filter();
    install_shared_memory();
}

std::string last_decision_json() {
    if (!last.present) return {};
    const AuditRecord &a = last.audit;
    using nlohmann::json;
    auto text_or_null = [](const std::string &t) { return t.empty() ? json(nullptr) : json(t); };
    json payload = a.payload.empty() ? json(nullptr) : json::parse(a.payload);
    if (payload.is_object()) payload["decision_id"] = std::to_string(a.decision_id);
    bool allowed = a.allowed && !last.refused_unaudited;
    json out = {{"decision_id", std::to_string(a.decision_id)},
                {"decision", allowed ? "allowed" : "rejected"},
                {"state", last.refused_unaudited ? "AUDIT_UNAVAILABLE" : to_string(a.state)},
                {"gate_decision", a.allowed ? "allowed" : "rejected"},
                {"status", a.allowed ? "resolved" : "awaiting_clarification"},
                {"question_id", text_or_null(a.question_id)},
                {"reason", a.reason},
                {"columns", json::parse(a.columns)},
                {"bindings", json::parse(a.bindings)},
                {"slots", payload.is_object() ? payload["slots"] : json::array()},
                {"payload", payload},
                {"record", a.record.empty() ? json(nullptr) : json::parse(a.record)},
                {"statement", a.statement},
                {"query_id", a.query_id},
                {"pid", a.pid},
                {"audited", last.audited}};
    struct Names {
        const char *session_role, *acting_role, *decided_at;
    };
    Oid session = a.session_role, acting = a.acting_role;
    TimestampTz at = a.decided_at;
    Names names = pg_guard([&] {
        return Names{GetUserNameFromId(session, true), GetUserNameFromId(acting, true),
                     timestamptz_to_str(at)};
    });
    out["session_role"] = names.session_role ? names.session_role : "";
    out["acting_role"] = names.acting_role ? names.acting_role : "";
    out["decided_at"] = names.decided_at;
    return out.dump();
}

}  // namespace clarify::pg
