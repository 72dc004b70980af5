// docs/reference.md, "Which terms decide a column": a time-window term the question mentions is
// asked whenever a dated measure is read, bounded SQL or not, and once resolved the range must
// equal its window.
#include "decide_fixture.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>

namespace clarify::testing {
namespace {

constexpr Timestamp kDay = 86400LL * 1000000LL;
constexpr Timestamp kJan1 = 1767225600LL * 1000000LL;
constexpr Timestamp kFeb1 = kJan1 + 31 * kDay;
constexpr Timestamp kApr1 = kJan1 + 90 * kDay;
constexpr Timestamp kMay1 = kApr1 + 30 * kDay;
const std::string kCalendar = "window.last_quarter";
const std::string kFiscal = "window.last_fiscal_quarter";
constexpr ColumnKey kOrderDate{kOrders, 9};
const TimeRange kCalendarRange{kJan1, kApr1};
const TimeRange kFiscalRange{kFeb1, kMay1};

// Booked revenue dated by order_date (a range is not required), "last quarter" calendar or fiscal.
Catalog dated(RevenueCatalog rows, ConceptStatus fiscal = ConceptStatus::Approved) {
    rows.add(make_concept(kCalendar, ConceptKind::TimeWindow, "Last calendar quarter",
                          "The previous calendar quarter", "Finance", ConceptStatus::Approved));
    rows.add(make_concept(kFiscal, ConceptKind::TimeWindow, "Last fiscal quarter",
                          "The previous fiscal quarter", "Finance", fiscal));
    rows.terms.push_back({"last quarter", kCalendar});
    rows.terms.push_back({"last quarter", kFiscal});
    Catalog built;
    for (const auto &entry : rows.concepts) built.add_concept(entry.second);
    for (const auto &t : rows.terms) built.add_term(t.first, t.second);
    for (const auto &d : rows.defaults) built.add_default(d);
    for (const auto &c : rows.columns) built.add_column(c.key, c.name, c.concept_id);
    built.add_time_policy(kBookedAmount, TimePolicy{kBooked, kOrderDate.attnum, "order_date"});
    built.finalize();
    return built;
}

TimeFacts facts(TimeRange read) {
    TimeFacts f;
    f.ranges.emplace_back(kOrderDate, read);
    f.windows = {{kCalendar, kCalendarRange}, {kFiscal, kFiscalRange}};
    return f;
}

const ResolutionRecord kAsked = record("q1", "Booked revenue by region last quarter",
                                       {binding("revenue", kBooked, BindingSource::Explicit)});

TEST(DecideWindowTerms, AMentionedWindowIsAskedEvenWhenTheSqlIsBounded) {
    Catalog catalog = dated(RevenueCatalog{});
    Decision d = decide(catalog, analyst(), kAsked, reads(catalog, {kBookedAmount}), {},
                        facts(kCalendarRange));
    ASSERT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    const Slot &s = d.slots[0];
    EXPECT_TRUE(s.time_range);
    EXPECT_EQ(s.term, "last quarter");
    EXPECT_EQ(s.options, (std::vector<std::string>{kFiscal, kCalendar}));
    std::string json = decision_json(catalog, d, "1", "q1", false);
    EXPECT_NE(json.find("\"range\":{\"end\":\"2026-04-01T00:00:00Z\",\"start\":"
                        "\"2026-01-01T00:00:00Z\"}"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("\"range\":{\"end\":\"2026-05-01T00:00:00Z\",\"start\":"
                        "\"2026-02-01T00:00:00Z\"}"),
              std::string::npos)
        << json;
    EXPECT_NE(hint_text(catalog, d).find("\"last quarter\""), std::string::npos);
}

TEST(DecideWindowTerms, AnUnmentionedWindowIsNotAsked) {
    Catalog catalog = dated(RevenueCatalog{});
    ResolutionRecord rec = record("q1", "Booked revenue by region",
                                  {binding("revenue", kBooked, BindingSource::Explicit)});
    EXPECT_TRUE(
        decide(catalog, analyst(), rec, reads(catalog, {kBookedAmount}), {}, facts(kCalendarRange))
            .allowed());
}

TEST(DecideWindowTerms, ADefaultWindowMustMatchTheRangeRead) {
    RevenueCatalog rows;
    rows.add_default("last quarter", kFiscal);
    Catalog catalog = dated(rows);
    Decision wrong = decide(catalog, analyst(), kAsked, reads(catalog, {kBookedAmount}), {},
                            facts(kCalendarRange));
    ASSERT_EQ(wrong.state, State::Mismatch);
    ASSERT_EQ(wrong.slots.size(), 1u);
    EXPECT_TRUE(wrong.slots[0].time_range);
    EXPECT_EQ(wrong.slots[0].term, "last quarter");
    EXPECT_EQ(wrong.slots[0].expected, kFiscal);
    EXPECT_EQ(wrong.slots[0].expected_range, kFiscalRange);
    Decision open =
        decide(catalog, analyst(), kAsked, reads(catalog, {kBookedAmount}), {}, facts(TimeRange{}));
    EXPECT_EQ(open.state, State::Mismatch);
    Decision right = decide(catalog, analyst(), kAsked, reads(catalog, {kBookedAmount}), {},
                            facts(kFiscalRange));
    ASSERT_TRUE(right.allowed());
    EXPECT_EQ(right.covered[0].window, kFiscal);
}

TEST(DecideWindowTerms, TheOnlyEligibleWindowResolvesTheTerm) {
    Catalog catalog = dated(RevenueCatalog{}, ConceptStatus::Draft);
    Decision right = decide(catalog, analyst(), kAsked, reads(catalog, {kBookedAmount}), {},
                            facts(kCalendarRange));
    ASSERT_TRUE(right.allowed());
    EXPECT_EQ(right.covered[0].window, kCalendar);
    Decision wrong = decide(catalog, analyst(), kAsked, reads(catalog, {kBookedAmount}), {},
                            facts(kFiscalRange));
    EXPECT_EQ(wrong.state, State::Mismatch);
}

}  // namespace
}  // namespace clarify::testing
