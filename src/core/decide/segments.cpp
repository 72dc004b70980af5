#include "core/decide/segments.hpp"
#include "core/decide/rules.hpp"

#include <algorithm>

namespace clarify {

namespace {

using detail::contains;

const Concept *segment(const Catalog &catalog, const std::string &id) {
    const Concept *c = catalog.concept(id);
    return c && c->kind == ConceptKind::Segment ? c : nullptr;
}

std::vector<std::string> segments_of(const Catalog &catalog, const std::string &term) {
    std::vector<std::string> out;
    for (const std::string &id : catalog.candidates(term))
        if (segment(catalog, id)) out.push_back(id);
    return out;
}

// The segment terms the record binds or the question mentions, sorted.
std::vector<std::string> said_terms(const Catalog &catalog, const ResolutionRecord &record,
                                    const std::vector<std::string> &mentioned) {
    std::vector<std::string> out;
    for (const Binding &b : record.bindings) {
        if (!segment(catalog, b.concept_id)) continue;
        if (!b.term.empty()) out.push_back(b.term);
        if (b.term.empty())
            for (const std::string &t : catalog.terms_of(b.concept_id)) out.push_back(t);
    }
    for (const std::string &t : mentioned)
        if (!segments_of(catalog, t).empty()) out.push_back(t);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool scans(const Catalog &catalog, const SegmentFacts &facts, const std::string &id) {
    const Concept *c = segment(catalog, id);
    return c && contains(facts.scanned, c->segment_relation);
}

// A segment applied, as the rules see a column read: its relation's name, its one meaning.
GovernedColumn segment_read(const Concept &c) {
    GovernedColumn column;
    column.key = ColumnKey{c.segment_relation, 0};
    column.name = c.segment_relation_name;
    column.concept_ids = {c.id};
    column.relation = c.segment_relation;
    return column;
}

// The segment a binding of the record or rules 2 and 3 resolve `term` to; "" when none does.
// `*bound`: the record's binding resolves it (the user's choice, nothing left to ask).
std::string resolved_segment(const detail::Rules &rules, const ResolutionRecord &record,
                             const std::string &term, const std::vector<std::string> &ids,
                             detail::TermOutcome *outcome, bool *bound) {
    for (const Binding &b : record.bindings)
        if ((b.term == term || b.term.empty()) && contains(ids, b.concept_id)) {
            *outcome = detail::TermOutcome::Resolves;
            *bound = true;
            return b.concept_id;
        }
    detail::TermVerdict v = rules.verdict(term, ids);
    *outcome = v.outcome;
    return v.outcome == detail::TermOutcome::Resolves ? v.concept_id : std::string();
}

// The rule of a said term: where the resolved segment's relation is scanned, it is applied.
void said_term_rule(const Catalog &catalog, const detail::Rules &rules,
                    const ResolutionRecord &record, const SegmentFacts &facts,
                    const std::string &term, SegmentOutcome &out) {
    const std::vector<std::string> ids = segments_of(catalog, term);
    detail::TermOutcome outcome = detail::TermOutcome::Blocks;
    bool bound = false;
    const std::string resolved = resolved_segment(rules, record, term, ids, &outcome, &bound);
    std::string other;  // another of the term's segments the statement applies
    for (const std::string &id : ids)
        if (id != resolved && contains(facts.applied, id) && other.empty()) other = id;
    if (!resolved.empty()) {
        const Concept *r = segment(catalog, resolved);
        if (!scans(catalog, facts, resolved) || contains(facts.applied, resolved)) return;
        Slot s = rules.make_slot(r, other, term, State::Mismatch);
        s.expected = r->segment_predicate;
        s.reason = "\"" + term + "\" means " + r->label +
                   ", but the statement does not apply that filter to " + r->segment_relation_name;
        // Which segment is meant is the person's to say only when a default chose it and the
        // statement applies another; else the statement lacks the filter: the advice says so
        // and the HINT asks nothing (core/render/payload.cpp).
        const Concept *o = other.empty() ? nullptr : segment(catalog, other);
        if (o && !bound) {
            s.question = "You asked about \"" + term + "\" meaning " + r->label +
                         ", but the answer would use " + o->label + ". Which do you mean:";
        } else {
            s.advice = "\"" + term + "\" means " + r->label + ", but the answer would " +
                       (o ? "use " + o->label + " instead" : std::string("not be limited to it")) +
                       ": the statement must filter " + r->segment_relation_name +
                       " by that definition.";
            s.question = s.advice;
        }
        s.impact = catalog.impact_of(term);
        out.slots.emplace_back(std::move(s), r->segment_relation_name);
        return;
    }
    // Several meanings and nothing resolves one: asked about when the user said it and none of
    // them is applied (an applied one is asked about as its read).
    if (outcome != detail::TermOutcome::Blocks || !rules.mentioned(term) || !other.empty()) return;
    for (const std::string &id : ids) {
        if (!scans(catalog, facts, id)) continue;
        const Concept *c = segment(catalog, id);
        Slot s = rules.make_slot(c, "", term, State::Ambiguous);
        s.reason = std::to_string(s.options.size()) + " approved meanings and no default applies";
        s.question = "When you say \"" + term + "\", do you mean:";
        s.impact = catalog.impact_of(term);
        out.slots.emplace_back(std::move(s), c->segment_relation_name);
        return;
    }
}

}  // namespace

SegmentOutcome segment_rules(const Catalog &catalog, const detail::Rules &rules,
                             const ResolutionRecord &record, const SegmentFacts &facts) {
    SegmentOutcome out;
    for (const std::string &term : said_terms(catalog, record, rules.mentioned_terms()))
        said_term_rule(catalog, rules, record, facts, term, out);
    // Applying a segment is reading its meaning: §6's rules, as for a column.
    for (const std::string &id : facts.applied) {
        const Concept *c = segment(catalog, id);
        if (!c) continue;
        const GovernedColumn column = segment_read(*c);
        if (std::optional<Coverage> covered = rules.cover(column)) {
            out.covered.push_back(std::move(*covered));
            continue;
        }
        std::optional<Slot> s = rules.diagnose(id, column);
        Slot slot = s ? std::move(*s) : rules.unresolved(id);
        slot.impact = slot.term.empty() ? Impact::High : catalog.impact_of(slot.term);
        out.slots.emplace_back(std::move(slot), column.name);
    }
    return out;
}

bool segments_decide(const Catalog &catalog, const ResolutionRecord &record,
                     const std::vector<std::string> &mentioned, const SegmentFacts &facts) {
    if (!facts.applied.empty()) return true;
    if (facts.scanned.empty()) return false;
    for (const std::string &term : said_terms(catalog, record, mentioned))
        for (const std::string &id : segments_of(catalog, term))
            if (scans(catalog, facts, id)) return true;
    return false;
}

}  // namespace clarify
