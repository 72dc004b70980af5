// Grain: fan-out and additivity slots from the aggregates a plan shows (docs/reference.md,
// "Grain"), their JSON, MESSAGE and HINT, and their place after the meaning states.
#include "decide_fixture.hpp"
#include "core/decide/grain.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace clarify::testing {
namespace {

constexpr ColumnKey kBalance{kLedger, 7};
constexpr std::int16_t kSnapshotDate = 8;
inline const std::string kBalanceConcept = "metric.account_balance";
inline const std::string kRate = "metric.conversion_rate";
constexpr ColumnKey kRateColumn{kLedger, 9};

RevenueCatalog grain_rows() {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    Concept balance =
        make_concept(kBalanceConcept, ConceptKind::Metric, "Account balance",
                     "Balance at the end of the day", "Finance", ConceptStatus::Approved);
    balance.additivity = Additivity::SemiAdditive;
    rows.add(balance);
    Concept rate = make_concept(kRate, ConceptKind::Metric, "Conversion rate", "Orders per visit",
                                "Marketing", ConceptStatus::Approved);
    rate.additivity = Additivity::NonAdditive;
    rows.add(rate);
    rows.columns.push_back({kRateColumn, "sales.revenue_ledger.conversion_rate", kRate});
    return rows;
}

Catalog build_with_snapshot(const RevenueCatalog &rows) {
    Catalog catalog;
    for (const auto &entry : rows.concepts) catalog.add_concept(entry.second);
    for (const auto &t : rows.terms) catalog.add_term(t.first, t.second);
    for (const auto &d : rows.defaults) catalog.add_default(d);
    for (const auto &c : rows.columns) catalog.add_column(c.key, c.name, c.concept_id);
    catalog.add_column(kBalance, "sales.revenue_ledger.balance", kBalanceConcept, kSnapshotDate,
                       "snapshot_date");
    catalog.finalize();
    return catalog;
}

AggregateUse use_of(ColumnKey column, const std::string &aggregate,
                    std::vector<std::string> via = {}) {
    AggregateUse u;
    u.column = column;
    u.aggregate = aggregate;
    u.via = std::move(via);
    return u;
}

Decision decide_aggregates(const Catalog &catalog, const std::vector<ColumnKey> &read,
                           const std::vector<AggregateUse> &uses) {
    return decide(catalog, analyst(), kNoRecord, reads(catalog, read), uses);
}

TEST(Grain, JoinThatRepeatsRowsIsAFanout) {
    Catalog catalog = build_with_snapshot(grain_rows());
    Decision d = decide_aggregates(catalog, {kBookedAmount},
                                   {use_of(kBookedAmount, "sum", {"sales.order_lines"})});
    ASSERT_EQ(d.state, State::Grain);
    ASSERT_EQ(d.slots.size(), 1u);
    const Slot &s = d.slots[0];
    EXPECT_EQ(s.check, SlotCheck::Fanout);
    EXPECT_EQ(s.term, "revenue");
    EXPECT_EQ(s.reason, "Booked revenue would be counted once for every matching order line");
    EXPECT_EQ(s.via, std::vector<std::string>{"sales.order_lines"});
    EXPECT_EQ(s.columns, std::vector<std::string>{kBookedAmountName});
    EXPECT_STREQ(sqlstate_of(d.state), "QC006");
}

TEST(Grain, ProvenJoinsAndRowListingsAreAllowed) {
    Catalog catalog = build_with_snapshot(grain_rows());
    EXPECT_TRUE(
        decide_aggregates(catalog, {kBookedAmount}, {use_of(kBookedAmount, "sum")}).allowed());
    EXPECT_TRUE(decide_aggregates(catalog, {kBookedAmount}, {}).allowed());
}

TEST(Grain, DuplicateInsensitiveAggregatesAreExempt) {
    Catalog catalog = build_with_snapshot(grain_rows());
    for (const char *name : {"min", "max", "bool_and", "bool_or", "every"})
        EXPECT_TRUE(decide_aggregates(catalog, {kBookedAmount},
                                      {use_of(kBookedAmount, name, {"sales.order_lines"})})
                        .allowed())
            << name;
    AggregateUse count_distinct = use_of(kBookedAmount, "count", {"sales.order_lines"});
    count_distinct.distinct = true;
    EXPECT_TRUE(decide_aggregates(catalog, {kBookedAmount}, {count_distinct}).allowed());
    AggregateUse sum_distinct = use_of(kBookedAmount, "sum", {"sales.order_lines"});
    sum_distinct.distinct = true;
    EXPECT_EQ(decide_aggregates(catalog, {kBookedAmount}, {sum_distinct}).state, State::Grain);
    AggregateUse own_max = use_of(kBookedAmount, "max", {"sales.order_lines"});
    own_max.builtin = false;  // a user's "max" may count every row
    EXPECT_EQ(decide_aggregates(catalog, {kBookedAmount}, {own_max}).state, State::Grain);
}

TEST(Grain, MeaningStatesComeFirstAndBothSlotsAreListed) {
    RevenueCatalog rows = grain_rows();
    rows.defaults.clear();  // "revenue" is AMBIGUOUS again
    Catalog catalog = build_with_snapshot(rows);
    Decision d = decide_aggregates(catalog, {kBookedAmount},
                                   {use_of(kBookedAmount, "sum", {"sales.order_lines"})});
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 2u);
    EXPECT_EQ(d.slots[0].state, State::Ambiguous);
    EXPECT_EQ(d.slots[1].check, SlotCheck::Fanout);
}

TEST(Grain, NonAdditiveMeasureIsNeverSummed) {
    Catalog catalog = build_with_snapshot(grain_rows());
    Decision d = decide_aggregates(catalog, {kRateColumn}, {use_of(kRateColumn, "sum")});
    ASSERT_EQ(d.state, State::Grain);
    EXPECT_EQ(d.slots[0].check, SlotCheck::Additivity);
    EXPECT_EQ(d.slots[0].aggregate, "sum");
    EXPECT_TRUE(decide_aggregates(catalog, {kRateColumn}, {use_of(kRateColumn, "avg")}).allowed());
}

TEST(Grain, SemiAdditiveMeasureIsSummedPerSnapshot) {
    Catalog catalog = build_with_snapshot(grain_rows());
    AggregateUse across = use_of(kBalance, "sum");
    Decision d = decide_aggregates(catalog, {kBalance}, {across});
    ASSERT_EQ(d.state, State::Grain);
    EXPECT_NE(d.slots[0].advice.find("snapshot date"), std::string::npos);
    AggregateUse per_snapshot = across;
    per_snapshot.per_value = {kSnapshotDate};
    EXPECT_TRUE(decide_aggregates(catalog, {kBalance}, {per_snapshot}).allowed());
    EXPECT_TRUE(decide_aggregates(catalog, {kBalance}, {use_of(kBalance, "avg")}).allowed());
}

TEST(Grain, AllowedAggregatesListTheOnlyOnes) {
    RevenueCatalog rows = grain_rows();
    rows.at(kBooked).has_allowed_aggregates = true;
    rows.at(kBooked).allowed_aggregates = {"sum", "avg"};
    Catalog catalog = build_with_snapshot(rows);
    EXPECT_TRUE(
        decide_aggregates(catalog, {kBookedAmount}, {use_of(kBookedAmount, "avg")}).allowed());
    Decision d = decide_aggregates(catalog, {kBookedAmount}, {use_of(kBookedAmount, "max")});
    ASSERT_EQ(d.state, State::Grain);
    EXPECT_EQ(d.slots[0].allowed, (std::vector<std::string>{"sum", "avg"}));
}

TEST(Grain, UserAggregatesAreNotTrustedWithAdditivity) {
    RevenueCatalog rows = grain_rows();
    rows.at(kBooked).has_allowed_aggregates = true;
    rows.at(kBooked).allowed_aggregates = {"avg"};
    Catalog catalog = build_with_snapshot(rows);
    // A user's aggregate may sum whatever it is called: a snapshot, a ratio, or past the list.
    for (ColumnKey column : {kRateColumn, kBalance, kBookedAmount}) {
        AggregateUse own_avg = use_of(column, "avg");
        own_avg.builtin = false;
        Decision d = decide_aggregates(catalog, {column}, {own_avg});
        ASSERT_EQ(d.state, State::Grain);
        EXPECT_EQ(d.slots[0].check, SlotCheck::Additivity);
        EXPECT_EQ(d.slots[0].aggregate, "avg");
    }
    AggregateUse own_sum = use_of(kBookedAmount, "sum");
    own_sum.builtin = false;
    rows.at(kBooked).has_allowed_aggregates = false;
    EXPECT_TRUE(decide_aggregates(build_with_snapshot(rows), {kBookedAmount}, {own_sum}).allowed());
}

TEST(Grain, AggregatesOverDimensionsAreNotChecked) {
    Catalog catalog = build_with_snapshot(grain_rows());
    EXPECT_TRUE(decide_aggregates(catalog, {kOrderCountry},
                                  {use_of(kOrderCountry, "count", {"sales.order_lines"})})
                    .allowed());
}

TEST(Grain, SlotsOfOneMeasureMerge) {
    Catalog catalog = build_with_snapshot(grain_rows());
    Decision d = decide_aggregates(catalog, {kBookedAmount},
                                   {use_of(kBookedAmount, "sum", {"sales.order_lines"}),
                                    use_of(kBookedAmount, "sum", {"sales.payments"})});
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].via, (std::vector<std::string>{"sales.order_lines", "sales.payments"}));
    EXPECT_EQ(d.slots[0].reason,
              "Booked revenue would be counted once for every matching order line and payment");
}

TEST(Grain, PayloadMessageAndHint) {
    Catalog catalog = build_with_snapshot(grain_rows());
    Decision d = decide_aggregates(catalog, {kBookedAmount},
                                   {use_of(kBookedAmount, "sum", {"sales.order_lines"})});
    auto payload = nlohmann::json::parse(decision_json(catalog, d, "7", "q_1", false));
    EXPECT_EQ(payload.at("state"), "GRAIN");
    const auto &slot = payload.at("slots").at(0);
    EXPECT_EQ(slot.at("kind"), "fanout");
    EXPECT_TRUE(slot.at("question").is_null());
    EXPECT_EQ(slot.at("options"), nlohmann::json::array());
    EXPECT_EQ(slot.at("via"), nlohmann::json::array({"sales.order_lines"}));
    EXPECT_FALSE(slot.contains("aggregate"));
    EXPECT_NE(message_text(catalog, d).find("Booked revenue would be counted"), std::string::npos);
    EXPECT_EQ(hint_text(catalog, d).rfind("Aggregate Booked revenue before joining order lines", 0),
              0u);

    Decision a = decide_aggregates(catalog, {kRateColumn}, {use_of(kRateColumn, "sum")});
    auto additivity = nlohmann::json::parse(decision_json(catalog, a, "8", "", false));
    EXPECT_EQ(additivity.at("slots").at(0).at("kind"), "additivity");
    EXPECT_EQ(additivity.at("slots").at(0).at("aggregate"), "sum");
    EXPECT_TRUE(additivity.at("slots").at(0).at("allowed").is_array());
}

TEST(Grain, SpokenRelation) {
    EXPECT_EQ(spoken_relation("sales.order_lines"), "order line");
    EXPECT_EQ(spoken_relation("sales.categories"), "category");
    EXPECT_EQ(spoken_relation("address"), "address");
}

}  // namespace
}  // namespace clarify::testing
