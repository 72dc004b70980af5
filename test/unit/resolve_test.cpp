// docs/reference.md (SQLSTATEs, Functions): resolving one term (clarify.resolve) in the agent's
// context.
#include "core/decide/decision.hpp"
#include "revenue_fixture.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

using namespace clarify::testing;

const ResolutionRecord kNoRecord{};

TermResolution resolve(const RevenueCatalog &rows, const std::string &term,
                       const std::string &question_id = "", const AgentContext &ctx = analyst(),
                       const ResolutionRecord &rec = kNoRecord) {
    Catalog catalog = rows.build();
    return resolve_term(catalog, ctx, rec, term, question_id);
}

TEST(ResolveTerm, ThreeApprovedMeaningsWithoutDefaultAreAmbiguous) {
    RevenueCatalog rows;
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(sorted(r.options), sorted({kBooked, kInvoiced, kRecognized}));
    EXPECT_EQ(r.selected, "");
    EXPECT_FALSE(r.source.has_value());
    EXPECT_EQ(r.default_concept, "");
    EXPECT_FALSE(r.default_applied);
    EXPECT_FALSE(r.reason.empty());
}

TEST(ResolveTerm, DefaultForEveryoneResolves) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
    ASSERT_TRUE(r.source.has_value());
    EXPECT_EQ(*r.source, CoverageSource::ApprovedDefault);
    EXPECT_EQ(r.default_concept, kRecognized);
    EXPECT_TRUE(r.default_applied);
    EXPECT_EQ(r.approval_id, 0);
}

TEST(ResolveTerm, OnlyDraftMeaningIsUnsupported) {
    RevenueCatalog rows;
    TermResolution r = resolve(rows, "margin");
    EXPECT_EQ(r.decision, State::Unsupported);
    EXPECT_EQ(r.selected, "");
    EXPECT_TRUE(r.options.empty());
    EXPECT_FALSE(r.default_applied);
    EXPECT_FALSE(r.reason.empty());
}

TEST(ResolveTerm, DeprecatedOrUnavailableOnlyMeaningIsUnsupported) {
    RevenueCatalog rows;
    rows.at(kCountry).status = ConceptStatus::Deprecated;
    EXPECT_EQ(resolve(rows, "country").decision, State::Unsupported);

    RevenueCatalog rows2;
    rows2.at(kCountry).available = false;
    EXPECT_EQ(resolve(rows2, "country").decision, State::Unsupported);
}

TEST(ResolveTerm, SingleApprovedMeaningIsTheOnlyEligible) {
    RevenueCatalog rows;
    TermResolution r = resolve(rows, "country");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kCountry);
    ASSERT_TRUE(r.source.has_value());
    EXPECT_EQ(*r.source, CoverageSource::OnlyEligible);
    EXPECT_FALSE(r.default_applied);
    EXPECT_EQ(r.default_concept, "");
}

TEST(ResolveTerm, OneEligibleLeftAmongSeveralCandidatesIsTheOnlyEligible) {
    RevenueCatalog rows;
    rows.at(kInvoiced).status = ConceptStatus::Draft;
    rows.at(kRecognized).available = false;
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kBooked);
    ASSERT_TRUE(r.source.has_value());
    EXPECT_EQ(*r.source, CoverageSource::OnlyEligible);
}

TEST(ResolveTerm, DeadDefaultWithTwoOtherEligibleIsUnsupportedNotAmbiguous) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).available = false;
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Unsupported);
    EXPECT_EQ(r.default_concept, kRecognized);
    EXPECT_FALSE(r.default_applied);
    EXPECT_EQ(r.selected, "");
    EXPECT_FALSE(r.source.has_value() && *r.source == CoverageSource::OnlyEligible);
}

TEST(ResolveTerm, DeadDefaultWithOneOtherEligibleDoesNotFallThrough) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).status = ConceptStatus::Deprecated;
    rows.at(kInvoiced).status = ConceptStatus::Draft;
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Unsupported);
    EXPECT_EQ(r.default_concept, kRecognized);
    EXPECT_FALSE(r.default_applied);
    EXPECT_NE(r.selected, kBooked);
    EXPECT_EQ(r.selected, "");
}

TEST(ResolveTerm, DefaultWhoseConceptLeftItsValidityIsDead) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).valid_until = kNow - 1;
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Unsupported);
    EXPECT_EQ(r.default_concept, kRecognized);
    EXPECT_FALSE(r.default_applied);
}

TEST(ResolveTerm, TermsAreCaseInsensitiveAndTrimmed) {
    RevenueCatalog rows;
    for (const char *spelling : {"  Revenue ", "REVENUE", "revenue", "\tRevEnue\n"}) {
        TermResolution r = resolve(rows, spelling);
        EXPECT_EQ(r.decision, State::Ambiguous) << "[" << spelling << "]";
        EXPECT_EQ(r.options.size(), 3u) << "[" << spelling << "]";
    }
    rows.add_default("revenue", kRecognized);
    TermResolution r = resolve(rows, "  Revenue ");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
}

TEST(ResolveTerm, RoleSpecificDefaultBeatsEveryoneDefault) {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    rows.add_default("revenue", kRecognized, kAnalysts);
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
    EXPECT_EQ(r.default_concept, kRecognized);
    EXPECT_TRUE(r.default_applied);
}

TEST(ResolveTerm, RoleSpecificDefaultBeatsEveryoneDefaultWhateverTheOrder) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized, kAnalysts);
    rows.add_default("revenue", kBooked);
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
}

TEST(ResolveTerm, RoleDefaultOfAnotherRoleDoesNotApply) {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    rows.add_default("revenue", kRecognized, kOtherRole);
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kBooked);
    EXPECT_EQ(r.default_concept, kBooked);

    RevenueCatalog only_other;
    only_other.add_default("revenue", kRecognized, kOtherRole);
    TermResolution none = resolve(only_other, "revenue");
    EXPECT_EQ(none.decision, State::Ambiguous);
    EXPECT_EQ(none.default_concept, "");
    EXPECT_FALSE(none.default_applied);
}

TEST(ResolveTerm, DeadRoleDefaultOfAnotherRoleIsIgnored) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized, kOtherRole);
    rows.at(kRecognized).available = false;
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(sorted(r.options), sorted({kBooked, kInvoiced}));
}

TEST(ResolveTerm, ExpiredDefaultDoesNotApply) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized, kEveryone, kNow - 1);
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(r.default_concept, "");
    EXPECT_FALSE(r.default_applied);
    EXPECT_EQ(r.options.size(), 3u);
}

TEST(ResolveTerm, ExpiredRoleDefaultLeavesTheEveryoneDefault) {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    rows.add_default("revenue", kRecognized, kAnalysts, kNow - 1);
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kBooked);
}

TEST(ResolveTerm, DefaultOfAnotherTermDoesNotApply) {
    RevenueCatalog rows;
    rows.add_default("country", kCountry);
    EXPECT_EQ(resolve(rows, "revenue").decision, State::Ambiguous);
}

TEST(ResolveTerm, ValidApprovalForTheQuestionResolves) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    TermResolution r = resolve(rows, "revenue", "q_1042");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
    ASSERT_TRUE(r.source.has_value());
    EXPECT_EQ(*r.source, CoverageSource::UserConfirmation);
    EXPECT_EQ(r.approval_id, 42);
    EXPECT_FALSE(r.default_applied);
}

TEST(ResolveTerm, ApprovalBeatsTheDefault) {
    RevenueCatalog rows;
    rows.add_default("revenue", kBooked);
    rows.add_approval(43, "q_1042", "revenue", kRecognized);
    TermResolution r = resolve(rows, "revenue", "q_1042");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
    ASSERT_TRUE(r.source.has_value());
    EXPECT_EQ(*r.source, CoverageSource::UserConfirmation);
    EXPECT_EQ(r.approval_id, 43);
}

TEST(ResolveTerm, RevokedApprovalDoesNotCount) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized).revoked = true;
    TermResolution r = resolve(rows, "revenue", "q_1042");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(r.approval_id, 0);
    EXPECT_EQ(r.selected, "");
}

TEST(ResolveTerm, ExpiredApprovalDoesNotCount) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized).expires_at = kNow - 1;
    TermResolution r = resolve(rows, "revenue", "q_1042");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(r.approval_id, 0);
}

TEST(ResolveTerm, ApprovalExpiringExactlyNowDoesNotCount) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized).expires_at = kNow;
    EXPECT_EQ(resolve(rows, "revenue", "q_1042").decision, State::Ambiguous);
}

TEST(ResolveTerm, ApprovalGrantedToAnotherRoleDoesNotCount) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized, kOtherRole);
    TermResolution r = resolve(rows, "revenue", "q_1042");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(r.approval_id, 0);
}

TEST(ResolveTerm, ApprovalForAnotherQuestionDoesNotCount) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_other", "revenue", kRecognized);
    TermResolution r = resolve(rows, "revenue", "q_1042");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(r.approval_id, 0);
    EXPECT_EQ(resolve(rows, "revenue", "").decision, State::Ambiguous);
}

TEST(ResolveTerm, ApprovalForAnotherTermDoesNotCount) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "country", kCountry);
    EXPECT_EQ(resolve(rows, "revenue", "q_1042").decision, State::Ambiguous);
}

TEST(ResolveTerm, ApprovalForAQuestionTextCountsOnlyUnderThatText) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized).question = "Show revenue for Germany";
    EXPECT_EQ(resolve(rows, "revenue", "q_1042").decision, State::Ambiguous);
    TermResolution same =
        resolve(rows, "revenue", "q_1042", analyst(), record("q_1042", "Show revenue for Germany"));
    EXPECT_EQ(same.decision, State::Resolved);
    EXPECT_EQ(same.approval_id, 42);
    TermResolution other =
        resolve(rows, "revenue", "q_1042", analyst(), record("q_1042", "Show revenue for France"));
    EXPECT_EQ(other.decision, State::Ambiguous);
    EXPECT_EQ(other.approval_id, 0);
}

TEST(ResolveTerm, ReasonOfAConfirmationDoesNotNameWhoConfirmed) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    TermResolution r = resolve(rows, "revenue", "q_1042");
    ASSERT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.reason.find("alice"), std::string::npos) << r.reason;
    EXPECT_EQ(r.confirmed_by, "alice@example.com");

    // Also when the record's own binding claims the confirmation.
    TermResolution claimed =
        resolve(rows, "revenue", "", analyst(),
                record("q_1042", "Show revenue",
                       {binding("revenue", kRecognized, BindingSource::UserConfirmation)}));
    ASSERT_EQ(claimed.decision, State::Resolved);
    EXPECT_EQ(claimed.reason.find("alice"), std::string::npos) << claimed.reason;
    EXPECT_EQ(claimed.confirmed_by, "alice@example.com");
}

TEST(ResolveTerm, UnknownTermIsUnsupported) {
    RevenueCatalog rows;
    TermResolution r = resolve(rows, "profit");
    EXPECT_EQ(r.decision, State::Unsupported);
    EXPECT_EQ(r.selected, "");
    EXPECT_TRUE(r.options.empty());
    EXPECT_FALSE(r.reason.empty());
    EXPECT_EQ(resolve(rows, "").decision, State::Unsupported);
}

TEST(ResolveTerm, ConceptNotYetValidIsIneligible) {
    RevenueCatalog rows;
    rows.at(kRecognized).valid_from = kNow + 1;
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_EQ(sorted(r.options), sorted({kBooked, kInvoiced}));

    rows.at(kCountry).valid_from = kNow + kHour;
    EXPECT_EQ(resolve(rows, "country").decision, State::Unsupported);
}

TEST(ResolveTerm, ConceptNoLongerValidIsIneligible) {
    RevenueCatalog rows;
    rows.at(kInvoiced).valid_until = kNow - 1;
    rows.at(kBooked).valid_until = kNow;  // the window is half-open: ends at valid_until
    TermResolution r = resolve(rows, "revenue");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
    ASSERT_TRUE(r.source.has_value());
    EXPECT_EQ(*r.source, CoverageSource::OnlyEligible);
}

TEST(ResolveTerm, ConceptInsideItsWindowIsEligible) {
    RevenueCatalog rows;
    rows.at(kCountry).valid_from = kNow;
    rows.at(kCountry).valid_until = kNow + 1;
    TermResolution r = resolve(rows, "country");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kCountry);
}

TEST(ResolveTerm, VerifiedExplicitBindingInTheRecordResolves) {
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show recognized revenue for Germany",
                                  {binding("revenue", kRecognized, BindingSource::Explicit)});
    TermResolution r = resolve(rows, "revenue", "q_1", analyst(), rec);
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.selected, kRecognized);
    ASSERT_TRUE(r.source.has_value());
    EXPECT_EQ(*r.source, CoverageSource::Explicit);
}

TEST(ResolveTerm, BindingToAConceptThatIsNotACandidateDoesNotResolveTheTerm) {
    // The question names "Customer country", so the claim verifies, but it is no meaning of
    // "revenue": resolve("revenue") must never select it.
    RevenueCatalog rows;
    ResolutionRecord rec = record("q_1", "Show revenue by customer country",
                                  {binding("revenue", kCountry, BindingSource::Explicit)});
    TermResolution r = resolve(rows, "revenue", "q_1", analyst(), rec);
    EXPECT_NE(r.selected, kCountry);
    EXPECT_NE(r.decision, State::Resolved);
    EXPECT_EQ(r.options.size(), 3u);
}

TEST(ResolveTerm, SourceAndStateNames) {
    EXPECT_STREQ(to_string(CoverageSource::UserConfirmation), "user_confirmation");
    EXPECT_STREQ(to_string(CoverageSource::ApprovedDefault), "approved_default");
    EXPECT_STREQ(to_string(CoverageSource::Explicit), "explicit");
    EXPECT_STREQ(to_string(CoverageSource::OnlyEligible), "only_eligible");
    EXPECT_STREQ(sqlstate_of(State::Ambiguous), "QC001");
    EXPECT_STREQ(sqlstate_of(State::Unsupported), "QC002");
    EXPECT_STREQ(sqlstate_of(State::Mismatch), "QC003");
    EXPECT_STREQ(sqlstate_of(State::Unverified), "QC004");
    EXPECT_STREQ(sqlstate_of(State::Resolved), "00000");
    EXPECT_STREQ(to_string(State::Ambiguous), "AMBIGUOUS");
    EXPECT_STREQ(to_string(State::Unsupported), "UNSUPPORTED");
    EXPECT_STREQ(to_string(State::Mismatch), "MISMATCH");
    EXPECT_STREQ(to_string(State::Unverified), "UNVERIFIED");
    EXPECT_STREQ(to_string(State::Resolved), "RESOLVED");
}

}  // namespace
}  // namespace clarify
