#include "core/decide/decision.hpp"
#include "core/decide/grain.hpp"
#include "core/decide/rules.hpp"
#include "core/decide/segments.hpp"
#include "core/decide/time_rules.hpp"

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

// One slot per question: a mentioned period asked about is one slot whatever measures it dates.
bool same_question(const Slot &a, const Slot &b) {
    if (a.term != b.term || a.state != b.state || a.time_range != b.time_range) return false;
    if (a.actual == b.actual) return true;
    return a.time_range && !a.term.empty() && a.state != State::Mismatch;
}

Slot question_slot(const std::vector<std::string> &columns) {
    Slot s;
    s.check = SlotCheck::Question;
    s.state = State::Unverified;
    s.columns = columns;
    s.reason =
        "the record carries no question, and pg_clarify.require_question asks for the "
        "user's words before any governed meaning is decided";
    s.advice =
        "Set pg_clarify.resolution with the user's question, unedited, as \"question\", "
        "then run the statement again.";
    return s;
}

void merge_slot(std::vector<Slot> &slots, Slot slot, const std::string &column) {
    for (Slot &s : slots)
        if (same_question(s, slot)) {
            if (std::find(s.columns.begin(), s.columns.end(), column) == s.columns.end())
                s.columns.push_back(column);
            return;
        }
    slot.columns.push_back(column);
    slots.push_back(std::move(slot));
}

// The meaning assumed for a column whose every slot is a low-impact ambiguity that no default
// touches; nothing when one of them must be asked.
std::optional<Coverage> assumption(const detail::Rules &rules, const GovernedColumn &column,
                                   const std::vector<Slot> &slots, const DecideOptions &options) {
    if (slots.empty()) return std::nullopt;
    for (const Slot &s : slots) {
        bool conflict = false;
        bool assumed = below_setting(s.impact, options.assume_below) ||
                       (options.budget_spent && assumed_once_spent(s));
        if (s.state != State::Ambiguous || s.time_range || !assumed || !s.default_concept.empty() ||
            s.term.empty())
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
                const DecideOptions &options) {
    detail::Rules rules(catalog, ctx, record, options.mentioned);
    Decision decision;
    for (const GovernedColumn *column : read) {
        if (!column) continue;
        if (std::find(decision.columns.begin(), decision.columns.end(), column->name) !=
            decision.columns.end())
            continue;
        decision.columns.push_back(column->name);
        std::optional<Coverage> covered = rules.cover(*column);
        std::vector<Slot> slots;
        if (!covered) {
            for (const std::string &id : column->concept_ids)
                if (std::optional<Slot> s = rules.diagnose(id, *column)) slots.push_back(*s);
            if (slots.empty() && !column->concept_ids.empty())
                slots.push_back(rules.unresolved(column->concept_ids.front()));
            for (Slot &s : slots)
                s.impact = s.term.empty() ? Impact::High : catalog.impact_of(s.term);
            if ((covered = assumption(rules, *column, slots, options))) {
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
    if (options.segments) {
        SegmentOutcome applied = segment_rules(catalog, rules, record, *options.segments);
        for (Coverage &c : applied.covered) decision.covered.push_back(std::move(c));
        for (auto &s : applied.slots) merge_slot(decision.slots, std::move(s.first), s.second);
    }
    for (Slot &s : grain_slots(catalog, rules, aggregates, decision.covered))
        decision.slots.push_back(std::move(s));
    const bool unasked = options.require_question && !decision.columns.empty() &&
                         trim_space(record.question).empty();
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
    // Nothing can be decided without the user's words: that is asked before anything else.
    if (unasked) {
        decision.slots.insert(decision.slots.begin(), question_slot(decision.columns));
        decision.state = State::Unverified;
    }
    return decision;
}

}  // namespace clarify
