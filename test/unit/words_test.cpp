// The whole-word, case-insensitive match that verifies `explicit` bindings (docs/reference.md, "The
// resolution record").
#include "core/decide/words.hpp"

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

// Simple case folding (CaseFolding.txt statuses C and S), not a table of our own.
TEST(WholeWords, LatinExtendedAFoldsItsOwnPairs) {
    EXPECT_TRUE(contains_whole_words("Przych\u00f3d \u0141\u00d3D\u0179",
                                     "przych\u00f3d \u0141\u00f3d\u017a"));
    EXPECT_TRUE(contains_whole_words("Umsatz \u0141\u00f3d\u017a", "\u0141\u00d3D\u0179"));
    EXPECT_TRUE(contains_whole_words("Umsatz \u0141\u00f3d\u017a", "\u0141\u00f3d\u017a"));
    // Neighbours in the block are different letters.
    EXPECT_FALSE(contains_whole_words("\u0142", "\u0143"));
    EXPECT_FALSE(contains_whole_words("\u0143", "\u0142"));
    EXPECT_FALSE(contains_whole_words("\u017a", "\u017b"));
    EXPECT_FALSE(contains_whole_words("Umsatz \u0143\u00f3d\u017a", "\u0142\u00f3d\u017a"));
}

TEST(WholeWords, GreekSigmaInEveryForm) {
    // Σ, σ and final ς fold to σ; accented capitals fold to their small letters.
    EXPECT_TRUE(contains_whole_words(
        "\u0388\u03a3\u039f\u0394\u0391 \u03b1\u03bd\u03ac \u03c7\u03ce\u03c1\u03b1",
        "\u03ad\u03c3\u03bf\u03b4\u03b1"));
    EXPECT_TRUE(
        contains_whole_words("\u039b\u039f\u0393\u0391\u03a1\u0399\u0391\u03a3\u039c\u038c\u03a3",
                             "\u03bb\u03bf\u03b3\u03b1\u03c1\u03b9\u03b1\u03c3\u03bc\u03cc\u03c2"));
    EXPECT_TRUE(contains_whole_words("\u03c3", "\u03c2"));
    EXPECT_TRUE(contains_whole_words("\u03c2", "\u03a3"));
    EXPECT_FALSE(contains_whole_words("\u03c3\u03b1", "\u03c3"));
}

TEST(WholeWords, CyrillicBeyondTheBasicAlphabet) {
    EXPECT_TRUE(
        contains_whole_words("\u0412\u042b\u0420\u0423\u0427\u041a\u0410 \u043f\u043e "
                             "\u0440\u0435\u0433\u0438\u043e\u043d\u0430\u043c",
                             "\u0432\u044b\u0440\u0443\u0447\u043a\u0430"));
    EXPECT_TRUE(contains_whole_words("\u0401\u041b\u041a\u0410", "\u0451\u043b\u043a\u0430"));
    EXPECT_TRUE(
        contains_whole_words("\u0490\u0410\u041d\u041e\u041a", "\u0491\u0430\u043d\u043e\u043a"));
    EXPECT_TRUE(contains_whole_words("\u04ae", "\u04af"));
}

TEST(WholeWords, CapitalSharpSFoldsToSharpS) {
    EXPECT_TRUE(contains_whole_words("STRA\u1e9eE", "stra\u00dfe"));
    EXPECT_TRUE(contains_whole_words("Stra\u00dfe", "STRA\u1e9eE"));
}

TEST(WholeWords, NoFullFolding) {
    // ß is not "ss" and ŉ is not "ʼn": simple folding never changes a string's length.
    EXPECT_FALSE(contains_whole_words("STRASSE", "stra\u00dfe"));
    EXPECT_FALSE(contains_whole_words("strasse", "STRA\u1e9eE"));
    EXPECT_FALSE(contains_whole_words("\u02bcn", "\u0149"));
}

TEST(WholeWords, NoTurkishFolding) {
    // I folds to i, not to dotless ı; İ has no simple folding.
    EXPECT_TRUE(contains_whole_words("ISTANBUL", "istanbul"));
    EXPECT_FALSE(contains_whole_words("ISTANBUL", "\u0131stanbul"));
    EXPECT_FALSE(contains_whole_words("\u0130stanbul", "istanbul"));
    EXPECT_TRUE(contains_whole_words("\u0130stanbul", "\u0130STANBUL"));
}

TEST(WholeWords, LettersOutsideTheBasicPlaneAndSigns) {
    EXPECT_TRUE(contains_whole_words("\U00010400\U00010401", "\U00010428\U00010429"));  // Deseret
    EXPECT_TRUE(contains_whole_words("5 \u212aelvin", "kelvin"));     // KELVIN SIGN
    EXPECT_TRUE(contains_whole_words("10 \u00b5g dose", "\u03bcg"));  // MICRO SIGN
    EXPECT_TRUE(contains_whole_words("\u01c4EMAL", "\u01c6emal"));    // DŽ, Dž, dž
    EXPECT_TRUE(contains_whole_words("\u01c5emal", "\u01c6EMAL"));
}

TEST(WholeWords, BoundariesAgreeWithWhatIsALetter) {
    // Letters and marks of any script continue a word; symbols and emoji end it.
    EXPECT_FALSE(contains_whole_words("revenue\u0301", "revenue"));        // combining accent
    EXPECT_FALSE(contains_whole_words("\u216bth revenue", "th revenue"));  // ROMAN NUMERAL TWELVE
    EXPECT_FALSE(contains_whole_words("\u24b6revenue", "revenue"));        // CIRCLED A
    EXPECT_FALSE(contains_whole_words("revenue\u0663", "revenue"));        // ARABIC-INDIC THREE
    EXPECT_TRUE(contains_whole_words("revenue\U0001F680", "revenue"));
    EXPECT_TRUE(contains_whole_words("\u2605revenue\u2605", "revenue"));
    EXPECT_TRUE(contains_whole_words("revenue\u00b2", "revenue"));  // superscript two: not a digit
}

TEST(WholeWords, InvalidUtf8IsABoundaryAndHidesNothing) {
    // A broken sequence never swallows the byte after it.
    EXPECT_TRUE(contains_whole_words("x\xc3(revenue)", "revenue"));
    EXPECT_TRUE(contains_whole_words("\xe4\xb8revenue", "revenue"));
    EXPECT_TRUE(contains_whole_words("revenue\xff", "revenue"));
}

TEST(WholeWords, PhraseWithPunctuation) {
    EXPECT_TRUE(contains_whole_words("Show net-of-tax revenue", "net-of-tax revenue"));
    EXPECT_TRUE(contains_whole_words("Show revenue (EUR) now", "revenue (EUR)"));
}

}  // namespace
}  // namespace clarify
