// What pg_clarify keeps in shared memory: the decision id counter, the purge generation, the
// audit's key, and the audit queue (pg/audit/queue.hpp), set up when the library is preloaded.
#pragma once

#include "pg/pg.hpp"
#include "core/audit/hash.hpp"

extern "C" {
#include "port/atomics.h"
}

namespace clarify::pg {

void install_shared_memory();

// The counter decision ids are taken from (pg/audit/decision_ids.cpp).
pg_atomic_uint64 *shared_decision_ids();

// The first decision id taken since shared memory was set up (this server start).
uint64 life_first_decision_id();

// Moved by clarify.purge_audit(): audit writers forget which texts they stored.
void bump_purge_generation();
uint64 purge_generation();

// The secret key of the audit's text, record and shape identities; new at every server start
// (a restart stores the same texts again under new identities).
const AuditKey &audit_key();

}  // namespace clarify::pg
