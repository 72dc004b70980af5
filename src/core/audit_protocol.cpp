#include "audit_protocol.hpp"
#include "audit_record.hpp"

#include <cstring>

namespace clarify {

bool read_entry_identity(std::string_view entry, EntryIdentity &out) noexcept {
    // The fixed part (audit_record.cpp): format word, decision id, time, database.
    constexpr std::size_t kId = 4, kAt = kId + 8, kDatabase = kAt + 8;
    if (entry.size() < kAuditEntryPrefix) return false;
    std::memcpy(&out.decision_id, entry.data() + kId, sizeof(out.decision_id));
    std::memcpy(&out.decided_at, entry.data() + kAt, sizeof(out.decided_at));
    std::memcpy(&out.database, entry.data() + kDatabase, sizeof(out.database));
    return out.decision_id != 0;
}

bool replays_at_recovery(const EntryIdentity &entry, std::uint32_t database,
                         std::uint64_t life_first_id) noexcept {
    return entry.database == database && entry.decision_id != 0 &&
           entry.decision_id < life_first_id;
}

bool push_mark(DurableMarks &marks, DurableMark *cells, DurableMark mark) noexcept {
    if (marks.capacity == 0 || marks.tail - marks.head >= marks.capacity) return false;
    cells[marks.tail % marks.capacity] = mark;
    marks.tail++;
    return true;
}

void release_marks(DurableMarks &marks, const DurableMark *cells,
                   std::uint64_t committed) noexcept {
    while (marks.head < marks.tail && cells[marks.head % marks.capacity].queue_end <= committed)
        marks.head++;
}

std::uint64_t oldest_floor(const DurableMarks &marks, const DurableMark *cells,
                           std::uint64_t none) noexcept {
    if (marks.head == marks.tail) return none;
    return cells[marks.head % marks.capacity].wal_floor;
}

bool retention_exceeded(std::uint64_t insert, std::uint64_t floor,
                        std::uint64_t limit_bytes) noexcept {
    return limit_bytes != 0 && insert > floor && insert - floor > limit_bytes;
}

}  // namespace clarify
