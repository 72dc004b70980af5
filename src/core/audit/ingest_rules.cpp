#include "core/audit/ingest_rules.hpp"

#include "core/audit/decision_id.hpp"

#include <algorithm>

namespace clarify {

std::string origin_refusal(std::string_view origin, std::string_view own) {
    if (origin.empty() || origin.size() > kMaxOriginBytes)
        return "the origin must be 1 to 200 bytes";
    if (std::any_of(origin.begin(), origin.end(),
                    [](unsigned char c) { return c < 32 || c > 126; }))
        return "the origin must be printable ASCII, as a cluster_name is";
    std::string quoted = "the origin \"" + std::string(origin) + "\"";
    if (origin == own) return quoted + " is this server's own";
    if (origin_node(origin) == origin_node(own))
        return quoted +
               " shares this server's decision id node; give the standby another cluster_name";
    return "";
}

std::string entries_refusal(const std::vector<AuditView> &batch, std::uint32_t database,
                            std::string_view origin) {
    std::uint32_t node = origin_node(origin);
    for (std::size_t n = 0; n < batch.size(); ++n) {
        const AuditView &a = batch[n];
        if (a.database != database)
            return "entry " + std::to_string(n + 1) + " was decided in another database";
        if (id_node(a.decision_id) != node)
            return "decision " + std::to_string(a.decision_id) + " was not made at origin \"" +
                   std::string(origin) + "\"";
    }
    return "";
}

HeldLookup held_lookup(const std::vector<AuditView> &batch) {
    HeldLookup out;
    for (const AuditView &a : batch) {
        if (!a.note.empty()) {
            out.notes = true;
            continue;
        }
        out.earliest = out.ids.empty() ? a.decided_at : std::min(out.earliest, a.decided_at);
        out.ids.push_back(static_cast<std::int64_t>(a.decision_id));
    }
    std::unordered_set<std::int64_t> seen;
    for (std::int64_t id : out.ids)
        if (!seen.insert(id).second) {
            out.refusal = "decision " + std::to_string(static_cast<std::uint64_t>(id)) +
                          " appears twice in the batch";
            break;
        }
    return out;
}

void drop_held(std::vector<AuditView> &batch, const std::unordered_set<std::uint64_t> &ids,
               const HeldNotes &notes) {
    auto held = [&](const AuditView &a) {
        return a.note.empty() ? ids.count(a.decision_id) > 0
                              : notes.count({a.decision_id, std::string(a.note)}) > 0;
    };
    batch.erase(std::remove_if(batch.begin(), batch.end(), held), batch.end());
}

}  // namespace clarify
