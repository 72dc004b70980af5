// Definitions change; approvals notice (docs/dba-guide.md, "When a definition changes"): a
// confirmation or a default holds only for the version of its concept it was given for.
#pragma once
#include "core/core_guard.hpp"
#include "core/model/catalog.hpp"

#include <string>

namespace clarify::detail {

// The concept's version now, 0 when the concept is unknown.
inline int current_version(const Catalog &catalog, const std::string &concept_id) {
    const Concept *c = catalog.concept(concept_id);
    return c ? c->version : 0;
}

// Given for the concept's current definition. 0 is a catalog that records no version (before
// 1.2): what it holds was approved for the definition it has.
inline bool for_current_definition(const Catalog &catalog, const std::string &concept_id,
                                   int recorded) {
    const Concept *c = catalog.concept(concept_id);
    return recorded == 0 || !c || c->version == recorded;
}

inline bool stale(const Catalog &catalog, const Default &d) {
    return !for_current_definition(catalog, d.concept_id, d.concept_version);
}

inline std::string changed_since_confirmed(const std::string &label) {
    return label + " changed since the user confirmed it";
}

// "the approved default for "revenue", Recognized revenue, changed since it was approved".
inline std::string stale_default_words(const std::string &term, const std::string &label) {
    return "the approved default for \"" + term + "\", " + label +
           ", changed since it was approved";
}

}  // namespace clarify::detail
