// What the primary's ingest accepts from a standby and what it skips as held
// (core/audit/ingest_rules.hpp), one rule per test.
#include "core/audit/ingest_rules.hpp"

#include "core/audit/decision_id.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

AuditView decision(std::uint64_t id, std::int64_t at, std::string_view note = {}) {
    AuditView v;
    v.decision_id = id;
    v.decided_at = at;
    v.database = 5;
    v.note = note;
    return v;
}

std::uint64_t id_at(std::string_view origin, std::uint64_t counter) {
    return decision_id(std::uint64_t{1} << 12, (std::uint64_t{1} << 12) + counter,
                       origin_node(origin));
}

TEST(IngestRules, AnOriginIs1To200Bytes) {
    EXPECT_EQ(origin_refusal("", "primary"), "the origin must be 1 to 200 bytes");
    EXPECT_EQ(origin_refusal(std::string(201, 'a'), "primary"),
              "the origin must be 1 to 200 bytes");
    EXPECT_EQ(origin_refusal(std::string(200, 'a'), "primary"), "");
}

TEST(IngestRules, AnOriginIsPrintableAscii) {
    EXPECT_EQ(origin_refusal("standby\n1", "primary"),
              "the origin must be printable ASCII, as a cluster_name is");
    EXPECT_EQ(origin_refusal("stand\xC3\xA9", "primary"),
              "the origin must be printable ASCII, as a cluster_name is");
}

TEST(IngestRules, AnOriginIsAnotherServersWithAnotherNode) {
    EXPECT_EQ(origin_refusal("primary", "primary"), "the origin \"primary\" is this server's own");
    std::string twin;  // another text with the primary's node
    for (int i = 0; twin.empty(); ++i)
        if (std::string o = "s" + std::to_string(i); origin_node(o) == origin_node("primary"))
            twin = o;
    EXPECT_EQ(origin_refusal(twin, "primary"),
              "the origin \"" + twin +
                  "\" shares this server's decision id node; give the standby another "
                  "cluster_name");
}

TEST(IngestRules, EntriesAreOfThisDatabase) {
    std::vector<AuditView> batch{decision(id_at("standby1", 1), 10),
                                 decision(id_at("standby1", 2), 11)};
    batch[1].database = 6;
    EXPECT_EQ(entries_refusal(batch, 5, "standby1"), "entry 2 was decided in another database");
}

TEST(IngestRules, IdsCarryTheOriginsNode) {
    std::vector<AuditView> batch{decision(id_at("standby1", 1), 10)};
    EXPECT_EQ(entries_refusal(batch, 5, "standby1"), "");
    EXPECT_EQ(
        entries_refusal(batch, 5, "primary"),
        "decision " + std::to_string(batch[0].decision_id) + " was not made at origin \"primary\"");
}

TEST(IngestRules, TheLookupAsksForDecisionsFromTheEarliest) {
    std::vector<AuditView> batch{decision(3, 30), decision(1, 10, "a note"), decision(2, 20)};
    HeldLookup lookup = held_lookup(batch);
    EXPECT_EQ(lookup.ids, (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(lookup.earliest, 20);
    EXPECT_TRUE(lookup.notes);
    EXPECT_EQ(lookup.refusal, "");
}

TEST(IngestRules, ADecisionTwiceInABatchIsRefused) {
    std::vector<AuditView> batch{decision(3, 30), decision(3, 30, "its note"), decision(3, 31)};
    EXPECT_EQ(held_lookup(batch).refusal, "decision 3 appears twice in the batch");
}

TEST(IngestRules, WhatIsHeldIsDropped) {
    std::vector<AuditView> batch{decision(1, 10), decision(2, 20), decision(2, 20, "held note"),
                                 decision(2, 20, "new note")};
    drop_held(batch, {1}, {{2, "held note"}});
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_EQ(batch[0].decision_id, 2u);
    EXPECT_TRUE(batch[0].note.empty());
    EXPECT_EQ(batch[1].note, "new note");
}

}  // namespace
}  // namespace clarify
