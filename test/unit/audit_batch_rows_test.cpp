// A batch as the audit's rows: each text stored once, stand-ins for lost texts, the reduced row,
// and what a batch publishes (core/audit/batch_rows.hpp), one rule per test.
#include "core/audit/batch_rows.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

constexpr AuditKey kKey = {0x0101010101010101ULL, 0x0202020202020202ULL};

AuditRecord full(std::uint64_t id, const std::string &statement) {
    AuditRecord a;
    a.decision_id = id;
    a.decided_at = 1000 + static_cast<std::int64_t>(id);
    a.database = 5;
    a.question_id = "q1";
    a.statement = statement;
    a.reason = "every governed column read was resolved";
    a.columns = "[\"sales.orders.booked_amount\"]";
    a.bindings = "[]";
    a.record = "{\"question_id\":\"q1\"}";
    return a;
}

AuditRecord short_of(const AuditRecord &a, std::uint64_t id) {
    AuditRecord s = a;
    s.decision_id = id;
    s.is_short = true;
    s.statement_hash = content_hash(kKey, "statement", a.statement);
    s.record_hash = content_hash(kKey, "record", a.record);
    s.shape_hash = shape_hash_of(kKey, a);
    s.statement.clear();
    s.record.clear();
    return s;
}

WriterCache fresh_cache() {
    WriterCache cache;
    cache.begin_batch(1, {100, 101, Width::Wide});
    return cache;
}

TEST(AuditBatchRows, ATextRepeatedInABatchIsInsertedOnce) {
    WriterCache cache = fresh_cache();
    std::vector<AuditRecord> batch{full(1, "SELECT 1"), full(2, "SELECT 1")};
    BatchRows rows = batch_rows(batch, cache, {}, kKey, Width::Wide);
    EXPECT_EQ(rows.id.size(), 2u);
    EXPECT_EQ(rows.new_texts.ids.size(), 2u);  // the statement and the record
    EXPECT_EQ(rows.new_shapes.ids.size(), 1u);
    EXPECT_EQ(rows.statement[0], rows.statement[1]);
    EXPECT_EQ(rows.carried[0], kCarriedStatement | kCarriedRecord | kCarriedShape);
}

TEST(AuditBatchRows, WhatTheCacheStoredIsNotInsertedAgain) {
    WriterCache cache = fresh_cache();
    AuditRecord a = full(1, "SELECT 1");
    AuditHash statement = content_hash(kKey, "statement", a.statement);
    cache.committed(HashSet{statement}, {}, {});
    BatchRows rows = batch_rows(std::vector<AuditRecord>{a}, cache, {}, kKey, Width::Wide);
    EXPECT_EQ(rows.new_texts.ids.size(), 1u);  // the record only
    EXPECT_EQ(rows.statement[0], statement);
}

TEST(AuditBatchRows, ADivertedTextIsReferredToWhereItWasStored) {
    WriterCache cache = fresh_cache();
    AuditRecord a = full(1, "SELECT 1");
    AuditHash statement = content_hash(kKey, "statement", a.statement);
    cache.committed({}, HashMap{{statement, AuditHash{77, 77}}}, {});
    BatchRows rows = batch_rows(std::vector<AuditRecord>{a}, cache, {}, kKey, Width::Wide);
    EXPECT_EQ(rows.statement[0], (AuditHash{77, 77}));
}

TEST(AuditBatchRows, AShortEntryRefersToTheTextsItNames) {
    WriterCache cache = fresh_cache();
    AuditRecord s = short_of(full(1, "SELECT 1"), 2);
    BatchRows rows = batch_rows(std::vector<AuditRecord>{s}, cache, {}, kKey, Width::Wide);
    EXPECT_TRUE(rows.new_texts.ids.empty());
    EXPECT_EQ(rows.statement[0], s.statement_hash);
    EXPECT_EQ(rows.shape[0], s.shape_hash);
    EXPECT_EQ(rows.carried[0], 0);
}

TEST(AuditBatchRows, LostTextsGetStandIns) {
    WriterCache cache = fresh_cache();
    AuditRecord s = short_of(full(1, "SELECT 1"), 2);
    HashSet missing{s.statement_hash, s.record_hash, s.shape_hash};
    BatchRows rows = batch_rows(std::vector<AuditRecord>{s}, cache, missing, kKey, Width::Wide);
    EXPECT_EQ(rows.statement[0], content_hash(kKey, "statement", kLostText));
    EXPECT_EQ(rows.record[0], content_hash(kKey, "record", kLostRecord));
    AuditRecord lost = lost_shape(s.allowed, s.state);
    EXPECT_EQ(rows.shape[0], shape_hash_of(kKey, lost));
    ASSERT_EQ(rows.new_shapes.reason.size(), 1u);
    EXPECT_EQ(*rows.new_shapes.reason[0], kLostText);
    EXPECT_EQ(rows.carried[0], kCarriedStatement | kCarriedRecord | kCarriedShape);
}

TEST(AuditBatchRows, OnlyTheShortEntriesUnstoredHashesAreLookedUp) {
    WriterCache cache = fresh_cache();
    AuditRecord s = short_of(full(1, "SELECT 1"), 2);
    cache.committed(HashSet{s.statement_hash}, {}, {});
    std::vector<AuditRecord> batch{s, short_of(full(1, "SELECT 1"), 3), full(4, "SELECT 4")};
    std::vector<AuditHash> asked = hashes_to_look_up(batch, cache);
    EXPECT_EQ(asked, (std::vector<AuditHash>{s.shape_hash, s.record_hash}));
}

TEST(AuditBatchRows, NotesAreRowsOfTheirOwn) {
    WriterCache cache = fresh_cache();
    AuditRecord note;
    note.decision_id = 9;
    note.decided_at = 5;
    note.note = "refused: not audited in time";
    BatchRows rows = batch_rows(std::vector<AuditRecord>{note}, cache, {}, kKey, Width::Wide);
    EXPECT_TRUE(rows.id.empty());
    EXPECT_EQ(*rows.note_id[0], "9");
    EXPECT_EQ(*rows.note_text[0], note.note);
}

TEST(AuditBatchRows, AStoredTextIsPublishedWhenSeenAgain) {
    WriterCache cache = fresh_cache();
    AuditRecord a = full(1, "SELECT 1");
    std::vector<AuditRecord> batch{a};
    BatchRows first = batch_rows(batch, cache, {}, kKey, Width::Wide);
    EXPECT_TRUE(first.to_publish.empty());  // stored now, published once seen again
    cache.committed(first.fresh, {}, first.to_publish);
    cache.note_published(true, true);
    BatchRows second = batch_rows(batch, cache, {}, kKey, Width::Wide);
    EXPECT_EQ(second.to_publish.size(), 3u);  // statement, shape, record
}

TEST(AuditBatchRows, NothingIsPublishedAtCatalog10) {
    WriterCache cache = fresh_cache();
    std::vector<AuditRecord> batch{full(1, "SELECT 1")};
    BatchRows first = batch_rows(batch, cache, {}, kKey, Width::Narrow);
    cache.committed(first.fresh, {}, {});
    EXPECT_TRUE(batch_rows(batch, cache, {}, kKey, Width::Narrow).to_publish.empty());
}

TEST(AuditBatchRows, AnUnwritableDecisionKeepsWhoWhenAndTheOutcome) {
    AuditRecord a = short_of(full(1, "SELECT 1"), 2);
    a.allowed = false;
    a.question_id = std::string("q\0x", 3);
    AuditRecord safe = unwritable(a, std::string("bad\0byte", 8));
    EXPECT_EQ(safe.decision_id, 2u);
    EXPECT_EQ(safe.decided_at, a.decided_at);
    EXPECT_FALSE(safe.allowed);
    EXPECT_FALSE(safe.is_short);
    EXPECT_TRUE(safe.statement_hash.none() && safe.shape_hash.none() && safe.record_hash.none());
    EXPECT_TRUE(safe.record.empty() && safe.payload.empty() && safe.question_id.empty());
    EXPECT_EQ(safe.statement, "(not stored: the decision's row could not be written)");
    EXPECT_EQ(safe.reason, "unwritable decision for question \"q x\" (bad byte)");
}

}  // namespace
}  // namespace clarify
