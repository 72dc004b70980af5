// A decision's entity bindings travel as its own data, not its shape's (core/audit/record.hpp,
// AuditRecord::entity_bindings): queue entries full and short, the old entry format, the tail
// patch, the writer's rows and a standby's forwarded batch.
#include "core/audit/batch_rows.hpp"
#include "core/audit/forward_batch.hpp"
#include "core/audit/record.hpp"
#include "core/entity/entity.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace clarify {
namespace {

constexpr AuditKey kKey = {0x0123456789abcdefULL, 0xfedcba9876543210ULL};
const char *const kAcme =
    R"([{"key":"42","kind":"entity","relation":"crm.customers","value":"Acme"}])";
const char *const kGlobex =
    R"([{"key":"7","kind":"entity","relation":"crm.customers","value":"Globex Corporation"}])";

AuditRecord sample(const std::string &entity_bindings) {
    AuditRecord a;
    a.decision_id = 99;
    a.decided_at = 817654321000000;
    a.database = 16384;
    a.session_role = a.acting_role = 16400;
    a.pid = 4242;
    a.question_id = "q_7";
    a.statement = "SELECT mrr FROM crm.customers WHERE name = $1";
    a.reason = "every governed column read was resolved";
    a.columns = R"(["crm.customers.mrr"])";
    a.bindings = R"([{"concept":"metric.mrr","source":"only_eligible"}])";
    a.entity_bindings = entity_bindings;
    a.shape_hash = shape_hash_of(kKey, a);
    a.statement_hash = content_hash(kKey, "statement", a.statement);
    return a;
}

void encode_as(bool is_short, const AuditRecord &a, std::string &out) {
    if (is_short)
        encode_short(a, out);
    else
        encode(a, out);
}

TEST(AuditEntityBindings, FullAndShortEntriesCarryThem) {
    AuditRecord a = sample(kAcme);
    std::string full, brief;
    encode(a, full);
    encode_short(a, brief);
    EXPECT_EQ(decode(full).entity_bindings, kAcme);
    EXPECT_EQ(decode_view(brief).entity_bindings, kAcme);
    EXPECT_TRUE(decode_view(brief).is_short);
    EXPECT_EQ(decode(full).bindings, a.bindings);  // the shape's, without them
    // None: an empty text, four bytes.
    std::string none;
    encode(sample(""), none);
    EXPECT_EQ(decode(none).entity_bindings, "");
    EXPECT_EQ(full.size() - none.size(), std::strlen(kAcme));
}

TEST(AuditEntityBindings, TheShapeIsTheSameWhicheverKeyANameIsBoundTo) {
    AuditRecord acme = sample(kAcme), globex = sample(kGlobex), none = sample("");
    EXPECT_EQ(shape_hash_of(kKey, acme), shape_hash_of(kKey, globex));
    EXPECT_EQ(shape_hash_of(kKey, acme), shape_hash_of(kKey, none));
    std::string a, b;
    encode(acme, a);
    encode(globex, b);
    EXPECT_TRUE(same_shape(decode_view(a), decode_view(b)));
}

TEST(AuditEntityBindings, PatchingRewritesOnlyTheTail) {
    for (bool is_short : {false, true}) {
        AuditRecord a = sample(kAcme);
        std::string entry, expected;
        encode_as(is_short, a, entry);
        patch_entity_bindings(entry, kAcme, kGlobex);
        a.entity_bindings = kGlobex;
        encode_as(is_short, a, expected);
        EXPECT_EQ(entry, expected);
        patch_entity_bindings(entry, kGlobex, "");
        EXPECT_EQ(decode_view(entry).entity_bindings, "");
        patch_entity_bindings(entry, "", kAcme);
        EXPECT_EQ(decode_view(entry).entity_bindings, kAcme);
        // Only an entry that ends with what it is told it holds.
        EXPECT_THROW(patch_entity_bindings(entry, kGlobex, ""), AuditFormatError);
        std::string tiny = "AUD7";
        EXPECT_THROW(patch_entity_bindings(tiny, "", kAcme), AuditFormatError);
    }
}

TEST(AuditEntityBindings, EntriesOfTheFormerFormatAreStillRead) {
    // An AUD6 entry (in the write-ahead log from before an update): AUD7 without the last text.
    for (bool is_short : {false, true}) {
        AuditRecord a = sample("");
        std::string entry;
        if (is_short)
            encode_short(a, entry);
        else
            encode(a, entry);
        entry.resize(entry.size() - 4);
        entry[0] = '6';  // the format word, little-endian
        AuditView v = decode_view(entry);
        EXPECT_EQ(v.is_short, is_short);
        EXPECT_EQ(v.entity_bindings, "");
        EXPECT_EQ(v.question_id, "q_7");
        AuditHash hashes[3];
        EXPECT_EQ(short_entry_hashes(entry, hashes), is_short);
        // Without the cut it is no AUD6 entry.
        entry += std::string(4, '\0');
        EXPECT_THROW(decode_view(entry), AuditFormatError);
    }
}

TEST(AuditEntityBindings, MalformedEntriesAreRefused) {
    std::string full;
    encode(sample(kAcme), full);
    for (std::size_t cut = 1; cut <= std::strlen(kAcme) + 4; ++cut)
        EXPECT_THROW(decode_view(full.substr(0, full.size() - cut)), AuditFormatError) << cut;
    // A length beyond the entry.
    std::string longer = full;
    const std::uint32_t huge = 0xfffffff0u;
    std::memcpy(longer.data() + full.size() - std::strlen(kAcme) - 4, &huge, 4);
    EXPECT_THROW(decode_view(longer), AuditFormatError);
    // A note is about an earlier decision: it binds nothing.
    AuditRecord note;
    note.decision_id = 5;
    note.note = "refused with QC005";
    note.entity_bindings = kAcme;
    std::string bytes;
    encode(note, bytes);
    EXPECT_THROW(decode_view(bytes), AuditFormatError);
}

TEST(AuditEntityBindings, ShownAfterTheShapesBindings) {
    EXPECT_EQ(with_entity_bindings_json("[]", ""), "[]");
    EXPECT_EQ(with_entity_bindings_json("[]", "[]"), "[]");
    EXPECT_EQ(with_entity_bindings_json("[]", kAcme), kAcme);
    EXPECT_EQ(with_entity_bindings_json(R"([{"a":1}])", R"([{"b":2},{"c":3}])"),
              R"([{"a":1},{"b":2},{"c":3}])");
    EXPECT_EQ(with_entity_bindings_json(R"([{"a":1}])", ""), R"([{"a":1}])");
}

TEST(AuditEntityBindings, RenderedAsTheDecisionWouldRenderThem) {
    Entity e;
    e.relation = 5000;
    e.relation_name = "crm.customers";
    e.label = "Customer";
    EntityLookup one, many;
    one.entity = many.entity = &e;
    one.value = "Ac\"me \u00c4";
    one.matches = {{"42", "x"}};
    many.value = "Many";
    many.matches = {{"1", "a"}, {"2", "b"}};
    std::string out = "stale";
    entity_bindings_json({one, many}, out);
    Decision bound;
    add_entity_outcomes(bound, {one});
    EXPECT_EQ(out, bindings_json(bound));
    entity_bindings_json({many}, out);
    EXPECT_EQ(out, "");
    entity_bindings_json({}, out);
    EXPECT_EQ(out, "");
}

TEST(AuditEntityBindings, TheWritersRowsHoldThemPerDecision) {
    WriterCache cache;
    cache.begin_batch(1, {100, 101, Width::Wide});
    std::vector<AuditRecord> batch = {sample(kAcme), sample(""), sample(kGlobex)};
    batch[1].decision_id = 100;
    batch[2].decision_id = 101;
    BatchRows rows = batch_rows(batch, cache, {}, kKey, Width::Wide);
    ASSERT_EQ(rows.entity_bindings.size(), 3u);
    EXPECT_EQ(rows.entity_bindings[0], std::optional<std::string>(kAcme));
    EXPECT_EQ(rows.entity_bindings[1], std::nullopt);
    EXPECT_EQ(rows.entity_bindings[2], std::optional<std::string>(kGlobex));
    EXPECT_TRUE(rows.any_entity_bindings);
    EXPECT_EQ(rows.new_shapes.ids.size(), 1u);  // one shape for the three
    BatchRows plain =
        batch_rows(std::vector<AuditRecord>{sample("")}, cache, {}, kKey, Width::Wide);
    EXPECT_FALSE(plain.any_entity_bindings);
    // The reduced row of an unwritable decision stores none (they may be why it failed).
    EXPECT_EQ(unwritable(sample(kAcme), "bad").entity_bindings, "");
}

TEST(AuditEntityBindings, AForwardedBatchKeepsThemOnShortenedEntries) {
    ForwardedFrames frames;
    std::string first, second;
    AuditRecord a = sample(kAcme), b = sample(kGlobex);
    b.decision_id = 100;
    encode(a, first);
    encode(b, second);
    ASSERT_TRUE(frames.add(first, decode_view(first)));
    ASSERT_TRUE(frames.add(second, decode_view(second)));
    EXPECT_EQ(frames.shortened(), 1u);  // the same shape: the second goes short
    std::vector<AuditView> batch = split_frames(frames.bytes());
    ASSERT_EQ(resolve_short_entries(batch), "");
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_EQ(batch[0].entity_bindings, kAcme);
    EXPECT_EQ(batch[1].entity_bindings, kGlobex);
    EXPECT_EQ(batch[1].bindings, a.bindings);
    identify_forwarded(batch, kKey);
    EXPECT_EQ(batch[0].shape_hash, batch[1].shape_hash);
}

}  // namespace
}  // namespace clarify
