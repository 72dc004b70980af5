#include "decision.hpp"
#include "grain.hpp"
#include "rules.hpp"
#include "time_rules.hpp"

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
        case CoverageSource::Assumed:
            return "assumed";
    }
    return "only_eligible";
}

namespace {

void merge_slot(std::vector<Slot> &slots, Slot slot, const std::string &column) {
    for (Slot &s : slots)
        if (s.term == slot.term && s.state == slot.state && s.actual == slot.actual &&
            s.time_range == slot.time_range) {
            if (std::find(s.columns.begin(), s.columns.end(), column) == s.columns.end())
                s.columns.push_back(column);
            return;
        }
    slot.columns.push_back(column);
    slots.push_back(std::move(slot));
}

bool below(Impact impact, AssumeBelow threshold) {
    switch (threshold) {
        case AssumeBelow::None:
            return false;
        case AssumeBelow::Medium:
            return impact < Impact::Medium;
        case AssumeBelow::High:
            return impact < Impact::High;
    }
    return false;
}

// The meaning assumed for a column whose every slot is a low-impact ambiguity that no default
// touches; nothing when one of them must be asked.
std::optional<Coverage> assumption(const detail::Rules &rules, const GovernedColumn &column,
                                   const std::vector<Slot> &slots, AssumeBelow threshold) {
    if (slots.empty()) return std::nullopt;
    for (const Slot &s : slots) {
        bool conflict = false;
        if (s.state != State::Ambiguous || s.time_range || !below(s.impact, threshold) ||
            !s.default_concept.empty() || s.term.empty())
            return std::nullopt;
        if (rules.applicable_default(s.term, &conflict) || conflict) return std::nullopt;
    }
    Coverage cov;
    cov.column = column.name;
    cov.concept_id = slots.front().actual;
    cov.term = slots.front().term;
    cov.source = CoverageSource::Assumed;
    cov.impact = slots.front().impact;
    return cov;
}

}  // namespace

Decision decide(const Catalog &catalog, const AgentContext &ctx, const ResolutionRecord &record,
                const std::vector<const GovernedColumn *> &read,
                const std::vector<AggregateUse> &aggregates, const TimeFacts &time,
                AssumeBelow assume_below) {
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
        std::vector<Slot> slots;
        if (!covered) {
            for (const std::string &id : column->concept_ids) {
                Slot s = rules.diagnose(id);
                s.impact = s.term.empty() ? Impact::High : catalog.impact_of(s.term);
                slots.push_back(std::move(s));
            }
            if ((covered = assumption(rules, *column, slots, assume_below))) {
                if (const Concept *c = catalog.concept(covered->concept_id))
                    covered->concept_version = c->version;
                slots.clear();
            }
        }
        // A dated measure's period: for the meaning covered, or for each one it may have.
        for (const std::string &id : column->concept_ids) {
            if (covered && id != covered->concept_id) continue;
            const TimePolicy *policy = column->time_policy(id);
            if (!policy) continue;
            std::optional<Slot> period = detail::check_period(
                catalog, rules, record, time, *column, *policy, id, covered ? &*covered : nullptr);
            if (period) slots.push_back(std::move(*period));
        }
        if (covered && slots.empty()) {
            decision.covered.push_back(std::move(*covered));
            continue;
        }
        for (Slot &s : slots) merge_slot(decision.slots, std::move(s), column->name);
    }
    for (Slot &s : grain_slots(catalog, rules, aggregates, decision.covered))
        decision.slots.push_back(std::move(s));
    decision.state = State::Resolved;
    for (const Slot &s : decision.slots)
        if (decision.state == State::Resolved || s.state < decision.state) decision.state = s.state;
    // The highest-impact question first; among equals, in the order of their states. Grain
    // slots ask nothing of the user: they follow every meaning slot, whatever their impact.
    std::stable_sort(
        decision.slots.begin(), decision.slots.end(), [](const Slot &a, const Slot &b) {
            const bool ga = a.check != SlotCheck::Meaning, gb = b.check != SlotCheck::Meaning;
            if (ga != gb) return gb;
            return a.impact != b.impact ? a.impact > b.impact : a.state < b.state;
        });
    return decision;
}

}  // namespace clarify
