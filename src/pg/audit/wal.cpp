#include "pg/audit/wal.hpp"
#include "core/audit/protocol.hpp"
#include "pg/compat.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "replication/message.h"
#include "replication/slot.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/timestamp.h"
}

#include <cstring>

namespace clarify::pg {

namespace {
constexpr const char *kSlotName = "pg_clarify_audit";
// A waiter is not in the synchronous replication queue (it could not give up in time there):
// it looks at the standbys' confirmed position this often.
constexpr long kStandbyPollMs = 1;

int standby_wait_mode() {
    switch (synchronous_commit) {
        case SYNCHRONOUS_COMMIT_REMOTE_WRITE:
            return SYNC_REP_WAIT_WRITE;
        case SYNCHRONOUS_COMMIT_REMOTE_APPLY:
            return SYNC_REP_WAIT_APPLY;
        default:
            return SYNC_REP_WAIT_FLUSH;
    }
}

// True when no synchronous standby is configured or they have confirmed `end`.
bool standbys_confirmed(XLogRecPtr end, int mode) {
    if (max_wal_senders == 0 || WalSndCtl == nullptr) return true;
    LWLockAcquire(SyncRepLock, LW_SHARED);
    bool defined = (WalSndCtl->sync_standbys_status & SYNC_STANDBY_DEFINED) != 0;
    bool done = !defined || WalSndCtl->lsn[mode] >= end;
    LWLockRelease(SyncRepLock);
    return done;
}
}  // namespace

XLogRecPtr audit_wal_insert_position() {
    return GetXLogInsertRecPtr();
}

XLogRecPtr audit_wal_log(const char *bytes, uint32 length) {
    return log_logical_message(kAuditWalPrefix, bytes, length);
}

bool audit_wal_make_durable(XLogRecPtr end, TimestampTz deadline) {
    XLogFlush(end);
    int mode = standby_wait_mode();
    while (!standbys_confirmed(end, mode)) {
        long ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
        if (ms <= 0) return false;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        Min(ms, kStandbyPollMs), WAIT_EVENT_SYNC_REP);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
    return true;
}

void audit_wal_hold_slot() {
    if (MyReplicationSlot) return;
    if (SearchNamedReplicationSlot(kSlotName, true) == nullptr) {
        create_physical_slot(kSlotName);
        ReplicationSlotReserveWal();
        ReplicationSlotMarkDirty();
        ReplicationSlotSave();
        ReplicationSlotsComputeRequiredLSN();
        return;
    }
    acquire_slot(kSlotName);
}

XLogRecPtr audit_wal_slot_position() {
    if (!MyReplicationSlot) return InvalidXLogRecPtr;
    SpinLockAcquire(&MyReplicationSlot->mutex);
    XLogRecPtr at = MyReplicationSlot->data.restart_lsn;
    SpinLockRelease(&MyReplicationSlot->mutex);
    return at;
}

void audit_wal_advance_slot(XLogRecPtr floor) {
    if (!MyReplicationSlot) return;
    bool moved = false;
    SpinLockAcquire(&MyReplicationSlot->mutex);
    if (floor > MyReplicationSlot->data.restart_lsn) {
        MyReplicationSlot->data.restart_lsn = floor;
        moved = true;
    }
    SpinLockRelease(&MyReplicationSlot->mutex);
    if (!moved) return;
    // On disk before the WAL it released may be removed: the slot read back after a crash is
    // never behind WAL that is gone.
    ReplicationSlotMarkDirty();
    ReplicationSlotSave();
    ReplicationSlotsComputeRequiredLSN();
}

void audit_wal_scan(XLogRecPtr from, const std::function<void(Oid, const char *, Size)> &found) {
    XLogRecPtr end = GetFlushRecPtr(nullptr);
    if (from == InvalidXLogRecPtr || from >= end) return;
    ReadLocalXLogPageNoWaitPrivate nowait;
    memset(&nowait, 0, sizeof(nowait));
    XLogReaderRoutine routine;
    memset(&routine, 0, sizeof(routine));
    routine.page_read = read_local_xlog_page_no_wait;
    routine.segment_open = wal_segment_open;
    routine.segment_close = wal_segment_close;
    XLogReaderState *reader = XLogReaderAllocate(wal_segment_size, nullptr, &routine, &nowait);
    if (!reader) ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
    XLogRecPtr first = XLogFindNextRecord(reader, from);
    if (first == InvalidXLogRecPtr) {
        XLogReaderFree(reader);
        return;
    }
    XLogBeginRead(reader, first);
    const size_t prefix_size = strlen(kAuditWalPrefix) + 1;
    for (;;) {
        char *error = nullptr;
        XLogRecord *record = XLogReadRecord(reader, &error);
        if (!record || nowait.end_of_wal) break;
        if (XLogRecGetRmid(reader) == RM_LOGICALMSG_ID &&
            (XLogRecGetInfo(reader) & ~XLR_INFO_MASK) == XLOG_LOGICAL_MESSAGE) {
            auto *message = reinterpret_cast<xl_logical_message *>(XLogRecGetData(reader));
            if (!message->transactional && message->prefix_size == prefix_size &&
                memcmp(message->message, kAuditWalPrefix, prefix_size) == 0) {
                // A C++ exception from `found` (std::bad_alloc) must not leak the open segment.
                try {
                    found(message->dbId, message->message + prefix_size, message->message_size);
                } catch (...) {
                    XLogReaderFree(reader);
                    throw;
                }
            }
        }
        if (reader->EndRecPtr >= end) break;
    }
    XLogReaderFree(reader);
}

}  // namespace clarify::pg
