#include "decision.hpp"
#include "grain.hpp"
#include "rules.hpp"

#include <algorithm>

namespace clarify {

const char *to_string(CoverageSource source) {
    switch (source) {
        case CoverageSource::UserConfirmation:
            return "user_confirmation";
        case CoverageSource::ApprovedDefault:
            return "approved_default";
        case CoverageSource::Explicit:
            return "explicit";
        case CoverageSource::OnlyEligible:
            return "only_eligible";
    }
    return "only_eligible";
}

namespace {

void merge_slot(std::vector<Slot> &slots, Slot slot, const std::string &column) {
    for (Slot &s : slots)
        if (s.term == slot.term && s.state == slot.state && s.actual == slot.actual) {
            if (std::find(s.columns.begin(), s.columns.end(), column) == s.columns.end())
                s.columns.push_back(column);
            return;
        }
    slot.columns.push_back(column);
    slots.push_back(std::move(slot));
}

}  // namespace

Decision decide(const Catalog &catalog, const AgentContext &ctx, const ResolutionRecord &record,
                const std::vector<const GovernedColumn *> &read,
                const std::vector<AggregateUse> &aggregates) {
    detail::Rules rules(catalog, ctx, record);
    Decision decision;
    for (const GovernedColumn *column : read) {
        if (!column) continue;
        if (std::find(decision.columns.begin(), decision.columns.end(), column->name) !=
            decision.columns.end())
            continue;
        decision.columns.push_back(column->name);
        std::optional<Coverage> covered;
        for (const std::string &id : column->concept_ids)
            if ((covered = rules.cover(*column, id))) break;
        if (covered) {
            decision.covered.push_back(std::move(*covered));
            continue;
        }
        for (const std::string &id : column->concept_ids)
            merge_slot(decision.slots, rules.diagnose(id), column->name);
    }
    for (Slot &s : grain_slots(catalog, rules, aggregates, decision.covered))
        decision.slots.push_back(std::move(s));
    decision.state = State::Resolved;
    for (const Slot &s : decision.slots)
        if (decision.state == State::Resolved || s.state < decision.state) decision.state = s.state;
    // Report the slots in the order of their states, so the first one is the one to ask.
    std::stable_sort(decision.slots.begin(), decision.slots.end(),
                     [](const Slot &a, const Slot &b) { return a.state < b.state; });
    return decision;
}

}  // namespace clarify
