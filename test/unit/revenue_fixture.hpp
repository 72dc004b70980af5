// A catalog modelled on the revenue example (examples/revenue.sql): three approved meanings of
// "revenue", a draft "margin", one "country". Tests edit the rows (status, validity, defaults,
// approvals) before build() finalizes them.
#pragma once
#include "core/model/catalog.hpp"
#include "core/decide/decision.hpp"
#include "core/model/record.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace clarify::testing {

constexpr Timestamp kNow = 1'700'000'000'000'000;  // an arbitrary "now", in microseconds
constexpr Timestamp kHour = 3'600'000'000;

// Role OIDs: the agent's role, a role the agent does not belong to.
constexpr RoleId kAnalysts = 16500;
constexpr RoleId kOtherRole = 16501;

inline const std::string kBooked = "metric.booked_revenue";
inline const std::string kInvoiced = "metric.invoiced_revenue";
inline const std::string kRecognized = "metric.recognized_revenue";
inline const std::string kMargin = "metric.gross_margin";
inline const std::string kCountry = "dim.customer_country";

// Physical columns as (relation OID, attnum).
constexpr std::uint32_t kOrders = 16401;
constexpr std::uint32_t kInvoices = 16402;
constexpr std::uint32_t kLedger = 16403;
constexpr std::uint32_t kCustomers = 16404;
constexpr std::uint32_t kUngoverned = 16499;

constexpr ColumnKey kBookedAmount{kOrders, 3};
constexpr ColumnKey kOrderCountry{kOrders, 4};
constexpr ColumnKey kOrderMargin{kOrders, 5};
constexpr ColumnKey kInvoicedAmount{kInvoices, 2};
constexpr ColumnKey kRecognizedAmount{kLedger, 2};
constexpr ColumnKey kCustomerCountry{kCustomers, 2};

inline const std::string kBookedAmountName = "sales.orders.booked_amount";
inline const std::string kOrderCountryName = "sales.orders.customer_country";
inline const std::string kOrderMarginName = "sales.orders.gross_margin";
inline const std::string kInvoicedAmountName = "sales.invoices.invoiced_amount";
inline const std::string kRecognizedAmountName = "sales.revenue_ledger.recognized_amount";
inline const std::string kCustomerCountryName = "sales.customers.country";

struct ColumnRow {
    ColumnKey key;
    std::string name;
    std::string concept_id;
};

inline Concept make_concept(const std::string &id, ConceptKind kind, const std::string &label,
                            const std::string &description, const std::string &owner,
                            ConceptStatus status) {
    Concept c;
    c.id = id;
    c.kind = kind;
    c.label = label;
    c.description = description;
    c.owner = owner;
    c.status = status;
    return c;
}

struct RevenueCatalog {
    std::map<std::string, Concept> concepts;
    std::vector<std::pair<std::string, std::string>> terms;  // (term, concept id)
    std::vector<Default> defaults;
    std::vector<Approval> approvals;
    std::vector<ColumnRow> columns;

    RevenueCatalog() {
        add(make_concept(kBooked, ConceptKind::Metric, "Booked revenue", "Value of accepted orders",
                         "Sales", ConceptStatus::Approved));
        add(make_concept(kInvoiced, ConceptKind::Metric, "Invoiced revenue",
                         "Value of issued invoices", "Billing", ConceptStatus::Approved));
        Concept recognized =
            make_concept(kRecognized, ConceptKind::Metric, "Recognized revenue",
                         "Revenue recognized under IFRS 15", "Finance", ConceptStatus::Approved);
        recognized.aliases = {"recognised revenue"};
        recognized.version = 3;
        add(recognized);
        add(make_concept(kMargin, ConceptKind::Metric, "Gross margin",
                         "Revenue minus cost of goods sold", "Finance", ConceptStatus::Draft));
        add(make_concept(kCountry, ConceptKind::Dimension, "Customer country",
                         "Country of the billing address", "Sales", ConceptStatus::Approved));

        terms = {{"revenue", kBooked},
                 {"revenue", kInvoiced},
                 {"revenue", kRecognized},
                 {"margin", kMargin},
                 {"country", kCountry}};

        columns = {{kBookedAmount, kBookedAmountName, kBooked},
                   {kInvoicedAmount, kInvoicedAmountName, kInvoiced},
                   {kRecognizedAmount, kRecognizedAmountName, kRecognized},
                   {kOrderMargin, kOrderMarginName, kMargin},
                   {kOrderCountry, kOrderCountryName, kCountry},
                   {kCustomerCountry, kCustomerCountryName, kCountry}};
    }

    void add(Concept c) { concepts[c.id] = std::move(c); }

    Concept &at(const std::string &id) { return concepts.at(id); }

    // A default approved by governance; applies_to kEveryone unless a role is given.
    Default &add_default(const std::string &term, const std::string &concept_id,
                         RoleId applies_to = kEveryone, Timestamp valid_until = kNoLimit) {
        Default d;
        d.id = std::int64_t(defaults.size()) + 1;
        d.term = term;
        d.concept_id = concept_id;
        d.applies_to = applies_to;
        d.approved_by = "cfo@example.com";
        d.valid_until = valid_until;
        defaults.push_back(d);
        return defaults.back();
    }

    // A user's confirmation, granted to the agent's role and valid for an hour.
    Approval &add_approval(std::int64_t id, const std::string &question_id, const std::string &term,
                           const std::string &concept_id, RoleId granted_to = kAnalysts) {
        Approval a;
        a.id = id;
        a.question_id = question_id;
        a.term = term;
        a.concept_id = concept_id;
        a.granted_to = granted_to;
        a.confirmed_by = "alice@example.com";
        a.expires_at = kNow + kHour;
        approvals.push_back(a);
        return approvals.back();
    }

    Catalog build() const {
        Catalog catalog;
        for (const auto &entry : concepts) catalog.add_concept(entry.second);
        for (const auto &t : terms) catalog.add_term(t.first, t.second);
        for (const auto &d : defaults) catalog.add_default(d);
        for (const auto &a : approvals) catalog.add_approval(a);
        for (const auto &c : columns) catalog.add_column(c.key, c.name, c.concept_id);
        catalog.finalize();
        return catalog;
    }
};

// The agent: a member of kAnalysts, deciding at kNow.
inline AgentContext analyst() {
    AgentContext ctx;
    ctx.now = kNow;
    ctx.member_of = {kAnalysts};
    return ctx;
}

inline Binding binding(const std::string &term, const std::string &concept_id,
                       BindingSource source) {
    Binding b;
    b.term = term;
    b.concept_id = concept_id;
    b.source = source;
    return b;
}

inline ResolutionRecord record(const std::string &question_id, const std::string &question,
                               std::vector<Binding> bindings = {}) {
    ResolutionRecord r;
    r.question_id = question_id;
    r.question = question;
    r.bindings = std::move(bindings);
    return r;
}

// The governed columns a statement reads, as the glue would look them up.
inline std::vector<const GovernedColumn *> reads(const Catalog &catalog,
                                                 const std::vector<ColumnKey> &keys) {
    std::vector<const GovernedColumn *> read;
    for (const ColumnKey &key : keys) {
        const GovernedColumn *column = catalog.column(key);
        if (column == nullptr) throw std::logic_error("fixture column is not governed");
        read.push_back(column);
    }
    return read;
}

inline std::vector<std::string> sorted(std::vector<std::string> values) {
    std::sort(values.begin(), values.end());
    return values;
}

inline bool contains(const std::vector<std::string> &values, const std::string &value) {
    return std::find(values.begin(), values.end(), value) != values.end();
}

}  // namespace clarify::testing
