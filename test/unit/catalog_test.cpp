// The catalog snapshot: term normalization, look-ups, and the fixture's governed columns.
#include "core/model/catalog.hpp"
#include "revenue_fixture.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

using namespace clarify::testing;

TEST(NormalizeTerm, LowerCasesAndTrims) {
    EXPECT_EQ(normalize_term("  Revenue "), "revenue");
    EXPECT_EQ(normalize_term("REVENUE"), "revenue");
    EXPECT_EQ(normalize_term("\t gross Margin\n"), "gross margin");
    EXPECT_EQ(normalize_term(""), "");
    EXPECT_EQ(normalize_term("   "), "");
}

TEST(Catalog, LooksUpConceptsTermsAndColumns) {
    RevenueCatalog rows;
    Catalog catalog = rows.build();
    EXPECT_EQ(catalog.concept_count(), 5u);
    const Concept *recognized = catalog.concept(kRecognized);
    ASSERT_NE(recognized, nullptr);
    EXPECT_EQ(recognized->label, "Recognized revenue");
    EXPECT_EQ(recognized->version, 3);
    ASSERT_EQ(recognized->aliases.size(), 1u);
    EXPECT_EQ(recognized->aliases[0], "recognised revenue");
    EXPECT_EQ(catalog.concept("metric.nothing"), nullptr);

    EXPECT_EQ(sorted(catalog.candidates("revenue")), sorted({kBooked, kInvoiced, kRecognized}));
    EXPECT_EQ(catalog.candidates("margin"), std::vector<std::string>{kMargin});
    EXPECT_TRUE(catalog.candidates("profit").empty());
    EXPECT_EQ(catalog.terms_of(kRecognized), std::vector<std::string>{"revenue"});
    EXPECT_TRUE(catalog.terms_of("metric.nothing").empty());

    const GovernedColumn *booked = catalog.column(kBookedAmount);
    ASSERT_NE(booked, nullptr);
    EXPECT_EQ(booked->name, kBookedAmountName);
    EXPECT_EQ(booked->concept_ids, std::vector<std::string>{kBooked});
    EXPECT_EQ(catalog.column(ColumnKey{kOrders, 1}), nullptr);
    EXPECT_EQ(catalog.column(ColumnKey{kUngoverned, 3}), nullptr);
    EXPECT_TRUE(catalog.governs_relation(kOrders));
    EXPECT_TRUE(catalog.governs_relation(kLedger));
    EXPECT_FALSE(catalog.governs_relation(kUngoverned));
}

TEST(Catalog, CandidatesKeepAStableOrder) {
    RevenueCatalog rows;
    Catalog a = rows.build();
    Catalog b = rows.build();
    EXPECT_EQ(a.candidates("revenue"), b.candidates("revenue"));
}

TEST(Catalog, TermsAreStoredNormalized) {
    Catalog catalog;
    catalog.add_concept(make_concept(kBooked, ConceptKind::Metric, "Booked revenue",
                                     "Value of accepted orders", "Sales", ConceptStatus::Approved));
    catalog.add_term("  Revenue ", kBooked);
    catalog.finalize();
    EXPECT_EQ(catalog.candidates("revenue"), std::vector<std::string>{kBooked});
}

TEST(Catalog, ColumnOfSeveralConcepts) {
    RevenueCatalog rows;
    rows.columns.push_back({ColumnKey{kLedger, 9}, "sales.revenue_ledger.amount", kBooked});
    rows.columns.push_back({ColumnKey{kLedger, 9}, "sales.revenue_ledger.amount", kRecognized});
    Catalog catalog = rows.build();
    const GovernedColumn *column = catalog.column(ColumnKey{kLedger, 9});
    ASSERT_NE(column, nullptr);
    EXPECT_EQ(sorted(column->concept_ids), sorted({kBooked, kRecognized}));
}

TEST(Catalog, DefaultsAndApprovalsAreIndexed) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.add_approval(42, "q_1042", "revenue", kRecognized, kOtherRole);
    Catalog catalog = rows.build();
    ASSERT_EQ(catalog.defaults_for("revenue").size(), 1u);
    EXPECT_EQ(catalog.defaults_for("revenue")[0].concept_id, kRecognized);
    EXPECT_TRUE(catalog.defaults_for("country").empty());
    ASSERT_EQ(catalog.approvals_for("q_1042").size(), 1u);
    EXPECT_EQ(catalog.approvals_for("q_1042")[0].id, 42);
    EXPECT_TRUE(catalog.approvals_for("q_other").empty());
    const auto &roles = catalog.referenced_roles();
    EXPECT_NE(std::find(roles.begin(), roles.end(), kOtherRole), roles.end());
}

TEST(Model, KindAndStatusNames) {
    EXPECT_STREQ(to_string(ConceptKind::Metric), "metric");
    EXPECT_STREQ(to_string(ConceptKind::Dimension), "dimension");
    EXPECT_EQ(parse_kind("metric"), ConceptKind::Metric);
    EXPECT_EQ(parse_kind("dimension"), ConceptKind::Dimension);
    EXPECT_FALSE(parse_kind("measure").has_value());
    EXPECT_STREQ(to_string(ConceptStatus::Draft), "draft");
    EXPECT_STREQ(to_string(ConceptStatus::Approved), "approved");
    EXPECT_STREQ(to_string(ConceptStatus::Deprecated), "deprecated");
    EXPECT_EQ(parse_status("approved"), ConceptStatus::Approved);
    EXPECT_EQ(parse_status("deprecated"), ConceptStatus::Deprecated);
    EXPECT_FALSE(parse_status("retired").has_value());
}

TEST(Model, EligibilityWindowIsHalfOpen) {
    Concept c = make_concept(kBooked, ConceptKind::Metric, "Booked revenue", "", "Sales",
                             ConceptStatus::Approved);
    EXPECT_TRUE(c.eligible(kNow));
    c.valid_from = kNow;
    EXPECT_TRUE(c.eligible(kNow));
    c.valid_from = kNow + 1;
    EXPECT_FALSE(c.eligible(kNow));
    c.valid_from = kSinceAlways;
    c.valid_until = kNow;
    EXPECT_FALSE(c.eligible(kNow));
    c.valid_until = kNoLimit;
    c.available = false;
    EXPECT_FALSE(c.eligible(kNow));
    c.available = true;
    c.status = ConceptStatus::Draft;
    EXPECT_FALSE(c.eligible(kNow));
}

TEST(Model, AgentContextScope) {
    AgentContext ctx = analyst();
    EXPECT_TRUE(ctx.applies(kEveryone));
    EXPECT_TRUE(ctx.applies(kAnalysts));
    EXPECT_FALSE(ctx.applies(kOtherRole));
}

}  // namespace
}  // namespace clarify

namespace clarify {
namespace {

TEST(ParseAliases, KeepsTheStringsOfTheArray) {
    EXPECT_EQ(parse_aliases("[\"sales\", \"turnover\"]"),
              (std::vector<std::string>{"sales", "turnover"}));
    EXPECT_TRUE(parse_aliases("[]").empty());
    EXPECT_TRUE(parse_aliases("null").empty());  // array_to_json of a NULL array
    EXPECT_EQ(parse_aliases("[\"a\", null, 1]"), (std::vector<std::string>{"a"}));
}

TEST(ParseAliases, RefusesTextThatIsNotJson) {
    EXPECT_THROW(parse_aliases("{sales"), std::invalid_argument);
}

}  // namespace
}  // namespace clarify
