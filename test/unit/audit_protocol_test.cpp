#include "audit_protocol.hpp"
#include "audit_record.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace clarify {
namespace {

AuditRecord decision(std::uint64_t id, std::uint32_t database) {
    AuditRecord a;
    a.decision_id = id;
    a.decided_at = 777;
    a.database = database;
    a.statement = "SELECT 1";
    a.question_id = "q";
    return a;
}

TEST(AuditProtocol, ReadsTheIdentityOfFullAndShortEntries) {
    AuditRecord a = decision(42, 5);
    std::string full;
    encode(a, full);
    EntryIdentity id;
    ASSERT_TRUE(read_entry_identity(full, id));
    EXPECT_EQ(id.decision_id, 42u);
    EXPECT_EQ(id.decided_at, 777);
    EXPECT_EQ(id.database, 5u);

    a.statement_hash = AuditHash{1, 2};
    a.shape_hash = AuditHash{3, 4};
    std::string brief;
    encode_short(a, brief);
    ASSERT_TRUE(read_entry_identity(brief, id));
    EXPECT_EQ(id.decision_id, 42u);
}

TEST(AuditProtocol, RefusesATruncatedEntry) {
    std::string full;
    encode(decision(42, 5), full);
    EntryIdentity id;
    EXPECT_FALSE(read_entry_identity(std::string_view(full).substr(0, kAuditEntryPrefix - 1), id));
    EXPECT_FALSE(read_entry_identity("", id));
}

TEST(AuditProtocol, ReplaysOnlyEarlierDecisionsOfItsDatabase) {
    EntryIdentity e{100, 0, 5};
    EXPECT_TRUE(replays_at_recovery(e, 5, 101));
    EXPECT_FALSE(replays_at_recovery(e, 5, 100));  // made since this start: in the queue
    EXPECT_FALSE(replays_at_recovery(e, 6, 101));  // another database's writer replays it
    EXPECT_FALSE(replays_at_recovery(EntryIdentity{0, 0, 5}, 5, 101));
}

TEST(AuditProtocol, MarksKeepTheOldestPendingFloor) {
    DurableMarks marks;
    marks.capacity = 3;
    std::vector<DurableMark> cells(3);
    EXPECT_EQ(oldest_floor(marks, cells.data(), 999), 999u);
    EXPECT_TRUE(push_mark(marks, cells.data(), {10, 100}));
    EXPECT_TRUE(push_mark(marks, cells.data(), {20, 200}));
    EXPECT_TRUE(push_mark(marks, cells.data(), {30, 300}));
    EXPECT_FALSE(push_mark(marks, cells.data(), {40, 400}));  // full: never overwrites
    EXPECT_EQ(oldest_floor(marks, cells.data(), 999), 100u);
    release_marks(marks, cells.data(), 19);  // the entry ending at 20 is not committed yet
    EXPECT_EQ(oldest_floor(marks, cells.data(), 999), 200u);
    release_marks(marks, cells.data(), 20);
    EXPECT_EQ(oldest_floor(marks, cells.data(), 999), 300u);
    EXPECT_TRUE(push_mark(marks, cells.data(), {40, 400}));  // wraps around
    release_marks(marks, cells.data(), 40);
    EXPECT_EQ(oldest_floor(marks, cells.data(), 999), 999u);
}

TEST(AuditProtocol, NoMarksWithoutCapacity) {
    DurableMarks marks;
    EXPECT_FALSE(push_mark(marks, nullptr, {1, 1}));
}

TEST(AuditProtocol, RetentionBound) {
    EXPECT_FALSE(retention_exceeded(1000, 0, 0));  // no limit
    EXPECT_FALSE(retention_exceeded(1000, 0, 1000));
    EXPECT_TRUE(retention_exceeded(1001, 0, 1000));
    EXPECT_FALSE(retention_exceeded(5, 10, 1));  // a floor ahead of the insert position
}

}  // namespace
}  // namespace clarify
