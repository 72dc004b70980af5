#include "pg/pg.hpp"
#include "pg/settings.hpp"
#include "pg/replica/forward.hpp"
#include "pg/boundary.hpp"
#include "pg/compat.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/guc.h"
}

#include <cstring>

namespace clarify::pg {

bool gate_enabled = true;
int audit_mode = static_cast<int>(AuditMode::Sync);
int audit_timeout_ms = 5000;
int audit_queue_size_kb = 8192;
int audit_databases = 4;
int audit_writers = 2;
int audit_retained_wal_mb = 1024;
char *resolution_text = nullptr;
char *audit_conninfo = nullptr;
int assume_below = static_cast<int>(AssumeBelow::None);
bool require_question = false;
int enforcement = static_cast<int>(Enforcement::Enforce);
int abandon_after_s = 3600;
int max_rounds = 0;

namespace {

const struct config_enum_entry audit_mode_options[] = {
    {"sync", static_cast<int>(AuditMode::Sync), false},
    {"async", static_cast<int>(AuditMode::Async), false},
    {nullptr, 0, false},
};

const struct config_enum_entry assume_below_options[] = {
    {"none", static_cast<int>(AssumeBelow::None), false},
    {"medium", static_cast<int>(AssumeBelow::Medium), false},
    {"high", static_cast<int>(AssumeBelow::High), false},
    {nullptr, 0, false},
};

const struct config_enum_entry enforcement_options[] = {
    {"enforce", static_cast<int>(Enforcement::Enforce), false},
    {"warn", static_cast<int>(Enforcement::Warn), false},
    {"audit", static_cast<int>(Enforcement::Audit), false},
    {nullptr, 0, false},
};

// The flat record of the current value (owned by the GUC machinery) and a counter bumped on
// every assignment, so the parsed copy below is refreshed exactly when the value changes.
const void *current_flat = nullptr;
unsigned long assignments = 0;

struct ParsedRecord {
    unsigned long assignment = ~0UL;
    ResolutionRecord record;
};
ParsedRecord parsed;

// Copies a refusal into the fixed buffer the GUC message is built from, cut at a character
// boundary: a message must stay valid UTF-8 whatever the key or value it quotes.
void copy_problem(char (&out)[512], const char *text) {
    std::size_t n = std::strlen(text);
    if (n >= sizeof(out)) {
        n = sizeof(out) - 1;
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    }
    std::memcpy(out, text, n);
    out[n] = '\0';
}

// What jsonb can hold here. Before a database is chosen (the server's configuration file) the
// encoding that will apply is unknown, so only ASCII is safe.
DatabaseEncoding database_encoding() {
    if (!OidIsValid(MyDatabaseId)) return DatabaseEncoding::Other;
    switch (GetDatabaseEncoding()) {
        case PG_UTF8:
            return DatabaseEncoding::Utf8;
        case PG_SQL_ASCII:
            return DatabaseEncoding::SqlAscii;
        default:
            return DatabaseEncoding::Other;
    }
}

// Validates a new value: every refusal names its problem and leaves the old value in place.
// An accepted value is replaced by its canonical JSON, so SHOW and the audit agree.
bool check_resolution(char **newval, void **extra, GucSource) {
    char problem[512] = "";
    void *block = nullptr;
    char *canonical = nullptr;
    DatabaseEncoding encoding = database_encoding();
    try {
        ResolutionRecord record = parse_record(*newval ? *newval : "", encoding);
        std::vector<char> flat = flatten(record);
        bool replace = *newval && record.json != *newval;
        block = guc_alloc(flat.size());
        canonical = replace ? static_cast<char *>(guc_alloc(record.json.size() + 1)) : nullptr;
        if (!block || (replace && !canonical)) {
            guc_release(block);
            guc_release(canonical);
            block = canonical = nullptr;
            copy_problem(problem, "out of memory");
        } else {
            std::memcpy(block, flat.data(), flat.size());
            if (canonical) std::memcpy(canonical, record.json.c_str(), record.json.size() + 1);
        }
    } catch (const RecordError &e) {
        copy_problem(problem, e.what());
    } catch (const std::bad_alloc &) {
        copy_problem(problem, "out of memory");
    } catch (const std::exception &e) {
        copy_problem(problem, e.what());
    } catch (...) {
        copy_problem(problem, "unexpected error");
    }
    if (!block) {
        guc_release(canonical);
        GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
        GUC_check_errmsg("invalid resolution record: %s", problem);
        GUC_check_errhint(
            "Expected {\"question_id\": text, \"question\": text, \"bindings\": "
            "[{\"term\": text, \"concept\": text, \"source\": "
            "\"user_confirmation\" | \"approved_default\" | \"explicit\"}]}.");
        return false;
    }
    // The value replaced is ours to release, as the server would.
    if (canonical) {
        guc_release(*newval);
        *newval = canonical;
    }
    *extra = block;
    return true;
}

void assign_resolution(const char *, void *extra) {
    current_flat = extra;
    ++assignments;
}

}  // namespace

unsigned long record_generation() {
    return assignments;
}

const std::vector<std::string> &current_mentions(const std::shared_ptr<const Catalog> &catalog) {
    // Matched once per record and catalog: the first statement after a SET or a catalog change
    // matches, the others reuse it. Holding the catalog keeps its identity unambiguous.
    static struct {
        unsigned long assignment = ~0UL;
        std::shared_ptr<const Catalog> catalog;
        std::vector<std::string> terms;
    } matched;
    const ResolutionRecord &record = current_record();
    if (matched.assignment != assignments || matched.catalog != catalog) {
        matched.terms.clear();
        matched.assignment = ~0UL;  // until matched: a throw leaves no stale match
        if (catalog) matched.terms = catalog->mentioned_terms(record.question);
        matched.catalog = catalog;
        matched.assignment = assignments;
    }
    return matched.terms;
}

DecideOptions decide_options(const std::shared_ptr<const Catalog> &catalog) {
    DecideOptions options;
    options.assume_below = static_cast<AssumeBelow>(assume_below);
    options.require_question = require_question;
    options.mentioned = &current_mentions(catalog);
    return options;
}

const ResolutionRecord &current_record() {
    static const ResolutionRecord empty;
    if (!current_flat) return empty;
    if (parsed.assignment != assignments) {
        parsed.record = unflatten(current_flat);
        parsed.assignment = assignments;
    }
    return parsed.record;
}

void define_settings() {
    DefineCustomStringVariable(
        "pg_clarify.resolution", "The session's resolution record (JSON).",
        "Claims about what the question's terms mean; every claim is verified.", &resolution_text,
        "", PGC_USERSET, GUC_NOT_IN_SAMPLE, check_resolution, assign_resolution, nullptr);
    DefineCustomBoolVariable("pg_clarify.enabled", "Enforce the clarification gate.",
                             "The emergency off switch; superuser only.", &gate_enabled, true,
                             PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomEnumVariable("pg_clarify.audit_mode",
                             "sync: a decision is durable in the write-ahead log before it takes "
                             "effect; "
                             "async: queued and written shortly after.",
                             nullptr, &audit_mode, static_cast<int>(AuditMode::Sync),
                             audit_mode_options, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("pg_clarify.audit_timeout",
                            "How long a sync decision waits for the audit before failing closed.",
                            nullptr, &audit_timeout_ms, 5000, 1, 600000, PGC_SUSET, GUC_UNIT_MS,
                            nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "pg_clarify.audit_queue_size",
        "Shared memory for decisions waiting to be audited (restart to change).",
        "Split evenly between the pg_clarify.audit_databases queues.", &audit_queue_size_kb, 8192,
        256, 1048576, PGC_POSTMASTER, GUC_UNIT_KB, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("pg_clarify.audit_databases",
                            "How many databases can audit decisions at once (restart to change).",
                            "Each has its own queue and audit writer; a database beyond them fails "
                            "closed with QC005.",
                            &audit_databases, 4, 1, 64, PGC_POSTMASTER, 0, nullptr, nullptr,
                            nullptr);
    DefineCustomIntVariable(
        "pg_clarify.audit_writers",
        "How many audit writers are registered at server start (restart to change).",
        "Each keeps a background-worker slot for the server's life and serves the first databases "
        "that audit; a database beyond them needs a free max_worker_processes slot.",
        &audit_writers, 2, 0, 64, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    DefineCustomEnumVariable("pg_clarify.assume_below",
                             "Ambiguities of lower impact are assumed (with a WARNING), not asked.",
                             "none, medium or high; a superuser sets it, also per role with ALTER "
                             "ROLE ... SET.",
                             &assume_below, static_cast<int>(AssumeBelow::None),
                             assume_below_options, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomBoolVariable("pg_clarify.require_question",
                             "A governed read needs the user's question in the resolution record.",
                             "Without it (no record, or no question) the statement is UNVERIFIED; "
                             "a superuser sets it, also per role with ALTER ROLE ... SET.",
                             &require_question, false, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    // PGC_SUSET: only a superuser sets it (also per role and database with ALTER ROLE/DATABASE
    // ... SET); an agent's SET, set_config(), RESET, function SET clause or PGOPTIONS is refused.
    DefineCustomEnumVariable("pg_clarify.enforcement",
                             "What the gate does with a statement it would reject.",
                             "enforce (refuse), warn (run it and send the rejection as a WARNING) "
                             "or audit (run it silently); decided and audited alike. QC005 is "
                             "never relaxed.",
                             &enforcement, static_cast<int>(Enforcement::Enforce),
                             enforcement_options, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    // PGC_SUSET, as pg_clarify.enforcement: an agent cannot lift its own budget.
    DefineCustomIntVariable("pg_clarify.max_rounds",
                            "How many clarification rounds a question gets before lower-impact "
                            "meanings are assumed.",
                            "0: unlimited. A superuser sets it, also per role with ALTER ROLE ... "
                            "SET; high-impact meanings are still asked.",
                            &max_rounds, 0, 0, 1000, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "pg_clarify.audit_retained_wal",
        "The most write-ahead log kept for sync decisions not yet in the audit.",
        "Past it (the writer is down or cannot keep up), sync decisions fail closed with QC005; "
        "0: no limit.",
        &audit_retained_wal_mb, 1024, 0, 16 * 1024 * 1024, PGC_SIGHUP, GUC_UNIT_MB, nullptr,
        nullptr, nullptr);
    // Superuser only to read: it may hold a password.
    DefineCustomStringVariable(
        "pg_clarify.audit_conninfo",
        "How a standby reaches the primary's audit: a libpq connection string.",
        "Empty: a standby refuses governed reads (QC005). The database defaults to this one's.",
        &audit_conninfo, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, check_audit_conninfo, nullptr,
        nullptr);
    // Read by clarify.audit_metrics() (catalog: pg_clarify--1.2.sql, "Evaluation").
    DefineCustomIntVariable("pg_clarify.abandon_after",
                            "A question with rounds and no allowed decision this long after its "
                            "first round counts as abandoned.",
                            nullptr, &abandon_after_s, 3600, 1, INT_MAX, PGC_SUSET, GUC_UNIT_S,
                            nullptr, nullptr, nullptr);
    walk_budget::define_debug_settings();
    MarkGUCPrefixReserved("pg_clarify");
}

}  // namespace clarify::pg
