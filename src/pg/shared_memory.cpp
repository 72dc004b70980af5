#include "pg/pg.hpp"
#include "pg/shared_memory.hpp"
#include "pg/audit/decision_ids.hpp"
#include "pg/audit/queue.hpp"

extern "C" {
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/lwlock.h"
}

namespace clarify::pg {

namespace {

struct SharedState {
    pg_atomic_uint64 next_decision_id;
    pg_atomic_uint64 purge_generation;
    // The first decision id of this start of shared memory: decisions below it that the WAL
    // holds were made before (core/audit/protocol.hpp).
    uint64 life_first_id;
    // The key of the audit's identities (core/audit/hash.hpp): drawn at each start of shared
    // memory, written before any backend exists and never changed, never shown to SQL.
    AuditKey audit_key;
};

SharedState *shared = nullptr;
shmem_request_hook_type prev_shmem_request = nullptr;
shmem_startup_hook_type prev_shmem_startup = nullptr;

void request_shared_memory(void) {
    if (prev_shmem_request) prev_shmem_request();
    RequestAddinShmemSpace(add_size(MAXALIGN(sizeof(SharedState)), audit_queue_shmem_size()));
    audit_queue_request_locks();
}

void attach_shared_memory(void) {
    if (prev_shmem_startup) prev_shmem_startup();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    shared = static_cast<SharedState *>(ShmemInitStruct("pg_clarify", sizeof(SharedState), &found));
    if (!found) {
        shared->life_first_id = first_decision_id();
        pg_atomic_init_u64(&shared->next_decision_id, shared->life_first_id);
        pg_atomic_init_u64(&shared->purge_generation, 0);
        unsigned char key[16];
        if (!pg_strong_random(key, sizeof(key)))
            ereport(FATAL, (errmsg("pg_clarify could not draw the key of its audit hashes")));
        AuditHash words = hash_from_bytes(key);
        shared->audit_key = AuditKey{words.lo, words.hi};
        explicit_bzero(key, sizeof(key));
    }
    bool queue_found = false;
    void *queue = ShmemInitStruct("pg_clarify audit queue", audit_queue_shmem_size(), &queue_found);
    audit_queue_attach(queue, queue_found);
    LWLockRelease(AddinShmemInitLock);
}

}  // namespace

void install_shared_memory() {
    prev_shmem_request = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    prev_shmem_startup = shmem_startup_hook;
    shmem_startup_hook = attach_shared_memory;
}

void bump_purge_generation() {
    pg_atomic_fetch_add_u64(&shared->purge_generation, 1);
}
uint64 purge_generation() {
    return pg_atomic_read_u64(&shared->purge_generation);
}

pg_atomic_uint64 *shared_decision_ids() {
    return &shared->next_decision_id;
}

uint64 life_first_decision_id() {
    return shared->life_first_id;
}

const AuditKey &audit_key() {
    return shared->audit_key;
}

}  // namespace clarify::pg
