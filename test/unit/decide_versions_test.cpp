// docs/dba-guide.md ("When a definition changes"): a confirmation or a default given for an older
// version of its concept no longer applies; resolve(), the payload and the bindings say which.
#include "core/decide/decision.hpp"
#include "core/render/payload.hpp"
#include "decide_fixture.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace clarify {
namespace {

using namespace clarify::testing;
using nlohmann::json;

const std::string kConfirmedQuestion = "Show revenue";

ResolutionRecord confirmed_record() {
    return record("q_v", kConfirmedQuestion,
                  {binding("revenue", kRecognized, BindingSource::UserConfirmation)});
}

TEST(Versions, ConfirmationForTheCurrentVersionVerifies) {
    RevenueCatalog rows;
    rows.add_approval(7, "q_v", "revenue", kRecognized).concept_version = 3;
    Decision d = decide_reads(rows, {kRecognizedAmount}, confirmed_record());
    ASSERT_TRUE(d.allowed());
    EXPECT_EQ(d.covered[0].approval_id, 7);
    EXPECT_EQ(d.covered[0].concept_version, 3);
}

TEST(Versions, ConfirmationForAnOlderVersionIsUnverified) {
    RevenueCatalog rows;
    rows.add_approval(7, "q_v", "revenue", kRecognized).concept_version = 2;
    Decision d = decide_reads(rows, {kRecognizedAmount}, confirmed_record());
    EXPECT_EQ(d.state, State::Unverified);
    ASSERT_EQ(d.slots.size(), 1u);
    EXPECT_EQ(d.slots[0].reason, "Recognized revenue changed since the user confirmed it");
    EXPECT_EQ(d.slots[0].approved_version, 2);
    EXPECT_EQ(d.slots[0].current_version, 3);
}

TEST(Versions, ConfirmationWithoutARecordedVersionVerifies) {
    // A catalog not yet updated records no version (0): its confirmations hold as they did.
    RevenueCatalog rows;
    rows.add_approval(7, "q_v", "revenue", kRecognized).concept_version = 0;
    EXPECT_TRUE(decide_reads(rows, {kRecognizedAmount}, confirmed_record()).allowed());
}

TEST(Versions, StaleDefaultMakesItsTermUnsupported) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized).concept_version = 2;
    for (ColumnKey read : {kRecognizedAmount, kBookedAmount}) {
        Decision d = decide_reads(rows, {read});
        EXPECT_EQ(d.state, State::Unsupported);
        ASSERT_EQ(d.slots.size(), 1u);
        EXPECT_EQ(d.slots[0].default_concept, kRecognized);
        EXPECT_NE(d.slots[0].reason.find("Recognized revenue"), std::string::npos);
        EXPECT_NE(d.slots[0].reason.find("changed since it was approved"), std::string::npos);
        EXPECT_EQ(d.slots[0].approved_version, 2);
        EXPECT_EQ(d.slots[0].current_version, 3);
    }
}

TEST(Versions, DefaultForTheCurrentVersionCovers) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized).concept_version = 3;
    Decision d = decide_reads(rows, {kRecognizedAmount});
    ASSERT_TRUE(d.allowed());
    EXPECT_EQ(d.covered[0].concept_version, 3);
}

TEST(Versions, ClaimedStaleDefaultIsUnsupported) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized).concept_version = 1;
    ResolutionRecord rec = record(
        "q_v", "Show revenue", {binding("revenue", kRecognized, BindingSource::ApprovedDefault)});
    Decision d = decide_reads(rows, {kRecognizedAmount}, rec);
    EXPECT_EQ(d.state, State::Unsupported);
}

TEST(Versions, StaleDefaultIsNeverAssumed) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized).concept_version = 1;
    Catalog catalog = rows.build();
    Decision d = decide(catalog, analyst(), kNoRecord, reads(catalog, {kBookedAmount}), {}, {},
                        AssumeBelow::High);
    EXPECT_EQ(d.state, State::Unsupported);
}

TEST(Versions, ResolveNamesTheStaleDefault) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized).concept_version = 2;
    Catalog catalog = rows.build();
    TermResolution r = resolve_term(catalog, analyst(), kNoRecord, "revenue", "");
    EXPECT_EQ(r.decision, State::Unsupported);
    EXPECT_EQ(r.default_concept, kRecognized);
    EXPECT_FALSE(r.default_applied);
    EXPECT_EQ(r.approved_version, 2);
    EXPECT_EQ(r.current_version, 3);
    json j = json::parse(resolution_json(catalog, r, false));
    EXPECT_EQ(j["approved_version"], 2);
    EXPECT_EQ(j["current_version"], 3);
}

TEST(Versions, ResolveSaysTheSelectedVersion) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized).concept_version = 3;
    Catalog catalog = rows.build();
    TermResolution r = resolve_term(catalog, analyst(), kNoRecord, "revenue", "");
    EXPECT_EQ(r.decision, State::Resolved);
    EXPECT_EQ(r.version, 3);
    EXPECT_EQ(json::parse(resolution_json(catalog, r, false))["version"], 3);
}

TEST(Versions, ResolveSaysAConfirmationChanged) {
    RevenueCatalog rows;
    rows.add_approval(7, "q_v", "revenue", kRecognized).concept_version = 1;
    Catalog catalog = rows.build();
    TermResolution r = resolve_term(catalog, analyst(), kNoRecord, "revenue", "q_v");
    EXPECT_EQ(r.decision, State::Ambiguous);
    EXPECT_NE(r.reason.find("Recognized revenue changed since the user confirmed it"),
              std::string::npos);
    EXPECT_EQ(r.approved_version, 1);
}

TEST(Versions, PayloadSaysWhichVersions) {
    RevenueCatalog rows;
    rows.add_approval(7, "q_v", "revenue", kRecognized).concept_version = 2;
    Catalog catalog = rows.build();
    Decision d =
        decide(catalog, analyst(), confirmed_record(), reads(catalog, {kRecognizedAmount}));
    json payload = json::parse(decision_json(catalog, d, "d-1", "q_v", false));
    EXPECT_EQ(payload["slots"][0]["approved_version"], 2);
    EXPECT_EQ(payload["slots"][0]["current_version"], 3);
    // Slots that are not about a version carry no version keys.
    Decision other = decide(catalog, analyst(), kNoRecord, reads(catalog, {kBookedAmount}));
    json plain = json::parse(decision_json(catalog, other, "d-2", "", false));
    EXPECT_FALSE(plain["slots"][0].contains("approved_version"));
}

}  // namespace
}  // namespace clarify
