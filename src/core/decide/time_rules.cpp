#include "core/decide/time_rules.hpp"

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

// The options: the eligible windows (of `term` when it is a mentioned period, else every one),
// each with its evaluated range when the glue measured it.
Slot period_slot(const Catalog &catalog, const Rules &rules, const TimeFacts &facts,
                 const std::string &measure, const std::string &term, State state,
                 const TimeRange &read, bool of_term = false) {
    Slot s;
    s.kind = ConceptKind::Metric;
    s.time_range = true;
    s.term = term;
    s.state = state;
    s.actual = measure;
    s.actual_range = read;
    s.options = of_term ? rules.eligible_candidates(term) : std::vector<std::string>{};
    if (!of_term)
        for (const std::string &id : catalog.time_windows())
            if (rules.eligible(id)) s.options.push_back(id);
    for (const std::string &id : s.options)
        if (const TimeRange *w = facts.window(id)) s.option_ranges.emplace_back(id, *w);
    return s;
}

std::string window_words(const Rules &rules, const std::string &window, const TimeRange &range) {
    return rules.label(window) + " (" + describe_range(range) + ")";
}

// The range read against the window a period resolves to (§11 rule 1); nothing when equal.
std::optional<Slot> compare_window(const Catalog &catalog, const Rules &rules,
                                   const TimeFacts &facts, const std::string &concept_id,
                                   const std::string &term, const std::string &window_id,
                                   const TimeRange &read, Coverage *coverage) {
    const std::string measure = rules.label(concept_id);
    const TimeRange *window = facts.window(window_id);
    const TimeRange expected = window ? *window : TimeRange{};
    if (!window || read != expected) {
        Slot s = period_slot(catalog, rules, facts, concept_id, term, State::Mismatch, read);
        s.expected = window_id;
        s.expected_range = expected;
        s.reason = "the period asked for is " + window_words(rules, window_id, expected) +
                   ", but the statement computes " + measure + " " + describe_range(read);
        s.question = "You asked about " + window_words(rules, window_id, expected) +
                     ", but the answer would cover " + describe_range(read) +
                     ". For which period should " + measure + " be computed?";
        return s;
    }
    if (coverage) {
        coverage->range = read;
        coverage->window = window_id;
    }
    return std::nullopt;
}

// A period the question mentions ("last quarter"): resolved by its applicable default or its
// only eligible window, else asked, whatever range the statement bounds.
std::optional<Slot> check_mentioned_period(const Catalog &catalog, const Rules &rules,
                                           const TimeFacts &facts, const std::string &concept_id,
                                           const std::string &term, const TimeRange &read,
                                           Coverage *coverage) {
    const std::string measure = rules.label(concept_id);
    bool conflict = false;
    const Default *d = rules.applicable_default(term, &conflict);
    std::string window;
    if (d && rules.eligible(d->concept_id) && rules.stale_default(*d)) {
        Slot s =
            period_slot(catalog, rules, facts, concept_id, term, State::Unsupported, read, true);
        s.default_concept = d->concept_id;
        s.reason = stale_default_words(term, rules.label(d->concept_id));
        s.question = "The usual meaning of \"" + term + "\", " + rules.label(d->concept_id) +
                     ", changed since it was approved. For which period should " + measure +
                     " be computed?";
        s.approved_version = d->concept_version;
        s.current_version = rules.version_of(d->concept_id);
        return s;
    }
    if (d && !rules.eligible(d->concept_id)) {
        const Concept *dead = catalog.concept(d->concept_id);
        Slot s =
            period_slot(catalog, rules, facts, concept_id, term, State::Unsupported, read, true);
        s.default_concept = d->concept_id;
        s.reason = "the approved default for \"" + term + "\", " + rules.label(d->concept_id) +
                   ", " + ineligibility(dead, rules.now());
        s.question = "The usual meaning of \"" + term + "\", " + rules.label(d->concept_id) + ", " +
                     ineligibility(dead, rules.now()) + ". For which period should " + measure +
                     " be computed?";
        return s;
    }
    if (d) window = d->concept_id;
    const std::vector<std::string> ids = rules.eligible_candidates(term);
    if (!d && !conflict && ids.size() == 1) window = ids[0];
    if (!window.empty())
        return compare_window(catalog, rules, facts, concept_id, term, window, read, coverage);
    Slot s = period_slot(catalog, rules, facts, concept_id, term, State::Ambiguous, read, true);
    s.reason = conflict ? "defaults for several of your roles name different periods"
                        : std::to_string(ids.size()) + " approved periods and no default applies";
    s.question = "When you say \"" + term + "\", do you mean:";
    return s;
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
                Slot s =
                    period_slot(catalog, rules, facts, concept_id, term, State::Unsupported, read);
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
                Slot s =
                    period_slot(catalog, rules, facts, concept_id, term, State::Unverified, read);
                s.reason = v.reason;
                s.question = "Please confirm the period for " + measure + ":";
                claim_problem = std::move(s);
            }
            continue;
        }
        return compare_window(catalog, rules, facts, concept_id, term, b.concept_id, read,
                              coverage);
    }
    if (claim_problem) return claim_problem;
    const std::vector<std::string> periods = rules.mentioned_windows();
    if (!periods.empty())
        return check_mentioned_period(catalog, rules, facts, concept_id, periods.front(), read,
                                      coverage);
    if (policy.requires_range && !read.bounded()) {
        Slot s = period_slot(catalog, rules, facts, concept_id, "", State::Ambiguous, read);
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
