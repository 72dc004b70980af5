// docs/reference.md (The resolution record, The read set): deciding a statement's governed read set
// under a resolution record: bindings and what verifies them.
#include "core/decide/decision.hpp"
#include "decide_fixture.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

using namespace clarify::testing;

TEST(Decide, NoGovernedColumnIsAllowedWithNothingToCover) {
    RevenueCatalog rows;
    Decision d = decide_reads(rows, {});
    EXPECT_TRUE(d.allowed());
    EXPECT_EQ(d.state, State::Resolved);
    EXPECT_TRUE(d.slots.empty());
    EXPECT_TRUE(d.covered.empty());
}

TEST(Decide, ReadingBookedWithoutRecordIsAmbiguous) {
    RevenueCatalog rows;
    Decision d = decide_reads(rows, {kBookedAmount});
    EXPECT_FALSE(d.allowed());
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    const Slot &s = d.slots[0];
    EXPECT_EQ(s.state, State::Ambiguous);
    EXPECT_EQ(s.kind, ConceptKind::Metric);
    EXPECT_EQ(s.term, "revenue");
    EXPECT_EQ(sorted(s.options), sorted({kBooked, kInvoiced, kRecognized}));
    EXPECT_TRUE(contains(s.columns, kBookedAmountName));
    EXPECT_EQ(s.actual, kBooked);
    EXPECT_EQ(s.expected, "");
    EXPECT_EQ(s.default_concept, "");
    EXPECT_FALSE(s.reason.empty());
    EXPECT_FALSE(s.question.empty());
    EXPECT_TRUE(contains(d.columns, kBookedAmountName));
    EXPECT_TRUE(d.covered.empty());
}

TEST(Decide, ExplicitBindingWithLabelAsWholeWordsIsAllowed) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show recognized revenue for Germany",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_TRUE(d.allowed()) << (d.slots.empty() ? "" : d.slots[0].reason);
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].column, kRecognizedAmountName);
    EXPECT_EQ(d.covered[0].concept_id, kRecognized);
    EXPECT_EQ(d.covered[0].source, CoverageSource::Explicit);
    EXPECT_EQ(d.covered[0].concept_version, 3);
    EXPECT_FALSE(d.covered[0].default_applied);
}

TEST(Decide, ExplicitLabelMatchIsCaseInsensitive) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "SHOW RECOGNIZED REVENUE, BY QUARTER",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    EXPECT_TRUE(decide_reads(rows, {kRecognizedAmount}, rec).allowed());
}

TEST(Decide, ExplicitBindingWithoutTermIsVerifiedByTheLabel) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show recognized revenue for Germany",
                                  {binding("", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].source, CoverageSource::Explicit);
}

TEST(Decide, LabelOnlyInsideAWordIsUnverified) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show unrecognized revenues for Germany",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_FALSE(d.allowed());
    EXPECT_EQ(d.state, State::Unverified);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].state, State::Unverified);
    EXPECT_TRUE(contains(d.slots[0].columns, kRecognizedAmountName));
    EXPECT_TRUE(d.covered.empty());
}

TEST(Decide, QuestionWithoutTheLabelIsUnverified) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show revenue for Germany",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_EQ(d.state, State::Unverified);
}

TEST(Decide, ExplicitClaimNamingAnotherConceptsLabelIsUnverified) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show recognized revenue for Germany",
                                  {binding("revenue", kBooked, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kBookedAmount}, rec);
    EXPECT_EQ(d.state, State::Unverified);
}

TEST(Decide, AliasAsWholeWordsVerifiesExplicit) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show Recognised Revenue for Germany",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].source, CoverageSource::Explicit);
}

TEST(Decide, ForgedUserConfirmationIsUnverified) {
    RevenueCatalog rows;
    ResolutionRecord rec =
        record("q_1042", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::UserConfirmation)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_FALSE(d.allowed());
    EXPECT_EQ(d.state, State::Unverified);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].actual, kRecognized);
}

TEST(Decide, ConfirmedBindingIsAllowedWithItsApproval) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    ResolutionRecord rec =
        record("q_1042", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::UserConfirmation)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].source, CoverageSource::UserConfirmation);
    EXPECT_EQ(d.covered[0].approval_id, 42);
    EXPECT_EQ(d.covered[0].concept_id, kRecognized);
}

TEST(Decide, ConfirmedBindingWithoutTermMatchesTheApprovalsConcept) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    ResolutionRecord rec = record("q_1042", "Show revenue for Germany",
                                  {binding("", kRecognized, BindingSource::UserConfirmation)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].approval_id, 42);
}

TEST(Decide, ConfirmationThatDoesNotQualifyIsUnverified) {
    struct Variant {
        const char *name;
        void (*spoil)(Approval &);
    };
    const Variant variants[] = {
        {"revoked", [](Approval &a) { a.revoked = true; }},
        {"expired", [](Approval &a) { a.expires_at = kNow - 1; }},
        {"other role", [](Approval &a) { a.granted_to = kOtherRole; }},
        {"other question", [](Approval &a) { a.question_id = "q_other"; }},
        {"other concept", [](Approval &a) { a.concept_id = kBooked; }},
        {"other term", [](Approval &a) { a.term = "country"; }},
        {"other question text", [](Approval &a) { a.question = "Show revenue for France"; }},
    };
    for (const Variant &v : variants) {
        RevenueCatalog rows;
        v.spoil(rows.add_approval(42, "q_1042", "revenue", kRecognized));
        ResolutionRecord rec =
            record("q_1042", "Show revenue for Germany",
                   {binding("revenue", kRecognized, BindingSource::UserConfirmation)});
        Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
        EXPECT_EQ(d.state, State::Unverified) << v.name;
        EXPECT_TRUE(d.covered.empty()) << v.name;
    }
}

TEST(Decide, RecordForAnotherQuestionDoesNotBorrowItsApproval) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    ResolutionRecord rec =
        record("q_2000", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::UserConfirmation)});
    EXPECT_EQ(decide_reads(rows, {kRecognizedAmount}, rec).state, State::Unverified);
}

// An approval the app recorded with the question's text: reusing its question_id for another
// question does not carry the user's choice over.
TEST(Decide, ConfirmationForAQuestionTextVerifiesOnlyUnderThatText) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized).question = "Show revenue for Germany";
    const std::vector<Binding> claim = {
        binding("revenue", kRecognized, BindingSource::UserConfirmation)};

    Decision same = decide_reads(rows, {kRecognizedAmount},
                                 record("q_1042", "Show revenue for Germany", claim));
    EXPECT_TRUE(same.allowed());
    ASSERT_EQ(same.covered.size(), 1u);
    EXPECT_EQ(same.covered[0].approval_id, 42);

    Decision other =
        decide_reads(rows, {kRecognizedAmount}, record("q_1042", "Show revenue for France", claim));
    EXPECT_EQ(other.state, State::Unverified);
    ASSERT_EQ(other.slots.size(), 1u);
    EXPECT_NE(other.slots[0].reason.find("another question"), std::string::npos)
        << other.slots[0].reason;

    Decision none = decide_reads(rows, {kRecognizedAmount}, record("q_1042", "", claim));
    EXPECT_EQ(none.state, State::Unverified);
}

TEST(Decide, QuestionTextsCompareExactlyAfterTrimming) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized).question =
        " \tShow revenue for Germany\n";
    auto state_under = [&rows](const std::string &question) {
        return decide_reads(
                   rows, {kRecognizedAmount},
                   record("q_1042", question,
                          {binding("revenue", kRecognized, BindingSource::UserConfirmation)}))
            .state;
    };
    EXPECT_EQ(state_under("Show revenue for Germany"), State::Resolved);
    EXPECT_EQ(state_under("  Show revenue for Germany \r\n"), State::Resolved);
    EXPECT_EQ(state_under("show revenue for germany"), State::Unverified);
    EXPECT_EQ(state_under("Show revenue for  Germany"), State::Unverified);
    EXPECT_EQ(state_under("Show revenue for Germany?"), State::Unverified);
}

TEST(Decide, ConfirmationWithoutQuestionTextVerifiesUnderAnyText) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    for (const char *question : {"Show revenue for Germany", "Something else entirely", ""}) {
        ResolutionRecord rec = record(
            "q_1042", question, {binding("revenue", kRecognized, BindingSource::UserConfirmation)});
        EXPECT_TRUE(decide_reads(rows, {kRecognizedAmount}, rec).allowed()) << question;
    }
}

TEST(Decide, UnverifiedClaimIsNotReplacedByAnotherRule) {
    // The record claims more than the catalog grants: the claim fails even where a default or
    // the only-eligible rule would have covered the column.
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    ResolutionRecord rec = record("q_1042", "Show revenue by country",
                                  {binding("revenue", kRecognized, BindingSource::UserConfirmation),
                                   binding("country", kCountry, BindingSource::UserConfirmation)});
    Decision d = decide_reads(rows, {kRecognizedAmount, kCustomerCountry}, rec);
    EXPECT_EQ(d.state, State::Unverified);
    ASSERT_EQ(d.slots.size(), 2u);
    EXPECT_TRUE(d.covered.empty());
}

TEST(Decide, ApprovedDefaultBindingMatchingTheDefaultIsAllowed) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    ResolutionRecord rec =
        record("q_1", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::ApprovedDefault)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].concept_id, kRecognized);
    EXPECT_EQ(d.covered[0].source, CoverageSource::ApprovedDefault);
}

TEST(Decide, ApprovedDefaultBindingWithoutAnyDefaultIsUnverified) {
    RevenueCatalog rows;
    ResolutionRecord rec =
        record("q_1", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::ApprovedDefault)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_EQ(d.state, State::Unverified);
    EXPECT_TRUE(d.covered.empty());
}

TEST(Decide, ApprovedDefaultBindingNamingAnotherConceptThanTheDefaultIsUnverified) {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    ResolutionRecord rec =
        record("q_1", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::ApprovedDefault)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_EQ(d.state, State::Unverified);
}

TEST(Decide, ApprovedDefaultBindingToAnotherRolesDefaultIsUnverified) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized, kOtherRole);
    ResolutionRecord rec =
        record("q_1", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::ApprovedDefault)});
    EXPECT_EQ(decide_reads(rows, {kRecognizedAmount}, rec).state, State::Unverified);
}

TEST(Decide, ApprovedDefaultBindingLosesToTheRoleSpecificDefault) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.add_default("revenue", kBooked, kAnalysts);
    ResolutionRecord rec =
        record("q_1", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::ApprovedDefault)});
    EXPECT_EQ(decide_reads(rows, {kRecognizedAmount}, rec).state, State::Unverified);
}

TEST(Decide, BindingForTheTermNamingAnotherConceptIsMismatch) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show recognized revenue for Germany",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kBookedAmount}, rec);
    EXPECT_FALSE(d.allowed());
    EXPECT_EQ(d.state, State::Mismatch);
    ASSERT_EQ(d.slots.size(), 1u);
    const Slot &s = d.slots[0];
    EXPECT_EQ(s.state, State::Mismatch);
    EXPECT_EQ(s.term, "revenue");
    EXPECT_EQ(s.expected, kRecognized);
    EXPECT_EQ(s.actual, kBooked);
    EXPECT_TRUE(contains(s.columns, kBookedAmountName));
}

TEST(Decide, ConfirmedBindingNamingAnotherConceptIsMismatch) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    ResolutionRecord rec =
        record("q_1042", "Show revenue for Germany",
               {binding("revenue", kRecognized, BindingSource::UserConfirmation)});
    Decision d = decide_reads(rows, {kRecognizedAmount, kBookedAmount}, rec);
    EXPECT_EQ(d.state, State::Mismatch);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].expected, kRecognized);
    EXPECT_EQ(d.slots[0].actual, kBooked);
    const Coverage *c = coverage_of(d, kRecognizedAmountName);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->approval_id, 42);
}

TEST(Decide, ReadingANonDefaultCandidateWithoutBindingIsMismatch) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    Decision d = decide_reads(rows, {kBookedAmount});
    EXPECT_EQ(d.state, State::Mismatch);
    ASSERT_EQ(d.slots.size(), 1u);
    const Slot &s = d.slots[0];
    EXPECT_EQ(s.state, State::Mismatch);
    EXPECT_EQ(s.term, "revenue");
    EXPECT_EQ(s.default_concept, kRecognized);
    EXPECT_EQ(s.expected, kRecognized);
    EXPECT_EQ(s.actual, kBooked);
}

TEST(Decide, VerifiedBindingCoversANonDefaultCandidate) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    ResolutionRecord rec = record("q_1", "Show booked revenue for Germany",
                                  {binding("revenue", kBooked, BindingSource::Explicit)});
    Decision d = decide_reads(rows, {kBookedAmount}, rec);
    EXPECT_TRUE(d.allowed());
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].concept_id, kBooked);
    EXPECT_EQ(d.covered[0].source, CoverageSource::Explicit);
    EXPECT_FALSE(d.covered[0].default_applied);
}

}  // namespace
}  // namespace clarify
