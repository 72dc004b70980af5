// A standby's audit: its writer forwards the decisions queued here to the primary's
// clarify.audit_ingest() over libpq (docs/design.md, "Read replicas"). Called from the writer's
// loop while the server is in recovery; pg_clarify.audit_conninfo says how to reach the primary.
#pragma once

#include "pg/pg.hpp"
#include "pg/audit/queue.hpp"

extern "C" {
#include "utils/guc.h"
}

#include <string>
#include <vector>

namespace clarify::pg {

// pg_clarify.audit_conninfo's check hook: a value libpq cannot parse is refused.
bool check_audit_conninfo(char **newval, void **extra, GucSource source);

// The primary as a connection string names it, for messages: host and port, never a password.
std::string primary_name(const char *conninfo);

// Why a standby's sync decision was not acknowledged in time, naming the primary (a per-process
// buffer, valid until the next call).
const char *not_forwarded_reason();

// Sends what is queued to the primary and waits for its acknowledgement (the primary has made
// it durable): the number of decisions acknowledged, 0 when nothing was queued, -1 when the
// primary could not be reached or refused them (they stay queued; the caller backs off).
long forward(DatabaseQueue *queue, std::vector<char> &buffer);

// The writer was asked to stop: sends what is queued once more, waiting at most 2 s, so that a
// standby's shutdown does not drop its async decisions when the primary is reachable.
void forward_before_exit(DatabaseQueue *queue, std::vector<char> &buffer);

// Closes the connection to the primary (the server was promoted, or the writer leaves).
void forward_close();

}  // namespace clarify::pg
