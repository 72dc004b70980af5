// The audit writer's retry policy (core/audit/retry.hpp), one rule per test.
#include "core/audit/retry.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

TEST(AuditRetry, ABatchThatFailsIsRetriedWholeThreeTimesWithBackOff) {
    RetryPolicy policy;
    for (int i = 0; i < RetryPolicy::kWholeAttempts; ++i) {
        EXPECT_TRUE(policy.whole(10));
        EXPECT_TRUE(policy.back_off(10));
    }
    EXPECT_FALSE(policy.whole(10));  // then one by one
}

TEST(AuditRetry, ASingleEntryFailingEveryTimeGoesOnAloneWithoutBackOff) {
    RetryPolicy policy;
    EXPECT_TRUE(policy.back_off(1));
    EXPECT_TRUE(policy.back_off(1));
    EXPECT_TRUE(policy.whole(1));
    EXPECT_FALSE(policy.back_off(1));  // the third failure: written alone (reduced if need be)
}

TEST(AuditRetry, AWrittenBatchStartsTheCountAfresh) {
    RetryPolicy policy;
    (void)policy.back_off(10);
    (void)policy.back_off(10);
    policy.written();
    EXPECT_EQ(policy.failures(), 0);
    EXPECT_TRUE(policy.whole(10));
}

TEST(AuditRetry, AnEntryThatFailsAloneIsWrittenReducedAndOnlyThenBacksOff) {
    EXPECT_EQ(after_entry(false, false), EntryStep::Next);
    EXPECT_EQ(after_entry(true, false), EntryStep::Reduce);
    EXPECT_EQ(after_entry(false, true), EntryStep::Next);
    EXPECT_EQ(after_entry(true, true), EntryStep::BackOff);
}

}  // namespace
}  // namespace clarify
