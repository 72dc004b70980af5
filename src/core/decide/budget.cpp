#include "core/decide/budget.hpp"
#include "core/decide/decision.hpp"
#include "core/render/payload.hpp"

#include <string>

namespace clarify {

bool asks_a_round(const Decision &decision, const std::string &question_id) {
    return !question_id.empty() && decision.state == State::Ambiguous;
}

Rounds rounds_of(int prior, int max_rounds) {
    Rounds r;
    r.round = prior < 0 ? 1 : prior + 1;
    r.max_rounds = max_rounds > 0 ? max_rounds : 0;
    r.exhausted = r.max_rounds > 0 && prior >= r.max_rounds;
    return r;
}

bool kind_assumed_once_spent(ConceptKind kind) {
    // No default: a kind added to ConceptKind must say here whether a guess may stand for it.
    switch (kind) {
        case ConceptKind::Metric:
        case ConceptKind::Dimension:
        case ConceptKind::TimeWindow:
        case ConceptKind::Segment:  // contract §19: segment slots take their term's impact
            return true;
    }
    return false;
}

bool assumed_once_spent(const Slot &slot) {
    // A period left open is no meaning the statement reads: there is nothing to assume.
    return slot.check == SlotCheck::Meaning && slot.state == State::Ambiguous && !slot.time_range &&
           slot.impact < Impact::High && !slot.term.empty() && kind_assumed_once_spent(slot.kind);
}

bool shows_rounds(const Decision &decision) {
    return decision.rounds.round > 0 && decision.state == State::Ambiguous;
}

std::string spent_hint(const Decision &decision) {
    const Rounds &r = decision.rounds;
    if (!r.exhausted || !shows_rounds(decision)) return "";
    return "This question has had its " + std::to_string(r.max_rounds) +
           " clarification rounds and this choice matters too much to assume: the user must "
           "choose.";
}

bool below_setting(Impact impact, AssumeBelow threshold) {
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

std::vector<AssumptionWarning> assumption_warnings(const Catalog &catalog, const Decision &decision,
                                                   AssumeBelow assume_below) {
    std::vector<std::string> texts = assumption_texts(catalog, decision);
    std::vector<AssumptionWarning> out;
    std::size_t i = 0;
    for (const Coverage &c : decision.covered) {
        if (c.source != CoverageSource::Assumed || i >= texts.size()) continue;
        AssumptionWarning w;
        w.message = "pg_clarify " + texts[i++];
        const Rounds &r = decision.rounds;
        if (r.exhausted && !(c.impact && below_setting(*c.impact, assume_below))) {
            std::string n = std::to_string(r.round - 1);
            w.message += " after " + n + " clarification rounds";
            w.detail = "The question had " + n + " rounds, its budget (pg_clarify.max_rounds = " +
                       std::to_string(r.max_rounds) +
                       "), and this meaning's impact is below high, so it was assumed rather "
                       "than asked again.";
        } else {
            w.detail =
                "Its impact is below pg_clarify.assume_below, so it was assumed rather than "
                "asked.";
        }
        out.push_back(std::move(w));
    }
    return out;
}

}  // namespace clarify
