// The audit's keyed identities: SipHash-2-4 with 128-bit output, checked against the reference
// implementation's published vectors, and the properties the audit relies on.
#include "core/audit/hash.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace clarify {
namespace {

// The reference key 00 01 02 ... 0f.
constexpr AuditKey kReferenceKey = {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};

std::string reference_input(std::size_t length) {
    std::string in;
    for (std::size_t i = 0; i < length; ++i) in += static_cast<char>(i);
    return in;
}

std::string hex(const AuditHash &h) {
    unsigned char bytes[16];
    hash_to_bytes(h, bytes);
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 0xF];
    }
    return out;
}

AuditHash sip(const AuditKey &key, std::string_view text) {
    SipHash128 s(key);
    s.update(text);
    return s.finish();
}

// SipHash-2-4-128 of the inputs 00, 00 01, ... under the reference key (the reference
// implementation's vectors_sip128), one vector for every length of the last block and beyond.
TEST(AuditHash, MatchesTheReferenceVectors) {
    const std::pair<std::size_t, const char *> vectors[] = {
        {0, "a3817f04ba25a8e66df67214c7550293"},  {1, "da87c1d86b99af44347659119b22fc45"},
        {2, "8177228da4a45dc7fca38bdef60affe4"},  {3, "9c70b60c5267a94e5f33b6b02985ed51"},
        {4, "f88164c12d9c8faf7d0f6e7c7bcd5579"},  {5, "1368875980776f8854527a07690e9627"},
        {6, "14eeca338b208613485ea0308fd7a15e"},  {7, "a1f1ebbed8dbc153c0b84aa61ff08239"},
        {8, "3b62a9ba6258f5610f83e264f31497b4"},  {9, "264499060ad9baabc47f8b02bb6d71ed"},
        {15, "5493e99933b0a8117e08ec0f97cfc3d9"}, {16, "6ee2a4ca67b054bbfd3315bf85230577"},
        {17, "473d06e8738db89854c066c47ae47740"}, {31, "2939b0183223fafc1723de4f52c43d35"},
        {32, "7c3956ca5eeafc3e363e9d556546eb68"}, {63, "5150d1772f50834a503e069a973fbd7c"},
    };
    for (const auto &[length, expected] : vectors)
        EXPECT_EQ(hex(sip(kReferenceKey, reference_input(length))), expected) << length;
}

TEST(AuditHash, GivesTheSameHashWhateverTheInputIsCutInto) {
    std::string in = reference_input(63);
    AuditHash whole = sip(kReferenceKey, in);
    for (std::size_t a = 0; a <= in.size(); a += 5)
        for (std::size_t b = a; b <= in.size(); b += 3) {
            SipHash128 s(kReferenceKey);
            s.update(std::string_view(in).substr(0, a));
            s.update(std::string_view(in).substr(a, b - a));
            s.update(std::string_view(in).substr(b));
            EXPECT_EQ(s.finish(), whole) << a << " " << b;
        }
}

// Found by fuzz_audit_entry: an empty text read in place (an AuditView field of a short entry)
// is a view with no data pointer, which memcpy must never be given (UBSan reports it).
TEST(AuditHash, TakesAnEmptyViewWithoutData) {
    std::string in = reference_input(11);
    SipHash128 s(kReferenceKey);
    s.update(std::string_view());
    s.update(std::string_view(in).substr(0, 3));
    s.update(std::string_view());
    s.update(std::string_view(in).substr(3));
    s.update(std::string_view());
    EXPECT_EQ(s.finish(), sip(kReferenceKey, in));
}

TEST(AuditHash, DependsOnEveryBitOfTheKey) {
    const std::string text = "SELECT sum(booked_amount) FROM sales.orders";
    AuditHash base = content_hash(kReferenceKey, "statement", text);
    std::set<std::string> seen{hex(base)};
    for (int bit = 0; bit < 128; ++bit) {
        AuditKey key = kReferenceKey;
        (bit < 64 ? key.k0 : key.k1) ^= 1ULL << (bit % 64);
        AuditHash h = content_hash(key, "statement", text);
        EXPECT_NE(h, base) << bit;
        // Both halves change: neither is a function of the text alone.
        EXPECT_NE(h.lo, base.lo) << bit;
        EXPECT_NE(h.hi, base.hi) << bit;
        seen.insert(hex(h));
    }
    EXPECT_EQ(seen.size(), 129u);
}

TEST(AuditHash, SeparatesKinds) {
    EXPECT_NE(content_hash(kReferenceKey, "statement", "x"),
              content_hash(kReferenceKey, "record", "x"));
    // The kind ends at its NUL: moving bytes between kind and text changes the input.
    EXPECT_NE(content_hash(kReferenceKey, "record", "x"),
              content_hash(kReferenceKey, "recor", "dx"));
    EXPECT_FALSE(content_hash(kReferenceKey, "statement", "").none());
}

// Two statements the audit's earlier unkeyed 64-bit hash gave the same identity to (its last
// 16 comment bytes were computed by inverting that hash): under the keyed hash, with any key,
// they differ.
TEST(AuditHash, TheCraftedPairOfTheUnkeyedHashDoesNotCollide) {
    const std::string audited = "SELECT count(*) FROM sales.orders WHERE booked_amount > 0";
    const std::string ran =
        "SELECT id, customer_id, booked_amount FROM sales.orders /*      I\"(4a0PCM$MTPTpm*/";
    for (std::uint64_t seed = 0; seed < 64; ++seed) {
        AuditKey key{seed * 0x9E3779B97F4A7C15ULL, ~seed};
        EXPECT_NE(content_hash(key, "statement", audited), content_hash(key, "statement", ran));
    }
}

TEST(AuditHash, RoundTripsThroughItsBytesAndUuidText) {
    AuditHash h = sip(kReferenceKey, "");
    unsigned char bytes[16];
    hash_to_bytes(h, bytes);
    EXPECT_EQ(bytes[0], 0xa3);
    EXPECT_EQ(bytes[15], 0x93);
    EXPECT_EQ(hash_from_bytes(bytes), h);
    EXPECT_EQ(hash_to_uuid_text(h), "a3817f04-ba25-a8e6-6df6-7214c7550293");
    EXPECT_TRUE(AuditHash{}.none());
    EXPECT_FALSE(static_cast<bool>(AuditHash{}));
    EXPECT_TRUE(static_cast<bool>(h));
}

}  // namespace
}  // namespace clarify
