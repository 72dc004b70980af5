// Replaying, after a server start, the sync decisions the WAL holds and the audit does not: each
// database's writer queues its own (pg/audit/recovery.cpp); the keeper (pg/audit/retention.cpp)
// finds which databases have some and holds the WAL meanwhile.
#pragma once

#include "pg/pg.hpp"
#include "pg/audit/queue.hpp"

#include <set>

namespace clarify::pg {

// One step of the replay for the writer's database: once its queue is empty, reads the decisions
// made before this server start from the WAL and keeps those not in the audit; then queues as
// many as fit. True once every one is committed (or none was needed).
bool replay_step(DatabaseQueue *queue);

// The databases whose decisions made before this server start the WAL holds from `from` on.
std::set<Oid> databases_to_replay(uint64 from);

// Queues an entry read back from the WAL, without writing it to the WAL again: false when the
// queue has no room now.
bool audit_enqueue_replayed(DatabaseQueue *queue, const char *entry, uint32 length);
// The WAL position replays read from (the retention slot's at server start).
uint64 audit_recover_from();
bool audit_replay_pending(DatabaseQueue *queue);
void audit_finish_replay(DatabaseQueue *queue);

}  // namespace clarify::pg
