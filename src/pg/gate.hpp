// The gate in the executor path: every statement of a gated session that reads a governed
// column is decided before it runs (CONTRACT §6).
#pragma once

#include "pg.hpp"
#include <string>

namespace clarify::pg {

void install_gate();
// Called once by the audit writer process: its own statements are never decided.
void mark_audit_writer();

// clarify.check(sql): what the gate would decide for one statement, without running it.
std::string check_statement(const char *sql);

// clarify.last_decision(): the session's most recent decision; "" when there was none.
std::string last_decision_json();

}  // namespace clarify::pg
