// Periods as people read them (core/render/period_text.hpp): days with an inclusive end when
// both sides fall on the zone's midnights, times with an excluded end otherwise.
#include "core/render/period_text.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

constexpr Timestamp kHour = 3600LL * 1000000LL;
constexpr Timestamp kDay = 24 * kHour;

Timestamp utc(int y, int m, int d, int hours = 0) {
    return days_from_civil(y, m, d) * kDay + hours * kHour;
}

// Fixed offsets: Tokyo +9, the session's zone ("") -4 (New York in summer).
class FixedClock : public ZoneClock {
  public:
    LocalTime local(Timestamp t, const std::string &zone) const override {
        Timestamp shift = zone == "Asia/Tokyo" ? 9 * kHour : zone.empty() ? -4 * kHour : 0;
        return local_time(nullptr, t + shift, "UTC");
    }
};

std::string text(const TimeRange &r, const std::string &zone = "UTC") {
    FixedClock clock;
    return period_text(local_range(r, &clock, zone));
}

TEST(PeriodText, DaysWithinOneYearNameTheYearOnce) {
    EXPECT_EQ(text({utc(2026, 7, 1), utc(2026, 10, 1)}), "1 Jul \u2013 30 Sep 2026");
}

TEST(PeriodText, DaysWithinOneMonth) {
    EXPECT_EQ(text({utc(2026, 7, 1), utc(2026, 7, 16)}), "1 Jul \u2013 15 Jul 2026");
}

TEST(PeriodText, DaysAcrossYearsNameBothYears) {
    EXPECT_EQ(text({utc(2025, 12, 1), utc(2026, 3, 1)}), "1 Dec 2025 \u2013 28 Feb 2026");
}

TEST(PeriodText, OneDayIsThatDay) {
    EXPECT_EQ(text({utc(2026, 3, 1), utc(2026, 3, 2)}), "1 Mar 2026");
    EXPECT_EQ(text({utc(2024, 2, 29), utc(2024, 3, 1)}), "29 Feb 2024");
}

TEST(PeriodText, OpenSides) {
    EXPECT_EQ(text({utc(2026, 1, 1), std::nullopt}), "from 1 Jan 2026");
    EXPECT_EQ(text({std::nullopt, utc(2026, 1, 1)}), "until 31 Dec 2025");
    EXPECT_EQ(text(TimeRange{}), "all time");
}

TEST(PeriodText, SidesOffMidnightReadAsTimesWithTheEndExcluded) {
    EXPECT_EQ(text({utc(2026, 7, 1, 13), utc(2026, 10, 1, 13)}),
              "1 Jul 2026 13:00 \u2013 1 Oct 2026 13:00, end excluded");
    // One side on midnight is not enough: both read as times.
    EXPECT_EQ(text({utc(2026, 7, 1), utc(2026, 10, 1, 13)}),
              "1 Jul 2026 00:00 \u2013 1 Oct 2026 13:00, end excluded");
    EXPECT_EQ(text({utc(2026, 7, 1, 13), std::nullopt}), "from 1 Jul 2026 13:00");
    EXPECT_EQ(text({std::nullopt, utc(2026, 7, 1, 13)}), "before 1 Jul 2026 13:00");
}

TEST(PeriodText, SecondsAndFractionsShownWhenThere) {
    // A second past midnight is not midnight: shown, so it does not read as one.
    EXPECT_EQ(text({utc(2026, 7, 1), utc(2026, 7, 2) + 1000000}),
              "1 Jul 2026 00:00 \u2013 2 Jul 2026 00:00:01, end excluded");
    EXPECT_EQ(text({utc(2026, 7, 1) + 1500, std::nullopt}), "from 1 Jul 2026 00:00:00.0015");
}

TEST(PeriodText, AnEmptyRangeReadsAsTimes) {
    EXPECT_EQ(text({utc(2026, 7, 1), utc(2026, 7, 1)}),
              "1 Jul 2026 00:00 \u2013 1 Jul 2026 00:00, end excluded");
}

TEST(PeriodText, TheZoneDecidesTheDays) {
    // Tokyo's Q3 is midnights in Tokyo: days there, times in the session's zone.
    TimeRange tokyo_q3{utc(2026, 6, 30, 15), utc(2026, 9, 30, 15)};
    EXPECT_EQ(text(tokyo_q3, "Asia/Tokyo"), "1 Jul \u2013 30 Sep 2026");
    EXPECT_EQ(text(tokyo_q3, ""), "30 Jun 2026 11:00 \u2013 30 Sep 2026 11:00, end excluded");
    EXPECT_EQ(text(tokyo_q3), "30 Jun 2026 15:00 \u2013 30 Sep 2026 15:00, end excluded");
}

TEST(PeriodText, WithoutAClockInstantsReadInUtc) {
    EXPECT_EQ(period_text(local_range({utc(2026, 7, 1), utc(2026, 10, 1)}, nullptr, "Asia/Tokyo")),
              "1 Jul \u2013 30 Sep 2026");
}

TEST(PeriodText, PhrasesFollowAVerb) {
    FixedClock clock;
    auto phrase = [&](const TimeRange &r) { return period_phrase(local_range(r, &clock, "UTC")); };
    EXPECT_EQ(phrase({utc(2026, 7, 1), utc(2026, 10, 1)}), "over 1 Jul \u2013 30 Sep 2026");
    EXPECT_EQ(phrase({utc(2026, 7, 1), std::nullopt}), "from 1 Jul 2026");
    EXPECT_EQ(phrase({std::nullopt, utc(2026, 7, 1)}), "until 30 Jun 2026");
    EXPECT_EQ(phrase(TimeRange{}), "over all time");
}

TEST(LocalTime, CivilDaysRoundTrip) {
    EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
    EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
    EXPECT_EQ(days_from_civil(1969, 12, 31), -1);
    for (std::int64_t d : {-719468LL, -1LL, 0LL, 11016LL, 20635LL, 2932896LL}) {
        LocalTime t = civil_from_days(d);
        EXPECT_EQ(days_from_civil(t.year, t.month, t.day), d);
    }
}

TEST(LocalTime, FirstDayAtOrAfter) {
    LocalTime midnight = civil_from_days(100);
    LocalTime later = midnight;
    later.micros_of_day = 1;
    EXPECT_EQ(first_day_at_or_after(midnight), 100);
    EXPECT_EQ(first_day_at_or_after(later), 101);
}

}  // namespace
}  // namespace clarify
