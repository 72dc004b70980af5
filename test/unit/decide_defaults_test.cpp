// docs/reference.md (The resolution record, The read set): deciding a statement's governed read set
// under a resolution record: defaults, eligibility, columns of several concepts, precedence.
#include "core/decide/decision.hpp"
#include "decide_fixture.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

using namespace clarify::testing;

TEST(Decide, LiveDefaultCoversItsConcept) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    Decision d = decide_reads(rows, {kRecognizedAmount});
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    const Coverage &c = d.covered[0];
    EXPECT_EQ(c.column, kRecognizedAmountName);
    EXPECT_EQ(c.concept_id, kRecognized);
    EXPECT_EQ(c.term, "revenue");
    EXPECT_EQ(c.source, CoverageSource::ApprovedDefault);
    EXPECT_TRUE(c.default_applied);
    EXPECT_EQ(c.concept_version, 3);
}

TEST(Decide, RoleDefaultCoversOnlyForItsRole) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized, kAnalysts);
    EXPECT_TRUE(decide_reads(rows, {kRecognizedAmount}).allowed());
    AgentContext outsider;
    outsider.now = kNow;
    outsider.member_of = {kOtherRole};
    EXPECT_EQ(decide_reads(rows, {kRecognizedAmount}, kNoRecord, outsider).state, State::Ambiguous);
}

TEST(Decide, ExpiredDefaultDoesNotCover) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized, kEveryone, kNow - 1);
    EXPECT_EQ(decide_reads(rows, {kRecognizedAmount}).state, State::Ambiguous);
}

TEST(Decide, DeadDefaultIsUnsupportedEvenWithAnotherEligibleCandidate) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).available = false;
    Decision d = decide_reads(rows, {kBookedAmount});
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].state, State::Unsupported);
    EXPECT_EQ(d.slots[0].term, "revenue");
    EXPECT_EQ(d.slots[0].default_concept, kRecognized);
    EXPECT_EQ(d.slots[0].actual, kBooked);
    EXPECT_TRUE(d.covered.empty());
}

TEST(Decide, DeadDefaultDoesNotFallThroughToTheOnlyEligible) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).status = ConceptStatus::Deprecated;
    rows.at(kInvoiced).status = ConceptStatus::Draft;
    Decision d = decide_reads(rows, {kBookedAmount});
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].default_concept, kRecognized);
}

TEST(Decide, ReadingTheDeadDefaultItselfIsUnsupported) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).valid_until = kNow;
    Decision d = decide_reads(rows, {kRecognizedAmount});
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].actual, kRecognized);
}

TEST(Decide, BindingToADraftConceptIsUnsupported) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show gross margin by country",
                                  {binding("margin", kMargin, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kOrderMargin}, rec);
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].state, State::Unsupported);
    EXPECT_EQ(d.slots[0].actual, kMargin);
    EXPECT_TRUE(contains(d.slots[0].columns, kOrderMarginName));
}

TEST(Decide, BindingToAnIneligibleCandidateIsUnsupportedWhateverIsRead) {
    RevenueCatalog rows;
    rows.at(kRecognized).available = false;
    ResolutionRecord rec = record("q_1", "Show recognized revenue",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kBookedAmount}, rec);
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].expected, kRecognized);
    EXPECT_EQ(d.slots[0].actual, kBooked);

    ResolutionRecord unknown = record(
        "q_1", "Show revenue", {binding("revenue", "metric.nothing", BindingSource::Explicit)});
    EXPECT_EQ(decide_reads(rows, {kBookedAmount}, unknown).state, State::Unsupported);
}

TEST(Decide, ReadingADraftOnlyMeaningIsUnsupported) {
    RevenueCatalog rows;
    Decision d = decide_reads(rows, {kOrderMargin});
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].term, "margin");
    EXPECT_EQ(d.slots[0].actual, kMargin);
}

TEST(Decide, OnlyEligibleMeaningOfItsTermIsAllowed) {
    RevenueCatalog rows;
    Decision d = decide_reads(rows, {kCustomerCountry});
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].concept_id, kCountry);
    EXPECT_EQ(d.covered[0].term, "country");
    EXPECT_EQ(d.covered[0].source, CoverageSource::OnlyEligible);
    EXPECT_FALSE(d.covered[0].default_applied);
}

TEST(Decide, EligibleConceptWithoutTermIsAllowed) {
    RevenueCatalog rows;
    add_untermed_metric(rows);
    Decision d = decide_reads(rows, {kOrderCount});
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].concept_id, kOrderCountConcept);
    EXPECT_EQ(d.covered[0].term, "");
    EXPECT_EQ(d.covered[0].source, CoverageSource::OnlyEligible);
}

TEST(Decide, IneligibleConceptWithoutTermIsUnsupported) {
    RevenueCatalog rows;
    add_untermed_metric(rows);
    rows.at(kOrderCountConcept).status = ConceptStatus::Draft;
    Decision d = decide_reads(rows, {kOrderCount});
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].actual, kOrderCountConcept);
}

// Every term of the column decides (docs/reference.md, "Which terms decide a column"): the
// untermed meaning is its own only candidate, and "revenue" beside it stays ambiguous.
TEST(Decide, ColumnOfSeveralConceptsIsDecidedByAllTheirTerms) {
    RevenueCatalog rows;
    rows.add(make_concept(kOrderValue, ConceptKind::Metric, "Order value",
                          "Gross value of an order", "Sales", ConceptStatus::Approved));
    rows.columns.push_back({kOrderAmount, "sales.orders.amount", kBooked});
    rows.columns.push_back({kOrderAmount, "sales.orders.amount", kOrderValue});
    Decision d = decide_reads(rows, {kOrderAmount});
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].term, "revenue");
    rows.add_default("revenue", kBooked);
    Decision defaulted = decide_reads(rows, {kOrderAmount});
    ASSERT_TRUE(defaulted.allowed());
    EXPECT_EQ(defaulted.covered[0].concept_id, kBooked);
}

TEST(Decide, ColumnOfSeveralCandidatesIsCoveredByTheDefaultOne) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.columns.push_back({kLedgerAmount, "sales.revenue_ledger.amount", kBooked});
    rows.columns.push_back({kLedgerAmount, "sales.revenue_ledger.amount", kRecognized});
    Decision d = decide_reads(rows, {kLedgerAmount});
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].concept_id, kRecognized);
    EXPECT_EQ(d.covered[0].source, CoverageSource::ApprovedDefault);
}

TEST(Decide, ColumnOfSeveralConceptsIsCoveredByTheBoundOne) {
    RevenueCatalog rows;
    rows.columns.push_back({kLedgerAmount, "sales.revenue_ledger.amount", kBooked});
    rows.columns.push_back({kLedgerAmount, "sales.revenue_ledger.amount", kRecognized});
    ResolutionRecord rec = record("q_1", "Show recognized revenue",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kLedgerAmount}, rec);
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].concept_id, kRecognized);
    EXPECT_EQ(d.covered[0].source, CoverageSource::Explicit);
}

TEST(Decide, ColumnOfSeveralUncoveredConceptsIsRejected) {
    RevenueCatalog rows;
    rows.columns.push_back({kLedgerAmount, "sales.revenue_ledger.amount", kBooked});
    rows.columns.push_back({kLedgerAmount, "sales.revenue_ledger.amount", kRecognized});
    Decision d = decide_reads(rows, {kLedgerAmount});
    EXPECT_EQ(d.state, State::Ambiguous);
    EXPECT_FALSE(d.slots.empty());
}

TEST(Decide, AmbiguousIsReportedBeforeUnsupported) {
    RevenueCatalog rows;
    Decision d = decide_reads(rows, {kOrderMargin, kBookedAmount});
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 2u);
    const Slot *booked = slot_reading(d, kBooked);
    const Slot *margin = slot_reading(d, kMargin);
    ASSERT_NE(booked, nullptr);
    ASSERT_NE(margin, nullptr);
    EXPECT_EQ(booked->state, State::Ambiguous);
    EXPECT_EQ(margin->state, State::Unsupported);
}

TEST(Decide, UnsupportedIsReportedBeforeMismatch) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    Decision d = decide_reads(rows, {kBookedAmount, kOrderMargin});
    EXPECT_EQ(d.state, State::Unsupported);
    ASSERT_EQ(d.slots.size(), 2u);
    ASSERT_NE(slot_reading(d, kBooked), nullptr);
    ASSERT_NE(slot_reading(d, kMargin), nullptr);
    EXPECT_EQ(slot_reading(d, kBooked)->state, State::Mismatch);
    EXPECT_EQ(slot_reading(d, kMargin)->state, State::Unsupported);
}

TEST(Decide, MismatchIsReportedBeforeUnverified) {
    RevenueCatalog rows;
    add_shipping_country(rows);
    rows.add_default("revenue", kRecognized);
    ResolutionRecord rec =
        record("q_1", "Show revenue by country",
               {binding("country", kShippingCountry, BindingSource::UserConfirmation)});
    Decision d = decide_reads(rows, {kShipCountry, kBookedAmount}, rec);
    EXPECT_EQ(d.state, State::Mismatch);
    ASSERT_EQ(d.slots.size(), 2u);
    ASSERT_NE(slot_reading(d, kBooked), nullptr);
    ASSERT_NE(slot_reading(d, kShippingCountry), nullptr);
    EXPECT_EQ(slot_reading(d, kBooked)->state, State::Mismatch);
    EXPECT_EQ(slot_reading(d, kShippingCountry)->state, State::Unverified);
}

TEST(Decide, AllFourFailuresReportAmbiguousAndListEverySlot) {
    RevenueCatalog rows;
    add_shipping_country(rows);
    add_untermed_metric(rows);
    rows.at(kOrderCountConcept).status = ConceptStatus::Draft;  // unsupported
    rows.add(make_concept("metric.net_sales", ConceptKind::Metric, "Net sales",
                          "Sales after returns", "Finance", ConceptStatus::Approved));
    rows.add(make_concept("metric.gross_sales", ConceptKind::Metric, "Gross sales",
                          "Sales before returns", "Finance", ConceptStatus::Approved));
    rows.terms.push_back({"sales", "metric.net_sales"});
    rows.terms.push_back({"sales", "metric.gross_sales"});
    rows.columns.push_back({ColumnKey{kOrders, 9}, "sales.orders.net", "metric.net_sales"});
    rows.add_default("revenue", kRecognized);  // reading booked: mismatch
    ResolutionRecord rec =
        record("q_1", "Show revenue by country",
               {binding("country", kShippingCountry, BindingSource::UserConfirmation)});
    Decision d =
        decide_reads(rows, {kShipCountry, kBookedAmount, kOrderCount, ColumnKey{kOrders, 9}}, rec);
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 4u);
    ASSERT_NE(slot_reading(d, "metric.net_sales"), nullptr);
    ASSERT_NE(slot_reading(d, kOrderCountConcept), nullptr);
    ASSERT_NE(slot_reading(d, kBooked), nullptr);
    ASSERT_NE(slot_reading(d, kShippingCountry), nullptr);
    EXPECT_EQ(slot_reading(d, "metric.net_sales")->state, State::Ambiguous);
    EXPECT_EQ(slot_reading(d, kOrderCountConcept)->state, State::Unsupported);
    EXPECT_EQ(slot_reading(d, kBooked)->state, State::Mismatch);
    EXPECT_EQ(slot_reading(d, kShippingCountry)->state, State::Unverified);
    EXPECT_EQ(d.columns.size(), 4u);
}

TEST(Decide, AFailingColumnAmongCoveredOnesRejectsTheStatement) {
    RevenueCatalog rows;
    Decision d = decide_reads(rows, {kCustomerCountry, kBookedAmount});
    EXPECT_FALSE(d.allowed());
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].actual, kBooked);
    EXPECT_EQ(d.columns.size(), 2u);
}

TEST(Decide, ColumnReadTwiceIsDecidedOnce) {
    RevenueCatalog rows;
    Decision allowed = decide_reads(rows, {kCustomerCountry, kCustomerCountry});
    EXPECT_TRUE(allowed.allowed());
    EXPECT_EQ(allowed.columns, std::vector<std::string>{kCustomerCountryName});
    EXPECT_EQ(allowed.covered.size(), 1u);

    Decision rejected = decide_reads(rows, {kBookedAmount, kBookedAmount});
    EXPECT_EQ(rejected.state, State::Ambiguous);
    EXPECT_EQ(rejected.columns, std::vector<std::string>{kBookedAmountName});
    ASSERT_EQ(rejected.slots.size(), 1u);
    EXPECT_EQ(rejected.slots[0].columns, std::vector<std::string>{kBookedAmountName});
}

TEST(Decide, EveryFailingColumnAppearsInASlot) {
    RevenueCatalog rows;
    add_shipping_country(rows);
    Decision d = decide_reads(rows, {kOrderCountry, kCustomerCountry, kInvoicedAmount});
    EXPECT_EQ(d.state, State::Ambiguous);
    for (const std::string &name : {kOrderCountryName, kCustomerCountryName, kInvoicedAmountName}) {
        bool listed = false;
        for (const Slot &s : d.slots) listed = listed || contains(s.columns, name);
        EXPECT_TRUE(listed) << name;
    }
    ASSERT_NE(slot_reading(d, kCountry), nullptr);
    EXPECT_EQ(slot_reading(d, kCountry)->term, "country");
    EXPECT_EQ(sorted(slot_reading(d, kCountry)->options), sorted({kCountry, kShippingCountry}));
}

TEST(Decide, AllowedDecisionListsOneCoveragePerColumn) {
    RevenueCatalog rows;
    add_untermed_metric(rows);
    rows.at(kCountry).version = 7;
    rows.add_default("revenue", kRecognized);
    Decision d =
        decide_reads(rows, {kRecognizedAmount, kCustomerCountry, kOrderCountry, kOrderCount});
    ASSERT_TRUE(d.allowed());
    EXPECT_TRUE(d.slots.empty());
    EXPECT_EQ(sorted(d.columns), sorted({kRecognizedAmountName, kCustomerCountryName,
                                         kOrderCountryName, "sales.orders.order_count"}));
    ASSERT_EQ(d.covered.size(), 4u);

    const Coverage *recognized = coverage_of(d, kRecognizedAmountName);
    ASSERT_NE(recognized, nullptr);
    EXPECT_EQ(recognized->concept_id, kRecognized);
    EXPECT_EQ(recognized->concept_version, 3);
    EXPECT_EQ(recognized->source, CoverageSource::ApprovedDefault);
    EXPECT_TRUE(recognized->default_applied);

    for (const std::string &name : {kCustomerCountryName, kOrderCountryName}) {
        const Coverage *country = coverage_of(d, name);
        ASSERT_NE(country, nullptr) << name;
        EXPECT_EQ(country->concept_id, kCountry);
        EXPECT_EQ(country->concept_version, 7);
        EXPECT_EQ(country->source, CoverageSource::OnlyEligible);
        EXPECT_FALSE(country->default_applied);
        EXPECT_EQ(country->approval_id, 0);
    }

    const Coverage *count = coverage_of(d, "sales.orders.order_count");
    ASSERT_NE(count, nullptr);
    EXPECT_EQ(count->concept_version, 1);
    EXPECT_EQ(count->source, CoverageSource::OnlyEligible);
}

TEST(Decide, MixedSourcesAreEachRecorded) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    ResolutionRecord rec = record("q_1042", "Show revenue by customer country",
                                  {binding("revenue", kRecognized, BindingSource::UserConfirmation),
                                   binding("country", kCountry, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kRecognizedAmount, kCustomerCountry}, rec);
    ASSERT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 2u);
    const Coverage *revenue = coverage_of(d, kRecognizedAmountName);
    const Coverage *country = coverage_of(d, kCustomerCountryName);
    ASSERT_NE(revenue, nullptr);
    ASSERT_NE(country, nullptr);
    EXPECT_EQ(revenue->source, CoverageSource::UserConfirmation);
    EXPECT_EQ(revenue->approval_id, 42);
    EXPECT_EQ(country->source, CoverageSource::Explicit);
    EXPECT_EQ(country->approval_id, 0);
}

}  // namespace
}  // namespace clarify
