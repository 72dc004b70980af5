#include "core/decide/time_rules.hpp"
#include "core/render/period_text.hpp"

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

bool TimeFacts::is_date_column(ColumnKey time_column) const {
    for (const ColumnKey &key : date_columns)
        if (key == time_column) return true;
    return false;
}

namespace detail {

namespace {

// The statement's range on a measure's time column, and whether that column is a date.
struct PeriodRead {
    TimeRange range;
    bool dates = false;
};

// The zone a window's days are read in: its window_time_zone, else the session's ("").
std::string zone_of(const Catalog &catalog, const std::string &window) {
    const Concept *c = catalog.concept(window);
    return c ? c->window_time_zone : std::string();
}

std::string period_in(const TimeFacts &facts, const TimeRange &range, const std::string &zone) {
    return period_text(local_range(range, facts.clock, zone));
}

// Whether the statement reads the window's rows: the same instants or, on a date column, the
// same days, the window's read in its zone and the statement's in the session's (§16).
bool same_period(const TimeFacts &facts, const PeriodRead &read, const TimeRange &window,
                 const std::string &zone) {
    if (!read.dates) return read.range == window;
    auto day = [&](const std::optional<Timestamp> &t, const std::string &in) {
        return t ? std::optional<std::int64_t>(
                       first_day_at_or_after(local_time(facts.clock, *t, in)))
                 : std::nullopt;
    };
    return day(read.range.start, "") == day(window.start, zone) &&
           day(read.range.end, "") == day(window.end, zone);
}

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
        if (const TimeRange *w = facts.window(id)) {
            s.option_ranges.emplace_back(id, *w);
            s.option_periods.emplace_back(id, period_in(facts, *w, zone_of(catalog, id)));
        }
    return s;
}

std::string window_words(const Catalog &catalog, const Rules &rules, const TimeFacts &facts,
                         const std::string &window, const TimeRange &range) {
    return rules.label(window) + " (" + period_in(facts, range, zone_of(catalog, window)) + ")";
}

// The range read against the window a period resolves to (§11 rule 1); nothing when equal.
// The range read is shown in the window's zone, beside it; a date column's days in the session's.
std::optional<Slot> compare_window(const Catalog &catalog, const Rules &rules,
                                   const TimeFacts &facts, const std::string &concept_id,
                                   const std::string &term, const std::string &window_id,
                                   const PeriodRead &read, Coverage *coverage) {
    const std::string measure = rules.label(concept_id);
    const TimeRange *window = facts.window(window_id);
    const TimeRange expected = window ? *window : TimeRange{};
    const std::string zone = zone_of(catalog, window_id);
    if (!window || !same_period(facts, read, expected, zone)) {
        Slot s = period_slot(catalog, rules, facts, concept_id, term, State::Mismatch, read.range);
        s.expected = window_id;
        s.expected_range = expected;
        const LocalRange actual = local_range(read.range, facts.clock, read.dates ? "" : zone);
        const std::string asked = window_words(catalog, rules, facts, window_id, expected);
        s.reason = "the period asked for is " + asked + ", but the statement computes " + measure +
                   " " + period_phrase(actual);
        s.question = "You asked about " + asked + ", but the answer would cover " +
                     period_text(actual) + ". For which period should " + measure + " be computed?";
        return s;
    }
    if (coverage) {
        coverage->range = read.range;
        coverage->window = window_id;
    }
    return std::nullopt;
}

// A period the question mentions ("last quarter"): resolved by its applicable default or its
// only eligible window, else asked, whatever range the statement bounds.
std::optional<Slot> check_mentioned_period(const Catalog &catalog, const Rules &rules,
                                           const TimeFacts &facts, const std::string &concept_id,
                                           const std::string &term, const PeriodRead &read,
                                           Coverage *coverage) {
    const std::string measure = rules.label(concept_id);
    bool conflict = false;
    const Default *d = rules.applicable_default(term, &conflict);
    std::string window;
    if (d && rules.eligible(d->concept_id) && rules.stale_default(*d)) {
        Slot s = period_slot(catalog, rules, facts, concept_id, term, State::Unsupported,
                             read.range, true);
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
        Slot s = period_slot(catalog, rules, facts, concept_id, term, State::Unsupported,
                             read.range, true);
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
    Slot s =
        period_slot(catalog, rules, facts, concept_id, term, State::Ambiguous, read.range, true);
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
    const ColumnKey time_column{column.relation, policy.time_attnum};
    const PeriodRead read{facts.range_of(time_column), facts.is_date_column(time_column)};
    const std::string measure = rules.label(concept_id);
    std::optional<Slot> claim_problem;
    // The first verified binding to an eligible time window is the period the user asked for.
    for (const Binding &b : record.bindings) {
        const Concept *c = catalog.concept(b.concept_id);
        if (!c || c->kind != ConceptKind::TimeWindow) continue;
        const std::string term = b.term.empty() ? rules.main_term(b.concept_id) : b.term;
        if (!rules.eligible(b.concept_id)) {
            if (!claim_problem) {
                Slot s = period_slot(catalog, rules, facts, concept_id, term, State::Unsupported,
                                     read.range);
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
                Slot s = period_slot(catalog, rules, facts, concept_id, term, State::Unverified,
                                     read.range);
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
    if (policy.requires_range && !read.range.bounded()) {
        Slot s = period_slot(catalog, rules, facts, concept_id, "", State::Ambiguous, read.range);
        s.reason = measure + " needs a period and the statement computes it " +
                   period_phrase(local_range(read.range, facts.clock, ""));
        s.question = "For which period should " + measure + " be computed?";
        return s;
    }
    if (coverage) coverage->range = read.range;
    return std::nullopt;
}

}  // namespace detail
}  // namespace clarify
