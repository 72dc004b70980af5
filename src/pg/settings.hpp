// The pg_clarify.* settings (docs/reference.md, "Settings") and the session's resolution
// record ("The resolution record").
#pragma once

#include "pg.hpp"
#include "decision.hpp"
#include "record.hpp"

namespace clarify::pg {

enum class AuditMode { Sync = 0, Async = 1 };

extern bool gate_enabled;
extern int audit_mode;
extern int audit_timeout_ms;
extern int audit_queue_size_kb;
extern int audit_databases;
extern int audit_writers;
extern int audit_retained_wal_mb;
extern char *resolution_text;
extern char *audit_conninfo;  // pg_clarify.audit_conninfo: "" unless this server forwards
extern int assume_below;      // an AssumeBelow

void define_settings();

// The record attached to the session, parsed when it was set; empty when none is attached.
const ResolutionRecord &current_record();
// Moves whenever the record's value changes (SET, RESET, end of a SET LOCAL).
unsigned long record_generation();

}  // namespace clarify::pg
