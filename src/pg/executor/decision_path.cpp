#include "pg/pg.hpp"
#include "pg/executor/decision_path.hpp"
#include "pg/replica/forward.hpp"
#include "core/audit/protocol.hpp"
#include "pg/audit/queue.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "core/render/payload.hpp"
#include "core/render/detail_template.hpp"
#include "pg/settings.hpp"
#include "pg/audit/decision_ids.hpp"
#include "pg/shared_memory.hpp"
#include "pg/plan/time_quals.hpp"
#include "pg/catalog/time_windows.hpp"
#include "pg/executor/question_rounds.hpp"
#include "pg/executor/audit_outcome.hpp"
#include "pg/executor/zone_clock.hpp"

extern "C" {
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "utils/timestamp.h"
}

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clarify::pg {

namespace {

LastDecision last;

int sqlcode_of(State state) {
    const char *s = sqlstate_of(state);
    return MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4]);
}

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
    SubmitResult noted =
        entry_refusal(note_entry, note.database).empty()
            ? pg_guard([&] { return audit_submit(note_bytes, note_length, false, 0); })
            : SubmitResult::Malformed;
    if (noted != SubmitResult::Queued) {
        uint64 decision_id = a.decision_id;
        pg_guard([&] {
            ereport(WARNING, (errmsg("pg_clarify could not note that decision %lu was refused "
                                     "unaudited",
                                     (unsigned long)decision_id)));
        });
    }
}

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
    std::vector<AggregateUse> aggregates;
    TimeFacts time;
    SegmentFacts segments;
    std::vector<EntityLookup> entities;
    int assume_below = 0;
    bool require_question = false;
    int enforcement = 0;
    bool budget_spent = false;
    Decision decision;
    AuditRecord audit;   // without the per-statement facts
    uint64 refresh = 0;  // counts the times it was filled
};
DecisionCache cached;
// Numbers every filling of a DecisionCache (cached, and the rounds' copy below).
uint64 refreshes = 0;

// The audit record of a decision, with the enforcement mode and the hashes the queue needs.
AuditRecord audit_of(const Catalog &catalog, const Decision &decision,
                     const ResolutionRecord &record) {
    AuditRecord a = audit_record_of(catalog, decision, record);
    apply_enforcement(a, static_cast<Enforcement>(enforcement));
    a.shape_hash = shape_hash_of(audit_key(), a);
    if (!a.record.empty()) a.record_hash = content_hash(audit_key(), "record", a.record);
    return a;
}

// Step 1, decide: the cached decision, decided again when anything it depends on moved.
const DecisionCache &decide_cached(const std::shared_ptr<const Catalog> &catalog_ptr,
                                   const GovernedReads &read,
                                   const std::vector<AggregateUse> &aggregates, TimeFacts time,
                                   const SegmentFacts &segments,
                                   const std::vector<EntityLookup> &entities,
                                   bool budget_spent = false) {
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
               key.now < cached.valid_until && cached.read == read &&
               cached.aggregates == aggregates && cached.time == time &&
               cached.segments == segments && same_entity_decision(cached.entities, entities) &&
               cached.assume_below == assume_below && cached.require_question == require_question &&
               cached.enforcement == enforcement && cached.budget_spent == budget_spent;
    if (hit) return cached;
    const ResolutionRecord &record = current_record();
    AgentContext ctx = agent_context(catalog);
    DecideOptions options = decide_options(catalog_ptr);
    options.segments = &segments;
    options.budget_spent = budget_spent;
    cached.decision = decide(catalog, ctx, record, read, aggregates, time, options);
    // After decide(): an entity slot is never assumed, also once the budget is spent (§19).
    add_entity_outcomes(cached.decision, entities);
    // The names bound to one key are bound per execution (fill_audit_record): the decision holds
    // for any of them.
    cached.decision.entity_bindings.clear();
    // Captured now: a rejection's abort will undo any SET LOCAL of the record.
    cached.audit = audit_of(catalog, cached.decision, record);
    cached.catalog = catalog_ptr;
    cached.catalog_generation = catalog_generation();
    cached.membership_generation = membership_generation();
    cached.record_generation = record_generation();
    cached.session = key.session;
    cached.outer = key.outer;
    cached.valid_from = key.now;
    cached.valid_until = catalog.next_change_after(key.now);
    cached.read = read;
    cached.aggregates = aggregates;
    cached.time = std::move(time);
    cached.segments = segments;
    cached.entities = entities;
    cached.assume_below = assume_below;
    cached.require_question = require_question;
    cached.enforcement = enforcement;
    cached.budget_spent = budget_spent;
    cached.refresh = ++refreshes;
    return cached;
}

// Step 1b, the clarification budget: the cached decision (step 1) and, on the rejection path
// only, an enforced AMBIGUOUS decision under a question_id decided again once its question's
// budget is spent, carrying its round (core/decide/budget.hpp). Anything else as step 1 made it.
const DecisionCache &decide_rounds(const std::shared_ptr<const Catalog> &catalog,
                                   const GovernedReads &read,
                                   const std::vector<AggregateUse> &aggregates, TimeFacts time,
                                   const SegmentFacts &segments,
                                   const std::vector<EntityLookup> &entities) {
    const DecisionCache &decided =
        decide_cached(catalog, read, aggregates, std::move(time), segments, entities);
    if (enforcement != static_cast<int>(Enforcement::Enforce)) return decided;
    const ResolutionRecord &record = current_record();
    std::optional<Rounds> rounds = rounds_for(decided.decision, record.question_id);
    if (!rounds) return decided;
    const DecisionCache *spent = &decided;
    if (rounds->exhausted)
        spent = &decide_cached(catalog, read, aggregates, decided.time, segments, entities, true);
    static DecisionCache stamped;
    stamped = *spent;
    stamped.decision.rounds = *rounds;
    stamped.audit = audit_of(*catalog, stamped.decision, record);
    stamped.refresh = ++refreshes;
    return stamped;
}

// Step 2, the audit record: built in place in `last`. Its shared fields are copied only when the
// cached decision changed; the per-statement facts are overwritten every time. Returns whether
// the statement's text is the one the previous decision had.
bool fill_audit_record(const DecisionCache &decided, const PlannedStmt *stmt, const char *source,
                       const std::vector<EntityLookup> &entities) {
    if (!last.present || last.template_refresh != decided.refresh) {
        last.audit = decided.audit;
        last.template_refresh = decided.refresh;
    }
    // This execution's entity bindings: per decision, outside the shape (its hash is the cached
    // decision's whichever key a name is bound to).
    if (!entities.empty())
        entity_bindings_json(entities, last.audit.entity_bindings);
    else if (!last.audit.entity_bindings.empty())
        last.audit.entity_bindings.clear();
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
    return same_text;
}

// The queue entries of the last decision: the full one, and the short one (without the texts
// the audit may already hold; "" when it cannot be made). Reused: no allocation per statement
// once they have grown. `refusal`: why the writer could not materialise them ("" when it can).
struct Entries {
    std::string full, short_form, refusal;
    std::string entity_bindings;  // the entity bindings both entries end with
};

// Step 3, encode: anew when anything but the id, time and entity bindings differs from the last
// entry, else the last entry with those rewritten (a prepared statement run over and over; the
// entity bindings are the entries' last field: only that tail is written again).
const Entries &encode_entries(const AuditRecord &audit, bool same_text) {
    struct EntryKey {
        uint64 refresh;
        AuditHash shape;  // differs within a refresh by the rounds' stamp
        int64 query_id;
        uint32 database, session_role, acting_role;
        int32 pid;
        bool sync;
        bool operator==(const EntryKey &o) const {
            return refresh == o.refresh && shape == o.shape && query_id == o.query_id &&
                   database == o.database && session_role == o.session_role &&
                   acting_role == o.acting_role && pid == o.pid && sync == o.sync;
        }
    };
    static Entries entries;
    static EntryKey entry_key{};
    EntryKey key_now{last.template_refresh, audit.shape_hash,  audit.query_id, audit.database,
                     audit.session_role,    audit.acting_role, audit.pid,      audit.sync};
    if (same_text && !entries.full.empty() && entry_key == key_now) {
        patch_entry(entries.full, audit.decision_id, audit.decided_at);
        if (!entries.short_form.empty())
            patch_entry(entries.short_form, audit.decision_id, audit.decided_at);
        if (audit.entity_bindings != entries.entity_bindings) {
            entry_key = EntryKey{};  // no match until both tails are rewritten (it may throw)
            patch_entity_bindings(entries.full, entries.entity_bindings, audit.entity_bindings);
            if (!entries.short_form.empty())
                patch_entity_bindings(entries.short_form, entries.entity_bindings,
                                      audit.entity_bindings);
            entries.entity_bindings = audit.entity_bindings;
            entry_key = key_now;
        }
    } else {
        entry_key = EntryKey{};  // no match until encode() has finished (it may throw)
        entries.full.clear();
        entries.short_form.clear();
        encode(audit, entries.full);
        if (can_encode_short(audit)) encode_short(audit, entries.short_form);
        entries.entity_bindings = audit.entity_bindings;
        // Read back as the writer reads them, once per encoding: patching the id and time keeps
        // an entry readable.
        entries.refusal = entry_refusal(entries.full, audit.database);
        if (entries.refusal.empty() && !entries.short_form.empty())
            entries.refusal = entry_refusal(entries.short_form, audit.database);
        entry_key = key_now;
    }
    return entries;
}

// Step 4, submit: queues the entry (the short one when the audit holds its texts) and, in sync
// mode, waits for its commit.
SubmitResult submit_entry(const AuditRecord &audit, const Entries &entries) {
    // Never written anywhere: an entry the writer cannot read would be answered for and never
    // become a row. The decision fails closed instead.
    if (!entries.refusal.empty()) {
        std::string why = "a malformed audit entry was refused: " + entries.refusal;
        pg_guard([&] { audit_count_malformed(MyDatabaseId, why.c_str()); });
        return SubmitResult::Malformed;
    }
    const char *bytes = entries.full.data();
    uint32 length = static_cast<uint32>(entries.full.size());
    bool sync = audit.sync;
    ShortEntry short_entry{entries.short_form.data(),
                           static_cast<uint32>(entries.short_form.size()),
                           {audit.statement_hash, audit.shape_hash, audit.record_hash}};
    const ShortEntry *alternative = entries.short_form.empty() ? nullptr : &short_entry;
    return pg_guard(
        [&] { return audit_submit(bytes, length, sync, audit_timeout_ms, alternative); });
}

// The SQLSTATE of the rejection logged last, until its ERROR reaches the log hook (0: none).
int rejection_logged = 0;
emit_log_hook_type previous_emit_log_hook = nullptr;

// The server log's account of a rejection: one line, by name. The client gets the whole error;
// clarify.audit keeps statement, payload and record, so the ERROR stays off the server log.
void log_rejection(const AuditRecord &a) {
    pg_guard([&] {
        const char *role = GetUserNameFromId(a.session_role, true);
        const char *acting = GetUserNameFromId(a.acting_role, true);
        const char *database = get_database_name(MyDatabaseId);
        std::string as = acting && role && strcmp(acting, role) != 0
                             ? std::string(" as \"") + acting + "\""
                             : std::string();
        ereport(LOG, (errmsg("pg_clarify refused decision %llu: %s (%s) for role \"%s\"%s in "
                             "database \"%s\", reading %s",
                             (unsigned long long)a.decision_id, to_string(a.state),
                             sqlstate_of(a.state), role ? role : "?", as.c_str(),
                             database ? database : "?", a.columns.c_str()),
                      errhidestmt(true), errhidecontext(true)));
        rejection_logged = sqlcode_of(a.state);
    });
}

void hide_logged_rejection(ErrorData *edata) {
    if (edata->elevel == ERROR && rejection_logged != 0) {
        if (edata->sqlerrcode == rejection_logged) edata->output_to_server = false;
        rejection_logged = 0;
    }
    if (previous_emit_log_hook) previous_emit_log_hook(edata);
}

// Under pg_clarify.enforcement = warn: the rejection the statement would have had, as a WARNING
// with its SQLSTATE, MESSAGE, DETAIL and HINT (the statement runs). The texts are rendered once
// per cached decision (the DETAIL with an empty id, this decision's spliced in): a would-be
// rejection run over and over costs about what an allowed one does (bench/gate_tps).
struct WarningTexts {
    uint64 refresh = 0;
    std::string message, detail, hint;
};

void warn_rejection(const Catalog &catalog, const Decision &decision) {
    static WarningTexts texts;
    const AuditRecord &a = last.audit;
    if (texts.refresh != last.template_refresh || texts.message.empty()) {
        texts.refresh = 0;  // not valid until every text is rendered (rendering may throw)
        texts.message = message_text(catalog, decision);
        texts.detail = decision_json(catalog, decision, "", a.question_id, false);
        texts.hint = hint_text(catalog, decision);
        texts.refresh = last.template_refresh;
    }
    std::string id = std::to_string(a.decision_id);
    std::optional<std::string> spliced = splice_decision_id(texts.detail, id);
    std::string detail =
        spliced ? std::move(*spliced) : decision_json(catalog, decision, id, a.question_id, false);
    int code = sqlcode_of(a.state);
    const std::string &message = texts.message, &hint = texts.hint;
    pg_guard([&] {
        ereport(WARNING, (errcode(code), errmsg_internal("%s", message.c_str()),
                          errdetail_internal("%s", detail.c_str()),
                          hint.empty() ? 0 : errhint("%s", hint.c_str())));
    });
}

// Step 5, raise: fails closed in both modes (a decision runs only once it is committed (sync) or
// queued (async); load never skips one), then throws the rejection's clarification error.
void raise_outcome(const Catalog &catalog, const Decision &decision, SubmitResult result) {
    last.audited = audit_outcome(result);
    last.refused_unaudited = false;
    const AuditRecord &a = last.audit;
    auto id = [&a] { return std::to_string(a.decision_id); };

    if (result != (a.sync ? SubmitResult::Committed : SubmitResult::Queued)) {
        // The statement will not run. A decision queued but not committed in time (or committed
        // without a synchronous standby's confirmation) has or will have its row: say so in the
        // audit too, after that row (queued without waiting; the queue keeps order). One never
        // queued (no room, no writer, too large) has no row to annotate: the server log says it.
        last.refused_unaudited = true;
        if (result == SubmitResult::TimedOut || result == SubmitResult::Unconfirmed ||
            result == SubmitResult::NotForwarded) {
            note_refusal(a, last.audited);
        } else {
            uint64 decision_id = a.decision_id;
            const char *why = last.audited;
            pg_guard([&] {
                ereport(WARNING, (errmsg("pg_clarify refused decision %lu unaudited: %s",
                                         (unsigned long)decision_id, why)));
            });
        }
        throw ReportedError(
            sqlcode_of(State::AuditUnavailable),
            std::string("the decision could not be written to the audit: ") + last.audited,
            audit_unavailable_json(id(), a.question_id, a.allowed && !a.would_reject, a.state,
                                   last.audited),
            std::string("The statement did not run. Retry it; if this persists, the DBA can "
                        "look at clarify.audit_queue() and the server log.") +
                capacity_hint(result));
    }
    if (a.allowed) {
        if (a.would_reject && a.enforcement == Enforcement::Warn) warn_rejection(catalog, decision);
        // Most allowed decisions assume no meaning: nothing to render for them.
        if (std::none_of(decision.covered.begin(), decision.covered.end(),
                         [](const Coverage &c) { return c.source == CoverageSource::Assumed; }))
            return;
        for (const AssumptionWarning &w :
             assumption_warnings(catalog, decision, static_cast<AssumeBelow>(assume_below))) {
            const char *message = w.message.c_str(), *detail = w.detail.c_str();
            pg_guard([&] {
                ereport(WARNING, (errcode(ERRCODE_WARNING), errmsg_internal("%s", message),
                                  errdetail_internal("%s", detail)));
            });
        }
        return;
    }
    log_rejection(a);
    throw ReportedError(sqlcode_of(a.state), message_text(catalog, decision),
                        decision_json(catalog, decision, id(), a.question_id, false),
                        hint_text(catalog, decision));
}

}  // namespace

void install_rejection_log() {
    previous_emit_log_hook = emit_log_hook;
    emit_log_hook = hide_logged_rejection;
}

const LastDecision &last_decision() {
    return last;
}

TimeFacts time_facts_of(const std::shared_ptr<const Catalog> &catalog, const GovernedReads &read,
                        const StatementTime &time) {
    TimeFacts facts;
    bool dated = false;
    for (const GovernedColumn *c : read) dated = dated || (c && !c->time_policies.empty());
    if (!dated) return facts;
    facts.ranges = evaluate_time_quals(time.quals, time.params);
    facts.windows = bound_windows(catalog, current_record(), current_mentions(catalog));
    // Periods are read in the session's zone and the windows' (pg/executor/zone_clock.hpp).
    facts.date_columns = date_columns_of(time.quals);
    facts.session_zone = session_zone_name();
    facts.clock = &zone_clock();
    return facts;
}

void decide_statement(const std::shared_ptr<const Catalog> &catalog, const GovernedReads &read,
                      const std::vector<AggregateUse> &aggregates, const PlannedStmt *stmt,
                      const char *source, const StatementTime &time, const SegmentFacts &segments,
                      const std::vector<EntityLookup> &entities) {
    const DecisionCache &decided = decide_rounds(
        catalog, read, aggregates, time_facts_of(catalog, read, time), segments, entities);
    bool same_text = fill_audit_record(decided, stmt, source, entities);
    const Entries &entries = encode_entries(last.audit, same_text);
    SubmitResult result = submit_entry(last.audit, entries);
    raise_outcome(*catalog, decided.decision, result);
}

}  // namespace clarify::pg
