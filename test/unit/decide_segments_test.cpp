// Segments (core/decide/segments.cpp): applying one is reading its meaning, and a segment term
// the user said or the record binds must be applied where its relation is scanned.
#include "core/decide/segments.hpp"
#include "core/render/payload.hpp"
#include "revenue_fixture.hpp"

#include <gtest/gtest.h>

namespace clarify::testing {
namespace {

constexpr std::uint32_t kAccounts = 16410;
constexpr const char *kPurchased = "segment.purchased_30d";
constexpr const char *kLoggedIn = "segment.logged_in_30d";
constexpr const char *kContract = "segment.active_contract";
constexpr const char *kPurchasedPredicate = "last_order_at >= current_date - 30";

Concept make_segment(const std::string &id, const std::string &label, const std::string &pred) {
    Concept c = make_concept(id, ConceptKind::Segment, label, label + " (what it is)", "Sales",
                             ConceptStatus::Approved);
    c.segment_relation = kAccounts;
    c.segment_relation_name = "crm.accounts";
    c.segment_predicate = pred;
    return c;
}

RevenueCatalog segments(int count = 3) {
    RevenueCatalog rows;
    rows.add(make_segment(kPurchased, "Purchased in the last 30 days", kPurchasedPredicate));
    rows.terms.push_back({"active customers", kPurchased});
    if (count > 1) {
        rows.add(make_segment(kLoggedIn, "Logged in in the last 30 days",
                              "last_login_at >= current_date - 30"));
        rows.terms.push_back({"active customers", kLoggedIn});
    }
    if (count > 2) {
        rows.add(make_segment(kContract, "Holds an active contract", "contract_active"));
        rows.terms.push_back({"active customers", kContract});
    }
    return rows;
}

Decision decide_segments(const RevenueCatalog &rows, std::vector<std::string> applied,
                         const ResolutionRecord &rec = ResolutionRecord{}) {
    Catalog catalog = rows.build();
    SegmentFacts facts;
    facts.applied = std::move(applied);
    facts.scanned = {kAccounts};
    DecideOptions options;
    options.segments = &facts;
    return decide(catalog, analyst(), rec, {}, {}, {}, options);
}

TEST(Segments, TheOnlySegmentAppliedIsCovered) {
    Decision d = decide_segments(segments(1), {kPurchased});
    EXPECT_EQ(d.state, State::Resolved);
    ASSERT_EQ(d.covered.size(), 1u);
    EXPECT_EQ(d.covered[0].concept_id, kPurchased);
    EXPECT_EQ(d.covered[0].column, "crm.accounts");
    EXPECT_EQ(d.covered[0].term, "active customers");
}

TEST(Segments, OneOfSeveralAppliedWithoutDefaultIsAmbiguous) {
    Decision d = decide_segments(segments(), {kPurchased});
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].kind, ConceptKind::Segment);
    EXPECT_EQ(d.slots[0].term, "active customers");
    EXPECT_EQ(d.slots[0].options.size(), 3u);
}

TEST(Segments, TheDefaultAppliedIsCoveredAnotherIsMismatch) {
    RevenueCatalog rows = segments();
    rows.add_default("active customers", kPurchased);
    EXPECT_EQ(decide_segments(rows, {kPurchased}).state, State::Resolved);
    Decision d = decide_segments(rows, {kLoggedIn});
    EXPECT_EQ(d.state, State::Mismatch);
    ASSERT_FALSE(d.slots.empty());
    EXPECT_EQ(d.slots[0].actual, kLoggedIn);
}

TEST(Segments, ABindingToAnotherSegmentNamesItsPredicate) {
    RevenueCatalog rows = segments();
    ResolutionRecord rec =
        record("q1", "How many customers?",
               {binding("active customers", kPurchased, BindingSource::Explicit)});
    Decision d = decide_segments(rows, {kLoggedIn}, rec);
    EXPECT_EQ(d.state, State::Mismatch);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].kind, ConceptKind::Segment);
    EXPECT_EQ(d.slots[0].expected, kPurchasedPredicate);
    EXPECT_EQ(d.slots[0].actual, kLoggedIn);
}

TEST(Segments, AMentionedTermScannedWithAnotherFilterIsMismatch) {
    RevenueCatalog rows = segments();
    rows.add_default("active customers", kPurchased);
    Decision d = decide_segments(rows, {}, record("q1", "How many active customers?"));
    EXPECT_EQ(d.state, State::Mismatch);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].kind, ConceptKind::Segment);
    EXPECT_EQ(d.slots[0].expected, kPurchasedPredicate);
    EXPECT_EQ(d.slots[0].actual, "");
    EXPECT_EQ(d.slots[0].columns, std::vector<std::string>{"crm.accounts"});
}

TEST(Segments, AMentionedTermNothingResolvesIsAmbiguousWithoutThePredicate) {
    RevenueCatalog rows = segments();
    Catalog catalog = rows.build();
    Decision d = decide_segments(rows, {}, record("q1", "How many active customers?"));
    EXPECT_EQ(d.state, State::Ambiguous);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].kind, ConceptKind::Segment);
    EXPECT_EQ(d.slots[0].options.size(), 3u);
    std::string json = decision_json(catalog, d, "1", "q1", false);
    EXPECT_EQ(json.find(kPurchasedPredicate), std::string::npos) << json;
    EXPECT_NE(json.find("Purchased in the last 30 days"), std::string::npos) << json;
}

TEST(Segments, ARelationNotScannedAsksNothing) {
    RevenueCatalog rows = segments();
    Catalog catalog = rows.build();
    SegmentFacts facts;  // scans nothing with a segment
    ResolutionRecord rec = record("q1", "How many active customers?");
    EXPECT_FALSE(segments_decide(catalog, rec, {"active customers"}, facts));
    facts.scanned = {kAccounts};
    EXPECT_TRUE(segments_decide(catalog, rec, {"active customers"}, facts));
    EXPECT_FALSE(segments_decide(catalog, ResolutionRecord{}, {}, facts));
    facts.applied = {kContract};
    EXPECT_TRUE(segments_decide(catalog, ResolutionRecord{}, {}, facts));
}

}  // namespace
}  // namespace clarify::testing
