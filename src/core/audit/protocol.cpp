#include "core/audit/protocol.hpp"
#include "core/audit/record.hpp"

#include <algorithm>
#include <cstring>

namespace clarify {

bool read_entry_identity(std::string_view entry, EntryIdentity &out) noexcept {
    // The fixed part (core/audit/record.cpp): format word, decision id, time, database.
    constexpr std::size_t kId = 4, kAt = kId + 8, kDatabase = kAt + 8;
    if (entry.size() < kAuditEntryPrefix) return false;
    std::memcpy(&out.decision_id, entry.data() + kId, sizeof(out.decision_id));
    std::memcpy(&out.decided_at, entry.data() + kAt, sizeof(out.decided_at));
    std::memcpy(&out.database, entry.data() + kDatabase, sizeof(out.database));
    return out.decision_id != 0;
}

std::string entry_refusal(std::string_view entry, std::uint32_t database) {
    AuditView view;
    try {
        view = decode_view(entry);
    } catch (const AuditFormatError &e) {
        return e.what();
    }
    if (view.decision_id == 0) return "audit entry without a decision id";
    if (view.database != database) return "audit entry of another database";
    return {};
}

bool published_has(const PublishedHashes &set, const AuditHash &hash) noexcept {
    if (hash.none()) return false;
    for (std::uint32_t i = std::uint32_t(hash.lo) & (kPublishedHashes - 1);;
         i = (i + 1) & (kPublishedHashes - 1)) {
        if (set.cells[i] == hash) return true;
        if (set.cells[i].none()) return false;
    }
}

void published_clear(PublishedHashes &set) noexcept {
    for (AuditHash &h : set.cells) h = AuditHash{};
    set.count = 0;
}

bool publish(PublishedHashes &set, const AuditHash &hash) noexcept {
    bool kept = true;
    if (hash.none() || published_has(set, hash)) return kept;
    // Never full: at most kPublishedMax cells are taken, so every probe ends at a free one.
    if (set.count >= kPublishedMax) {
        published_clear(set);
        kept = false;
    }
    std::uint32_t i = std::uint32_t(hash.lo) & (kPublishedHashes - 1);
    while (!set.cells[i].none()) i = (i + 1) & (kPublishedHashes - 1);
    set.cells[i] = hash;
    set.count++;
    return kept;
}

bool short_entry_usable(const PublishedHashes &set, const AuditHash (&hashes)[3]) noexcept {
    return published_has(set, hashes[0]) && published_has(set, hashes[1]) &&
           (hashes[2].none() || published_has(set, hashes[2]));
}

bool batch_may_publish(std::uint64_t purge_seen, std::uint64_t purge_now) noexcept {
    return purge_seen == purge_now;
}

bool publish_batch(PublishedHashes &set, const AuditHash *hashes, std::size_t n,
                   std::uint64_t purge_seen, std::uint64_t purge_now) noexcept {
    bool kept = true;
    if (!batch_may_publish(purge_seen, purge_now)) return kept;
    for (std::size_t i = 0; i < n; ++i) kept = publish(set, hashes[i]) && kept;
    return kept;
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

std::uint64_t next_slot_position(std::uint64_t current, std::uint64_t floor,
                                 bool replays_pending) noexcept {
    if (replays_pending || floor <= current) return current;
    return floor;
}

std::vector<std::string> entries_to_replay(std::vector<std::string> found,
                                           const std::unordered_set<std::uint64_t> &held) {
    std::vector<std::string> missing;
    for (std::string &e : found) {
        EntryIdentity id;
        if (read_entry_identity(e, id) && !held.count(id.decision_id))
            missing.push_back(std::move(e));
    }
    return missing;
}

std::int64_t earliest_decided_at(const std::vector<std::string> &entries) noexcept {
    std::int64_t earliest = 0;
    bool any = false;
    for (const std::string &e : entries) {
        EntryIdentity id;
        if (!read_entry_identity(e, id)) continue;
        earliest = any ? std::min(earliest, id.decided_at) : id.decided_at;
        any = true;
    }
    return earliest;
}

bool retention_exceeded(std::uint64_t insert, std::uint64_t floor,
                        std::uint64_t limit_bytes) noexcept {
    return limit_bytes != 0 && insert > floor && insert - floor > limit_bytes;
}

}  // namespace clarify
