// The gate in the executor path: every statement of a gated session that reads a governed
// column is decided before it runs (CONTRACT §6).
#pragma once

#include "pg.hpp"
#include "catalog.hpp"
#include "read_set.hpp"

#include <string>
#include <vector>

namespace clarify::pg {

void install_gate();
// clarify.check()'s planning guard (check.cpp) and the statistics filter (statistics.cpp).
void install_check();
void install_statistics_filter();
// Called once by the audit writer process: its own statements are never decided.
void mark_audit_writer();
// Whether this process decides statements now: the gate is on, and this is neither the audit
// writer nor a backend loading the governance catalog.
bool gate_active();

// clarify.check(sql): what the gate would decide for one statement, without running it.
std::string check_statement(const char *sql);

using GovernedReads = std::vector<const GovernedColumn *>;
// Which range table entries are governed relations; nullptr when none is (the common case).
bool *watched_entries(const Catalog &catalog, List *range_table);
// The governed columns among reads, and among what a plan reads (traced from its output).
GovernedReads governed_reads(const Catalog &catalog, ReadSet reads);
GovernedReads plan_governed_reads(const Catalog &catalog, PlannedStmt *stmt);
// The caller's SELECT privileges on what the plan reads, as executing it would check them
// (raises the permission error); the gate itself does not decide this check.
void check_plan_privileges(PlannedStmt *stmt);
// The same for COPY relation TO: SELECT on the columns in `selected` (selectedCols' offsets).
void check_copy_privileges(Oid relation, Bitmapset *selected);
// True while clarify.check() plans a statement: nothing may be executed then.
bool check_is_planning();

// clarify.last_decision(): the session's most recent decision; "" when there was none.
std::string last_decision_json();

}  // namespace clarify::pg
