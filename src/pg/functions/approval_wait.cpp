#include "pg/pg.hpp"
#include "pg/functions/approval_wait.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

namespace clarify::pg {
namespace {

// Replay progress is read this often; the table is looked at again only when replay moved.
constexpr long kReplayPollMs = 5;

enum class Look { Seen, NotSeen, Locked };

// The role an approval is granted to: catalog 1.2 names it (the role of that name, else the one
// with the OID recorded here, as the gate resolves it: src/pg/catalog/catalog_load.cpp), 1.1 holds
// the OID.
Oid granted_role(HeapTuple tuple, Relation rel, Oid approvals) {
    TupleDesc desc = RelationGetDescr(rel);
    AttrNumber attnum = get_attnum(approvals, "granted_to");
    bool isnull = true;
    Datum value =
        attnum == InvalidAttrNumber ? (Datum)0 : heap_getattr(tuple, attnum, desc, &isnull);
    if (isnull) return InvalidOid;
    if (TupleDescAttr(desc, attnum - 1)->atttypid != TEXTOID) return DatumGetObjectId(value);
    Oid role = get_role_oid(TextDatumGetCString(value), true);
    AttrNumber recorded = get_attnum(approvals, "granted_to_oid");
    if (OidIsValid(role) || recorded == InvalidAttrNumber) return role;
    value = heap_getattr(tuple, recorded, desc, &isnull);
    role = isnull ? InvalidOid : DatumGetObjectId(value);
    return SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)) ? role : InvalidOid;
}

// One look at the approval with a snapshot taken now, so a row replayed since the statement
// began is seen. Agents cannot read clarify.approvals: for them the row exists only when it is
// granted to them, so the answer tells nothing about anyone else's confirmations. A table or
// index locked by another (or by replay) is looked at again later: waiting for the lock could
// outlast the caller's timeout.
Look look_once(Oid approvals, Oid pkey, int64 approval_id) {
    if (!ConditionalLockRelationOid(approvals, AccessShareLock)) return Look::Locked;
    if (OidIsValid(pkey) && !ConditionalLockRelationOid(pkey, AccessShareLock)) {
        UnlockRelationOid(approvals, AccessShareLock);
        return Look::Locked;
    }
    Relation rel = table_open(approvals, NoLock);
    Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
    ScanKeyData key;
    ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(approval_id));
    SysScanDesc scan = systable_beginscan(rel, pkey, OidIsValid(pkey), snapshot, 1, &key);
    bool seen = false;
    if (HeapTuple tuple = systable_getnext(scan)) {
        Oid role = granted_role(tuple, rel, approvals);
        bool readable = pg_class_aclcheck(approvals, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
        bool granted_here =
            OidIsValid(role) && (is_member_of_role_nosuper(GetSessionUserId(), role) ||
                                 is_member_of_role_nosuper(GetOuterUserId(), role));
        seen = readable || granted_here;
    }
    systable_endscan(scan);
    UnregisterSnapshot(snapshot);
    table_close(rel, AccessShareLock);
    if (OidIsValid(pkey)) UnlockRelationOid(pkey, AccessShareLock);
    // Nothing of this look stays registered across the wait.
    InvalidateCatalogSnapshot();
    return seen ? Look::Seen : Look::NotSeen;
}

}  // namespace

bool approval_replayed(int64 approval_id, int timeout_ms) {
    if (IsolationUsesXactSnapshot())
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                 errmsg("clarify.approval_wait() cannot run in a REPEATABLE READ or SERIALIZABLE "
                        "transaction"),
                 errdetail("The transaction's snapshot would not show an approval replayed after "
                           "it began, to this call or to the statement run again."),
                 errhint("Call it in READ COMMITTED, outside the transaction that re-runs the "
                         "statement.")));
    Oid schema = get_namespace_oid("clarify", false);
    Oid approvals = get_relname_relid("approvals", schema);
    if (!OidIsValid(approvals))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("pg_clarify is not installed in this database")));
    Oid pkey = get_relname_relid("approvals_pkey", schema);
    if (OidIsValid(pkey) && get_rel_relkind(pkey) != RELKIND_INDEX) pkey = InvalidOid;
    // A long wait on a busy standby looks many times: each look's scan is freed with its context.
    MemoryContext look_context =
        AllocSetContextCreate(CurrentMemoryContext, "approval_wait", ALLOCSET_SMALL_SIZES);
    TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), Max(timeout_ms, 0));
    XLogRecPtr looked_at = InvalidXLogRecPtr;
    bool first = true;
    for (;;) {
        bool standby = RecoveryInProgress();
        // Read before looking: a commit replayed up to this position is visible to the look.
        XLogRecPtr replayed = standby ? GetXLogReplayRecPtr(nullptr) : InvalidXLogRecPtr;
        if (first || !standby || replayed != looked_at) {
            MemoryContext caller = MemoryContextSwitchTo(look_context);
            Look look = look_once(approvals, pkey, approval_id);
            MemoryContextSwitchTo(caller);
            MemoryContextReset(look_context);
            // A primary (or a standby promoted meanwhile) has every committed row already.
            if (look == Look::Seen || (look == Look::NotSeen && !standby)) {
                MemoryContextDelete(look_context);
                return look == Look::Seen;
            }
            if (look == Look::NotSeen) {
                looked_at = replayed;
                first = false;
            }
        }
        long remaining = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
        if (remaining <= 0) {
            MemoryContextDelete(look_context);
            return false;
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        Min(remaining, kReplayPollMs), PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}

}  // namespace clarify::pg
