// docs/reference.md, "Units and time zones": a window's days read in its window_time_zone, in
// the texts people read and, on a date column, in the comparison with the statement's days.
#include "decide_fixture.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>

namespace clarify::testing {
namespace {

constexpr Timestamp kHour = 3600LL * 1000000LL;
constexpr Timestamp kDay = 24 * kHour;
const std::string kTokyoQ3 = "window.q3_tokyo";
const std::string kSessionQ3 = "window.q3";
constexpr ColumnKey kOrderDate{kOrders, 9};

Timestamp utc(int y, int m, int d, int hours = 0) {
    return days_from_civil(y, m, d) * kDay + hours * kHour;
}

// Q3 2026 in Tokyo (+9) and in the session's zone, New York in summer (-4).
const TimeRange kTokyo{utc(2026, 6, 30, 15), utc(2026, 9, 30, 15)};
const TimeRange kNewYork{utc(2026, 7, 1, 4), utc(2026, 10, 1, 4)};

class FixedClock : public ZoneClock {
  public:
    LocalTime local(Timestamp t, const std::string &zone) const override {
        Timestamp shift = zone == "Asia/Tokyo" ? 9 * kHour : zone.empty() ? -4 * kHour : 0;
        return local_time(nullptr, t + shift, "UTC");
    }
};
const FixedClock kClock;

Catalog dated(RevenueCatalog rows) {
    Concept tokyo =
        make_concept(kTokyoQ3, ConceptKind::TimeWindow, "Q3 in Tokyo",
                     "July to September, Tokyo time", "Finance", ConceptStatus::Approved);
    tokyo.window_time_zone = "Asia/Tokyo";
    rows.add(tokyo);
    rows.add(make_concept(kSessionQ3, ConceptKind::TimeWindow, "Q3", "", "Finance",
                          ConceptStatus::Approved));
    rows.terms.push_back({"q3", kTokyoQ3});
    rows.terms.push_back({"q3", kSessionQ3});
    Catalog built;
    for (const auto &entry : rows.concepts) built.add_concept(entry.second);
    for (const auto &t : rows.terms) built.add_term(t.first, t.second);
    for (const auto &c : rows.columns) built.add_column(c.key, c.name, c.concept_id);
    built.add_time_policy(kBookedAmount, TimePolicy{kBooked, kOrderDate.attnum, "order_date"});
    built.finalize();
    return built;
}

TimeFacts facts(TimeRange read, bool date_column) {
    TimeFacts f;
    f.ranges.emplace_back(kOrderDate, read);
    f.windows = {{kTokyoQ3, kTokyo}, {kSessionQ3, kNewYork}};
    if (date_column) f.date_columns.push_back(kOrderDate);
    f.session_zone = "America/New_York";
    f.clock = &kClock;
    return f;
}

const ResolutionRecord kTokyoBound = record("q1", "Booked revenue in Q3 in Tokyo",
                                            {binding("revenue", kBooked, BindingSource::Explicit),
                                             binding("q3", kTokyoQ3, BindingSource::Explicit)});

Decision decide_read(const Catalog &catalog, const ResolutionRecord &rec, TimeRange read,
                     bool date_column) {
    return decide(catalog, analyst(), rec, reads(catalog, {kBookedAmount}), {},
                  facts(read, date_column));
}

TEST(DecideZones, ADateColumnComparesAsDaysInTheWindowsZone) {
    Catalog catalog = dated(RevenueCatalog{});
    // The statement's days are New York midnights: the same days as Tokyo's Q3.
    Decision ok = decide_read(catalog, kTokyoBound, kNewYork, true);
    ASSERT_TRUE(ok.allowed()) << (ok.slots.empty() ? "" : ok.slots[0].reason);
    EXPECT_EQ(ok.covered[0].window, kTokyoQ3);
    EXPECT_EQ(*ok.covered[0].range, kNewYork);
}

TEST(DecideZones, ADateColumnOneDayOffOnEitherEdgeIsAMismatch) {
    Catalog catalog = dated(RevenueCatalog{});
    Decision early =
        decide_read(catalog, kTokyoBound, {kNewYork.start, *kNewYork.end - kDay}, true);
    ASSERT_EQ(early.state, State::Mismatch);
    // The statement's days, read in the session's zone, beside the window's in Tokyo.
    EXPECT_EQ(early.slots[0].reason,
              "the period asked for is Q3 in Tokyo (1 Jul \u2013 30 Sep 2026), but the statement "
              "computes Booked revenue over 1 Jul \u2013 29 Sep 2026");
    Decision late = decide_read(catalog, kTokyoBound, {*kNewYork.start + kDay, kNewYork.end}, true);
    ASSERT_EQ(late.state, State::Mismatch);
    EXPECT_EQ(late.slots[0].question,
              "You asked about Q3 in Tokyo (1 Jul \u2013 30 Sep 2026), but the answer would "
              "cover 2 Jul \u2013 30 Sep 2026. For which period should Booked revenue be "
              "computed?");
    // JSON keeps the instants: the window's own, and the statement's.
    std::string json = decision_json(catalog, late, "1", "q1", false);
    EXPECT_NE(json.find("\"expected\":{\"end\":\"2026-09-30T15:00:00Z\",\"start\":"
                        "\"2026-06-30T15:00:00Z\"}"),
              std::string::npos)
        << json;
}

TEST(DecideZones, ATimestampColumnComparesAsInstants) {
    Catalog catalog = dated(RevenueCatalog{});
    EXPECT_TRUE(decide_read(catalog, kTokyoBound, kTokyo, false).allowed());
    Decision d = decide_read(catalog, kTokyoBound, kNewYork, false);
    ASSERT_EQ(d.state, State::Mismatch);
    // Shown in the window's zone: New York's midnights are 13:00 in Tokyo.
    EXPECT_EQ(d.slots[0].reason,
              "the period asked for is Q3 in Tokyo (1 Jul \u2013 30 Sep 2026), but the statement "
              "computes Booked revenue over 1 Jul 2026 13:00 \u2013 1 Oct 2026 13:00, end "
              "excluded");
}

TEST(DecideZones, OptionsReadInTheirOwnZones) {
    Catalog catalog = dated(RevenueCatalog{});
    ResolutionRecord asked = record("q1", "Booked revenue in Q3",
                                    {binding("revenue", kBooked, BindingSource::Explicit)});
    Decision d = decide_read(catalog, asked, kNewYork, false);
    ASSERT_EQ(d.state, State::Ambiguous);
    EXPECT_EQ(hint_text(catalog, d),
              "When you say \"q3\", do you mean: Q3 (1 Jul \u2013 30 Sep 2026) or Q3 in Tokyo "
              "(1 Jul \u2013 30 Sep 2026; July to September, Tokyo time)?");
    std::string json = decision_json(catalog, d, "1", "q1", false);
    EXPECT_NE(json.find("\"period\":\"1 Jul \u2013 30 Sep 2026\""), std::string::npos) << json;
}

}  // namespace
}  // namespace clarify::testing
