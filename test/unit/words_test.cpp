// The whole-word, case-insensitive match that verifies `explicit` bindings (CONTRACT §5).
#include "decision.hpp"

#include <gtest/gtest.h>

#include <string>

namespace clarify {
namespace {

const std::string kLabel = "recognized revenue";

TEST(WholeWords, FoundInTheMiddle) {
    EXPECT_TRUE(contains_whole_words("Show recognized revenue for Germany", kLabel));
}

TEST(WholeWords, AtTheStartAndTheEnd) {
    EXPECT_TRUE(contains_whole_words("recognized revenue for Germany", kLabel));
    EXPECT_TRUE(contains_whole_words("Show recognized revenue", kLabel));
    EXPECT_TRUE(contains_whole_words("recognized revenue", kLabel));
}

TEST(WholeWords, CaseInsensitiveBothWays) {
    EXPECT_TRUE(contains_whole_words("SHOW RECOGNIZED REVENUE", kLabel));
    EXPECT_TRUE(contains_whole_words("show recognized revenue", "Recognized Revenue"));
    EXPECT_TRUE(contains_whole_words("Show ReCoGnIzEd rEvEnUe now", "RECOGNIZED revenue"));
}

TEST(WholeWords, PunctuationIsABoundary) {
    EXPECT_TRUE(contains_whole_words("What was recognized revenue?", kLabel));
    EXPECT_TRUE(contains_whole_words("(recognized revenue)", kLabel));
    EXPECT_TRUE(contains_whole_words("\"recognized revenue\", by quarter", kLabel));
    EXPECT_TRUE(contains_whole_words("totals:recognized revenue.", kLabel));
    EXPECT_TRUE(contains_whole_words("Show\trecognized revenue\n", kLabel));
}

TEST(WholeWords, PartOfALongerWordIsNotAMatch) {
    EXPECT_FALSE(contains_whole_words("Show unrecognized revenue", kLabel));
    EXPECT_FALSE(contains_whole_words("Show recognized revenues", kLabel));
    EXPECT_FALSE(contains_whole_words("Show unrecognized revenues", kLabel));
    EXPECT_FALSE(contains_whole_words("recognized revenue2", kLabel));
    EXPECT_FALSE(contains_whole_words("Xrecognized revenue", kLabel));
}

TEST(WholeWords, LaterWholeOccurrenceIsFoundAfterAPartialOne) {
    EXPECT_TRUE(contains_whole_words("unrecognized revenue versus recognized revenue", kLabel));
    EXPECT_TRUE(contains_whole_words("recognized revenues or recognized revenue", kLabel));
}

TEST(WholeWords, EveryWordOfThePhraseMustBeThereInOrder) {
    EXPECT_FALSE(contains_whole_words("Show recognized sales revenue", kLabel));
    EXPECT_FALSE(contains_whole_words("Show revenue recognized", kLabel));
    EXPECT_FALSE(contains_whole_words("Show recognized", kLabel));
    EXPECT_FALSE(contains_whole_words("", kLabel));
}

TEST(WholeWords, SingleWordPhrase) {
    EXPECT_TRUE(contains_whole_words("Show margin by country", "margin"));
    EXPECT_TRUE(contains_whole_words("margin", "Margin"));
    EXPECT_FALSE(contains_whole_words("Show margins by country", "margin"));
    EXPECT_FALSE(contains_whole_words("Show submargin", "margin"));
}

TEST(WholeWords, EmptyPhraseNeverMatches) {
    // An empty label must never verify an explicit claim.
    EXPECT_FALSE(contains_whole_words("Show recognized revenue", ""));
    EXPECT_FALSE(contains_whole_words("", ""));
}

TEST(WholeWords, NonAsciiLettersAreWordCharacters) {
    EXPECT_FALSE(contains_whole_words("Show érecognized revenue", kLabel));
    EXPECT_FALSE(contains_whole_words("Show recognized revenueé", kLabel));
    EXPECT_FALSE(contains_whole_words("Zeige Umsätze", "Umsät"));
    EXPECT_FALSE(contains_whole_words("Zeige Umsätze", "ze"));
}

TEST(WholeWords, NonAsciiTextAroundTheMatch) {
    EXPECT_TRUE(contains_whole_words("Zeige recognized revenue für Österreich", kLabel));
    EXPECT_TRUE(contains_whole_words("Zeige den Umsatz für Österreich", "Umsatz"));
    EXPECT_TRUE(contains_whole_words("Umsatz für Österreich", "für Österreich"));
}

TEST(WholeWords, NonAsciiPunctuationAndSpacesAreBoundaries) {
    // Chat front ends send typographic quotes, dashes and no-break spaces.
    EXPECT_TRUE(contains_whole_words("Show \u201crecognized revenue\u201d for Germany", kLabel));
    EXPECT_TRUE(contains_whole_words("Zeige \u00abrecognized revenue\u00bb", kLabel));
    EXPECT_TRUE(contains_whole_words("Totals\u2014recognized revenue\u2014by quarter", kLabel));
    EXPECT_TRUE(contains_whole_words("Show\u00a0recognized revenue", kLabel));
    EXPECT_TRUE(contains_whole_words("\u00bfrecognized revenue?", kLabel));
}

TEST(WholeWords, CaseInsensitiveBeyondAscii) {
    EXPECT_TRUE(contains_whole_words("Montre l'\u00e9cart de marge", "\u00c9cart de marge"));
    EXPECT_TRUE(contains_whole_words("\u00dcBERSCHUSS pro Quartal", "\u00fcberschuss"));
}

TEST(WholeWords, PhraseWithPunctuation) {
    EXPECT_TRUE(contains_whole_words("Show net-of-tax revenue", "net-of-tax revenue"));
    EXPECT_TRUE(contains_whole_words("Show revenue (EUR) now", "revenue (EUR)"));
}

}  // namespace
}  // namespace clarify
