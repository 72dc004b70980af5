#include "core/decide/decision.hpp"
#include "core/decide/rules.hpp"

namespace clarify {

using detail::coverage_of;
using detail::ineligibility;
using detail::quoted;

namespace {

// When another term deciding the meaning `id` blocks it, `r` asks that term first: true.
bool ask_blocking_term(TermResolution &r, const detail::Rules &rules, const Catalog &catalog,
                       const AgentContext &ctx, const std::string &id) {
    const detail::DecidingTerms deciding = rules.deciding_terms({id});
    for (const std::string &t : deciding.terms) {
        if (t == r.term || rules.verdict(t, {id}).outcome != detail::TermOutcome::Blocks) continue;
        bool conflict_t = false;
        const Default *dt = rules.applicable_default(t, &conflict_t);
        r.ask = t;
        r.options = rules.eligible_candidates(t);
        r.default_applied = false;
        const bool stale_t = dt && rules.stale_default(*dt);
        r.decision = dt && (!rules.eligible(dt->concept_id) || stale_t) ? State::Unsupported
                                                                        : State::Ambiguous;
        std::string why =
            conflict_t ? "defaults for several of your roles name different meanings"
            : !dt ? std::to_string(r.options.size()) + " approved meanings and no default applies"
            : stale_t ? detail::stale_default_words(t, rules.label(dt->concept_id))
            : r.decision == State::Unsupported
                ? "its approved default, " + rules.label(dt->concept_id) + ", " +
                      ineligibility(catalog.concept(dt->concept_id), ctx.now)
                : "its approved default is " + rules.label(dt->concept_id);
        r.reason = (deciding.mentioned ? "the question says " + quoted(t)
                                       : quoted(t) + " also names " + rules.label(id)) +
                   ": " + why;
        return true;
    }
    return false;
}

}  // namespace

TermResolution resolve_term(const Catalog &catalog, const AgentContext &ctx,
                            const ResolutionRecord &record, const std::string &term,
                            const std::string &question_id,
                            const std::vector<std::string> *mentioned) {
    detail::Rules rules(catalog, ctx, record, mentioned);
    TermResolution r;
    r.term = normalize_term(term);
    const auto &candidates = catalog.candidates(r.term);
    if (candidates.empty()) {
        r.decision = State::Unsupported;
        r.reason = quoted(r.term) + " is not a governed term";
        return r;
    }
    r.options = rules.eligible_candidates(r.term);
    bool conflict = false;
    const Default *d = rules.applicable_default(r.term, &conflict);
    if (d) r.default_concept = d->concept_id;
    auto resolved = [&r, &rules](std::string id, CoverageSource source, std::string reason) {
        r.decision = State::Resolved;
        r.version = rules.version_of(id);
        r.approved_version = r.current_version = 0;
        r.selected = std::move(id);
        r.source = source;
        r.reason = std::move(reason);
        return r;
    };
    // Rules 2 and 3 hold only when every term deciding the meaning resolves to it (as for a
    // column of that meaning alone): otherwise that term is asked first.
    auto decided = [&](std::string id, CoverageSource source, std::string reason) {
        if (ask_blocking_term(r, rules, catalog, ctx, id)) return r;
        return resolved(std::move(id), source, std::move(reason));  // a copy: options change above
    };

    // 1. The record's own bindings for this term, when they verify.
    for (const Binding &b : record.bindings) {
        bool candidate =
            std::find(candidates.begin(), candidates.end(), b.concept_id) != candidates.end();
        bool names_term = b.term == r.term || b.term.empty();
        if (!names_term || !candidate || !rules.eligible(b.concept_id)) continue;
        auto v = rules.verify(b);
        if (!v.verified) continue;
        r.approval_id = v.approval_id;
        r.confirmed_by = v.confirmed_by;
        r.default_applied = b.source == BindingSource::ApprovedDefault;
        if (b.source == BindingSource::ApprovedDefault)
            return decided(b.concept_id, coverage_of(b.source),
                           "resolved by the session's record (approved_default)");
        return resolved(
            b.concept_id, coverage_of(b.source),
            "resolved by the session's record (" + std::string(to_string(b.source)) + ")");
    }
    // 2. A user's confirmation recorded for this question.
    const std::string qid = question_id.empty() ? record.question_id : question_id;
    std::string changed;  // a confirmation for an older definition: its concept
    for (const std::string &id : candidates) {
        if (!rules.eligible(id)) continue;
        int stale_version = 0;
        const Approval *a = rules.valid_approval(qid, r.term, id, nullptr, &stale_version);
        if (!a && stale_version && changed.empty()) {
            changed = id;
            r.approved_version = stale_version;
            r.current_version = rules.version_of(id);
        }
        if (a) {
            r.approval_id = a->id;
            r.confirmed_by = a->confirmed_by;
            return resolved(id, CoverageSource::UserConfirmation,
                            "confirmed by the user for question " + quoted(qid));
        }
    }
    // 3. The applicable default; a dead default never falls through to the remaining candidates.
    if (d) {
        if (rules.eligible(d->concept_id) && rules.stale_default(*d)) {
            r.decision = State::Unsupported;
            r.reason = detail::stale_default_words(r.term, rules.label(d->concept_id));
            r.approved_version = d->concept_version;
            r.current_version = rules.version_of(d->concept_id);
            return r;
        }
        if (rules.eligible(d->concept_id)) {
            r.default_applied = true;
            return decided(d->concept_id, CoverageSource::ApprovedDefault,
                           "approved default (approved by " + d->approved_by + ")");
        }
        r.decision = State::Unsupported;
        r.reason = "the approved default for " + quoted(r.term) + ", " +
                   rules.label(d->concept_id) + ", " +
                   ineligibility(catalog.concept(d->concept_id), ctx.now);
        return r;
    }
    if (conflict) {
        r.decision = State::Ambiguous;
        r.reason = "defaults for several of your roles name different meanings";
        return r;
    }
    // 4. The only eligible candidate.
    if (r.options.size() == 1)
        return decided(r.options.front(), CoverageSource::OnlyEligible,
                       "the only approved meaning");
    if (r.options.empty()) {
        r.decision = State::Unsupported;
        r.reason = "no approved meaning of " + quoted(r.term) + " is available";
        return r;
    }
    r.decision = State::Ambiguous;
    r.reason = std::to_string(r.options.size()) + " approved meanings and no default applies";
    if (!changed.empty())
        r.reason = detail::changed_since_confirmed(rules.label(changed)) + "; " + r.reason;
    return r;
}

}  // namespace clarify
