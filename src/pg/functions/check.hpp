// clarify.check(sql): what the gate would decide for one statement, without running it.
#pragma once

#include "pg/pg.hpp"

#include <string>

namespace clarify::pg {

// Installs the planning guard (the fmgr hooks that refuse foreign code while check() plans).
void install_check();
std::string check_statement(const char *sql);
// True while clarify.check() plans a statement: nothing may be executed then.
bool check_is_planning();

}  // namespace clarify::pg
