#include "core/decide/grain.hpp"
#include "core/decide/rules.hpp"
#include "core/decide/units.hpp"

#include <algorithm>

namespace clarify {

namespace {

bool builtin_named(const AggregateUse &use, std::initializer_list<const char *> names) {
    if (!use.builtin) return false;
    for (const char *n : names)
        if (use.aggregate == n) return true;
    return false;
}

// "a, b or c"
std::string listed(const std::vector<std::string> &items, const char *last_joint) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += (i + 1 == items.size()) ? last_joint : ", ";
        out += items[i];
    }
    return out;
}

std::string spoken_column(const std::string &column) {
    std::string out = column;
    std::replace(out.begin(), out.end(), '_', ' ');
    return out;
}

// The concept whose grain rules apply to a column read: the one the decision resolved it to,
// else its first metric; nullptr for a column that carries no metric.
const Concept *measure_of(const Catalog &catalog, const GovernedColumn &column,
                          const std::vector<Coverage> &covered) {
    for (const Coverage &c : covered)
        if (c.column == column.name) {
            const Concept *concept = catalog.concept(c.concept_id);
            if (concept && concept->kind == ConceptKind::Metric) return concept;
        }
    for (const std::string &id : column.concept_ids) {
        const Concept *concept = catalog.concept(id);
        if (concept && concept->kind == ConceptKind::Metric) return concept;
    }
    return nullptr;
}

std::string term_for(const detail::Rules &rules, const Concept &concept,
                     const GovernedColumn &column, const std::vector<Coverage> &covered) {
    for (const Coverage &c : covered)
        if (c.column == column.name && c.concept_id == concept.id && !c.term.empty()) return c.term;
    return rules.main_term(concept.id);
}

Slot grain_slot(SlotCheck check, const Concept &concept, const std::string &term) {
    Slot s;
    s.check = check;
    s.kind = ConceptKind::Metric;
    s.term = term;
    s.state = State::Grain;
    s.actual = concept.id;
    return s;
}

// "sales.order_lines" -> "order lines": the relation's rows, as the HINT names them.
std::string spoken_rows(const std::string &relation) {
    std::size_t dot = relation.rfind('.');
    return spoken_column(dot == std::string::npos ? relation : relation.substr(dot + 1));
}

void add_once(std::vector<std::string> &to, const std::string &s) {
    if (std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

// `joins`: the relations whose join repeats the rows; `repeated`: relations whose rows more than
// one branch of a UNION ALL reads. The slot's `via` names both.
Slot fanout_slot(const Concept &concept, const std::string &term,
                 const std::vector<std::string> &joins, const std::vector<std::string> &repeated) {
    Slot s = grain_slot(SlotCheck::Fanout, concept, term);
    s.repeated = repeated;
    std::vector<std::string> nouns, rows, read_twice;
    for (const std::string &r : joins) {
        add_once(s.via, r);
        add_once(nouns, spoken_relation(r));
        add_once(rows, spoken_rows(r));
    }
    for (const std::string &r : repeated) {
        add_once(s.via, r);
        add_once(read_twice, spoken_rows(r));
    }
    const std::string label = label_with_unit(concept);
    const std::string branches = "the same " + listed(read_twice, " and ") +
                                 " are read by more than one branch of a UNION ALL";
    const std::string read_once =
        "Read " + listed(read_twice, " and ") +
        " once (one SELECT whose WHERE combines the branches' conditions with OR), or aggregate "
        "each branch in its own subquery and add the results.";
    const std::string join_advice =
        "Aggregate " + label + " before joining " + listed(rows, " and ") +
        " (in a subquery grouped by the join key), join only on a unique key, or filter with "
        "EXISTS instead of a join.";
    if (repeated.empty()) {
        s.reason = label + " would be counted once for every matching " + listed(nouns, " and ");
        s.advice = join_advice;
    } else if (joins.empty()) {
        s.reason = label + " would be counted more than once: " + branches;
        s.advice = read_once;
    } else {
        s.reason = label + " would be counted once for every matching " + listed(nouns, " and ") +
                   ", and " + branches;
        s.advice = join_advice + " " + read_once;
    }
    return s;
}

// The joins of a fanout slot's `via`: what is not there only because branches read it again.
std::vector<std::string> joins_of(const std::vector<std::string> &via,
                                  const std::vector<std::string> &repeated) {
    std::vector<std::string> joins;
    for (const std::string &r : via)
        if (std::find(repeated.begin(), repeated.end(), r) == repeated.end()) joins.push_back(r);
    return joins;
}

std::vector<std::string> usable_aggregates(const Concept &concept) {
    if (concept.has_allowed_aggregates) return concept.allowed_aggregates;
    return {};
}

// The additivity slot of one aggregate, if its use breaks the measure's definition.
std::optional<Slot> additivity_slot(const Concept &concept, const std::string &term,
                                    const GovernedColumn &column, const AggregateUse &use) {
    const std::string label = label_with_unit(concept);
    // The list names PostgreSQL's aggregates: a user's aggregate of the same name may sum.
    if (concept.has_allowed_aggregates &&
        (!use.builtin ||
         std::find(concept.allowed_aggregates.begin(), concept.allowed_aggregates.end(),
                   use.aggregate) == concept.allowed_aggregates.end())) {
        Slot s = grain_slot(SlotCheck::Additivity, concept, term);
        s.aggregate = use.aggregate;
        s.allowed = concept.allowed_aggregates;
        s.reason = label + " may only be aggregated with " + listed(s.allowed, " or ") +
                   ", not with " + use.aggregate +
                   (use.builtin ? "" : " (an aggregate defined in the database, not PostgreSQL's)");
        s.advice = "Aggregate " + label + " with " + listed(s.allowed, " or ") + ".";
        return s;
    }
    // A user's aggregate may sum whatever its name: only PostgreSQL's own are known not to.
    if (use.builtin && use.aggregate != "sum") return std::nullopt;
    if (concept.additivity == Additivity::NonAdditive) {
        Slot s = grain_slot(SlotCheck::Additivity, concept, term);
        s.aggregate = use.aggregate;
        s.allowed = usable_aggregates(concept);
        s.reason = label + " is not additive: a sum of it means nothing" +
                   (use.builtin ? std::string() : ", and " + use.aggregate + " may sum it");
        s.advice =
            "Do not sum " + label + ": use " +
            (s.allowed.empty() ? std::string("avg, min or max") : listed(s.allowed, " or ")) +
            ", or compute it from the measures it is made of.";
        return s;
    }
    if (concept.additivity != Additivity::SemiAdditive) return std::nullopt;
    const GovernedColumn::Snapshot *snapshot = column.snapshot_of(concept.id);
    if (snapshot && std::find(use.per_value.begin(), use.per_value.end(), snapshot->attnum) !=
                        use.per_value.end())
        return std::nullopt;
    Slot s = grain_slot(SlotCheck::Additivity, concept, term);
    s.aggregate = use.aggregate;
    s.allowed = usable_aggregates(concept);
    if (snapshot) {
        std::string when = spoken_column(snapshot->column);
        s.reason = label + " is a snapshot: summed over several " + when +
                   " values it counts the same amount more than once" +
                   (use.builtin ? std::string() : " (" + use.aggregate + " may sum it)");
        s.advice = "Group by " + when + " (or restrict it to one value) when summing " + label +
                   ", or use avg, min or max across snapshots.";
    } else {
        s.reason = label + " is a snapshot and has no snapshot column to sum it by";
        s.advice =
            "Use avg, min or max for " + label + ", or ask the DBA to declare its snapshot column.";
    }
    return s;
}

// One slot per check, meaning and aggregate: the columns and relations of the others join it.
void merge(std::vector<Slot> &slots, Slot slot, const Concept &concept, const std::string &column) {
    for (Slot &s : slots) {
        if (s.check != slot.check || s.actual != slot.actual || s.aggregate != slot.aggregate ||
            s.term != slot.term)
            continue;
        if (std::find(s.columns.begin(), s.columns.end(), column) == s.columns.end())
            s.columns.push_back(column);
        std::vector<std::string> joins = joins_of(s.via, s.repeated), repeated = s.repeated;
        for (const std::string &r : joins_of(slot.via, slot.repeated)) add_once(joins, r);
        for (const std::string &r : slot.repeated) add_once(repeated, r);
        if (joins != joins_of(s.via, s.repeated) || repeated != s.repeated) {
            std::vector<std::string> columns = std::move(s.columns);
            s = fanout_slot(concept, s.term, joins, repeated);
            s.columns = std::move(columns);
        }
        return;
    }
    slot.columns.push_back(column);
    slots.push_back(std::move(slot));
}

}  // namespace

bool duplicate_insensitive(const AggregateUse &use) {
    if (builtin_named(use, {"min", "max", "bool_and", "bool_or", "every"})) return true;
    return use.distinct && builtin_named(use, {"count"});
}

std::string spoken_relation(const std::string &relation) {
    std::string name =
        relation.substr(relation.rfind('.') == std::string::npos ? 0 : relation.rfind('.') + 1);
    std::replace(name.begin(), name.end(), '_', ' ');
    // A table is usually named in the plural; one of its rows in the singular.
    if (name.size() > 3 && name.compare(name.size() - 3, 3, "ies") == 0)
        name = name.substr(0, name.size() - 3) + "y";
    else if (name.size() > 1 && name.back() == 's' && name[name.size() - 2] != 's')
        name.pop_back();
    return name;
}

std::vector<Slot> grain_slots(const Catalog &catalog, const detail::Rules &rules,
                              const std::vector<AggregateUse> &aggregates,
                              const std::vector<Coverage> &covered) {
    std::vector<Slot> slots;
    for (const AggregateUse &use : aggregates) {
        const GovernedColumn *column = catalog.column(use.column);
        if (!column) continue;
        const Concept *concept = measure_of(catalog, *column, covered);
        if (!concept) continue;
        const std::string term = term_for(rules, *concept, *column, covered);
        if ((!use.via.empty() || !use.repeated.empty()) && !duplicate_insensitive(use))
            merge(slots, fanout_slot(*concept, term, use.via, use.repeated), *concept,
                  column->name);
        if (auto s = additivity_slot(*concept, term, *column, use))
            merge(slots, std::move(*s), *concept, column->name);
        if (auto s = unit_slot(*concept, term, *column, use, aggregates, catalog))
            merge(slots, std::move(*s), *concept, column->name);
    }
    return slots;
}

}  // namespace clarify
