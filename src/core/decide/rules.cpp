#include "core/decide/rules.hpp"
#include "core/decide/units.hpp"

#include <algorithm>

namespace clarify::detail {

Rules::Rules(const Catalog &catalog, const AgentContext &ctx, const ResolutionRecord &record,
             const std::vector<std::string> *mentioned)
    : catalog_(catalog), ctx_(ctx), record_(record) {
    if (!mentioned) own_mentions_ = catalog.mentioned_terms(record.question);
    mentioned_ = mentioned ? mentioned : &own_mentions_;
}

std::string quoted(const std::string &s) {
    return "\"" + s + "\"";
}

CoverageSource coverage_of(BindingSource source) {
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

std::string ineligibility(const Concept *c, Timestamp now) {
    if (!c) return "is not a governed meaning";
    if (c->status == ConceptStatus::Draft) return "is a draft, not an approved meaning";
    if (c->status == ConceptStatus::Deprecated) return "is deprecated";
    if (!c->available) return "is currently unavailable";
    if (now < c->valid_from) return "is not valid yet";
    if (now >= c->valid_until) return "is no longer valid";
    return "is eligible";
}

DecidingTerms Rules::deciding_terms(const std::vector<std::string> &concept_ids) const {
    DecidingTerms all, said;
    said.mentioned = true;
    for (const std::string &id : concept_ids)
        for (const std::string &t : catalog_.terms_of(id)) {
            if (contains(all.terms, t)) continue;
            all.terms.push_back(t);
            if (mentioned(t)) said.terms.push_back(t);
        }
    return said.terms.empty() ? all : said;
}

TermVerdict Rules::verdict(const std::string &term,
                           const std::vector<std::string> &concept_ids) const {
    TermVerdict v;
    bool conflict = false;
    const Default *d = applicable_default(term, &conflict);
    if (conflict) return v;
    if (d) {
        if (eligible(d->concept_id) && !stale(catalog_, *d) && contains(concept_ids, d->concept_id))
            return TermVerdict{TermOutcome::Resolves, d->concept_id, true};
        return v;
    }
    const std::vector<std::string> ids = eligible_candidates(term);
    if (ids.empty()) return TermVerdict{TermOutcome::Silent, "", false};
    if (ids.size() == 1 && contains(concept_ids, ids[0]))
        return TermVerdict{TermOutcome::Resolves, ids[0], false};
    return v;
}

std::vector<std::string> Rules::mentioned_windows() const {
    std::vector<std::string> out;
    for (const std::string &t : *mentioned_) {
        const auto &ids = catalog_.candidates(t);
        bool windows = !ids.empty();
        for (const std::string &id : ids) {
            const Concept *c = catalog_.concept(id);
            windows = windows && c && c->kind == ConceptKind::TimeWindow;
        }
        if (windows) out.push_back(t);
    }
    return out;
}

bool Rules::eligible(const std::string &concept_id) const {
    const Concept *c = catalog_.concept(concept_id);
    return c && c->eligible(ctx_.now);
}

std::string Rules::label(const std::string &concept_id) const {
    const Concept *c = catalog_.concept(concept_id);
    return c ? label_with_unit(*c) : concept_id;
}

std::vector<std::string> Rules::eligible_candidates(const std::string &term) const {
    std::vector<std::string> out;
    for (const std::string &id : catalog_.candidates(term))
        if (eligible(id)) out.push_back(id);
    return out;
}

const Default *Rules::applicable_default(const std::string &term, bool *conflict) const {
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

const Approval *Rules::valid_approval(const std::string &question_id, const std::string &term,
                                      const std::string &concept_id, bool *other_text,
                                      int *stale_version) const {
    if (other_text) *other_text = false;
    if (stale_version) *stale_version = 0;
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
        if (!for_current_definition(catalog_, a.concept_id, a.concept_version)) {
            if (stale_version) *stale_version = a.concept_version;
            continue;
        }
        return &a;
    }
    return nullptr;
}

Rules::Verification Rules::verify(const Binding &b) const {
    Verification v;
    switch (b.source) {
        case BindingSource::UserConfirmation: {
            if (record_.question_id.empty()) {
                v.reason = "the record claims a user confirmation but has no question_id";
                return v;
            }
            bool other_text = false;
            if (const Approval *a = valid_approval(record_.question_id, b.term, b.concept_id,
                                                   &other_text, &v.approved_version)) {
                v.verified = true;
                v.approval_id = a->id;
                v.confirmed_by = a->confirmed_by;
                return v;
            }
            if (v.approved_version) {
                v.reason = changed_since_confirmed(label(b.concept_id));
                return v;
            }
            v.reason = other_text ? "the confirmation of " + label(b.concept_id) +
                                        " for question " + quoted(record_.question_id) +
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
                if (d && d->concept_id == b.concept_id && stale(catalog_, *d)) {
                    v.approved_version = d->concept_version;
                    v.reason = stale_default_words(t, label(b.concept_id));
                    return v;
                }
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

Coverage Rules::coverage(const GovernedColumn &column, const std::string &concept_id,
                         const std::string &term, CoverageSource source) const {
    Coverage cov;
    cov.column = column.name;
    cov.concept_id = concept_id;
    const Concept *c = catalog_.concept(concept_id);
    cov.concept_version = c ? c->version : 0;
    cov.term = term;
    cov.source = source;
    cov.default_applied = source == CoverageSource::ApprovedDefault;
    return cov;
}

std::optional<Coverage> Rules::cover(const GovernedColumn &column) const {
    std::vector<std::string> unverified;  // claimed, and no claim verifies
    for (const std::string &id : column.concept_ids) {
        if (!eligible(id)) continue;
        bool claimed = false, verified = false;
        for (const Binding &b : record_.bindings) {
            if (b.concept_id != id) continue;
            claimed = true;
            Verification v = verify(b);
            if (!v.verified) continue;
            verified = true;
            // A default claimed is rule 2's: it covers only as the defaults do, below.
            if (b.source == BindingSource::ApprovedDefault) continue;
            Coverage cov = coverage(column, id, b.term, coverage_of(b.source));
            cov.approval_id = v.approval_id;
            return cov;
        }
        if (claimed && !verified) unverified.push_back(id);
    }
    const DecidingTerms all = deciding_terms(column.concept_ids);
    std::vector<std::string> column_terms;
    for (const std::string &id : column.concept_ids)
        for (const std::string &t : catalog_.terms_of(id)) column_terms.push_back(t);
    for (const Binding &b : record_.bindings)
        if (!b.term.empty() && !contains(column.concept_ids, b.concept_id) &&
            contains(column_terms, b.term))
            return std::nullopt;  // the record resolved one of its terms to another meaning
    std::optional<Coverage> by_default, only;
    for (const std::string &t : all.terms) {
        TermVerdict v = verdict(t, column.concept_ids);
        if (v.outcome == TermOutcome::Silent) continue;
        if (v.outcome == TermOutcome::Blocks || contains(unverified, v.concept_id))
            return std::nullopt;
        std::optional<Coverage> &first = v.by_default ? by_default : only;
        if (!first)
            first = coverage(
                column, v.concept_id, t,
                v.by_default ? CoverageSource::ApprovedDefault : CoverageSource::OnlyEligible);
    }
    if (by_default) return by_default;
    if (only) return only;
    // An eligible concept no term names is the only candidate of a term of its own.
    if (!all.mentioned)
        for (const std::string &id : column.concept_ids)
            if (eligible(id) && catalog_.terms_of(id).empty() && !contains(unverified, id))
                return coverage(column, id, "", CoverageSource::OnlyEligible);
    return std::nullopt;
}

Slot Rules::make_slot(const Concept *c, const std::string &concept_id, const std::string &term,
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

std::string Rules::main_term(const std::string &concept_id, const DecidingTerms *deciding) const {
    std::string best;
    std::size_t most = 0;
    if (deciding && deciding->mentioned)
        for (const std::string &t : catalog_.terms_of(concept_id))
            if (contains(deciding->terms, t) && catalog_.candidates(t).size() > most) {
                most = catalog_.candidates(t).size();
                best = t;
            }
    if (!best.empty()) return best;
    for (const std::string &t : catalog_.terms_of(concept_id))
        if (catalog_.candidates(t).size() > most) {
            most = catalog_.candidates(t).size();
            best = t;
        }
    return best;
}

std::string Rules::spoken_term(const std::string &term, const std::string &concept_id) const {
    return quoted(term.empty() ? label(concept_id) : term);
}

std::optional<Slot> Rules::diagnose(const std::string &concept_id,
                                    const GovernedColumn &column) const {
    const Concept *c = catalog_.concept(concept_id);
    const auto &terms = catalog_.terms_of(concept_id);
    const DecidingTerms deciding = deciding_terms(column.concept_ids);
    const std::string first_term = main_term(concept_id, &deciding);
    bool said = false;
    for (const std::string &t : terms) said = said || contains(deciding.terms, t);

    for (const Binding &b : record_.bindings) {
        if (b.concept_id != concept_id) continue;
        const Verification verified = verify(b);
        if (eligible(concept_id) && verified.verified) continue;  // a default claimed
        // A stale default claimed: the term is refused as the defaults' rule says, below.
        if (verified.approved_version && b.source == BindingSource::ApprovedDefault) continue;
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
        s.reason = verified.reason;
        s.question = "Please confirm what you mean by " + spoken_term(term, concept_id) + ":";
        if (verified.approved_version) {
            s.approved_version = verified.approved_version;
            s.current_version = version_of(concept_id);
            s.question = label(concept_id) + " changed since you confirmed it. " + s.question;
        }
        return s;
    }
    if (!eligible(concept_id)) {
        if (deciding.mentioned && !said) return std::nullopt;
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
            // An unknown id (a typo) is the agent's, not the person's: DETAIL has it.
            const std::string said =
                bound ? label(b.concept_id) + " " + ineligibility(bound, ctx_.now)
                      : "The meaning given for " + quoted(b.term) +
                            " is not one the business defines";
            s.question = said + ". When you say " + quoted(b.term) + ", do you mean:";
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
        if (!contains(deciding.terms, t) ||
            verdict(t, column.concept_ids).outcome != TermOutcome::Blocks)
            continue;
        bool conflict = false;
        const Default *d = applicable_default(t, &conflict);
        if (d && eligible(d->concept_id) && stale(catalog_, *d)) {
            Slot s = make_slot(c, concept_id, t, State::Unsupported);
            s.reason = stale_default_words(t, label(d->concept_id));
            s.question = "The usual meaning of " + quoted(t) + ", " + label(d->concept_id) +
                         ", changed since it was approved. Which do you mean:";
            s.approved_version = d->concept_version;
            s.current_version = version_of(d->concept_id);
            consider(std::move(s));
        } else if (d && !eligible(d->concept_id)) {
            Slot s = make_slot(c, concept_id, t, State::Unsupported);
            s.reason = "the approved default for " + quoted(t) + ", " + label(d->concept_id) +
                       ", " + ineligibility(catalog_.concept(d->concept_id), ctx_.now);
            s.question = "The usual meaning of " + quoted(t) + ", " + label(d->concept_id) + ", " +
                         ineligibility(catalog_.concept(d->concept_id), ctx_.now) + ". " +
                         (s.options.empty() ? "It cannot be used to answer this question."
                                            : "Do you want one of these instead:");
            consider(std::move(s));
        } else if (d) {
            Slot s = make_slot(c, concept_id, t, State::Mismatch);
            s.expected = d->concept_id;
            s.reason = "the approved default for " + quoted(t) + " is " + label(d->concept_id) +
                       ", but the statement reads " + label(concept_id);
            s.question = quoted(t) + " normally means " + label(d->concept_id) +
                         ", but the answer would use " + label(concept_id) + ". Which do you mean:";
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
    return best;
}

Slot Rules::unresolved(const std::string &concept_id) const {
    const std::string term = main_term(concept_id);
    Slot s = make_slot(catalog_.concept(concept_id), concept_id, term, State::Ambiguous);
    s.reason = "no approved resolution applies";
    s.question = "What do you mean by " + spoken_term(term, concept_id) + "?";
    return s;
}

}  // namespace clarify::detail
