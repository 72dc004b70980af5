// State shared by all backends: decision identifiers and the audit queue.
#pragma once

#include "pg.hpp"
#include "audit_hash.hpp"

namespace clarify::pg {

void install_shared_memory();

// Unique across backends and restarts: seconds since 2020 at startup, shifted, plus a counter.
uint64 next_decision_id();

// Moved by clarify.purge_audit(): audit writers forget which texts they stored.
void bump_purge_generation();
uint64 purge_generation();

// The secret key of the audit's text, record and shape identities; new at every server start
// (a restart stores the same texts again under new identities).
const AuditKey &audit_key();

}  // namespace clarify::pg
