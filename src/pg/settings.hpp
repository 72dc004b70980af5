// The pg_clarify.* settings (docs/reference.md, "Settings") and the session's resolution
// record ("The resolution record").
#pragma once

#include "pg/pg.hpp"
#include "core/decide/decision.hpp"
#include "core/model/record.hpp"
#include "core/audit/record.hpp"

#include <memory>
#include <string>
#include <vector>

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
extern char *audit_conninfo;   // pg_clarify.audit_conninfo: "" unless this server forwards
extern int assume_below;       // an AssumeBelow
extern bool require_question;  // pg_clarify.require_question
extern int abandon_after_s;    // pg_clarify.abandon_after, seconds
extern int enforcement;        // pg_clarify.enforcement: an Enforcement
extern int max_rounds;         // pg_clarify.max_rounds: 0 = no budget

void define_settings();

// The record attached to the session, parsed when it was set; empty when none is attached.
const ResolutionRecord &current_record();
// Moves whenever the record's value changes (SET, RESET, end of a SET LOCAL).
unsigned long record_generation();
// The governed terms the record's question mentions under `catalog`, matched once per record
// and catalog (docs/reference.md, "Which terms decide a column").
const std::vector<std::string> &current_mentions(const std::shared_ptr<const Catalog> &catalog);
// The decision's options from the settings and the session's record.
DecideOptions decide_options(const std::shared_ptr<const Catalog> &catalog);

}  // namespace clarify::pg
