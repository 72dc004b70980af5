// The audit's durability protocol (docs/design.md, "Durable decisions"): a sync decision is a
// logical message in the write-ahead log before it is a row; these are the rules the glue follows
// to keep that WAL until the writer has materialised it, and to replay it after a restart.
#pragma once
#include "core_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

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

// True when holding WAL from `floor` to `insert` exceeds `limit_bytes` (0: no limit): a sync
// decision then fails closed instead of growing the retained WAL further.
bool retention_exceeded(std::uint64_t insert, std::uint64_t floor,
                        std::uint64_t limit_bytes) noexcept;

}  // namespace clarify
