// The gate's rules for one request (one catalog snapshot, one agent, one resolution record):
// eligibility, what the record binds, and the slot to ask about for a governed column.
// Shared by resolve_term (resolve.cpp) and decide (decision.cpp); docs/reference.md states them.
#pragma once
#include "core_guard.hpp"
#include "decision.hpp"
#include "words.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace clarify::detail {

inline std::string quoted(const std::string &s) {
    return "\"" + s + "\"";
}

inline CoverageSource coverage_of(BindingSource source) {
    switch (source) {
        case BindingSource::UserConfirmation:
            return CoverageSource::UserConfirmation;
        case BindingSource::ApprovedDefault:
            return CoverageSource::ApprovedDefault;
        case BindingSource::Explicit:
            return CoverageSource::Explicit;
    }
    return CoverageSource::Explicit;
}

// Why a concept is not eligible, in words a business user understands.
inline std::string ineligibility(const Concept *c, Timestamp now) {
    if (!c) return "is not a governed meaning";
    if (c->status == ConceptStatus::Draft) return "is a draft, not an approved meaning";
    if (c->status == ConceptStatus::Deprecated) return "is deprecated";
    if (!c->available) return "is currently unavailable";
    if (now < c->valid_from) return "is not valid yet";
    if (now >= c->valid_until) return "is no longer valid";
    return "is eligible";
}

// The rules of one request, evaluated against one catalog snapshot and one agent.
class Rules {
  public:
    Rules(const Catalog &catalog, const AgentContext &ctx, const ResolutionRecord &record)
        : catalog_(catalog), ctx_(ctx), record_(record) {}

    Timestamp now() const { return ctx_.now; }

    bool eligible(const std::string &concept_id) const {
        const Concept *c = catalog_.concept(concept_id);
        return c && c->eligible(ctx_.now);
    }

    std::string label(const std::string &concept_id) const {
        const Concept *c = catalog_.concept(concept_id);
        return c ? c->label : concept_id;
    }

    std::vector<std::string> eligible_candidates(const std::string &term) const {
        std::vector<std::string> out;
        for (const std::string &id : catalog_.candidates(term))
            if (eligible(id)) out.push_back(id);
        return out;
    }

    // The default that applies to this agent: a role-specific one beats the one for everyone.
    // Two role-specific defaults naming different concepts conflict: none applies.
    const Default *applicable_default(const std::string &term, bool *conflict) const {
        const Default *specific = nullptr, *everyone = nullptr;
        *conflict = false;
        for (const Default &d : catalog_.defaults_for(term)) {
            if (ctx_.now >= d.valid_until) continue;
            if (d.applies_to == kEveryone) {
                if (!everyone) everyone = &d;
            } else if (ctx_.applies(d.applies_to)) {
                if (specific && specific->concept_id != d.concept_id) *conflict = true;
                if (!specific) specific = &d;
            }
        }
        if (*conflict) return nullptr;
        return specific ? specific : everyone;
    }

    // An approval recorded with the question's text holds only under a record asking exactly
    // that (trimmed) text: a question_id kept for another question does not borrow it.
    // *other_text tells that one would have held under its own question text.
    const Approval *valid_approval(const std::string &question_id, const std::string &term,
                                   const std::string &concept_id,
                                   bool *other_text = nullptr) const {
        if (other_text) *other_text = false;
        if (question_id.empty()) return nullptr;
        const std::string_view asked = trim_space(record_.question);
        for (const Approval &a : catalog_.approvals_for(question_id)) {
            if (a.concept_id != concept_id || a.revoked || ctx_.now >= a.expires_at) continue;
            if (!term.empty() && !a.term.empty() && a.term != term) continue;
            if (!ctx_.applies(a.granted_to)) continue;
            if (!a.question.empty() && a.question != asked) {
                if (other_text) *other_text = true;
                continue;
            }
            return &a;
        }
        return nullptr;
    }

    struct Verification {
        bool verified = false;
        std::string reason;
        std::int64_t approval_id = 0;
        std::string confirmed_by;
    };

    Verification verify(const Binding &b) const {
        Verification v;
        switch (b.source) {
            case BindingSource::UserConfirmation: {
                if (record_.question_id.empty()) {
                    v.reason = "the record claims a user confirmation but has no question_id";
                    return v;
                }
                bool other_text = false;
                if (const Approval *a =
                        valid_approval(record_.question_id, b.term, b.concept_id, &other_text)) {
                    v.verified = true;
                    v.approval_id = a->id;
                    v.confirmed_by = a->confirmed_by;
                    return v;
                }
                v.reason = other_text
                               ? "the confirmation of " + label(b.concept_id) + " for question " +
                                     quoted(record_.question_id) +
                                     " was given for another question text"
                               : "no valid confirmation of " + label(b.concept_id) +
                                     " is recorded for question " + quoted(record_.question_id);
                return v;
            }
            case BindingSource::ApprovedDefault: {
                bool conflict = false;
                std::vector<std::string> terms;
                if (b.term.empty())
                    terms = catalog_.terms_of(b.concept_id);
                else
                    terms.push_back(b.term);
                for (const std::string &t : terms) {
                    const Default *d = applicable_default(t, &conflict);
                    if (d && d->concept_id == b.concept_id) {
                        v.verified = true;
                        return v;
                    }
                }
                v.reason = "no approved default " +
                           (b.term.empty() ? std::string() : "for " + quoted(b.term) + " ") +
                           "that applies to this role names " + label(b.concept_id);
                return v;
            }
            case BindingSource::Explicit: {
                const Concept *c = catalog_.concept(b.concept_id);
                if (c) {
                    if (contains_whole_words(record_.question, c->label)) {
                        v.verified = true;
                        return v;
                    }
                    for (const std::string &alias : c->aliases)
                        if (contains_whole_words(record_.question, alias)) {
                            v.verified = true;
                            return v;
                        }
                }
                v.reason = "the question does not name " + label(b.concept_id) +
                           " (its label or an alias) explicitly";
                return v;
            }
        }
        return v;
    }

    std::optional<Coverage> cover(const GovernedColumn &column,
                                  const std::string &concept_id) const {
        const Concept *c = catalog_.concept(concept_id);
        if (!c || !c->eligible(ctx_.now)) return std::nullopt;
        Coverage cov;
        cov.column = column.name;
        cov.concept_id = concept_id;
        cov.concept_version = c->version;

        // A claim about what is read must hold: an unverified one is never silently replaced.
        bool claimed = false;
        for (const Binding &b : record_.bindings) {
            if (b.concept_id != concept_id) continue;
            claimed = true;
            Verification v = verify(b);
            if (v.verified) {
                cov.term = b.term;
                cov.source = coverage_of(b.source);
                cov.approval_id = v.approval_id;
                cov.default_applied = b.source == BindingSource::ApprovedDefault;
                return cov;
            }
        }
        if (claimed) return std::nullopt;
        const auto &terms = catalog_.terms_of(concept_id);
        for (const Binding &b : record_.bindings)
            if (!b.term.empty() && b.concept_id != concept_id &&
                std::find(terms.begin(), terms.end(), b.term) != terms.end())
                return std::nullopt;  // the record resolved this term to another meaning
        if (terms.empty()) {
            cov.source = CoverageSource::OnlyEligible;
            return cov;
        }
        for (const std::string &t : terms) {
            bool conflict = false;
            const Default *d = applicable_default(t, &conflict);
            if (d && d->concept_id == concept_id) {
                cov.term = t;
                cov.source = CoverageSource::ApprovedDefault;
                cov.default_applied = true;
                return cov;
            }
        }
        for (const std::string &t : terms) {
            bool conflict = false;
            const Default *d = applicable_default(t, &conflict);
            if (d || conflict) continue;
            auto eligible_ids = eligible_candidates(t);
            if (eligible_ids.size() == 1 && eligible_ids[0] == concept_id) {
                cov.term = t;
                cov.source = CoverageSource::OnlyEligible;
                return cov;
            }
        }
        return std::nullopt;
    }

    Slot make_slot(const Concept *c, const std::string &concept_id, const std::string &term,
                   State state) const {
        Slot s;
        s.kind = c ? c->kind : ConceptKind::Metric;
        s.term = term;
        s.state = state;
        s.actual = concept_id;
        if (!term.empty()) s.options = eligible_candidates(term);
        bool conflict = false;
        if (!term.empty())
            if (const Default *d = applicable_default(term, &conflict))
                s.default_concept = d->concept_id;
        return s;
    }

    // The term to ask about when nothing names one: the one with the most candidates.
    std::string main_term(const std::string &concept_id) const {
        std::string best;
        std::size_t most = 0;
        for (const std::string &t : catalog_.terms_of(concept_id))
            if (catalog_.candidates(t).size() > most) {
                most = catalog_.candidates(t).size();
                best = t;
            }
        return best;
    }

    std::string spoken_term(const std::string &term, const std::string &concept_id) const {
        return quoted(term.empty() ? label(concept_id) : term);
    }

    // Why one concept read by a column is not covered; the first state in precedence order wins.
    Slot diagnose(const std::string &concept_id) const {
        const Concept *c = catalog_.concept(concept_id);
        const auto &terms = catalog_.terms_of(concept_id);
        const std::string first_term = main_term(concept_id);

        for (const Binding &b : record_.bindings) {
            if (b.concept_id != concept_id) continue;
            const std::string term = b.term.empty() ? first_term : b.term;
            if (!eligible(concept_id)) {
                Slot s = make_slot(c, concept_id, term, State::Unsupported);
                s.expected = concept_id;
                s.reason = "the record binds " + spoken_term(term, concept_id) + " to " +
                           label(concept_id) + ", which " + ineligibility(c, ctx_.now);
                s.question = label(concept_id) + " " + ineligibility(c, ctx_.now) + ". " +
                             (s.options.empty() ? "It cannot be used to answer this question."
                                                : "Do you mean one of these instead:");
                return s;
            }
            Slot s = make_slot(c, concept_id, term, State::Unverified);
            s.expected = concept_id;
            s.reason = verify(b).reason;
            s.question = "Please confirm what you mean by " + spoken_term(term, concept_id) + ":";
            return s;
        }
        if (!eligible(concept_id)) {
            Slot s = make_slot(c, concept_id, first_term, State::Unsupported);
            s.reason = label(concept_id) + " " + ineligibility(c, ctx_.now);
            s.question = label(concept_id) + " " + ineligibility(c, ctx_.now) + ". " +
                         (s.options.empty() ? "It cannot be used to answer this question."
                                            : "Do you mean one of these instead:");
            return s;
        }
        for (const Binding &b : record_.bindings) {
            if (b.term.empty() || b.concept_id == concept_id ||
                std::find(terms.begin(), terms.end(), b.term) == terms.end())
                continue;
            if (!eligible(b.concept_id)) {
                const Concept *bound = catalog_.concept(b.concept_id);
                Slot s = make_slot(c, concept_id, b.term, State::Unsupported);
                s.expected = b.concept_id;
                s.reason = "the record binds " + quoted(b.term) + " to " + label(b.concept_id) +
                           ", which " + ineligibility(bound, ctx_.now);
                s.question = label(b.concept_id) + " " + ineligibility(bound, ctx_.now) +
                             ". When you say " + quoted(b.term) + ", do you mean:";
                return s;
            }
            Slot s = make_slot(c, concept_id, b.term, State::Mismatch);
            s.expected = b.concept_id;
            s.reason = "the record resolves " + quoted(b.term) + " to " + label(b.concept_id) +
                       ", but the statement reads " + label(concept_id);
            s.question = "You asked about " + quoted(b.term) + " meaning " + label(b.concept_id) +
                         ", but the answer would use " + label(concept_id) + ". Which do you mean:";
            return s;
        }
        std::optional<Slot> best;
        auto consider = [&best](Slot s) {
            if (!best || s.state < best->state) best = std::move(s);
        };
        for (const std::string &t : terms) {
            bool conflict = false;
            const Default *d = applicable_default(t, &conflict);
            if (d && !eligible(d->concept_id)) {
                Slot s = make_slot(c, concept_id, t, State::Unsupported);
                s.reason = "the approved default for " + quoted(t) + ", " + label(d->concept_id) +
                           ", " + ineligibility(catalog_.concept(d->concept_id), ctx_.now);
                s.question = "The usual meaning of " + quoted(t) + ", " + label(d->concept_id) +
                             ", " + ineligibility(catalog_.concept(d->concept_id), ctx_.now) +
                             ". " +
                             (s.options.empty() ? "It cannot be used to answer this question."
                                                : "Do you want one of these instead:");
                consider(std::move(s));
            } else if (d) {
                Slot s = make_slot(c, concept_id, t, State::Mismatch);
                s.expected = d->concept_id;
                s.reason = "the approved default for " + quoted(t) + " is " + label(d->concept_id) +
                           ", but the statement reads " + label(concept_id);
                s.question = quoted(t) + " normally means " + label(d->concept_id) +
                             ", but the answer would use " + label(concept_id) +
                             ". Which do you mean:";
                consider(std::move(s));
            } else {
                Slot s = make_slot(c, concept_id, t, State::Ambiguous);
                s.reason = conflict ? "defaults for several of your roles name different meanings"
                                    : std::to_string(s.options.size()) +
                                          " approved meanings and no default applies";
                s.question = "When you say " + quoted(t) + ", do you mean:";
                consider(std::move(s));
            }
        }
        if (best) return *best;
        // Unreachable for an eligible concept without terms (it is its own only candidate).
        Slot s = make_slot(c, concept_id, first_term, State::Ambiguous);
        s.reason = "no approved resolution applies";
        s.question = "What do you mean by " + spoken_term(first_term, concept_id) + "?";
        return s;
    }

  private:
    const Catalog &catalog_;
    const AgentContext &ctx_;
    const ResolutionRecord &record_;
};

}  // namespace clarify::detail
