// The clarification budget (core/decide/budget.hpp): rounds, what a spent budget assumes, what
// it still asks, and what the payload and HINT say.
#include "decide_fixture.hpp"
#include "core/decide/budget.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace clarify::testing {
namespace {

using nlohmann::json;

// "country": two meanings (customer, shipping) of the given impact; "revenue": three, high.
Catalog budgeted(Impact country) {
    RevenueCatalog rows;
    add_shipping_country(rows);
    Catalog built;
    for (const auto &entry : rows.concepts) built.add_concept(entry.second);
    for (const auto &t : rows.terms) built.add_term(t.first, t.second);
    for (const auto &c : rows.columns) built.add_column(c.key, c.name, c.concept_id);
    built.set_impact("country", country);
    built.finalize();
    return built;
}

const ResolutionRecord kAsked = record("q_7", "revenue by country");

Decision decide_spent(const Catalog &catalog, const std::vector<ColumnKey> &keys, bool spent,
                      const ResolutionRecord &rec = kAsked) {
    DecideOptions options;
    options.budget_spent = spent;
    return decide(catalog, analyst(), rec, reads(catalog, keys), {}, {}, options);
}

TEST(Budget, RoundsCountFromOneAndTheBudgetIsSpentAfterMaxRounds) {
    Rounds first = rounds_of(0, 3);
    EXPECT_EQ(first.round, 1);
    EXPECT_EQ(first.max_rounds, 3);
    EXPECT_FALSE(first.exhausted);
    EXPECT_FALSE(rounds_of(2, 3).exhausted);
    Rounds fourth = rounds_of(3, 3);
    EXPECT_EQ(fourth.round, 4);
    EXPECT_TRUE(fourth.exhausted);
    Rounds unlimited = rounds_of(50, 0);
    EXPECT_EQ(unlimited.round, 51);
    EXPECT_EQ(unlimited.max_rounds, 0);
    EXPECT_FALSE(unlimited.exhausted);
}

TEST(Budget, OnlyAnAmbiguousDecisionUnderAQuestionIdIsARound) {
    Catalog catalog = budgeted(Impact::High);
    Decision ambiguous = decide_spent(catalog, {kShipCountry}, false);
    EXPECT_TRUE(asks_a_round(ambiguous, "q_7"));
    EXPECT_FALSE(asks_a_round(ambiguous, ""));
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    Decision mismatch = decide_reads(rows, {kInvoicedAmount}, kAsked);
    ASSERT_EQ(mismatch.state, State::Mismatch);
    EXPECT_FALSE(asks_a_round(mismatch, "q_7"));
    Decision allowed = decide_reads(RevenueCatalog{}, {kOrderCountry}, kAsked);
    ASSERT_TRUE(allowed.allowed());
    EXPECT_FALSE(asks_a_round(allowed, "q_7"));
}

TEST(Budget, ASpentBudgetAssumesALowImpactMeaningAndSaysWhy) {
    Catalog catalog = budgeted(Impact::Low);
    EXPECT_EQ(decide_spent(catalog, {kShipCountry}, false).state, State::Ambiguous);
    Decision d = decide_spent(catalog, {kShipCountry}, true);
    ASSERT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].source, CoverageSource::Assumed);
    EXPECT_EQ(d.covered[0].concept_id, kShippingCountry);
    d.rounds = rounds_of(3, 3);
    std::vector<AssumptionWarning> w = assumption_warnings(catalog, d, AssumeBelow::None);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].message,
              "pg_clarify assumed Shipping country for \"country\" after 3 clarification rounds");
    EXPECT_NE(w[0].detail.find("pg_clarify.max_rounds = 3"), std::string::npos);
}

TEST(Budget, AMediumImpactMeaningIsAssumedOnceSpentWhateverAssumeBelowSays) {
    Catalog catalog = budgeted(Impact::Medium);
    EXPECT_TRUE(decide_spent(catalog, {kShipCountry}, true).allowed());
}

TEST(Budget, AssumeBelowKeepsItsOwnReasonInTheWarning) {
    Catalog catalog = budgeted(Impact::Low);
    DecideOptions options;
    options.assume_below = AssumeBelow::Medium;
    Decision d =
        decide(catalog, analyst(), kAsked, reads(catalog, {kShipCountry}), {}, {}, options);
    ASSERT_TRUE(d.allowed());
    std::vector<AssumptionWarning> w = assumption_warnings(catalog, d, AssumeBelow::Medium);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].message, "pg_clarify assumed Shipping country for \"country\"");
    EXPECT_NE(w[0].detail.find("pg_clarify.assume_below"), std::string::npos);
}

TEST(Budget, AHighImpactMeaningIsStillRefusedWithBudgetExhausted) {
    Catalog catalog = budgeted(Impact::High);
    Decision d = decide_spent(catalog, {kShipCountry}, true);
    ASSERT_EQ(d.state, State::Ambiguous);
    d.rounds = rounds_of(3, 3);
    json payload = json::parse(decision_json(catalog, d, "1", "q_7", false));
    EXPECT_EQ(payload["round"], 4);
    EXPECT_EQ(payload["max_rounds"], 3);
    EXPECT_EQ(payload["budget_exhausted"], true);
    std::string hint = hint_text(catalog, d);
    EXPECT_EQ(hint.rfind("This question has had its 3 clarification rounds", 0), 0u) << hint;
    EXPECT_NE(hint.find("the user must choose"), std::string::npos);
    EXPECT_NE(hint.find("Shipping country"), std::string::npos);
}

TEST(Budget, ARoundWithoutABudgetCarriesNoMaxRounds) {
    Catalog catalog = budgeted(Impact::High);
    Decision d = decide_spent(catalog, {kShipCountry}, false);
    d.rounds = rounds_of(1, 0);
    json payload = json::parse(decision_json(catalog, d, "1", "q_7", false));
    EXPECT_EQ(payload["round"], 2);
    EXPECT_FALSE(payload.contains("max_rounds"));
    EXPECT_FALSE(payload.contains("budget_exhausted"));
    EXPECT_EQ(hint_text(catalog, d).find("clarification rounds"), std::string::npos);
}

TEST(Budget, ADecisionNotCountedCarriesNoRound) {
    Catalog catalog = budgeted(Impact::High);
    json payload = json::parse(
        decision_json(catalog, decide_spent(catalog, {kShipCountry}, false), "1", "q_7", false));
    EXPECT_FALSE(payload.contains("round"));
}

TEST(Budget, ASpentBudgetNeverAssumesAnotherState) {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    rows.at(kMargin).status = ConceptStatus::Draft;
    Catalog catalog = rows.build();
    DecideOptions options;
    options.budget_spent = true;
    Decision mismatch =
        decide(catalog, analyst(), kAsked, reads(catalog, {kInvoicedAmount}), {}, {}, options);
    EXPECT_EQ(mismatch.state, State::Mismatch);
    Decision unsupported =
        decide(catalog, analyst(), kAsked, reads(catalog, {kOrderMargin}), {}, {}, options);
    EXPECT_EQ(unsupported.state, State::Unsupported);
    mismatch.rounds = rounds_of(3, 3);
    json payload = json::parse(decision_json(catalog, mismatch, "1", "q_7", false));
    EXPECT_FALSE(payload.contains("round"));
    EXPECT_FALSE(payload.contains("budget_exhausted"));
}

TEST(Budget, APeriodLeftOpenOrAnEntityLikeKindIsNotAssumed) {
    Slot period;
    period.time_range = true;
    period.term = "quarter";
    period.impact = Impact::Low;
    EXPECT_FALSE(assumed_once_spent(period));
    Slot meaning;
    meaning.term = "country";
    meaning.impact = Impact::Low;
    EXPECT_TRUE(assumed_once_spent(meaning));
    meaning.impact = Impact::High;
    EXPECT_FALSE(assumed_once_spent(meaning));
    Slot grain = meaning;
    grain.impact = Impact::Low;
    grain.check = SlotCheck::Fanout;
    EXPECT_FALSE(assumed_once_spent(grain));
    for (ConceptKind k : {ConceptKind::Metric, ConceptKind::Dimension, ConceptKind::TimeWindow})
        EXPECT_TRUE(kind_assumed_once_spent(k));
}

}  // namespace
}  // namespace clarify::testing
