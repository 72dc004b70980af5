// Every write-ahead-log call of the audit, in small functions (their signatures differ between
// PostgreSQL majors): a sync decision's logical message, its flush and synchronous standby wait,
// the replication slot that keeps it until materialised, and reading it back after a restart.
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
}

#include <functional>

namespace clarify::pg {

// The position the next WAL record starts at or after.
XLogRecPtr audit_wal_insert_position();
// Writes `bytes` as a non-transactional logical message (written at every wal_level, and
// whatever this transaction does after); returns the end of the record.
XLogRecPtr audit_wal_log(const char *bytes, uint32 length);
// Flushes the WAL up to `end` and waits, as a commit at synchronous_commit >= on would, for the
// synchronous standbys to confirm it, at most until `deadline`. False: not confirmed in time.
bool audit_wal_make_durable(XLogRecPtr end, TimestampTz deadline);

// The extension's physical replication slot (created when missing), held by the calling process
// for its life: the WAL from its position on is kept.
void audit_wal_hold_slot();
XLogRecPtr audit_wal_slot_position();
// Moves the held slot forward to `floor` (never back).
void audit_wal_advance_slot(XLogRecPtr floor);

// Calls `found(database, bytes, length)` for every audit message in the flushed WAL from `from`
// on, up to the flush position when called.
void audit_wal_scan(XLogRecPtr from, const std::function<void(Oid, const char *, Size)> &found);

}  // namespace clarify::pg
