// The audit entry's encoding: what the backend queues is what the writer reads, copied or viewed.
#include "core/audit/record.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace clarify {
namespace {

constexpr AuditKey kKey = {0x0123456789abcdefULL, 0xfedcba9876543210ULL};

AuditRecord sample() {
    AuditRecord a;
    a.decision_id = 3659401256763395ULL;
    a.decided_at = 817654321000000;
    a.database = 16384;
    a.session_role = 10;
    a.acting_role = 16400;
    a.pid = 4242;
    a.query_id = -77;
    a.allowed = false;
    a.sync = true;
    a.state = State::Mismatch;
    a.question_id = "q_1042";
    a.statement = "SELECT sum(booked_amount) FROM sales.orders";
    a.reason = "the record resolves \"revenue\" to Recognized revenue";
    a.columns = "[\"sales.orders.booked_amount\"]";
    a.bindings = "[]";
    a.payload = "{\"state\":\"MISMATCH\"}";
    a.record = "{\"question_id\":\"q_1042\"}";
    a.record_hash = AuditHash{12345, 678};
    a.shape_hash = shape_hash_of(kKey, a);
    a.statement_hash = content_hash(kKey, "statement", a.statement);
    return a;
}

TEST(AuditRecord, KeepsTheRecordAsCanonicalJson) {
    // Never the text as set: the audit casts it to jsonb, and hashes it to store it once.
    ResolutionRecord record =
        parse_record(" {\"question\" : \"q\\u00fc\", \"question_id\": \"q_7\"}\n");
    AuditRecord a = audit_record_of(Catalog{}, Decision{}, record);
    EXPECT_EQ(a.record, "{\"question\":\"q\xc3\xbc\",\"question_id\":\"q_7\"}");
    EXPECT_EQ(a.question_id, "q_7");
    EXPECT_EQ(audit_record_of(Catalog{}, Decision{}, ResolutionRecord{}).record, "");
}

TEST(AuditRecord, RoundTripsThroughTheQueueEncoding) {
    AuditRecord a = sample();
    std::string bytes;
    encode(a, bytes);
    AuditRecord b = decode(bytes);
    EXPECT_EQ(b.decision_id, a.decision_id);
    EXPECT_EQ(b.decided_at, a.decided_at);
    EXPECT_EQ(b.acting_role, a.acting_role);
    EXPECT_EQ(b.query_id, a.query_id);
    EXPECT_FALSE(b.allowed);
    EXPECT_EQ(b.state, State::Mismatch);
    EXPECT_EQ(b.statement, a.statement);
    EXPECT_EQ(b.payload, a.payload);
    EXPECT_EQ(b.record_hash, (AuditHash{12345, 678}));
    EXPECT_EQ(b.shape_hash, a.shape_hash);
    EXPECT_EQ(b.statement_hash, content_hash(kKey, "statement", b.statement));
}

TEST(AuditRecord, PatchingAnEntryRewritesOnlyItsIdAndTime) {
    AuditRecord a = sample();
    std::string bytes;
    encode(a, bytes);
    patch_entry(bytes, 99, -5);
    AuditRecord b = decode(bytes);
    EXPECT_EQ(b.decision_id, 99u);
    EXPECT_EQ(b.decided_at, -5);
    a.decision_id = 99;
    a.decided_at = -5;
    std::string expected;
    encode(a, expected);
    EXPECT_EQ(bytes, expected);
    std::string too_short = "AUD4";
    EXPECT_THROW(patch_entry(too_short, 1, 1), AuditFormatError);
}

TEST(AuditRecord, AViewReadsTheSameFieldsWithoutCopying) {
    AuditRecord a = sample();
    std::string bytes;
    encode(a, bytes);
    AuditView v = decode_view(bytes);
    EXPECT_EQ(v.statement, a.statement);
    EXPECT_EQ(v.reason, a.reason);
    EXPECT_GE(v.statement.data(), bytes.data());
    EXPECT_LT(v.statement.data(), bytes.data() + bytes.size());
    EXPECT_EQ(shape_hash_of(kKey, v), shape_hash_of(kKey, a));
    EXPECT_EQ(to_record(v).columns, a.columns);
    EXPECT_EQ(v.statement_hash, a.statement_hash);
    EXPECT_EQ(to_record(v).statement_hash, a.statement_hash);
}

TEST(AuditRecord, ShapesDifferWhenTheirContentDoes) {
    AuditRecord a = sample();
    AuditRecord b = a;
    b.reason = "unwritable decision";
    EXPECT_NE(shape_hash_of(kKey, a), shape_hash_of(kKey, b));
    b = a;
    b.allowed = true;
    EXPECT_NE(shape_hash_of(kKey, a), shape_hash_of(kKey, b));
    EXPECT_EQ(shape_hash_of(kKey, a), shape_hash_of(kKey, sample()));
    EXPECT_NE(shape_hash_of(kKey, a), shape_hash_of(AuditKey{kKey.k0, kKey.k1 + 1}, a));
}

// A reason can hold any character an agent put in a term, NUL included: text moved from one
// part of a shape into the next is still another shape.
TEST(AuditRecord, AShapesPartsCannotBeShiftedIntoEachOther) {
    AuditRecord a = sample();
    a.reason = std::string("first\0second", 13);
    AuditRecord b = a;
    b.reason = "first";
    b.columns = std::string("second\0", 7) + a.columns;
    EXPECT_NE(shape_hash_of(kKey, a), shape_hash_of(kKey, b));
    b = a;
    b.reason += a.columns.substr(0, 3);
    b.columns = a.columns.substr(3);
    EXPECT_NE(shape_hash_of(kKey, a), shape_hash_of(kKey, b));
}

TEST(AuditRecord, MalformedEntriesAreRefused) {
    std::string bytes;
    encode(sample(), bytes);
    EXPECT_THROW(decode(bytes.substr(0, bytes.size() - 3)), AuditFormatError);
    EXPECT_THROW(decode_view(bytes + "x"), AuditFormatError);
    std::string wrong = bytes;
    wrong[0] ^= 0x5A;
    EXPECT_THROW(decode(wrong), AuditFormatError);
}

TEST(AuditRecord, AShortEntryCarriesTheHashesAndQuestionButNoTexts) {
    AuditRecord a = sample();
    ASSERT_TRUE(can_encode_short(a));
    std::string full, bytes;
    encode(a, full);
    encode_short(a, bytes);
    EXPECT_LT(bytes.size() * 2, full.size());
    EXPECT_EQ(bytes.find(a.statement), std::string::npos);
    patch_entry(bytes, 7, 8);
    AuditView v = decode_view(bytes);
    EXPECT_TRUE(v.is_short);
    EXPECT_EQ(v.decision_id, 7u);
    EXPECT_EQ(v.decided_at, 8);
    EXPECT_EQ(v.question_id, a.question_id);
    EXPECT_EQ(v.statement_hash, a.statement_hash);
    EXPECT_EQ(v.shape_hash, a.shape_hash);
    EXPECT_EQ(v.record_hash, a.record_hash);
    EXPECT_EQ(v.state, State::Mismatch);
    EXPECT_TRUE(v.statement.empty() && v.reason.empty() && v.record.empty() && v.note.empty());
    AuditRecord r = to_record(v);
    EXPECT_TRUE(r.is_short);
    EXPECT_FALSE(decode_view(full).is_short);

    // What purge_audit() reads of a queued entry: the hashes a short one refers to.
    AuditHash hashes[3] = {};
    ASSERT_TRUE(short_entry_hashes(bytes.substr(0, kAuditEntryPrefix), hashes));
    EXPECT_EQ(hashes[0], a.statement_hash);
    EXPECT_EQ(hashes[1], a.shape_hash);
    EXPECT_EQ(hashes[2], a.record_hash);
    EXPECT_FALSE(short_entry_hashes(full, hashes));
    EXPECT_FALSE(short_entry_hashes(bytes.substr(0, kAuditEntryPrefix - 1), hashes));
}

TEST(AuditRecord, OnlyADecisionWithEveryHashHasAShortEntry) {
    AuditRecord a = sample();
    a.statement_hash = AuditHash{};
    EXPECT_FALSE(can_encode_short(a));
    a = sample();
    a.record_hash = AuditHash{};  // a record without its hash
    EXPECT_FALSE(can_encode_short(a));
    a.record.clear();  // no record: no hash needed
    EXPECT_TRUE(can_encode_short(a));
    a.note = "refused with QC005";
    EXPECT_FALSE(can_encode_short(a));
    std::string bytes;
    EXPECT_THROW(encode_short(a, bytes), AuditFormatError);

    // Unknown flags, or a short entry without its shape hash, are malformed.
    a = sample();
    constexpr std::size_t kFlags = kAuditEntryPrefix - 1, kShape = kFlags - 32;
    std::string full;
    encode(a, full);
    ASSERT_EQ(static_cast<unsigned char>(full[kFlags]), 0u);
    EXPECT_NO_THROW(decode_view(full));
    full[kFlags] = 2;
    EXPECT_THROW(decode_view(full), AuditFormatError);
    bytes.clear();
    encode_short(a, bytes);
    ASSERT_EQ(static_cast<unsigned char>(bytes[kFlags]), 1u);
    AuditHash shape;
    std::memcpy(&shape.lo, bytes.data() + kShape, 8);
    std::memcpy(&shape.hi, bytes.data() + kShape + 8, 8);
    ASSERT_EQ(shape, a.shape_hash);
    EXPECT_NO_THROW(decode_view(bytes));
    std::string no_shape = bytes;
    std::memset(no_shape.data() + kShape, 0, 16);
    EXPECT_THROW(decode_view(no_shape), AuditFormatError);
    // Half a hash is still a hash: only all 16 bytes zero mean "none".
    std::string half_shape = bytes;
    std::memset(half_shape.data() + kShape, 0, 8);
    EXPECT_NO_THROW(decode_view(half_shape));
    AuditHash hashes[3];
    EXPECT_FALSE(short_entry_hashes(no_shape, hashes));
    // A full entry may leave a hash out: the writer computes it.
    a.shape_hash = AuditHash{};
    full.clear();
    encode(a, full);
    EXPECT_NO_THROW(decode_view(full));
}

}  // namespace
}  // namespace clarify
