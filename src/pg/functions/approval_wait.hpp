// Waiting until this server has replayed an approval (docs/reference.md, "clarify.approval_wait"):
// the agent's half of the ask -> confirm (on the primary) -> re-run (on a standby) loop.
#pragma once

#include "pg/pg.hpp"

namespace clarify::pg {

// True once the approval row `approval_id` is committed and visible here to the caller (it may
// read clarify.approvals, or the approval is granted to a role its session or outer role belongs
// to); false when timeout_ms passes first. On a primary it looks once. Raises PostgreSQL errors:
// call it inside pg_guard. Refuses a transaction snapshot, which could never show the row.
bool approval_replayed(int64 approval_id, int timeout_ms);

}  // namespace clarify::pg
