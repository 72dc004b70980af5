// A forwarded batch: what a standby's audit writer sends to clarify.audit_ingest() on the primary
// (docs/design.md, "Read replicas"). Frames of a 4-byte length (network order) and an entry. Each
// text goes once per batch: a decision whose statement, shape and record went in full earlier in
// the same batch is sent as its short entry, naming them by the hashes the full entry carried.
// Those hashes are the standby's, under its own key: on the primary they are labels valid within
// one batch, never identities (the primary computes its own from the texts).
#pragma once
#include "core/audit/hash.hpp"
#include "core/audit/record.hpp"
#include "core/core_guard.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace clarify {

class ForwardedFrames {
  public:
    // A batch's bytes at most (but always its first entry): the primary takes a bytea of under
    // 1 GB and holds a few times a batch's bytes while writing it; a fuller queue goes in calls.
    static constexpr std::size_t kMaxBytes = std::size_t{64} << 20;
    explicit ForwardedFrames(std::size_t max_bytes = kMaxBytes) : max_bytes_(max_bytes) {}
    // Appends `entry` (decoded as `view`): its short form when every text it names went in full
    // earlier in this batch, else the entry as it is. An entry short already goes as it is when
    // the batch carried its texts, else as a full entry with stand-ins for them: the primary
    // refuses a batch with a short entry it cannot resolve. False, adding nothing, when the
    // batch has no room left for it.
    bool add(std::string_view entry, const AuditView &view);
    void reserve(std::size_t bytes) { bytes_.reserve(bytes < max_bytes_ ? bytes : max_bytes_); }
    const std::string &bytes() const { return bytes_; }
    std::uint64_t entries() const { return entries_; }
    std::uint64_t shortened() const { return shortened_; }

  private:
    bool frame(std::string_view entry);
    std::size_t max_bytes_;
    std::string bytes_, scratch_;
    std::unordered_set<AuditHash, AuditHashHasher> statements_, shapes_, records_;
    std::uint64_t entries_ = 0, shortened_ = 0;
};

// Splits a forwarded batch into its entries, read in place (views into `bytes`). Throws
// AuditFormatError naming the entry (from 1) that is cut short or malformed.
std::vector<AuditView> split_frames(std::string_view bytes);

// Gives each short entry of a forwarded batch the texts of the earlier full entry that carried
// each hash it names, and makes it a full one (views into the same bytes). "" when every short
// entry was resolved; else why the batch is refused: a hash no earlier entry of the batch carried,
// a decision whose allowed or state differs from the shape it names, or a hash carried by two
// entries with different texts.
std::string resolve_short_entries(std::vector<AuditView> &batch);

// For tables keyed by a sender's labels (any 16 bytes it chose): hashed under a key drawn once per
// process, so that no choice of labels puts them all in one bucket (AuditHashHasher takes the low
// half as it is: right for this server's own hashes, not for labels).
struct LabelHasher {
    std::size_t operator()(const AuditHash &label) const;
};

// Gives each entry of a resolved batch this server's identities under `key` (statement, record,
// shape), in place of the sender's labels; notes get none. Each text is hashed once however many
// decisions name it (a resolved short entry points at the text of the entry it names). Returns the
// bytes hashed, at most the batch's own.
std::uint64_t identify_forwarded(std::vector<AuditView> &batch, const AuditKey &key);

}  // namespace clarify
