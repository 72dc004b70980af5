// A forwarded batch (standby writer -> clarify.audit_ingest): each text once per batch, and what
// the primary refuses in a batch whose short entries do not resolve within it.
#include "core/audit/forward_batch.hpp"

#include <gtest/gtest.h>

#include <unordered_set>

namespace clarify {
namespace {

constexpr AuditKey kStandbyKey = {0x1111111111111111ULL, 0x2222222222222222ULL};

AuditRecord decision(std::uint64_t id, const std::string &statement, bool allowed = true,
                     const std::string &record = "{\"question_id\":\"q1\"}") {
    AuditRecord a;
    a.decision_id = id;
    a.decided_at = 817654321000000 + static_cast<std::int64_t>(id);
    a.database = 16384;
    a.session_role = 10;
    a.acting_role = 16400;
    a.pid = 4242;
    a.allowed = allowed;
    a.sync = false;
    a.state = allowed ? State::Resolved : State::Mismatch;
    a.question_id = "q1";
    a.statement = statement;
    a.reason = allowed ? "every governed column read was resolved" : "not resolved";
    a.columns = "[\"sales.orders.booked_amount\"]";
    a.bindings = "[]";
    a.payload = allowed ? "" : "{\"state\":\"MISMATCH\"}";
    a.record = record;
    a.record_hash = record.empty() ? AuditHash{} : content_hash(kStandbyKey, "record", record);
    a.shape_hash = shape_hash_of(kStandbyKey, a);
    a.statement_hash = content_hash(kStandbyKey, "statement", statement);
    return a;
}

std::string framed(const std::vector<AuditRecord> &records, std::uint64_t *shortened = nullptr) {
    ForwardedFrames frames;
    std::vector<std::string> entries(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        encode(records[i], entries[i]);
        frames.add(entries[i], decode_view(entries[i]));
    }
    if (shortened) *shortened = frames.shortened();
    EXPECT_EQ(frames.entries(), records.size());
    return frames.bytes();
}

// A batch as the writer would frame it, with `entry` (encoded as given) appended.
std::string with_frame(std::string bytes, const std::string &entry) {
    const auto n = static_cast<std::uint32_t>(entry.size());
    bytes += {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
              static_cast<char>(n)};
    return bytes + entry;
}

std::string short_of(const AuditRecord &a) {
    std::string out;
    encode_short(a, out);
    return out;
}
std::string full_of(const AuditRecord &a) {
    std::string out;
    encode(a, out);
    return out;
}

TEST(ForwardBatch, SendsEachTextOncePerBatch) {
    std::vector<AuditRecord> sent = {
        decision(1, "SELECT 1"),           decision(2, "SELECT 1"),
        decision(3, "SELECT 2"),           decision(4, "SELECT 1"),
        decision(5, "SELECT 1", false),    decision(6, "SELECT 1", false),
        decision(7, "SELECT 2", true, ""), decision(8, "SELECT 2", true, "")};
    AuditRecord note = decision(9, "SELECT 1");
    note.note = "its statement was refused";
    note.statement_hash = note.shape_hash = note.record_hash = AuditHash{};
    sent.push_back(note);
    std::uint64_t shortened = 0;
    std::string bytes = framed(sent, &shortened);
    // Full: 1 (first), 3 (new statement), 5 (new shape), the note. Short: 2, 4, 6, and 7 and 8
    // (no record: their statement and shape went in full already).
    EXPECT_EQ(shortened, 5u);
    std::vector<AuditView> got = split_frames(bytes);
    ASSERT_EQ(got.size(), sent.size());
    EXPECT_TRUE(got[1].is_short);
    EXPECT_TRUE(got[3].is_short);
    EXPECT_FALSE(got[2].is_short);
    EXPECT_FALSE(got[4].is_short);
    EXPECT_TRUE(got[6].is_short);
    EXPECT_TRUE(got[7].is_short);
    EXPECT_FALSE(got[8].is_short);
    ASSERT_EQ(resolve_short_entries(got), "");
    for (std::size_t i = 0; i < sent.size(); ++i) {
        SCOPED_TRACE(i);
        const AuditRecord &want = sent[i];
        const AuditView &a = got[i];
        EXPECT_FALSE(a.is_short);
        EXPECT_EQ(a.decision_id, want.decision_id);
        EXPECT_EQ(a.decided_at, want.decided_at);
        EXPECT_EQ(a.allowed, want.allowed);
        EXPECT_EQ(a.state, want.state);
        EXPECT_EQ(a.question_id, want.question_id);
        EXPECT_EQ(a.statement, want.statement);
        EXPECT_EQ(a.reason, want.reason);
        EXPECT_EQ(a.columns, want.columns);
        EXPECT_EQ(a.bindings, want.bindings);
        EXPECT_EQ(a.payload, want.payload);
        EXPECT_EQ(a.record, want.record);
        EXPECT_EQ(a.note, want.note);
    }
}

TEST(ForwardBatch, ShortEntriesCutTheBytes) {
    std::vector<AuditRecord> sent;
    for (std::uint64_t id = 1; id <= 100; ++id)
        sent.push_back(decision(id, "SELECT booked_amount FROM sales.orders WHERE id = $1"));
    std::string all_full;
    for (const AuditRecord &a : sent) all_full = with_frame(all_full, full_of(a));
    std::string bytes = framed(sent);
    EXPECT_LT(bytes.size() * 2, all_full.size());
}

TEST(ForwardBatch, RefusesShortEntriesThatDoNotResolveInTheirBatch) {
    AuditRecord a = decision(1, "SELECT 1");
    // A short entry first: nothing earlier carried its statement.
    std::string bytes = with_frame("", short_of(a));  // the views below point into it
    std::vector<AuditView> batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 1 is a short entry whose statement no earlier entry of the batch carries");
    // Its shape from another decision than its own allowed and state say.
    AuditRecord refused = decision(2, "SELECT 1", false);
    AuditRecord claims = refused;
    claims.allowed = true;
    claims.state = State::Resolved;
    bytes = with_frame(with_frame("", full_of(refused)), short_of(claims));
    batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 2 is a short entry whose decision differs from the shape it names");
    // A record no earlier entry carried.
    AuditRecord other = decision(3, "SELECT 1", true, "{\"question_id\":\"q2\"}");
    bytes = with_frame(with_frame("", full_of(a)), short_of(other));
    batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 2 is a short entry whose record no earlier entry of the batch carries");
    // A shape no earlier entry carried.
    bytes = with_frame(with_frame("", full_of(a)), short_of(refused));
    batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 2 is a short entry whose shape no earlier entry of the batch carries");
    // Hashes carried only by an entry the writer could not shorten (its record without the
    // record's hash) name nothing: the writer never shortens against it.
    AuditRecord unhashed = a;
    unhashed.record_hash = AuditHash{};
    bytes = with_frame(with_frame("", full_of(unhashed)), short_of(a));
    batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 2 is a short entry whose statement no earlier entry of the batch carries");
}

TEST(ForwardBatch, RefusesOneHashForTwoTexts) {
    AuditRecord a = decision(1, "SELECT 1");
    AuditRecord b = decision(2, "SELECT 2");
    b.statement_hash = a.statement_hash;  // a label given to another text
    std::string bytes = with_frame(with_frame("", full_of(a)), full_of(b));  // viewed below
    std::vector<AuditView> batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 2 carries the statement hash of entry 1 with another statement");
    AuditRecord c = decision(3, "SELECT 1", true, "{\"question_id\":\"q9\"}");
    c.record_hash = a.record_hash;
    bytes = with_frame(with_frame("", full_of(a)), full_of(c));
    batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 2 carries the record hash of entry 1 with another record");
    AuditRecord d = decision(4, "SELECT 1", false);
    d.shape_hash = a.shape_hash;
    bytes = with_frame(with_frame("", full_of(a)), full_of(d));
    batch = split_frames(bytes);
    EXPECT_EQ(resolve_short_entries(batch),
              "entry 2 carries the shape hash of entry 1 with another decision");
}

// An entry already short in the standby's queue (its texts in an audit the standby does not have)
// never makes a batch the primary refuses, which would stop the standby's writer for good: sent as
// it is when its texts went in full earlier in the batch, else with stand-ins for them.
TEST(ForwardBatch, EntriesShortInTheQueueAlwaysResolve) {
    AuditRecord a = decision(1, "SELECT 1"), refused = decision(2, "SELECT 2", false);
    std::string ring_a = short_of(a), ring_refused = short_of(refused), full_a = full_of(a);
    ForwardedFrames frames;
    frames.add(ring_refused, decode_view(ring_refused));
    frames.add(full_a, decode_view(full_a));
    frames.add(ring_a, decode_view(ring_a));
    std::vector<AuditView> batch = split_frames(frames.bytes());
    ASSERT_EQ(batch.size(), 3u);
    ASSERT_EQ(resolve_short_entries(batch), "");
    const AuditView &stood_in = batch[0];
    EXPECT_EQ(stood_in.decision_id, 2u);
    EXPECT_FALSE(stood_in.allowed);
    EXPECT_EQ(stood_in.state, State::Mismatch);
    EXPECT_EQ(stood_in.question_id, "q1");
    EXPECT_NE(stood_in.statement.find("not available"), std::string_view::npos);
    EXPECT_NE(stood_in.record.find("not_available"), std::string_view::npos);
    EXPECT_EQ(stood_in.columns, "[]");
    EXPECT_EQ(batch[2].decision_id, 1u);
    EXPECT_EQ(batch[2].statement, "SELECT 1");
    EXPECT_EQ(batch[2].record, a.record);
    EXPECT_EQ(batch[2].reason, a.reason);
}

// A queue fuller than a batch may be goes in several: each batch resolves on its own, and the
// first entry always goes (a batch is never empty while entries are queued).
TEST(ForwardBatch, StopsAtItsBytes) {
    std::vector<std::string> entries;
    for (std::uint64_t id = 1; id <= 40; ++id)
        entries.push_back(full_of(decision(id, id % 2 ? "SELECT 1" : "SELECT 2")));
    std::size_t sent = 0;
    std::vector<std::string> batches;
    while (sent < entries.size()) {
        ForwardedFrames frames(1000);
        while (sent < entries.size() && frames.add(entries[sent], decode_view(entries[sent])))
            ++sent;
        ASSERT_GT(frames.entries(), 0u);
        EXPECT_LE(frames.bytes().size(), 1000u);
        batches.push_back(frames.bytes());
    }
    EXPECT_GT(batches.size(), 1u);
    std::uint64_t next_id = 1;
    for (const std::string &bytes : batches) {
        std::vector<AuditView> batch = split_frames(bytes);
        ASSERT_EQ(resolve_short_entries(batch), "");
        for (const AuditView &a : batch) {
            EXPECT_EQ(a.decision_id, next_id);
            EXPECT_EQ(a.statement, next_id % 2 ? "SELECT 1" : "SELECT 2");
            ++next_id;
        }
    }
    EXPECT_EQ(next_id, 41u);
    std::string big = full_of(decision(1, std::string(5000, 'x')));
    ForwardedFrames small(1000);
    EXPECT_TRUE(small.add(big, decode_view(big)));
    EXPECT_FALSE(small.add(big, decode_view(big)));
    EXPECT_EQ(small.entries(), 1u);
}

// Labels are the sender's to choose: ones sharing their low half must not share a bucket (the
// ingest's tables of labels would take quadratic time).
TEST(ForwardBatch, LabelsSharingTheirLowHalfSpreadOverBuckets) {
    LabelHasher hasher;
    std::unordered_set<std::size_t> seen;
    for (std::uint64_t hi = 1; hi <= 10000; ++hi) seen.insert(hasher(AuditHash{7, hi}));
    EXPECT_GT(seen.size(), 9990u);
    seen.clear();
    for (std::uint64_t lo = 1; lo <= 10000; ++lo) seen.insert(hasher(AuditHash{lo, 7}));
    EXPECT_GT(seen.size(), 9990u);
}

TEST(ForwardBatch, ResolvesLabelsSharingTheirLowHalf) {
    std::string bytes;
    for (std::uint64_t i = 1; i <= 200; ++i) {
        AuditRecord a = decision(i, "SELECT " + std::to_string(i));
        a.statement_hash = AuditHash{5, i};
        a.shape_hash = AuditHash{6, i};
        a.record_hash = AuditHash{8, i};
        bytes = with_frame(bytes, full_of(a));
    }
    for (std::uint64_t i = 1; i <= 200; ++i) {
        AuditRecord a = decision(1000 + i, "");
        a.statement_hash = AuditHash{5, 201 - i};
        a.shape_hash = AuditHash{6, 201 - i};
        a.record_hash = AuditHash{8, 201 - i};
        bytes = with_frame(bytes, short_of(a));
    }
    std::vector<AuditView> batch = split_frames(bytes);
    ASSERT_EQ(resolve_short_entries(batch), "");
    for (std::uint64_t i = 1; i <= 200; ++i)
        EXPECT_EQ(batch[199 + i].statement, "SELECT " + std::to_string(201 - i));
}

// The primary's identities: its own key's, never the labels; each text hashed once however many
// short entries name it, also when they alternate between texts (each text a megabyte here).
TEST(ForwardBatch, IdentifiesEachTextOnce) {
    constexpr AuditKey kPrimaryKey = {0x3333333333333333ULL, 0x4444444444444444ULL};
    std::string big(1 << 20, 'x'), other = big;
    other.back() = 'y';
    AuditRecord a = decision(1, big, true, "{\"q\":\"" + big + "\"}");
    AuditRecord b = decision(2, other, true, "{\"q\":\"" + other + "\"}");
    a.reason = b.reason = big;
    a.shape_hash = shape_hash_of(kStandbyKey, a);
    b.reason.back() = 'z';
    b.shape_hash = shape_hash_of(kStandbyKey, b);
    std::string bytes = with_frame(with_frame("", full_of(a)), full_of(b));
    for (std::uint64_t i = 0; i < 400; ++i) {
        AuditRecord &s = i % 2 ? b : a;
        std::uint64_t id = s.decision_id;
        s.decision_id = 10 + i;
        std::string entry = short_of(s);
        s.decision_id = id;
        const auto n = static_cast<std::uint32_t>(entry.size());
        bytes += {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                  static_cast<char>(n)};
        bytes += entry;
    }
    AuditRecord note = decision(9, "SELECT 1");
    note.note = "a note";
    bytes = with_frame(bytes, full_of(note));
    std::vector<AuditView> batch = split_frames(bytes);
    ASSERT_EQ(resolve_short_entries(batch), "");
    std::uint64_t hashed = identify_forwarded(batch, kPrimaryKey);
    EXPECT_LE(hashed, bytes.size());
    const AuditHash of_a[3] = {content_hash(kPrimaryKey, "statement", a.statement),
                               content_hash(kPrimaryKey, "record", a.record),
                               shape_hash_of(kPrimaryKey, a)};
    const AuditHash of_b[3] = {content_hash(kPrimaryKey, "statement", b.statement),
                               content_hash(kPrimaryKey, "record", b.record),
                               shape_hash_of(kPrimaryKey, b)};
    for (std::size_t i = 0; i < batch.size(); ++i) {
        SCOPED_TRACE(i);
        const AuditView &e = batch[i];
        if (!e.note.empty()) {
            EXPECT_TRUE(e.statement_hash.none() && e.shape_hash.none() && e.record_hash.none());
            continue;
        }
        const AuditHash *want = i == 1 || (i >= 2 && i % 2 == 1) ? of_b : of_a;
        EXPECT_EQ(e.statement_hash, want[0]);
        EXPECT_EQ(e.record_hash, want[1]);
        EXPECT_EQ(e.shape_hash, want[2]);
    }
}

TEST(ForwardBatch, SplitNamesTheEntryCutShortOrMalformed) {
    std::string one = with_frame("", full_of(decision(1, "SELECT 1")));
    EXPECT_THROW(
        {
            try {
                split_frames(one + std::string("\0\0", 2));
            } catch (const AuditFormatError &e) {
                EXPECT_STREQ(e.what(), "entry 2 is cut short");
                throw;
            }
        },
        AuditFormatError);
    EXPECT_THROW(
        {
            try {
                split_frames(one.substr(0, one.size() - 1));
            } catch (const AuditFormatError &e) {
                EXPECT_STREQ(e.what(), "entry 1 is cut short");
                throw;
            }
        },
        AuditFormatError);
    std::string bad = full_of(decision(2, "SELECT 1"));
    bad[0] = 'X';
    EXPECT_THROW(
        {
            try {
                split_frames(with_frame(one, bad));
            } catch (const AuditFormatError &e) {
                EXPECT_STREQ(e.what(), "entry 2 is malformed: unknown audit entry format");
                throw;
            }
        },
        AuditFormatError);
    EXPECT_TRUE(split_frames("").empty());
}

}  // namespace
}  // namespace clarify
