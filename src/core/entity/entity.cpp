#include "core/entity/entity.hpp"
#include "core/audit/record.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace clarify {

std::string entity_option_label(const std::string &name,
                                const std::vector<std::optional<std::string>> &details) {
    std::string shown;
    for (const std::optional<std::string> &d : details) {
        if (!d) continue;
        if (!shown.empty()) shown += ", ";
        shown += *d;
    }
    return shown.empty() ? name : name + " (" + shown + ")";
}

std::string utf8_prefix(const std::string &text, std::size_t n) {
    std::size_t i = 0, chars = 0;
    while (i < text.size() && chars < n) {
        ++i;
        while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
        ++chars;
    }
    return text.substr(0, i);
}

namespace {

Slot entity_slot(const EntityLookup &l) {
    const Entity &e = *l.entity;
    Slot s;
    s.check = SlotCheck::Meaning;
    s.entity = true;
    s.term = e.label;
    s.value = l.value;
    s.key_column = e.key_column;
    s.impact = Impact::High;
    s.columns.push_back(e.relation_name + "." + e.name_column);
    const std::size_t max = static_cast<std::size_t>(e.max_options);
    if (!l.unreadable_column.empty()) {
        // Nothing to ask the user: the DBA decides what the role may read (the HINT says how).
        const bool key = l.unreadable_column == e.key_column;
        s.state = State::Unsupported;
        s.reason = "this role may not read the " + e.label + (key ? " key " : " name ") +
                   e.relation_name + "." + l.unreadable_column;
        s.advice = "The DBA can let it: " + l.grant + ";";
        return s;
    }
    if (l.matches.empty()) {
        s.state = State::Unsupported;
        s.reason = "no " + e.label + " is named \"" + l.value + "\"";
        s.entity_options = l.prefix;
        s.truncated = l.prefix_truncated;
        s.question =
            "No " + e.label + " is named \"" + l.value + "\". Which " + e.label + " do you mean?";
    } else {
        s.state = State::Ambiguous;
        s.reason = (l.matches.size() > max ? "more than " + std::to_string(max)
                                           : std::to_string(l.matches.size())) +
                   " " + e.label + " entries are named \"" + l.value + "\"";
        s.entity_options.assign(l.matches.begin(), l.matches.begin() + static_cast<long>(std::min(
                                                                           l.matches.size(), max)));
        s.truncated = l.matches.size() > max;
        s.question = "Which " + e.label + " do you mean by \"" + l.value + "\"?";
    }
    return s;
}

}  // namespace

void add_entity_outcomes(Decision &decision, const std::vector<EntityLookup> &lookups) {
    if (lookups.empty()) return;
    for (const EntityLookup &l : lookups) {
        if (!l.entity) continue;
        if (l.matches.size() == 1 && l.unreadable_column.empty()) {
            decision.entity_bindings.push_back(
                {l.entity->relation_name, l.value, l.matches.front().value});
            continue;
        }
        decision.slots.push_back(entity_slot(l));
    }
    // The state is the first of every slot's in precedence order; the user's question (when
    // pg_clarify.require_question asks for it) stays first, and meaning slots precede grain ones.
    auto first = decision.slots.begin();
    const bool unasked = first != decision.slots.end() && first->check == SlotCheck::Question;
    if (unasked) ++first;
    decision.state = State::Resolved;
    for (const Slot &s : decision.slots)
        if (decision.state == State::Resolved || s.state < decision.state) decision.state = s.state;
    if (unasked) decision.state = State::Unverified;
    std::stable_sort(first, decision.slots.end(), [](const Slot &a, const Slot &b) {
        const bool ga = a.check != SlotCheck::Meaning, gb = b.check != SlotCheck::Meaning;
        if (ga != gb) return gb;
        return a.impact != b.impact ? a.impact > b.impact : a.state < b.state;
    });
}

bool same_entity_decision(const std::vector<EntityLookup> &a, const std::vector<EntityLookup> &b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool bound = a[i].matches.size() == 1 && a[i].unreadable_column.empty();
        const bool also = b[i].matches.size() == 1 && b[i].unreadable_column.empty();
        if (bound != also || a[i].entity != b[i].entity) return false;
        if (!bound && !(a[i] == b[i])) return false;
    }
    return true;
}

namespace {

// A text as nlohmann's dump() writes it: as it is between quotes when it holds only printable
// ASCII other than '"' and '\\' (the usual name or key, without building a json per statement).
std::string json_text(const std::string &text) {
    for (unsigned char c : text)
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return nlohmann::json(text).dump();
    return "\"" + text + "\"";
}

}  // namespace

void entity_bindings_json(const std::vector<EntityLookup> &lookups, std::string &out) {
    out.clear();
    for (const EntityLookup &l : lookups) {
        if (!l.entity || l.matches.size() != 1 || !l.unreadable_column.empty()) continue;
        out += out.empty() ? "[" : ",";
        // nlohmann's member order (a std::map: by name), each text dumped as nlohmann does:
        // bindings_json's bytes, without building an object per statement.
        out += "{\"key\":" + json_text(l.matches.front().value) +
               ",\"kind\":\"entity\",\"relation\":" + json_text(l.entity->relation_name) +
               ",\"value\":" + json_text(l.value) + "}";
    }
    if (!out.empty()) out += "]";
}

std::string with_entity_bindings(const std::string &bindings,
                                 const std::vector<EntityLookup> &lookups) {
    std::string entity;
    entity_bindings_json(lookups, entity);
    return with_entity_bindings_json(bindings, entity);
}

}  // namespace clarify
