// The standby side of forwarding: one libpq connection per writer, used asynchronously (waits go
// through WaitLatchOrSocket, so SIGTERM, latch sets and timeouts are served), reconnected with
// back-off, and one server-log line per change of state, never per batch.
#include "pg/pg.hpp"
#include "pg/replica/forward.hpp"
#include "pg/replica/origin.hpp"
#include "core/audit/record.hpp"
#include "pg/boundary.hpp"
#include "core/audit/forward_batch.hpp"
#include "core/audit/framing.hpp"
#include "pg/settings.hpp"
#include "pg/worker_wait.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
}

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace clarify::pg {

namespace {

constexpr long kConnectTimeoutMs = 10000;
// A primary that accepted a batch and says nothing for this long is taken as lost.
constexpr long kAcknowledgeTimeoutMs = 30000;
constexpr long kFirstBackoffMs = 100;
constexpr long kMaxBackoffMs = 2000;

PGconn *conn = nullptr;
std::string conn_made_with;  // the pg_clarify.audit_conninfo the connection was made with
std::string logged_state;    // the last state written to the server log
std::string database_name;
TimestampTz retry_at = 0;
long backoff_ms = 0;

enum class Waited { Ready, TimedOut, Stopping };

// Waits for the socket (events: WL_SOCKET_*), the latch or the deadline; serves interrupts and
// reloads on the way.
// Set while the writer, asked to stop, sends what is queued one last time (forward_before_exit):
// waits then end at this deadline instead of at the stop request.
TimestampTz exit_deadline = 0;
bool woken_while_busy = false;

Waited wait_socket(int events, TimestampTz deadline) {
    if (exit_deadline) deadline = Min(deadline, exit_deadline);
    for (;;) {
        long ms = pg_guard(
            [&] { return TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline); });
        if (ms <= 0) return Waited::TimedOut;
        int socket = PQsocket(conn);
        int rc = pg_guard([&] { return worker_wait(events, socket, ms); });
        // A backend's wake-up (a sync decision queued) while the writer waits for the primary:
        // kept for the writer's own wait after this round, or that decision would wait a poll.
        if (rc & WL_LATCH_SET) woken_while_busy = true;
        if (ShutdownRequestPending && !exit_deadline) return Waited::Stopping;
        if (rc & events) return Waited::Ready;
    }
}

std::string one_line(const char *message) {
    std::string text = message ? message : "unknown error";
    for (char &c : text)
        if (c == '\n' || c == '\r') c = ' ';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

// Records the state in the queue (clarify.audit_queue()) and logs it when it changed.
void set_state(DatabaseQueue *queue, const std::string &state, bool acknowledged = false) {
    std::string shown =
        "forwarding to the primary (" + primary_name(conn_made_with.c_str()) + "): " + state;
    pg_guard([&] { audit_worker_forward_state(queue, shown.c_str(), acknowledged); });
    // A connection lost and not yet back is one state, whatever each attempt's error.
    std::string kind = state.rfind("lost:", 0) == 0 ? "lost" : state;
    if (kind == logged_state) return;
    logged_state = kind;
    pg_guard([&] { ereport(LOG, (errmsg("pg_clarify audit writer: %s", shown.c_str()))); });
}

// A loss closes the connection; a refusal keeps it (the primary may be granted or updated).
void fail(DatabaseQueue *queue, const std::string &state, bool keep_connection = false) {
    set_state(queue, state);
    if (!keep_connection) forward_close();
    backoff_ms = backoff_ms ? Min(backoff_ms * 2, kMaxBackoffMs) : kFirstBackoffMs;
    retry_at =
        pg_guard([] { return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), backoff_ms); });
}

bool names_database(const char *conninfo) {
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo, &error);
    if (error) PQfreemem(error);
    bool named = false;
    for (PQconninfoOption *o = options; o && o->keyword; ++o)
        if (strcmp(o->keyword, "dbname") == 0 && o->val && o->val[0]) named = true;
    if (options) PQconninfoFree(options);
    return named;
}

// Connects to the primary; false (state recorded, back-off started) when it cannot.
bool connect(DatabaseQueue *queue) {
    if (database_name.empty()) {
        database_name = pg_guard([] {
            StartTransactionCommand();
            char *name = get_database_name(MyDatabaseId);
            const char *copy = name ? pstrdup(name) : "";
            CommitTransactionCommand();
            return copy;
        });
    }
    conn_made_with = audit_conninfo ? audit_conninfo : "";
    // The connection string is expanded as the first dbname; the database named after it applies
    // only when the string names none (libpq keeps the last value given for a keyword).
    std::vector<const char *> keys{"fallback_application_name", "dbname"};
    std::vector<const char *> values{"pg_clarify audit forwarder", conn_made_with.c_str()};
    if (!names_database(conn_made_with.c_str())) {
        keys.push_back("dbname");
        values.push_back(database_name.c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    conn = PQconnectStartParams(keys.data(), values.data(), 1);
    if (!conn || PQstatus(conn) == CONNECTION_BAD) {
        fail(queue, "lost: " + one_line(conn ? PQerrorMessage(conn) : "out of memory"));
        return false;
    }
    TimestampTz deadline = pg_guard(
        [] { return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kConnectTimeoutMs); });
    PostgresPollingStatusType status = PGRES_POLLING_WRITING;
    while (status != PGRES_POLLING_OK) {
        if (status == PGRES_POLLING_FAILED) {
            std::string why = one_line(PQerrorMessage(conn));
            // The primary answered and said no (authentication, no such role or database).
            bool refused = why.find("FATAL:") != std::string::npos;
            fail(queue, (refused ? "refused: " : "lost: ") + why);
            return false;
        }
        Waited w = wait_socket(
            status == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE, deadline);
        if (w == Waited::Stopping) {
            forward_close();
            return false;
        }
        if (w == Waited::TimedOut) {
            fail(queue, "lost: no connection within 10 s");
            return false;
        }
        status = PQconnectPoll(conn);
    }
    if (PQsetnonblocking(conn, 1) != 0) {
        fail(queue, "lost: " + one_line(PQerrorMessage(conn)));
        return false;
    }
    return true;
}

enum class Sent { Acknowledged, Lost, Refused, Stopping };

// Sends one query and waits for its result; the error (when not acknowledged) in *why.
Sent run_query(const char *sql, int nparams, const Oid *types, const char *const *values,
               const int *lengths, const int *formats, std::string *why) {
    if (!PQsendQueryParams(conn, sql, nparams, types, values, lengths, formats, 0)) {
        *why = one_line(PQerrorMessage(conn));
        return Sent::Lost;
    }
    TimestampTz deadline = pg_guard(
        [] { return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kAcknowledgeTimeoutMs); });
    for (;;) {
        int flushed = PQflush(conn);
        if (flushed < 0) {
            *why = one_line(PQerrorMessage(conn));
            return Sent::Lost;
        }
        if (flushed == 0 && !PQisBusy(conn)) break;
        Waited w = wait_socket(WL_SOCKET_READABLE | (flushed ? WL_SOCKET_WRITEABLE : 0), deadline);
        if (w == Waited::Stopping) return Sent::Stopping;
        if (w == Waited::TimedOut) {
            *why = "no answer within 30 s";
            return Sent::Lost;
        }
        if (!PQconsumeInput(conn)) {
            *why = one_line(PQerrorMessage(conn));
            return Sent::Lost;
        }
    }
    Sent outcome = Sent::Acknowledged;
    while (PGresult *result = PQgetResult(conn)) {
        ExecStatusType status = PQresultStatus(result);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK &&
            outcome == Sent::Acknowledged) {
            *why = one_line(PQresultErrorMessage(result));
            // A shutdown, a terminated session or a broken connection is a loss; any other
            // error (no grant, no such function, a refused batch) is the primary's answer.
            const char *state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
            bool lost = PQstatus(conn) != CONNECTION_OK || !state || strncmp(state, "08", 2) == 0 ||
                        strncmp(state, "57", 2) == 0;
            outcome = lost ? Sent::Lost : Sent::Refused;
        }
        PQclear(result);
    }
    if (outcome == Sent::Acknowledged && PQstatus(conn) != CONNECTION_OK) {
        *why = one_line(PQerrorMessage(conn));
        outcome = Sent::Lost;
    }
    return outcome;
}

}  // namespace

// A GUC check hook, run by the postmaster too (src/pg/boundary.hpp, rule 3): no C++ exception
// leaves it and no C++ object is live when GUC_check_errdetail is called.
bool check_audit_conninfo(char **newval, void **, GucSource) {
    if (!*newval || !**newval) return true;
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(*newval, &error);
    if (options) PQconninfoFree(options);
    if (!error) return true;
    char detail[512] = "out of memory";
    try {
        std::string line = one_line(error);
        std::size_t n = std::min(line.size(), sizeof(detail) - 1);
        while (n < line.size() && n > 0 && (static_cast<unsigned char>(line[n]) & 0xC0) == 0x80)
            --n;  // cut at a character boundary
        std::memcpy(detail, line.data(), n);
        detail[n] = '\0';
    } catch (...) {
        // No memory to build the line: the detail stays "out of memory".
        strlcpy(detail, "out of memory", sizeof(detail));
    }
    PQfreemem(error);
    GUC_check_errdetail("%s", detail);
    return false;
}

std::string primary_name(const char *conninfo) {
    std::string host, port;
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo ? conninfo : "", &error);
    if (error) PQfreemem(error);
    for (PQconninfoOption *o = options; o && o->keyword; ++o) {
        if (!o->val || !o->val[0]) continue;
        if (strcmp(o->keyword, "host") == 0 ||
            (strcmp(o->keyword, "hostaddr") == 0 && host.empty()))
            host = o->val;
        else if (strcmp(o->keyword, "port") == 0)
            port = o->val;
    }
    if (options) PQconninfoFree(options);
    return "host=" + (host.empty() ? std::string("(default)") : host) +
           " port=" + (port.empty() ? std::string("(default)") : port);
}

const char *not_forwarded_reason() {
    static std::string reason;
    reason = "the primary (" + primary_name(audit_conninfo) +
             ") did not acknowledge it within pg_clarify.audit_timeout";
    return reason.c_str();
}

void forward_before_exit(DatabaseQueue *queue, std::vector<char> &buffer) {
    constexpr long kExitFlushMs = 2000;
    exit_deadline =
        pg_guard([] { return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kExitFlushMs); });
    retry_at = 0;  // no back-off now: this is the last chance
    // A queue fuller than one batch (ForwardedFrames::kMaxBytes) goes in several calls.
    while (forward(queue, buffer) > 0 &&
           pg_guard([] { return GetCurrentTimestamp(); }) < exit_deadline) {
    }
    forward_close();
}

void forward_close() {
    if (conn) PQfinish(conn);
    conn = nullptr;
}

namespace {

// What a forward call does next after trying to connect.
enum class Connected { Yes, No, Stopping };

// Connects (once per connection) and makes the ingest's return mean durable on the primary and
// its synchronous standbys.
Connected ensure_connected(DatabaseQueue *queue) {
    const char *wanted = audit_conninfo ? audit_conninfo : "";
    if (conn && conn_made_with != wanted) forward_close();  // changed by a reload
    if (conn && retry_at != 0 && pg_guard([] { return GetCurrentTimestamp(); }) < retry_at)
        return Connected::No;  // refused a moment ago: asked again after the back-off
    if (conn) return Connected::Yes;
    if (!*wanted) {
        conn_made_with.clear();
        set_state(queue, "not configured: pg_clarify.audit_conninfo is not set");
        return Connected::No;
    }
    TimestampTz now = pg_guard([] { return GetCurrentTimestamp(); });
    if (now < retry_at || !connect(queue)) return Connected::No;
    std::string why;
    Sent sent =
        run_query("SET synchronous_commit TO on", 0, nullptr, nullptr, nullptr, nullptr, &why);
    if (sent == Sent::Stopping) {
        forward_close();  // a query may be under way: the last attempt starts afresh
        return Connected::Stopping;
    }
    if (sent != Sent::Acknowledged) {
        fail(queue, (sent == Sent::Refused ? "refused: " : "lost: ") + why);
        return Connected::No;
    }
    set_state(queue, "connected");
    return Connected::Yes;
}

// Each entry checked as the primary will check it (core/audit/framing.hpp): one that does not
// decode is counted and left out. Each text goes once per batch: later decisions with the same
// texts go short. A batch larger than ForwardedFrames::kMaxBytes takes what fits.
DecodedFrames frame_batch(const char *ring, uint64 bytes, ForwardedFrames &frames) {
    frames.reserve(bytes);
    return decode_frames(std::string_view(ring, bytes),
                         [&](std::string_view entry, const AuditView &view, uint64) {
                             return frames.add(entry, view);
                         });
}

}  // namespace

long forward(DatabaseQueue *queue, std::vector<char> &buffer) {
    struct SetAgainIfWoken {
        ~SetAgainIfWoken() {
            if (woken_while_busy) SetLatch(MyLatch);
            woken_while_busy = false;
        }
    } set_again;
    Connected connected = ensure_connected(queue);
    if (connected != Connected::Yes) return connected == Connected::Stopping ? 0 : -1;
    uint64 from = 0, bytes = 0;
    char *scratch = buffer.data();
    uint64 cap = buffer.size();
    const char *ring =
        pg_guard([&] { return audit_worker_peek(queue, scratch, cap, &from, &bytes); });
    if (bytes == 0) return 0;
    ForwardedFrames frames;
    DecodedFrames framed = frame_batch(ring, bytes, frames);
    uint64 decisions = frames.entries();
    if (decisions > 0) {
        const std::string &origin = server_origin();
        Oid types[2] = {TEXTOID, BYTEAOID};
        const char *values[2] = {origin.c_str(), frames.bytes().data()};
        int lengths[2] = {0, static_cast<int>(frames.bytes().size())};
        int formats[2] = {0, 1};
        std::string why;
        Sent sent = run_query("SELECT clarify.audit_ingest($1, $2)", 2, types, values, lengths,
                              formats, &why);
        if (sent == Sent::Stopping) {
            forward_close();  // a query may be under way: the last attempt starts afresh
            return 0;
        }
        if (sent != Sent::Acknowledged) {
            bool refused = sent == Sent::Refused;
            fail(queue, (refused ? "refused: " : "lost: ") + why, refused);
            return -1;
        }
    }
    pg_guard([&] {
        (void)audit_worker_commit(queue, from + framed.consumed, decisions, framed.malformed);
    });
    backoff_ms = 0;
    retry_at = 0;
    set_state(queue, "connected", true);
    return static_cast<long>(decisions);
}

}  // namespace clarify::pg
