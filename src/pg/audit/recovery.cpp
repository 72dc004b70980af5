#include "pg/audit/recovery.hpp"
#include "core/audit/protocol.hpp"
#include "pg/audit/held_ids.hpp"
#include "pg/audit/wal.hpp"
#include "pg/boundary.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/timestamp.h"
#include "utils/snapmgr.h"
}

#include <string>
#include <unordered_set>
#include <vector>

namespace clarify::pg {

namespace {

struct Replay {
    bool done = false;
    bool loaded = false;
    std::vector<std::string> entries;
    size_t next = 0;
};
Replay replay;

std::vector<std::string> read_back(Oid database) {
    std::vector<std::string> found;
    uint64 life = life_first_decision_id();
    uint64 from = audit_recover_from();
    pg_guard([&] {
        audit_wal_scan(from, [&](Oid, const char *bytes, Size length) {
            EntryIdentity id;
            std::string_view entry(bytes, length);
            if (read_entry_identity(entry, id) && replays_at_recovery(id, database, life))
                found.emplace_back(entry);
        });
    });
    return found;
}

// The ids among `ids` the audit holds already (a batch committed before the WAL's slot moved),
// from every origin: this server's own decisions, whatever its origin was called when they were
// written (and a 1.0 catalog has no origins).
std::unordered_set<uint64> already_audited(const std::unordered_set<uint64> &ids, int64 earliest) {
    try {
        pg_guard([] {
            StartTransactionCommand();
            if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
            PushActiveSnapshot(GetTransactionSnapshot());
        });
        std::unordered_set<uint64> held = held_decision_ids(ids, earliest, nullptr);
        pg_guard([] {
            SPI_finish();
            PopActiveSnapshot();
            CommitTransactionCommand();
        });
        return held;
    } catch (...) {  // an ERROR, or std::bad_alloc: the transaction goes either way
        pg_guard([] { AbortCurrentTransaction(); });
        throw;
    }
}

void load(Oid database) {
    std::vector<std::string> entries = read_back(database);
    if (!entries.empty()) {
        std::unordered_set<uint64> ids;
        for (const std::string &e : entries) {
            EntryIdentity id;
            (void)read_entry_identity(e, id);  // read_back kept only entries with an identity
            ids.insert(id.decision_id);
        }
        std::unordered_set<uint64> held = already_audited(ids, earliest_decided_at(entries));
        entries = entries_to_replay(std::move(entries), held);
    }
    size_t n = entries.size();
    pg_guard([n] {
        ereport(LOG, (errmsg("pg_clarify audit writer: replaying %zu decisions the write-ahead "
                             "log held from before the server started",
                             n)));
    });
    replay.entries = std::move(entries);
    replay.next = 0;
    replay.loaded = true;
}

}  // namespace

bool replay_step(DatabaseQueue *queue) {
    if (replay.done) return true;
    if (!pg_guard([&] { return audit_replay_pending(queue); })) {
        replay.done = true;
        return true;
    }
    try {
        if (!replay.loaded) {
            // The queue first: the audit then holds everything queued before, so what the WAL
            // holds and the audit does not is exactly what is left to replay.
            if (pg_guard([&] { return audit_pending_bytes(queue); }) != 0) return false;
            load(MyDatabaseId);
        }
        while (replay.next < replay.entries.size()) {
            const std::string &e = replay.entries[replay.next];
            if (!pg_guard(
                    [&] { return audit_enqueue_replayed(queue, e.data(), uint32(e.size())); }))
                return false;
            ++replay.next;
        }
        if (pg_guard([&] { return audit_pending_bytes(queue); }) != 0) return false;
    } catch (const PgError &e) {
        std::string message = e.what();
        pg_guard([&] {
            audit_worker_failed(queue, message.c_str());
            ereport(LOG,
                    (errmsg("pg_clarify audit writer: the replay failed: %s", message.c_str())));
        });
        return false;
    }
    pg_guard([&] { audit_finish_replay(queue); });
    replay = Replay{};
    replay.done = true;
    return true;
}

std::set<Oid> databases_to_replay(uint64 from) {
    std::set<Oid> found;
    uint64 life = life_first_decision_id();
    pg_guard([&] {
        audit_wal_scan(from, [&](Oid database, const char *bytes, Size length) {
            EntryIdentity id;
            if (read_entry_identity(std::string_view(bytes, length), id) &&
                replays_at_recovery(id, database, life))
                found.insert(database);
        });
    });
    return found;
}

}  // namespace clarify::pg
