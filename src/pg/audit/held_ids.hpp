// Which decision ids the audit holds: asked by the replay after a server start
// (pg/audit/recovery.cpp) and by the ingest of a standby's batch (pg/replica/ingest.cpp).
#pragma once

#include "pg/pg.hpp"

#include <string>
#include <unordered_set>

namespace clarify::pg {

// The ids among `wanted` in the audit's batches decided from `earliest` on; with `origin`, only
// in that origin's batches (an id another origin took is never a reason to lose a decision).
// Call inside an SPI connection. Each read takes a snapshot of its own, after any lock the caller
// waited for.
std::unordered_set<uint64> held_decision_ids(const std::unordered_set<uint64> &wanted,
                                             int64 earliest, const std::string *origin);

}  // namespace clarify::pg
