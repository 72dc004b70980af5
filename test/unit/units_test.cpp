// Units (docs/reference.md, "Units and time zones"): an aggregate of a measure with a unit column
// groups by it, or every scan reaching it fixes it to one value; count is exempt, max is not.
#include "decide_fixture.hpp"
#include "core/decide/units.hpp"

#include <gtest/gtest.h>

namespace clarify::testing {
namespace {

constexpr std::int16_t kCurrency = 12;
constexpr ColumnKey kOtherAmount{kOrders, 13};

Catalog units_catalog() {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    Catalog catalog;
    for (const auto &entry : rows.concepts) catalog.add_concept(entry.second);
    for (const auto &t : rows.terms) catalog.add_term(t.first, t.second);
    for (const auto &d : rows.defaults) catalog.add_default(d);
    for (const auto &c : rows.columns) catalog.add_column(c.key, c.name, c.concept_id);
    catalog.add_unit_column(kBookedAmount, kBooked, kCurrency, "currency");
    catalog.add_column(kOtherAmount, "sales.orders.other_amount", kBooked);
    catalog.add_unit_column(kOtherAmount, kBooked, kCurrency, "currency");
    catalog.finalize();
    return catalog;
}

AggregateUse use_of(ColumnKey column, const std::string &aggregate, int instance = 1) {
    AggregateUse u;
    u.column = column;
    u.aggregate = aggregate;
    u.instance = instance;
    return u;
}

AggregateUse grouped(AggregateUse u) {
    u.per_value.push_back(kCurrency);
    return u;
}

AggregateUse fixed(AggregateUse u, const std::string &value) {
    u.per_value.push_back(kCurrency);
    u.fixed.emplace_back(kCurrency, value);
    return u;
}

State decided(const std::vector<AggregateUse> &uses) {
    Catalog catalog = units_catalog();
    return decide(catalog, analyst(), kNoRecord, reads(catalog, {kBookedAmount}), uses).state;
}

TEST(Units, AcrossCurrenciesIsAUnitSlot) {
    Catalog catalog = units_catalog();
    Decision d = decide(catalog, analyst(), kNoRecord, reads(catalog, {kBookedAmount}),
                        {use_of(kBookedAmount, "sum")});
    ASSERT_EQ(d.state, State::Grain);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].check, SlotCheck::Unit);
    EXPECT_EQ(d.slots[0].reason, "Booked revenue would add amounts in different currencies");
    EXPECT_EQ(d.slots[0].unit_column, "currency");
    EXPECT_NE(d.slots[0].advice.find("Group by currency"), std::string::npos);
}

TEST(Units, GroupedOrOneValueRuns) {
    EXPECT_EQ(decided({grouped(use_of(kBookedAmount, "sum"))}), State::Resolved);
    EXPECT_EQ(decided({fixed(use_of(kBookedAmount, "sum"), "=EUR")}), State::Resolved);
    EXPECT_EQ(decided({fixed(use_of(kBookedAmount, "sum"), "=EUR"),
                       fixed(use_of(kOtherAmount, "sum"), "=EUR")}),
              State::Resolved);
}

TEST(Units, TwoValuesReachingOneAggregateMix) {
    EXPECT_EQ(decided({fixed(use_of(kBookedAmount, "sum"), "=EUR"),
                       fixed(use_of(kOtherAmount, "sum"), "=USD")}),
              State::Grain);
    // One scan fixed, another reaching the same aggregate not restricted at all.
    EXPECT_EQ(decided({fixed(use_of(kBookedAmount, "sum"), "=EUR"), use_of(kOtherAmount, "sum")}),
              State::Grain);
    // Other aggregates are other totals: each may have its own currency.
    EXPECT_EQ(decided({fixed(use_of(kBookedAmount, "sum", 1), "=EUR"),
                       fixed(use_of(kOtherAmount, "sum", 2), "=USD")}),
              State::Resolved);
}

TEST(Units, CountIsExemptMaxIsNot) {
    EXPECT_EQ(decided({use_of(kBookedAmount, "count")}), State::Resolved);
    AggregateUse distinct = use_of(kBookedAmount, "count");
    distinct.distinct = true;
    EXPECT_EQ(decided({distinct}), State::Resolved);
    EXPECT_EQ(decided({use_of(kBookedAmount, "max")}), State::Grain);
    AggregateUse own_count = use_of(kBookedAmount, "count");
    own_count.builtin = false;
    EXPECT_EQ(decided({own_count}), State::Grain);
}

TEST(Units, AMissingUnitColumnNeverRuns) {
    Catalog catalog;
    RevenueCatalog rows;
    for (const auto &entry : rows.concepts) catalog.add_concept(entry.second);
    for (const auto &c : rows.columns) catalog.add_column(c.key, c.name, c.concept_id);
    catalog.add_unit_column(kBookedAmount, kBooked, 0, "currency");
    catalog.finalize();
    AggregateUse u = use_of(kBookedAmount, "sum");
    u.per_value.push_back(0);
    Decision d = decide(catalog, analyst(), kNoRecord, reads(catalog, {kBookedAmount}), {u});
    EXPECT_EQ(d.state, State::Grain);
}

TEST(Units, AFixedUnitFollowsTheLabel) {
    Concept c = make_concept("metric.x", ConceptKind::Metric, "Booked revenue", "", "",
                             ConceptStatus::Approved);
    EXPECT_EQ(label_with_unit(c), "Booked revenue");
    c.unit = "EUR";
    EXPECT_EQ(label_with_unit(c), "Booked revenue (EUR)");
}

}  // namespace
}  // namespace clarify::testing
