// Whether a time bound's value is fixed for the whole statement: the gate evaluates it once, the
// scan at every row and at every FETCH of a cursor, and they must agree (docs/reference.md,
// "Time ranges and impact").
#pragma once

#include "pg/pg.hpp"

namespace clarify::pg {

// True when `value` is built only of constants, the execution's bound parameters, immutable
// built-in functions and the allow-listed stable ones (pg/plan/fixed_value.cpp). PostgreSQL level:
// looks functions up in the catalog cache, may raise.
bool fixed_for_statement(Node *value);

}  // namespace clarify::pg
