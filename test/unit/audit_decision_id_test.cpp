// The decision-id layout and the origin's node (core/audit/decision_id.hpp), one rule per test.
#include "core/audit/decision_id.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

TEST(DecisionId, ALifeStartsAtItsMicrosecondsSince2020ShiftedBy12) {
    EXPECT_EQ(life_first_id(kIdEpochMicros + 5), std::uint64_t{5} << 12);
    // A clock before 2020 still gives a valid (non-zero) start.
    EXPECT_EQ(life_first_id(0), std::uint64_t{1} << 12);
}

TEST(DecisionId, TheLowByteIsTheNode) {
    std::uint64_t first = life_first_id(kIdEpochMicros + 1000);
    for (std::uint32_t node : {0u, 19u, 255u}) {
        EXPECT_EQ(id_node(decision_id(first, first + 7, node)), node);
        EXPECT_EQ(decision_id(first, first + 7, node) >> kNodeBits, (first >> kNodeBits) + 7);
    }
}

TEST(DecisionId, EachCounterValueMovesTheIdPastEveryNode) {
    std::uint64_t first = life_first_id(kIdEpochMicros + 1000);
    EXPECT_EQ(decision_id(first, first + 1, 0) - decision_id(first, first, 0), 256u);
    EXPECT_LT(decision_id(first, first, 255), decision_id(first, first + 1, 0));
}

TEST(DecisionId, ALaterStartBeginsAboveAnEarlierOnesIdsAtUnder16PerMicrosecond) {
    std::uint64_t first = life_first_id(kIdEpochMicros + 1000);
    std::uint64_t later = life_first_id(kIdEpochMicros + 1001);  // one microsecond on
    EXPECT_LT(decision_id(first, first + 15, 255), later);
}

TEST(DecisionId, AnOriginsNodeIsAStableHashOfItsText) {
    EXPECT_EQ(origin_node("standby1"), 19u);
    EXPECT_EQ(origin_node("primary"), 242u);
    EXPECT_LE(origin_node("any origin at all"), kNodeMask);
}

}  // namespace
}  // namespace clarify
