// Entities (docs/reference.md, "Entities"): a column people name things by, and what the gate
// makes of a statement that filters it by name once the glue has looked the name up.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/decision.hpp"
#include "core/entity/entity_model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clarify {

// What the lookup of one distinct name found (src/pg/plan/entity/lookup.cpp).
struct EntityLookup {
    const Entity *entity = nullptr;
    std::string value;  // as written in the statement
    // Distinct keys matching the name by the entity's rule, at most max_options + 1, in order.
    std::vector<EntityOption> matches;
    // When none matched: the entities whose names start with the value's first three characters.
    std::vector<EntityOption> prefix;
    bool prefix_truncated = false;
    // Not looked up: the role may not read this column (the key or the name), and `grant` is the
    // statement that would let it ("GRANT SELECT (id) ON crm.customers TO agent").
    std::string unreadable_column, grant;
    bool operator==(const EntityLookup &o) const {
        return entity == o.entity && value == o.value && matches == o.matches &&
               prefix == o.prefix && prefix_truncated == o.prefix_truncated &&
               unreadable_column == o.unreadable_column && grant == o.grant;
    }
};

// "<name> (<detail>, <detail>)": the details present, in order; no parentheses when none is.
std::string entity_option_label(const std::string &name,
                                const std::vector<std::optional<std::string>> &details);

// The first `n` characters of a UTF-8 text (whole characters): the prefix options start with.
std::string utf8_prefix(const std::string &text, std::size_t n);

// Adds each lookup's outcome to `decision`: one match binds its key, none is UNSUPPORTED and
// several AMBIGUOUS (slot kind entity); the decision's state and slot order follow.
void add_entity_outcomes(Decision &decision, const std::vector<EntityLookup> &lookups);

// Whether two executions' lookups decide alike: the same entities with the same outcomes, where
// a name bound to exactly one key is one outcome whatever the name and key (the audit binds
// them per execution: entity_bindings_json). The decision cache's key (pg/executor/).
bool same_entity_decision(const std::vector<EntityLookup> &a, const std::vector<EntityLookup> &b);

// `bindings` (a JSON array as bindings_json renders it, core/render/payload.hpp) with the
// bindings of the names bound to exactly one key appended, rendered as bindings_json does: what
// clarify.audit and last_decision() show, the reference the unit tests hold the split to.
std::string with_entity_bindings(const std::string &bindings,
                                 const std::vector<EntityLookup> &lookups);

// The bindings of the names bound to exactly one key, as the JSON array with_entity_bindings
// appends ("" when there are none): a decision's per-execution part of its audit bindings
// (AuditRecord::entity_bindings). Written into `out`, reusing its storage.
void entity_bindings_json(const std::vector<EntityLookup> &lookups, std::string &out);

}  // namespace clarify
