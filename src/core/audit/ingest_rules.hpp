// What the primary's clarify.audit_ingest() accepts from a standby's writer, and what it skips
// (pg/replica/ingest.cpp holds the SPI side): an origin that names another server and holds its
// own decision id node, entries of this database whose ids carry that node, and no decision the
// audit already holds, so that a batch sent again after a lost connection is written once.
#pragma once
#include "core/audit/record.hpp"
#include "core/core_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace clarify {

inline constexpr std::size_t kMaxOriginBytes = 200;

// Why `origin` is refused on a server whose own origin is `own` ("" when it is accepted): 1 to
// kMaxOriginBytes of printable ASCII (a control character would let a caller forge lines in the
// primary's log and rows that look like another origin), not this server's, nor sharing its node.
std::string origin_refusal(std::string_view origin, std::string_view own);

// Why a forwarded batch from `origin` is refused for its entries ("" when none is): each was
// decided in `database` and carries the origin's node in its id.
std::string entries_refusal(const std::vector<AuditView> &batch, std::uint32_t database,
                            std::string_view origin);

// What the audit is asked about a batch: its decisions' ids (notes apart) and the earliest of
// their decided_at (where the search starts), and whether it has notes. `refusal` is set when a
// decision id appears twice (a writer never queues one decision twice; its notes share its id).
struct HeldLookup {
    std::vector<std::int64_t> ids;
    std::int64_t earliest = 0;
    bool notes = false;
    std::string refusal;
};
HeldLookup held_lookup(const std::vector<AuditView> &batch);

using HeldNotes = std::set<std::pair<std::uint64_t, std::string>>;
// Drops the decisions whose ids the audit holds and the notes it holds by id and text.
void drop_held(std::vector<AuditView> &batch, const std::unordered_set<std::uint64_t> &ids,
               const HeldNotes &notes);

}  // namespace clarify
