#include "core/audit/protocol.hpp"
#include "core/audit/record.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <unordered_set>
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

TEST(AuditProtocol, AcceptsTheEntriesTheWriterCanMaterialise) {
    AuditRecord a = decision(42, 5);
    std::string full;
    encode(a, full);
    EXPECT_EQ(entry_refusal(full, 5), "");
    a.statement_hash = AuditHash{1, 2};
    a.shape_hash = AuditHash{3, 4};
    std::string brief;
    encode_short(a, brief);
    EXPECT_EQ(entry_refusal(brief, 5), "");
    AuditRecord note = decision(42, 5);
    note.note = "refused with QC005: not committed";
    std::string noted;
    encode(note, noted);
    EXPECT_EQ(entry_refusal(noted, 5), "");
}

TEST(AuditProtocol, RefusesEntriesTheWriterCannotMaterialise) {
    // The encoder writes any state; the writer's decoder knows only the states of decisions.
    AuditRecord unavailable = decision(42, 5);
    unavailable.state = State::AuditUnavailable;
    std::string entry;
    encode(unavailable, entry);
    EXPECT_NE(entry_refusal(entry, 5), "");
    EXPECT_THROW(decode_view(entry), AuditFormatError);

    std::string full;
    encode(decision(42, 5), full);
    EXPECT_NE(entry_refusal(std::string_view(full).substr(0, full.size() - 1), 5), "");
    EXPECT_NE(entry_refusal(full + "x", 5), "");
    EXPECT_NE(entry_refusal("", 5), "");
    EXPECT_EQ(entry_refusal(full, 6), "audit entry of another database");
    std::string anonymous;
    encode(decision(0, 5), anonymous);
    EXPECT_EQ(entry_refusal(anonymous, 5), "audit entry without a decision id");
}

std::unique_ptr<PublishedHashes> empty_set() {
    auto set = std::make_unique<PublishedHashes>();
    published_clear(*set);
    return set;
}

TEST(AuditProtocol, PublishedHashes) {
    auto set = empty_set();
    AuditHash a{7, 1}, b{7 + kPublishedHashes, 2};  // the same first cell
    EXPECT_FALSE(published_has(*set, a));
    EXPECT_TRUE(publish(*set, a));
    EXPECT_TRUE(publish(*set, b));
    EXPECT_TRUE(publish(*set, a));  // once
    EXPECT_EQ(set->count, 2);
    EXPECT_TRUE(published_has(*set, a));
    EXPECT_TRUE(published_has(*set, b));
    EXPECT_TRUE(publish(*set, AuditHash{}));  // none is never published
    EXPECT_EQ(set->count, 2);
    published_clear(*set);
    EXPECT_FALSE(published_has(*set, a));
    EXPECT_EQ(set->count, 0);
}

TEST(AuditProtocol, AFullPublishedSetIsEmptiedFirst) {
    auto set = empty_set();
    for (int i = 1; i <= kPublishedMax; ++i)
        ASSERT_TRUE(publish(*set, AuditHash{std::uint64_t(i), 9}));
    EXPECT_FALSE(publish(*set, AuditHash{999999, 9}));  // the writer then forgets what it published
    EXPECT_EQ(set->count, 1);
    EXPECT_TRUE(published_has(*set, AuditHash{999999, 9}));
    EXPECT_FALSE(published_has(*set, AuditHash{1, 9}));
}

TEST(AuditProtocol, AShortEntryNeedsEveryHashItNamesPublished) {
    auto set = empty_set();
    AuditHash statement{1, 1}, shape{2, 2}, record{3, 3};
    AuditHash with_record[3] = {statement, shape, record};
    AuditHash without_record[3] = {statement, shape, AuditHash{}};
    publish(*set, statement);
    EXPECT_FALSE(short_entry_usable(*set, without_record));
    publish(*set, shape);
    EXPECT_TRUE(short_entry_usable(*set, without_record));
    EXPECT_FALSE(short_entry_usable(*set, with_record));
    publish(*set, record);
    EXPECT_TRUE(short_entry_usable(*set, with_record));
    AuditHash no_statement[3] = {AuditHash{}, shape, record};
    EXPECT_FALSE(short_entry_usable(*set, no_statement));
}

TEST(AuditProtocol, ABatchPublishesNothingAfterAPurgeBegan) {
    auto set = empty_set();
    AuditHash stored[2] = {{1, 1}, {2, 2}};
    EXPECT_TRUE(batch_may_publish(4, 4));
    EXPECT_FALSE(batch_may_publish(4, 5));
    EXPECT_TRUE(publish_batch(*set, stored, 2, 4, 5));  // a purge began since the batch did
    EXPECT_FALSE(published_has(*set, stored[0]));
    EXPECT_TRUE(publish_batch(*set, stored, 2, 5, 5));
    EXPECT_TRUE(published_has(*set, stored[0]));
    EXPECT_TRUE(published_has(*set, stored[1]));
}

TEST(AuditProtocol, TheSlotMovesForwardOnlyAndNotDuringAReplay) {
    EXPECT_EQ(next_slot_position(100, 200, false), 200u);
    EXPECT_EQ(next_slot_position(100, 50, false), 100u);  // never backwards
    EXPECT_EQ(next_slot_position(100, 200, true), 100u);  // a replay reads from here
}

TEST(AuditProtocol, AReplayQueuesWhatTheAuditDoesNotHold) {
    std::vector<std::string> found(3);
    AuditRecord first = decision(10, 5), second = decision(11, 5), third = decision(12, 5);
    first.decided_at = 300;
    second.decided_at = 100;
    third.decided_at = 200;
    encode(first, found[0]);
    encode(second, found[1]);
    encode(third, found[2]);
    EXPECT_EQ(earliest_decided_at(found), 100);
    EXPECT_EQ(earliest_decided_at({}), 0);
    std::vector<std::string> left = entries_to_replay(found, {11});
    ASSERT_EQ(left.size(), 2u);
    EXPECT_EQ(left[0], found[0]);  // in WAL order
    EXPECT_EQ(left[1], found[2]);
    EXPECT_TRUE(entries_to_replay(found, {10, 11, 12}).empty());
}

TEST(AuditProtocol, RetentionBound) {
    EXPECT_FALSE(retention_exceeded(1000, 0, 0));  // no limit
    EXPECT_FALSE(retention_exceeded(1000, 0, 1000));
    EXPECT_TRUE(retention_exceeded(1001, 0, 1000));
    EXPECT_FALSE(retention_exceeded(5, 10, 1));  // a floor ahead of the insert position
}

}  // namespace
}  // namespace clarify
