// Shared by the decide tests: a revenue catalog with a few more columns and concepts, and
// look-ups into a decision.
#pragma once
#include "core/decide/decision.hpp"
#include "revenue_fixture.hpp"

#include <string>
#include <vector>

namespace clarify::testing {

inline const ResolutionRecord kNoRecord{};

inline constexpr ColumnKey kOrderCount{kOrders, 6};
inline constexpr ColumnKey kOrderAmount{kOrders, 7};
inline constexpr ColumnKey kLedgerAmount{kLedger, 3};
inline constexpr ColumnKey kShipCountry{kOrders, 8};
inline const std::string kOrderCountConcept = "metric.order_count";
inline const std::string kOrderValue = "metric.order_value";
inline const std::string kShippingCountry = "dim.shipping_country";

inline Decision decide_reads(const RevenueCatalog &rows, const std::vector<ColumnKey> &keys,
                             const ResolutionRecord &rec = kNoRecord,
                             const AgentContext &ctx = analyst()) {
    Catalog catalog = rows.build();
    return decide(catalog, ctx, rec, reads(catalog, keys));
}

inline const Slot *slot_reading(const Decision &d, const std::string &actual) {
    for (const Slot &s : d.slots)
        if (s.actual == actual) return &s;
    return nullptr;
}

inline const Coverage *coverage_of(const Decision &d, const std::string &column) {
    for (const Coverage &c : d.covered)
        if (c.column == column) return &c;
    return nullptr;
}

// An approved metric that no term names, read through sales.orders.order_count.
inline void add_untermed_metric(RevenueCatalog &rows) {
    rows.add(make_concept(kOrderCountConcept, ConceptKind::Metric, "Order count",
                          "Number of accepted orders", "Sales", ConceptStatus::Approved));
    rows.columns.push_back({kOrderCount, "sales.orders.order_count", kOrderCountConcept});
}

// A second approved meaning of "country", so that "country" alone is ambiguous.
inline void add_shipping_country(RevenueCatalog &rows) {
    rows.add(make_concept(kShippingCountry, ConceptKind::Dimension, "Shipping country",
                          "Country the order ships to", "Logistics", ConceptStatus::Approved));
    rows.terms.push_back({"country", kShippingCountry});
    rows.columns.push_back({kShipCountry, "sales.orders.ship_country", kShippingCountry});
}

}  // namespace clarify::testing
