// clarify.check(sql): what the gate would decide for one statement, without running it.
#pragma once

#include "pg/pg.hpp"

#include <string>

namespace clarify::pg {

// Installs the planning guard (the fmgr hooks that refuse foreign code while check() plans).
void install_check();
std::string check_statement(const char *sql);
// clarify.replay(): what the gate would decide now for sql as those roles, under the current
// record (pg/functions/replay.cpp sets the audited one); plans and runs nothing else.
struct ReplayedDecision {
    std::string state;   // RESOLVED or the rejection's state
    std::string detail;  // check()'s JSON
};
ReplayedDecision replay_statement(const char *sql, Oid session_role, Oid acting_role);
// True while clarify.check() plans a statement: nothing may be executed then.
bool check_is_planning();

}  // namespace clarify::pg
