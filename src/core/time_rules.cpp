#include "time_rules.hpp"

namespace clarify {

TimeRange TimeFacts::range_of(ColumnKey time_column) const {
    for (const auto &entry : ranges)
        if (entry.first == time_column) return entry.second;
    return TimeRange{};
}

const TimeRange *TimeFacts::window(const std::string &concept_id) const {
    for (const auto &entry : windows)
        if (entry.first == concept_id) return &entry.second;
    return nullptr;
}

namespace detail {

namespace {

Slot period_slot(const Catalog &catalog, const Rules &rules, const std::string &measure,
                 const std::string &term, State state, const TimeRange &read) {
    Slot s;
    s.kind = ConceptKind::Metric;
    s.time_range = true;
    s.term = term;
    s.state = state;
    s.actual = measure;
    s.actual_range = read;
    for (const std::string &id : catalog.time_windows())
        if (rules.eligible(id)) s.options.push_back(id);
    return s;
}

std::string window_words(const Rules &rules, const std::string &window, const TimeRange &range) {
    return rules.label(window) + " (" + describe_range(range) + ")";
}

}  // namespace

std::optional<Slot> check_period(const Catalog &catalog, const Rules &rules,
                                 const ResolutionRecord &record, const TimeFacts &facts,
                                 const GovernedColumn &column, const TimePolicy &policy,
                                 const std::string &concept_id, Coverage *coverage) {
    const TimeRange read = facts.range_of(ColumnKey{column.relation, policy.time_attnum});
    const std::string measure = rules.label(concept_id);
    std::optional<Slot> claim_problem;
    // The first verified binding to an eligible time window is the period the user asked for.
    for (const Binding &b : record.bindings) {
        const Concept *c = catalog.concept(b.concept_id);
        if (!c || c->kind != ConceptKind::TimeWindow) continue;
        const std::string term = b.term.empty() ? rules.main_term(b.concept_id) : b.term;
        if (!rules.eligible(b.concept_id)) {
            if (!claim_problem) {
                Slot s = period_slot(catalog, rules, concept_id, term, State::Unsupported, read);
                s.reason = "the record binds the period to " + rules.label(b.concept_id) +
                           ", which " + ineligibility(c, rules.now());
                s.question = rules.label(b.concept_id) + " " + ineligibility(c, rules.now()) +
                             ". For which period should " + measure + " be computed?";
                claim_problem = std::move(s);
            }
            continue;
        }
        Rules::Verification v = rules.verify(b);
        if (!v.verified) {
            if (!claim_problem) {
                Slot s = period_slot(catalog, rules, concept_id, term, State::Unverified, read);
                s.reason = v.reason;
                s.question = "Please confirm the period for " + measure + ":";
                claim_problem = std::move(s);
            }
            continue;
        }
        const TimeRange *window = facts.window(b.concept_id);
        const TimeRange expected = window ? *window : TimeRange{};
        if (!window || read != expected) {
            Slot s = period_slot(catalog, rules, concept_id, term, State::Mismatch, read);
            s.expected = b.concept_id;
            s.expected_range = expected;
            s.reason = "the period asked for is " + window_words(rules, b.concept_id, expected) +
                       ", but the statement computes " + measure + " " + describe_range(read);
            s.question = "You asked about " + window_words(rules, b.concept_id, expected) +
                         ", but the answer would cover " + describe_range(read) +
                         ". For which period should " + measure + " be computed?";
            return s;
        }
        if (coverage) {
            coverage->range = read;
            coverage->window = b.concept_id;
        }
        return std::nullopt;
    }
    if (claim_problem) return claim_problem;
    if (policy.requires_range && !read.bounded()) {
        Slot s = period_slot(catalog, rules, concept_id, "", State::Ambiguous, read);
        s.reason =
            measure + " needs a period and the statement computes it " + describe_range(read);
        s.question = "For which period should " + measure + " be computed?";
        return s;
    }
    if (coverage) coverage->range = read;
    return std::nullopt;
}

}  // namespace detail
}  // namespace clarify
