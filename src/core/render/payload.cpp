#include "core/render/payload.hpp"
#include "core/decide/budget.hpp"
#include "core/decide/units.hpp"

#include <nlohmann/json.hpp>

namespace clarify {

using nlohmann::json;

namespace {

json text_or_null(const std::string &s) {
    return s.empty() ? json(nullptr) : json(s);
}

json option_json(const Catalog &catalog, const std::string &id) {
    const Concept *c = catalog.concept(id);
    json o = json::object();
    o["value"] = id;
    o["label"] = c ? label_with_unit(*c) : id;
    o["description"] = c ? c->description : "";
    o["owner"] = c ? c->owner : "";
    return o;
}

json options_json(const Catalog &catalog, const std::vector<std::string> &ids) {
    json list = json::array();
    for (const std::string &id : ids) list.push_back(option_json(catalog, id));
    return list;
}

json range_json(const std::optional<TimeRange> &r) {
    if (!r) return nullptr;
    return json{{"start", r->start ? json(format_instant(*r->start)) : json(nullptr)},
                {"end", r->end ? json(format_instant(*r->end)) : json(nullptr)}};
}

const char *kind_of(const Slot &s) {
    switch (s.check) {
        case SlotCheck::Fanout:
            return "fanout";
        case SlotCheck::Additivity:
            return "additivity";
        case SlotCheck::Question:
            return "question";
        case SlotCheck::Unit:
            return "unit";
        case SlotCheck::Meaning:
            break;
    }
    if (s.entity) return "entity";
    return s.time_range ? "time_range" : to_string(s.kind);
}

// An entity slot's options: keys and names, not concepts (docs/reference.md, "Entities").
json entity_options_json(const Slot &s) {
    json list = json::array();
    for (const EntityOption &o : s.entity_options)
        list.push_back(json{{"value", o.value}, {"label", o.label}});
    return list;
}

json entity_bindings_json(const Decision &d) {
    json list = json::array();
    for (const std::vector<std::string> &b : d.entity_bindings)
        list.push_back(
            json{{"kind", "entity"}, {"relation", b[0]}, {"value", b[1]}, {"key", b[2]}});
    return list;
}

json slot_json(const Catalog &catalog, const Slot &s) {
    json o = json::object();
    o["kind"] = kind_of(s);
    o["term"] = text_or_null(s.term);
    o["state"] = to_string(s.state);
    o["reason"] = s.reason;
    // A grain slot asks the agent to rewrite, not the user to choose.
    o["question"] = text_or_null(s.question);
    o["options"] = s.entity ? entity_options_json(s) : options_json(catalog, s.options);
    if (s.entity) {
        o["value"] = s.value;
        o["key_column"] = s.key_column;
        o["truncated"] = s.truncated;
    }
    // A period's options carry their evaluated windows, and them as people read them.
    for (json &option : o["options"]) {
        for (const auto &entry : s.option_ranges)
            if (option["value"] == entry.first) option["range"] = range_json(entry.second);
        for (const auto &entry : s.option_periods)
            if (option["value"] == entry.first) option["period"] = entry.second;
    }
    o["columns"] = s.columns;
    o["default"] = text_or_null(s.default_concept);
    if (s.time_range) {
        // The period's slot compares ranges; the measure it dates is named apart.
        o["expected"] = range_json(s.expected_range);
        o["actual"] = range_json(s.actual_range);
        o["measure"] = s.actual;
        o["window"] = text_or_null(s.expected);
    } else {
        o["expected"] = text_or_null(s.expected);
        o["actual"] = text_or_null(s.actual);
    }
    if (s.check == SlotCheck::Fanout) o["via"] = s.via;
    if (s.check == SlotCheck::Unit) {
        o["aggregate"] = s.aggregate;
        o["unit_column"] = s.unit_column;
    }
    if (s.check == SlotCheck::Additivity) {
        o["aggregate"] = s.aggregate;
        o["allowed"] = s.allowed;
    }
    o["impact"] = to_string(s.impact);
    // Given for an older definition (docs/dba-guide.md, "When a definition changes").
    if (s.approved_version) {
        o["approved_version"] = s.approved_version;
        o["current_version"] = s.current_version;
    }
    return o;
}

json coverage_json(const Coverage &c) {
    json o = json::object();
    o["column"] = c.column;
    o["concept"] = c.concept_id;
    o["version"] = c.concept_version;
    o["term"] = text_or_null(c.term);
    o["source"] = to_string(c.source);
    o["default_applied"] = c.default_applied;
    o["approval_id"] = c.approval_id ? json(c.approval_id) : json(nullptr);
    if (c.range) o["range"] = range_json(c.range);
    if (!c.window.empty()) o["window"] = c.window;
    if (c.impact) o["impact"] = to_string(*c.impact);
    return o;
}

// The options as a sentence: "A (what A is), B (what B is) or C (what C is)"; a period's
// option with its days first: "Q3 (1 Jul – 30 Sep 2026; what Q3 is)".
std::string options_sentence(const Catalog &catalog, const std::vector<std::string> &ids,
                             const std::vector<std::pair<std::string, std::string>> &periods) {
    std::string out;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const Concept *c = catalog.concept(ids[i]);
        if (i > 0) out += (i + 1 == ids.size()) ? " or " : ", ";
        out += c ? label_with_unit(*c) : ids[i];
        std::string about;
        for (const auto &p : periods)
            if (p.first == ids[i]) about = p.second;
        if (c && !c->description.empty()) {
            if (!about.empty()) about += "; ";
            about += c->description;
        }
        if (!about.empty()) out += " (" + about + ")";
    }
    return out;
}

// An entity slot's options as a sentence: "Acme Corp (Berlin), Acme Corp (Paris) or …".
std::string entity_sentence(const Slot &s) {
    std::string out;
    for (std::size_t i = 0; i < s.entity_options.size(); ++i) {
        if (i > 0) out += (i + 1 == s.entity_options.size() && !s.truncated) ? " or " : ", ";
        out += s.entity_options[i].label;
    }
    return out + (s.truncated ? ", …" : "");
}

std::string term_of_measure(const Catalog &catalog, const Slot &s) {
    const Concept *c = catalog.concept(s.actual);
    return c ? label_with_unit(*c) : s.actual;
}

std::string term_of(const Catalog &catalog, const Slot &s) {
    if (!s.term.empty()) return "\"" + s.term + "\"";
    const Concept *c = catalog.concept(s.actual);
    return "\"" + (c ? label_with_unit(*c) : s.actual) + "\"";
}

// Messages and hints are single lines whatever the record or catalog holds.
std::string one_line(std::string text) {
    for (char &c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
    return text;
}

std::string message_for(const Catalog &catalog, const Decision &d);

}  // namespace

std::string resolution_json(const Catalog &catalog, const TermResolution &r,
                            bool reveal_confirmer) {
    json o = json::object();
    o["decision"] = to_string(r.decision);
    o["term"] = r.term;
    o["selected"] = text_or_null(r.selected);
    o["options"] = options_json(catalog, r.options);
    o["reason"] = r.reason;
    o["source"] = r.source ? json(to_string(*r.source)) : json(nullptr);
    o["default"] = text_or_null(r.default_concept);
    o["default_applied"] = r.default_applied;
    o["approval_id"] = r.approval_id ? json(r.approval_id) : json(nullptr);
    if (!r.ask.empty()) o["ask"] = r.ask;
    if (r.version) o["version"] = r.version;
    if (r.approved_version) {
        o["approved_version"] = r.approved_version;
        o["current_version"] = r.current_version;
    }
    o["confirmed_by"] =
        reveal_confirmer && !r.confirmed_by.empty() ? json(r.confirmed_by) : json(nullptr);
    return o.dump();
}

std::string decision_json(const Catalog &catalog, const Decision &d, const std::string &decision_id,
                          const std::string &question_id, bool with_decision) {
    json o = json::object();
    o["decision_id"] = text_or_null(decision_id);
    if (with_decision) o["decision"] = d.allowed() ? "allowed" : "rejected";
    o["state"] = to_string(d.state);
    o["question_id"] = text_or_null(question_id);
    o["status"] = status_of(d.state);
    json slots = json::array();
    for (const Slot &s : d.slots) slots.push_back(slot_json(catalog, s));
    o["slots"] = std::move(slots);
    if (with_decision) {
        o["columns"] = d.columns;
        json covered = json::array();
        for (const Coverage &c : d.covered) covered.push_back(coverage_json(c));
        for (json &b : entity_bindings_json(d)) covered.push_back(std::move(b));
        o["bindings"] = std::move(covered);
    }
    // The question's rounds (core/decide/budget.hpp).
    if (shows_rounds(d)) {
        o["round"] = d.rounds.round;
        if (d.rounds.max_rounds > 0) o["max_rounds"] = d.rounds.max_rounds;
        if (d.rounds.exhausted) o["budget_exhausted"] = true;
    }
    return o.dump();
}

std::string message_text(const Catalog &catalog, const Decision &d) {
    return one_line(message_for(catalog, d));
}

namespace {
std::string message_for(const Catalog &catalog, const Decision &d) {
    if (d.slots.empty()) return "statement allowed";
    const Slot &s = d.slots.front();
    std::string term = term_of(catalog, s);
    std::string more = d.slots.size() > 1
                           ? " (and " + std::to_string(d.slots.size() - 1) + " more unresolved)"
                           : "";
    if (s.entity)
        return (s.state == State::Ambiguous
                    ? "the " + s.term + " named \"" + s.value + "\" is ambiguous: "
                    : "the " + s.term + " named \"" + s.value + "\" is not known: ") +
               s.reason + more;
    if (s.time_range) {
        const std::string measure = term_of_measure(catalog, s);
        switch (s.state) {
            case State::Ambiguous:
                return "the period of " + measure + " is not chosen: " + s.reason + more;
            case State::Mismatch:
                return "the statement computes " + measure + " over another period than the " +
                       "one resolved: " + s.reason + more;
            default:
                return "the period of " + measure + " could not be resolved: " + s.reason + more;
        }
    }
    switch (s.state) {
        case State::Ambiguous:
            return "the meaning of " + term + " is ambiguous: " + s.reason + more;
        case State::Unsupported:
            return "the meaning of " + term + " is not supported: " + s.reason + more;
        case State::Mismatch:
            return "the statement reads another meaning of " + term +
                   " than the one resolved: " + s.reason + more;
        case State::Unverified:
            return "the resolution of " + term + " could not be verified: " + s.reason + more;
        case State::Grain:
            return "the statement aggregates " + term +
                   " in a way its definition does not allow: " + s.reason + more;
        case State::Resolved:
        case State::AuditUnavailable:
            break;
    }
    return "statement allowed";
}
}  // namespace

std::string hint_text(const Catalog &catalog, const Decision &d) {
    // One question at a time: the highest-impact meaning slot's; the agent asks again after the
    // answer. Grain slots come last and ask nothing: when only they remain, each one's rewrite.
    if (d.slots.empty()) return "";
    const Slot &first = d.slots.front();
    std::string out;
    if (first.check == SlotCheck::Meaning) {
        // An entity slot without a question is the DBA's to settle: its advice says how.
        // A segment slot with advice (core/decide/segments.cpp) asks nothing: the SQL lacks it.
        bool fix_sql = !first.entity && !first.advice.empty();
        out = fix_sql || (first.entity && first.question.empty()) ? first.advice : first.question;
        if (!first.options.empty() && !fix_sql)
            out += " " + options_sentence(catalog, first.options, first.option_periods) + "?";
        if (first.entity && !first.entity_options.empty()) out += " " + entity_sentence(first);
    } else {
        for (const Slot &s : d.slots) {
            if (s.advice.empty() || out.find(s.advice) != std::string::npos) continue;
            if (!out.empty()) out += " ";
            out += s.advice;
        }
    }
    if (std::string spent = spent_hint(d); !spent.empty()) out = spent + " " + out;
    return one_line(out);
}

std::vector<std::string> assumption_texts(const Catalog &catalog, const Decision &d) {
    std::vector<std::string> out;
    for (const Coverage &c : d.covered) {
        if (c.source != CoverageSource::Assumed) continue;
        const Concept *concept = catalog.concept(c.concept_id);
        out.push_back(one_line("assumed " + (concept ? concept->label : c.concept_id) + " for \"" +
                               c.term + "\""));
    }
    return out;
}

std::string audit_unavailable_json(const std::string &decision_id, const std::string &question_id,
                                   bool gate_allowed, State gate_state, const std::string &reason) {
    json o = {{"decision_id", decision_id},
              {"state", to_string(State::AuditUnavailable)},
              {"question_id", text_or_null(question_id)},
              {"status", status_of(State::AuditUnavailable)},
              {"gate_decision", gate_allowed ? "allowed" : "rejected"},
              {"gate_state", to_string(gate_state)},
              {"reason", reason},
              {"slots", json::array()}};
    return o.dump();
}

std::string check_json(const Catalog &catalog, const Decision &decision,
                       const std::string &question_id, bool gated, bool governed) {
    json o = json::parse(decision_json(catalog, decision, "", question_id, true));
    o["gated"] = gated;
    o["governed"] = governed;
    return o.dump();
}

std::string columns_json(const Decision &d) {
    return json(d.columns).dump();
}

std::string bindings_json(const Decision &d) {
    json list = json::array();
    for (const Coverage &c : d.covered) list.push_back(coverage_json(c));
    for (json &b : entity_bindings_json(d)) list.push_back(std::move(b));
    return list.dump();
}

}  // namespace clarify
