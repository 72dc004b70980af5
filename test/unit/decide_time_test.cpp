// The time rules and impact in decide(): a dated measure's period against a bound window or a
// required range, slots ordered by impact, and low-impact ambiguity assumed below a threshold.
#include "decide_fixture.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>

namespace clarify::testing {
namespace {

constexpr Timestamp kDay = 86400LL * 1000000LL;
constexpr Timestamp kJan1 = 1767225600LL * 1000000LL;
constexpr Timestamp kApr1 = kJan1 + 90 * kDay;
const std::string kQ1 = "window.q1";
const std::string kFiscalQ1 = "window.fiscal_q1";
constexpr ColumnKey kOrderDate{kOrders, 9};

// Booked revenue dated by sales.orders.order_date (required), two quarter windows, and a
// low-impact second meaning of "country".
Catalog dated(RevenueCatalog rows, bool required = true, Impact country = Impact::High) {
    Concept q1 = make_concept(kQ1, ConceptKind::TimeWindow, "Calendar Q1", "January to March",
                              "Finance", ConceptStatus::Approved);
    Concept fq1 = make_concept(kFiscalQ1, ConceptKind::TimeWindow, "Fiscal Q1", "February to April",
                               "Finance", ConceptStatus::Approved);
    rows.add(q1);
    rows.add(fq1);
    rows.terms.push_back({"quarter", kQ1});
    rows.terms.push_back({"quarter", kFiscalQ1});
    add_shipping_country(rows);
    Catalog built;
    for (const auto &entry : rows.concepts) built.add_concept(entry.second);
    for (const auto &t : rows.terms) built.add_term(t.first, t.second);
    for (const auto &d : rows.defaults) built.add_default(d);
    for (const auto &a : rows.approvals) built.add_approval(a);
    for (const auto &c : rows.columns) built.add_column(c.key, c.name, c.concept_id);
    built.add_time_policy(kBookedAmount,
                          TimePolicy{kBooked, kOrderDate.attnum, "order_date", required});
    built.set_impact("country", country);
    built.finalize();
    return built;
}

TimeFacts facts(TimeRange read, std::vector<std::pair<std::string, TimeRange>> windows = {}) {
    TimeFacts f;
    f.ranges.emplace_back(kOrderDate, read);
    f.windows = std::move(windows);
    return f;
}

const ResolutionRecord kBooking =
    record("q1", "booked revenue", {binding("revenue", kBooked, BindingSource::Explicit)});

TEST(DecideTime, ARequiredPeriodNotBoundedIsAskedWithTheWindowsAsOptions) {
    Catalog catalog = dated(RevenueCatalog{});
    Decision d = decide(catalog, analyst(), kBooking, reads(catalog, {kBookedAmount}), {},
                        facts(TimeRange{kJan1, std::nullopt}));
    ASSERT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_TRUE(d.slots[0].time_range);
    EXPECT_EQ(d.slots[0].options, (std::vector<std::string>{kFiscalQ1, kQ1}));
    EXPECT_EQ(d.slots[0].question, "For which period should Booked revenue be computed?");
    EXPECT_EQ(d.slots[0].actual_range, (TimeRange{kJan1, std::nullopt}));
}

TEST(DecideTime, ABoundedPeriodIsRecordedInTheBinding) {
    Catalog catalog = dated(RevenueCatalog{});
    Decision d = decide(catalog, analyst(), kBooking, reads(catalog, {kBookedAmount}), {},
                        facts(TimeRange{kJan1, kApr1}));
    ASSERT_TRUE(d.allowed());
    ASSERT_TRUE(d.covered[0].range.has_value());
    EXPECT_EQ(*d.covered[0].range, (TimeRange{kJan1, kApr1}));
    EXPECT_NE(bindings_json(d).find("\"range\":{\"end\":\"2026-04-01T00:00:00Z\""),
              std::string::npos);
}

TEST(DecideTime, AnOptionalPeriodIsNotAsked) {
    Catalog catalog = dated(RevenueCatalog{}, false);
    Decision d = decide(catalog, analyst(), kBooking, reads(catalog, {kBookedAmount}), {},
                        facts(TimeRange{}));
    EXPECT_TRUE(d.allowed());
}

TEST(DecideTime, ABoundWindowMustEqualTheRange) {
    Catalog catalog = dated(RevenueCatalog{}, false);
    ResolutionRecord rec = record("q1", "Booked revenue in Calendar Q1",
                                  {binding("revenue", kBooked, BindingSource::Explicit),
                                   binding("quarter", kQ1, BindingSource::Explicit)});
    auto windows = std::vector<std::pair<std::string, TimeRange>>{{kQ1, TimeRange{kJan1, kApr1}}};
    Decision ok = decide(catalog, analyst(), rec, reads(catalog, {kBookedAmount}), {},
                         facts(TimeRange{kJan1, kApr1}, windows));
    ASSERT_TRUE(ok.allowed());
    EXPECT_EQ(ok.covered[0].window, kQ1);
    Decision off = decide(catalog, analyst(), rec, reads(catalog, {kBookedAmount}), {},
                          facts(TimeRange{kJan1, kApr1 + kDay}, windows));
    ASSERT_EQ(off.state, State::Mismatch);
    EXPECT_EQ(off.slots[0].expected_range, (TimeRange{kJan1, kApr1}));
    EXPECT_EQ(off.slots[0].actual_range, (TimeRange{kJan1, kApr1 + kDay}));
    std::string payload = decision_json(catalog, off, "1", "q1", false);
    EXPECT_NE(payload.find("\"kind\":\"time_range\""), std::string::npos);
    EXPECT_NE(
        payload.find(
            "\"expected\":{\"end\":\"2026-04-01T00:00:00Z\",\"start\":\"2026-01-01T00:00:00Z\"}"),
        std::string::npos);
}

TEST(DecideTime, AnUnverifiedWindowClaimIsUnverified) {
    Catalog catalog = dated(RevenueCatalog{});
    ResolutionRecord rec = record("q1", "booked revenue",
                                  {binding("revenue", kBooked, BindingSource::Explicit),
                                   binding("quarter", kFiscalQ1, BindingSource::UserConfirmation)});
    Decision d = decide(catalog, analyst(), rec, reads(catalog, {kBookedAmount}), {},
                        facts(TimeRange{kJan1, kApr1}, {{kFiscalQ1, TimeRange{kJan1, kApr1}}}));
    ASSERT_EQ(d.state, State::Unverified);
    EXPECT_TRUE(d.slots[0].time_range);
}

TEST(DecideTime, ABindingToAnIneligibleWindowIsUnsupported) {
    Catalog catalog = dated(RevenueCatalog{});
    ResolutionRecord rec = record("q1", "Booked revenue in Calendar Q1",
                                  {binding("revenue", kBooked, BindingSource::Explicit),
                                   binding("quarter", kQ1, BindingSource::Explicit)});
    // The same catalog with Calendar Q1 deprecated.
    Concept q1 = *catalog.concept(kQ1);
    q1.status = ConceptStatus::Deprecated;
    Catalog changed;
    for (const std::string &id :
         {kBooked, kInvoiced, kRecognized, kMargin, kCountry, kShippingCountry, kFiscalQ1})
        changed.add_concept(*catalog.concept(id));
    changed.add_concept(q1);
    changed.add_term("revenue", kBooked);
    changed.add_term("quarter", kQ1);
    changed.add_term("quarter", kFiscalQ1);
    changed.add_column(kBookedAmount, kBookedAmountName, kBooked);
    changed.add_time_policy(kBookedAmount,
                            TimePolicy{kBooked, kOrderDate.attnum, "order_date", true});
    changed.finalize();
    Decision d = decide(changed, analyst(), rec, reads(changed, {kBookedAmount}), {},
                        facts(TimeRange{kJan1, kApr1}, {{kQ1, TimeRange{kJan1, kApr1}}}));
    ASSERT_EQ(d.state, State::Unsupported);
    EXPECT_TRUE(d.slots[0].time_range);
    EXPECT_EQ(d.slots[0].options, (std::vector<std::string>{kFiscalQ1}));
}

TEST(DecideImpact, SlotsAreOrderedByImpactAndTheHintAsksTheFirstOnly) {
    Catalog catalog = dated(RevenueCatalog{}, true, Impact::Low);
    Decision d = decide(catalog, analyst(), kNoRecord,
                        reads(catalog, {kShipCountry, kBookedAmount}), {}, facts(TimeRange{}));
    ASSERT_GE(d.slots.size(), 3u);
    EXPECT_EQ(d.slots.back().term, "country");
    EXPECT_EQ(d.slots.back().impact, Impact::Low);
    EXPECT_EQ(d.slots.front().impact, Impact::High);
    std::string hint = hint_text(catalog, d);
    EXPECT_EQ(hint.find("country"), std::string::npos);
}

TEST(DecideImpact, LowImpactAmbiguityIsAssumedBelowTheThreshold) {
    Catalog catalog = dated(RevenueCatalog{}, true, Impact::Low);
    Decision asked = decide(catalog, analyst(), kNoRecord, reads(catalog, {kShipCountry}));
    EXPECT_EQ(asked.state, State::Ambiguous);
    Decision assumed = decide(catalog, analyst(), kNoRecord, reads(catalog, {kShipCountry}), {}, {},
                              AssumeBelow::Medium);
    ASSERT_TRUE(assumed.allowed());
    EXPECT_EQ(assumed.covered[0].source, CoverageSource::Assumed);
    EXPECT_EQ(assumed.covered[0].impact, Impact::Low);
    EXPECT_EQ(assumption_texts(catalog, assumed),
              (std::vector<std::string>{"assumed Shipping country for \"country\""}));
}

TEST(DecideImpact, HighImpactAndDefaultsAreNeverAssumed) {
    Catalog high = dated(RevenueCatalog{});
    EXPECT_EQ(
        decide(high, analyst(), kNoRecord, reads(high, {kShipCountry}), {}, {}, AssumeBelow::High)
            .state,
        State::Ambiguous);
    RevenueCatalog rows;
    rows.add_default("country", kCountry);
    Catalog defaulted = dated(rows, true, Impact::Low);
    EXPECT_EQ(decide(defaulted, analyst(), kNoRecord, reads(defaulted, {kShipCountry}), {}, {},
                     AssumeBelow::High)
                  .state,
              State::Mismatch);
}

TEST(DecideImpact, ATimeRangeSlotIsNeverAssumed) {
    Catalog catalog = dated(RevenueCatalog{});
    Decision d = decide(catalog, analyst(), kBooking, reads(catalog, {kBookedAmount}), {},
                        facts(TimeRange{}), AssumeBelow::High);
    EXPECT_EQ(d.state, State::Ambiguous);
}

}  // namespace
}  // namespace clarify::testing
