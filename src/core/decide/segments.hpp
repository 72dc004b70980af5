// Segments (docs/reference.md, "Segments"): a governed filter applied by a statement is a read of
// that meaning, and a segment term the user said or the record binds must be applied where its
// relation is scanned.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/decision.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace clarify {

// What the plan analysis (src/pg/plan/segment/) found: the segments the statement applies and
// the relations with segments it scans, each sorted and without duplicates.
struct SegmentFacts {
    std::vector<std::string> applied;
    std::vector<std::uint32_t> scanned;
    bool empty() const { return applied.empty() && scanned.empty(); }
    bool operator==(const SegmentFacts &o) const {
        return applied == o.applied && scanned == o.scanned;
    }
};

namespace detail {
class Rules;
}

// What the segment rules add to a decision: coverages, and slots with the column (the scanned
// relation's name) each is about.
struct SegmentOutcome {
    std::vector<Coverage> covered;
    std::vector<std::pair<Slot, std::string>> slots;
};

SegmentOutcome segment_rules(const Catalog &catalog, const detail::Rules &rules,
                             const ResolutionRecord &record, const SegmentFacts &facts);

// Whether the statement is a decision because of its segments alone: it applies one, or it
// scans the relation of a segment whose term the record binds or the question mentions.
bool segments_decide(const Catalog &catalog, const ResolutionRecord &record,
                     const std::vector<std::string> &mentioned, const SegmentFacts &facts);

}  // namespace clarify
