#include "pg/pg.hpp"
#include "pg/executor/audit_outcome.hpp"
#include "pg/replica/forward.hpp"
#include "pg/settings.hpp"

#include <cstdio>

namespace clarify::pg {

namespace {

// The setting and its value, so that the DBA sees what to raise without looking it up.
const char *no_queue_reason() {
    static char text[200];
    snprintf(text, sizeof(text),
             "no audit writer could serve this database: all pg_clarify.audit_databases = %d "
             "queues serve other databases",
             audit_databases);
    return text;
}

}  // namespace

const char *capacity_hint(SubmitResult result) {
    switch (result) {
        case SubmitResult::NoQueue:
            return " The DBA can raise pg_clarify.audit_databases (server start) above the "
                   "number of databases auditing at the same time.";
        case SubmitResult::NoWriter:
            return " The DBA can raise max_worker_processes (server start), or "
                   "pg_clarify.audit_writers to reserve writers.";
        default:
            return "";
    }
}

const char *audit_outcome(SubmitResult result) {
    switch (result) {
        case SubmitResult::Committed:
            return "committed";
        case SubmitResult::Queued:
            return "queued";
        case SubmitResult::Dropped:
            return "dropped: the audit queue was full";
        case SubmitResult::TimedOut:
            return "not committed within pg_clarify.audit_timeout";
        case SubmitResult::Unconfirmed:
            return "no synchronous standby confirmed it within pg_clarify.audit_timeout";
        case SubmitResult::NoRetention:
            return "the write-ahead log holding it cannot be retained here (see the server log)";
        case SubmitResult::RetentionFull:
            return "the write-ahead log retained for the audit writer exceeds "
                   "pg_clarify.audit_retained_wal";
        case SubmitResult::QueueFull:
            return "the audit queue had no room within pg_clarify.audit_timeout";
        case SubmitResult::NoQueue:
            return no_queue_reason();
        case SubmitResult::NoWriter:
            return "no audit writer could serve this database: no background worker slot was "
                   "free (max_worker_processes)";
        case SubmitResult::TooLarge:
            return "larger than the audit queue";
        case SubmitResult::NoConninfo:
            return "this server is a standby and pg_clarify.audit_conninfo is not set: its "
                   "decisions cannot reach the primary's audit";
        case SubmitResult::NotForwarded:
            return not_forwarded_reason();
        case SubmitResult::Malformed:
            return "its audit entry is malformed: the writer could not store it "
                   "(clarify.audit_queue() "
                   "shows why)";
    }
    return "unknown";
}

}  // namespace clarify::pg
