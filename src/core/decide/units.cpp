#include "core/decide/units.hpp"

#include <algorithm>

namespace clarify {

namespace {

bool grouped_by(const AggregateUse &use, std::int16_t attnum) {
    if (attnum <= 0) return false;
    if (std::find(use.per_value.begin(), use.per_value.end(), attnum) == use.per_value.end())
        return false;
    return std::none_of(use.fixed.begin(), use.fixed.end(),
                        [&](const auto &f) { return f.first == attnum; });
}

const std::string *fixed_value(const AggregateUse &use, std::int16_t attnum) {
    if (attnum <= 0) return nullptr;
    for (const auto &f : use.fixed)
        if (f.first == attnum) return &f.second;
    return nullptr;
}

// Whether every other scan of a measure with a unit column reaching the same aggregate fixes that
// column to `value` (or groups by it): an EUR amount added to a USD amount mixes, whatever the
// concepts.
bool same_value_everywhere(const Concept &concept, const AggregateUse &use,
                           const std::string &value, const std::vector<AggregateUse> &all,
                           const Catalog &catalog) {
    for (const AggregateUse &other : all) {
        if (other.instance != use.instance) continue;
        const GovernedColumn *column = catalog.column(other.column);
        const GovernedColumn::Snapshot *unit = column ? column->unit_of(concept.id) : nullptr;
        if (column && !unit && !column->units.empty()) unit = &column->units.front();
        if (!unit) continue;
        if (grouped_by(other, unit->attnum)) continue;
        const std::string *v = fixed_value(other, unit->attnum);
        if (!v || *v != value) return false;
    }
    return true;
}

std::string spoken(std::string column) {
    std::replace(column.begin(), column.end(), '_', ' ');
    return column;
}

// "currencies" for a currency column, else "units".
std::string units_noun(const std::string &column) {
    return column.find("currenc") != std::string::npos || column.find("ccy") != std::string::npos
               ? "currencies"
               : "units";
}

}  // namespace

std::optional<Slot> unit_slot(const Concept &concept, const std::string &term,
                              const GovernedColumn &column, const AggregateUse &use,
                              const std::vector<AggregateUse> &all, const Catalog &catalog) {
    const GovernedColumn::Snapshot *unit = column.unit_of(concept.id);
    if (!unit) return std::nullopt;
    // Counting rows (or distinct amounts) adds no amounts together; a user's "count" may.
    if (use.builtin && use.aggregate == "count") return std::nullopt;
    if (grouped_by(use, unit->attnum)) return std::nullopt;
    const std::string *value = fixed_value(use, unit->attnum);
    if (value && same_value_everywhere(concept, use, *value, all, catalog)) return std::nullopt;
    Slot s;
    s.check = SlotCheck::Unit;
    s.kind = ConceptKind::Metric;
    s.term = term;
    s.state = State::Grain;
    s.actual = concept.id;
    s.aggregate = use.aggregate;
    s.unit_column = unit->column;
    const std::string noun = units_noun(unit->column), by = spoken(unit->column);
    const bool compares = use.builtin && (use.aggregate == "min" || use.aggregate == "max");
    s.reason =
        concept.label +
        (compares ? " would compare amounts in different " : " would add amounts in different ") +
        noun;
    if (unit->attnum <= 0) s.reason += " (its unit column " + unit->column + " no longer exists)";
    s.advice = "Group by " + by + " (or filter one " + by + ") when aggregating " + concept.label +
               "; a converted total is a measure of its own: ask the DBA to register the "
               "converted column.";
    return s;
}

std::string label_with_unit(const Concept &concept) {
    return concept.unit.empty() ? concept.label : concept.label + " (" + concept.unit + ")";
}

}  // namespace clarify
