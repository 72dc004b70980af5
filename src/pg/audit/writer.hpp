// The audit writers (background workers draining the audit queue): what _PG_init registers.
#pragma once

#include "pg/pg.hpp"

namespace clarify::pg {

// Registers the reserved writers (pg_clarify.audit_writers, at most one per queue) as static
// background workers: each keeps its worker slot for the server's life.
void register_reserved_writers();

}  // namespace clarify::pg
