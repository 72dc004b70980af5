// The range algebra: half-open intervals narrowed by conditions, dates rounded to midnights by
// the glue's `next`, and the instants' text.
#include "core/decide/time_range.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

constexpr Timestamp kDay = 86400LL * 1000000LL;
constexpr Timestamp kJan1 = 1767225600LL * 1000000LL;  // 2026-01-01T00:00:00Z
constexpr Timestamp kApr1 = kJan1 + 90 * kDay;         // 2026-04-01T00:00:00Z

TimeRange apply(std::initializer_list<TimeCondition> conditions) {
    TimeRange r;
    for (const TimeCondition &c : conditions) restrict_range(r, c);
    return r;
}

TEST(TimeRange, LowerAndUpperBoundsMakeAHalfOpenRange) {
    TimeRange r =
        apply({{CompareOp::GreaterEqual, kJan1, kJan1 + 1}, {CompareOp::Less, kApr1, kApr1 + 1}});
    EXPECT_TRUE(r.bounded());
    EXPECT_EQ(*r.start, kJan1);
    EXPECT_EQ(*r.end, kApr1);
}

TEST(TimeRange, LessOrEqualOnADateEndsAtTheNextMidnight) {
    // BETWEEN '2026-01-01' AND '2026-03-31' on a date column: next is the following midnight.
    TimeRange r = apply({{CompareOp::GreaterEqual, kJan1, kJan1 + kDay},
                         {CompareOp::LessEqual, kApr1 - kDay, kApr1}});
    EXPECT_EQ(r, (TimeRange{kJan1, kApr1}));
}

TEST(TimeRange, GreaterStartsAfterTheValue) {
    TimeRange r = apply({{CompareOp::Greater, kJan1 - kDay, kJan1}});
    EXPECT_EQ(r.start, kJan1);
    EXPECT_FALSE(r.end.has_value());
    EXPECT_FALSE(r.bounded());
}

TEST(TimeRange, EqualityBoundsBothSides) {
    TimeRange r = apply({{CompareOp::Equal, kJan1, kApr1}});  // date_trunc('quarter', col) = x
    EXPECT_EQ(r, (TimeRange{kJan1, kApr1}));
}

TEST(TimeRange, TheNarrowestConditionWins) {
    TimeRange r = apply({{CompareOp::GreaterEqual, kJan1, kJan1 + 1},
                         {CompareOp::GreaterEqual, kJan1 + kDay, kJan1 + kDay + 1},
                         {CompareOp::Less, kApr1, kApr1 + 1},
                         {CompareOp::Less, kApr1 + kDay, kApr1 + kDay + 1}});
    EXPECT_EQ(r, (TimeRange{kJan1 + kDay, kApr1}));
}

TEST(TimeRange, CommutedComparisonsMirror) {
    EXPECT_EQ(commuted(CompareOp::Less), CompareOp::Greater);
    EXPECT_EQ(commuted(CompareOp::LessEqual), CompareOp::GreaterEqual);
    EXPECT_EQ(commuted(CompareOp::Equal), CompareOp::Equal);
}

TEST(TimeRange, HullOfTwoScansIsOpenWhenEitherIs) {
    TimeRange bounded{kJan1, kApr1}, open{};
    EXPECT_FALSE(hull(bounded, open).bounded());
    EXPECT_EQ(hull(bounded, TimeRange{kJan1 + kDay, kApr1 + kDay}),
              (TimeRange{kJan1, kApr1 + kDay}));
}

TEST(TimeRange, InstantsAreUtcIso8601) {
    EXPECT_EQ(format_instant(kJan1), "2026-01-01T00:00:00Z");
    EXPECT_EQ(format_instant(kJan1 + 8 * 3600LL * 1000000LL + 5), "2026-01-01T08:00:00.000005Z");
    EXPECT_EQ(format_instant(0), "1970-01-01T00:00:00Z");
    EXPECT_EQ(format_instant(-1000000), "1969-12-31T23:59:59Z");
    EXPECT_EQ(format_instant(951782400LL * 1000000LL), "2000-02-29T00:00:00Z");
}

TEST(Impact, ParsesTheThreeValuesOnly) {
    EXPECT_EQ(parse_impact("low"), Impact::Low);
    EXPECT_EQ(parse_impact("medium"), Impact::Medium);
    EXPECT_EQ(parse_impact("high"), Impact::High);
    EXPECT_FALSE(parse_impact("High").has_value());
    EXPECT_STREQ(to_string(Impact::Medium), "medium");
    EXPECT_LT(Impact::Low, Impact::Medium);
}

}  // namespace
}  // namespace clarify
