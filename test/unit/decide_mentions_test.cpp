// docs/reference.md, "Which terms decide a column": the terms the question mentions decide; a
// one-meaning synonym covers a column only when no deciding term is ambiguous.
#include "decide_fixture.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>

namespace clarify::testing {
namespace {

// The revenue catalog with a one-meaning synonym of booked revenue beside "revenue".
RevenueCatalog with_bookings() {
    RevenueCatalog rows;
    rows.terms.push_back({"bookings", kBooked});
    return rows;
}

TEST(DecideMentions, TheQuestionSaysRevenueSoTheSynonymDoesNotCover) {
    Decision d =
        decide_reads(with_bookings(), {kBookedAmount}, record("q1", "What is our revenue?"));
    ASSERT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].term, "revenue");
    EXPECT_EQ(d.slots[0].question, "When you say \"revenue\", do you mean:");
    EXPECT_EQ(sorted(d.slots[0].options), sorted({kBooked, kInvoiced, kRecognized}));
}

TEST(DecideMentions, TheQuestionSaysBookingsSoItRuns) {
    Decision d =
        decide_reads(with_bookings(), {kBookedAmount}, record("q1", "What are our Bookings?"));
    ASSERT_TRUE(d.allowed()) << d.slots[0].reason;
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].term, "bookings");
    EXPECT_EQ(d.covered[0].source, CoverageSource::OnlyEligible);
}

TEST(DecideMentions, WithoutAQuestionEveryTermDecides) {
    Decision none = decide_reads(with_bookings(), {kBookedAmount});
    ASSERT_EQ(none.state, State::Ambiguous);
    EXPECT_EQ(none.slots[0].term, "revenue");
    Decision other =
        decide_reads(with_bookings(), {kBookedAmount}, record("q1", "How is the weather?"));
    ASSERT_EQ(other.state, State::Ambiguous);
    EXPECT_EQ(other.slots[0].term, "revenue");
}

TEST(DecideMentions, BothMentionedTheAmbiguousOneStillDecides) {
    Decision d = decide_reads(with_bookings(), {kBookedAmount},
                              record("q1", "revenue from bookings this year"));
    ASSERT_EQ(d.state, State::Ambiguous);
    EXPECT_EQ(d.slots[0].term, "revenue");
}

TEST(DecideMentions, OnlyWholeWordsAreMentions) {
    // "revenues" is not "revenue": only "bookings" is mentioned, and it decides alone.
    Decision d =
        decide_reads(with_bookings(), {kBookedAmount}, record("q1", "List revenues and bookings"));
    EXPECT_TRUE(d.allowed());
    Decision plural =
        decide_reads(with_bookings(), {kBookedAmount}, record("q1", "List bookingss"));
    EXPECT_EQ(plural.state, State::Ambiguous);
}

TEST(DecideMentions, AMultiWordSynonymMatchesAcrossHyphens) {
    RevenueCatalog rows;
    rows.terms.push_back({"order value", kBooked});
    Decision d = decide_reads(rows, {kBookedAmount}, record("q1", "total ORDER-value per month"));
    ASSERT_TRUE(d.allowed());
    EXPECT_EQ(d.covered[0].term, "order value");
}

TEST(DecideMentions, ADefaultOfAnUnmentionedTermDoesNotDecide) {
    RevenueCatalog rows = with_bookings();
    rows.add_default("revenue", kInvoiced);
    Decision said = decide_reads(rows, {kBookedAmount}, record("q1", "our bookings"));
    EXPECT_TRUE(said.allowed());
    // No question: "revenue" decides too, and its default names another meaning.
    Decision none = decide_reads(rows, {kBookedAmount});
    ASSERT_EQ(none.state, State::Mismatch);
    EXPECT_EQ(none.slots[0].term, "revenue");
}

TEST(DecideMentions, AnApprovedDefaultClaimCoversOnlyWhenEveryDecidingTermResolves) {
    RevenueCatalog rows = with_bookings();
    rows.add_default("bookings", kBooked);
    ResolutionRecord rec = record("q1", "What is our revenue?",
                                  {binding("bookings", kBooked, BindingSource::ApprovedDefault)});
    Decision d = decide_reads(rows, {kBookedAmount}, rec);
    ASSERT_EQ(d.state, State::Ambiguous);
    EXPECT_EQ(d.slots[0].term, "revenue");
}

TEST(DecideMentions, AConfirmationStillCovers) {
    RevenueCatalog rows = with_bookings();
    rows.add_approval(7, "q1", "revenue", kBooked);
    ResolutionRecord rec = record("q1", "What is our revenue?",
                                  {binding("revenue", kBooked, BindingSource::UserConfirmation)});
    EXPECT_TRUE(decide_reads(rows, {kBookedAmount}, rec).allowed());
}

TEST(DecideMentions, TheGlueMayPassTheMentionsItMatchedOnce) {
    Catalog catalog = with_bookings().build();
    const std::vector<std::string> mentioned{"bookings"};
    DecideOptions options;
    options.mentioned = &mentioned;
    Decision d = decide(catalog, analyst(), record("q1", "What is our revenue?"),
                        reads(catalog, {kBookedAmount}), {}, {}, options);
    EXPECT_TRUE(d.allowed());
}

TEST(ResolveMentions, ASynonymResolvesOnlyWhenTheQuestionSaysIt) {
    Catalog catalog = with_bookings().build();
    TermResolution said =
        resolve_term(catalog, analyst(), record("q1", "our bookings?"), "bookings", "");
    EXPECT_EQ(said.decision, State::Resolved);
    TermResolution other =
        resolve_term(catalog, analyst(), record("q1", "What is our revenue?"), "bookings", "");
    EXPECT_EQ(other.decision, State::Ambiguous);
    EXPECT_EQ(other.ask, "revenue");
    EXPECT_EQ(sorted(other.options), sorted({kBooked, kInvoiced, kRecognized}));
    EXPECT_NE(resolution_json(catalog, other, false).find("\"ask\":\"revenue\""),
              std::string::npos);
    TermResolution none = resolve_term(catalog, analyst(), kNoRecord, "bookings", "");
    EXPECT_EQ(none.decision, State::Ambiguous);
}

TEST(RequireQuestion, NoQuestionIsUnverifiedBeforeEveryOtherState) {
    Catalog catalog = with_bookings().build();
    DecideOptions options;
    options.require_question = true;
    for (const ResolutionRecord &rec : {kNoRecord, record("q1", "  \n")}) {
        Decision d =
            decide(catalog, analyst(), rec, reads(catalog, {kBookedAmount}), {}, {}, options);
        ASSERT_EQ(d.state, State::Unverified);
        ASSERT_GE(d.slots.size(), 2u);
        EXPECT_EQ(d.slots[0].check, SlotCheck::Question);
        EXPECT_NE(decision_json(catalog, d, "1", "", false).find("\"kind\":\"question\""),
                  std::string::npos);
        EXPECT_FALSE(hint_text(catalog, d).empty());
    }
    Decision asked = decide(catalog, analyst(), record("q1", "our bookings"),
                            reads(catalog, {kBookedAmount}), {}, {}, options);
    EXPECT_TRUE(asked.allowed());
    Decision nothing = decide(catalog, analyst(), kNoRecord, {}, {}, {}, options);
    EXPECT_TRUE(nothing.allowed());
}

}  // namespace
}  // namespace clarify::testing
