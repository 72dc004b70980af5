// The audit's durability protocol (docs/design.md, "Durable decisions"): a sync decision is a
// logical message in the write-ahead log before it is a row; these are the rules the glue follows
// to keep that WAL until the writer has materialised it, and to replay it after a restart.
#pragma once
#include "core/audit/hash.hpp"
#include "core/core_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace clarify {

// The prefix of the logical messages that hold sync decisions in the write-ahead log.
inline constexpr const char *kAuditWalPrefix = "pg_clarify.audit";

// Who and when an entry is, read from its fixed part without decoding it (no throw).
struct EntryIdentity {
    std::uint64_t decision_id = 0;
    std::int64_t decided_at = 0;
    std::uint32_t database = 0;
};
bool read_entry_identity(std::string_view entry, EntryIdentity &out) noexcept;

// Why the writer could not materialise `entry` as a row of `database`'s audit ("" when it can):
// it must decode as the writer decodes it and name a decision of that database. The backend asks
// before the entry is written anywhere, so a decision is never answered with an unreadable entry.
std::string entry_refusal(std::string_view entry, std::uint32_t database);

// The hashes of the texts and shapes the writer has committed, in shared memory (plain data:
// open addressing, a none hash marks a free cell). A decision whose hashes are all here crosses
// the queue as its short entry.
inline constexpr int kPublishedHashes = 1024;  // a power of two
inline constexpr int kPublishedMax = kPublishedHashes * 3 / 4;
struct PublishedHashes {
    int count;
    AuditHash cells[kPublishedHashes];
};
bool published_has(const PublishedHashes &set, const AuditHash &hash) noexcept;
// False when the set was full and emptied first (the writer then forgets what it published).
bool publish(PublishedHashes &set, const AuditHash &hash) noexcept;
void published_clear(PublishedHashes &set) noexcept;

// A short entry may be queued instead of the full one only when every hash it names is published
// (statement, shape, and the record's unless it has none): the audit holds those texts.
bool short_entry_usable(const PublishedHashes &set, const AuditHash (&hashes)[3]) noexcept;

// A purge deletes texts no row refers to: a batch that began before a purge may have stored a
// text the purge deleted, so its hashes are published only when the purge generation it read
// when it began is still the current one.
bool batch_may_publish(std::uint64_t purge_seen, std::uint64_t purge_now) noexcept;
// Publishes a committed batch's hashes under that rule; false when the set was emptied first.
bool publish_batch(PublishedHashes &set, const AuditHash *hashes, std::size_t n,
                   std::uint64_t purge_seen, std::uint64_t purge_now) noexcept;

// A decision found in the write-ahead log at recovery is replayed by its database's writer when
// it was made before this server start (`life_first_id`: decisions since come through the queue)
// and is not in the audit yet (checked by the caller).
bool replays_at_recovery(const EntryIdentity &entry, std::uint32_t database,
                         std::uint64_t life_first_id) noexcept;

// One sync entry queued and not yet materialised: where it ends in the queue, and a WAL position
// at or before its logical message. Queue order is WAL order: both are taken under one lock.
struct DurableMark {
    std::uint64_t queue_end;
    std::uint64_t wal_floor;
};

// A fixed-capacity FIFO of marks in shared memory (plain data; the cells follow it).
struct DurableMarks {
    std::uint64_t head = 0;  // marks ever released
    std::uint64_t tail = 0;  // marks ever pushed
    std::uint64_t capacity = 0;
};

// False when full (the caller waits for the writer, as for room in the queue).
bool push_mark(DurableMarks &marks, DurableMark *cells, DurableMark mark) noexcept;
// Forgets the marks of entries the writer has committed (queue_end <= committed).
void release_marks(DurableMarks &marks, const DurableMark *cells, std::uint64_t committed) noexcept;
// The WAL position before which nothing pending in this queue lies; `none` when nothing is.
std::uint64_t oldest_floor(const DurableMarks &marks, const DurableMark *cells,
                           std::uint64_t none) noexcept;

// Where the retention slot moves next: to `floor` (the oldest mark of any queue, or the WAL insert
// position when none is pending), never backwards, and nowhere while a replay of decisions from
// before this start is pending (they lie before every mark, from the slot's position at start).
std::uint64_t next_slot_position(std::uint64_t current, std::uint64_t floor,
                                 bool replays_pending) noexcept;

// The entries read back from the WAL that a replay queues again: those whose decision ids the
// audit does not hold (a batch may have committed them before the slot moved), in WAL order.
std::vector<std::string> entries_to_replay(std::vector<std::string> found,
                                           const std::unordered_set<std::uint64_t> &held);
// The earliest decision time among entries read back (0 when none): where the audit is searched.
std::int64_t earliest_decided_at(const std::vector<std::string> &entries) noexcept;

// True when holding WAL from `floor` to `insert` exceeds `limit_bytes` (0: no limit): a sync
// decision then fails closed instead of growing the retained WAL further.
bool retention_exceeded(std::uint64_t insert, std::uint64_t floor,
                        std::uint64_t limit_bytes) noexcept;

}  // namespace clarify
