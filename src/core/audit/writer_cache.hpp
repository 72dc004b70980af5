// What an audit writer remembers between batches (pg/audit/batch.cpp keeps one): the texts and
// shapes it stored itself or found holding the same bytes, which of them it has published for
// short entries, and where it stored the bytes of identities the audit holds with other bytes.
// Statements, records and shapes repeat: each is stored once, under its keyed hash
// (core/audit/hash.hpp); the cache saves the inserts ON CONFLICT would skip.
#pragma once
#include "core/audit/hash.hpp"
#include "core/core_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace clarify {

using HashSet = std::unordered_set<AuditHash, AuditHashHasher>;
using HashMap = std::unordered_map<AuditHash, AuditHash, AuditHashHasher>;

// Whether the audit keys texts by 16-byte identities (catalog 1.1 on) or a 1.0 catalog's bigint
// ones: ALTER EXTENSION UPDATE changes them in place, under new values.
enum class Width { Unknown, Narrow, Wide };

// A stored identity as the catalog keys it: the 16 bytes, or at catalog 1.0 their first 8.
AuditHash identity_of(const AuditHash &h, Width width);

// The audit's text tables as a batch finds them: their relation ids and identity width.
struct TextTables {
    std::uint32_t texts = 0, shapes = 0;
    Width width = Width::Unknown;
};

class WriterCache {
  public:
    // Past this many stored hashes the cache starts afresh (its memory stays bounded).
    static constexpr std::size_t kMaxStored = 200000;

    // Whether `now` are other tables than the last batch found (DROP and CREATE EXTENSION, or
    // an update that changed the identity width): they hold nothing stored or published before.
    bool recreated(const TextTables &now) const;
    // The first batch that finds a 1.0 catalog (narrow identities): the writer says so once.
    bool first_narrow(const TextTables &now) const;
    // At a batch's start, under the lock purge_audit() takes too: forgets everything when a purge
    // moved the generation since, when the tables were recreated, or when the cache is full.
    void begin_batch(std::uint64_t purge_generation, const TextTables &now);
    std::uint64_t purge_seen() const { return purge_seen_; }

    bool stored(const AuditHash &h) const { return stored_.count(h) > 0; }
    bool published(const AuditHash &h) const { return published_.count(h) > 0; }
    // Where the bytes of `h` were stored instead (the audit holds `h` with other bytes), or null.
    const AuditHash *diverted(const AuditHash &h) const;

    // After a batch's commit: what it inserted or found (`fresh`), where it diverted texts, and
    // the hashes it publishes. Never throws (the batch is committed): on no memory it forgets all.
    void committed(const HashSet &fresh, const HashMap &moved,
                   std::vector<AuditHash> to_publish) noexcept;
    // The hashes the last committed batch publishes (empty once note_published ran).
    const std::vector<AuditHash> &to_publish() const { return to_publish_; }
    // After the commit published them: `kept` false when the shared set was full and emptied
    // first (then everything this writer published is forgotten: it publishes again as it meets
    // them); `may_publish` false when a purge began since the batch did (nothing is published).
    void note_published(bool kept, bool may_publish) noexcept;
    // Forgets everything (a writer of another's batch starts so; or no memory).
    void forget() noexcept;
    std::size_t size() const { return stored_.size(); }

  private:
    HashSet stored_;
    HashSet published_;  // a subset of stored_
    HashMap diverted_;
    std::vector<AuditHash> to_publish_;
    std::uint64_t seen_generation_ = 0;  // the purge generation stored_ is valid for
    std::uint64_t purge_seen_ = 0;       // the generation the last batch began under
    TextTables last_;
};

}  // namespace clarify
