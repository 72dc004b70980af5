#include "core/audit/hash.hpp"

#include <cstring>

namespace clarify {

namespace {

std::uint64_t rotl(std::uint64_t x, int b) {
    return (x << b) | (x >> (64 - b));
}

// Little-endian whatever the machine: identities must not depend on the host's byte order.
std::uint64_t load_le(const unsigned char *p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

void store_le(std::uint64_t v, unsigned char *p) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void sip_round(std::uint64_t v[4]) {
    v[0] += v[1];
    v[1] = rotl(v[1], 13);
    v[1] ^= v[0];
    v[0] = rotl(v[0], 32);
    v[2] += v[3];
    v[3] = rotl(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = rotl(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = rotl(v[1], 17);
    v[1] ^= v[2];
    v[2] = rotl(v[2], 32);
}

void compress(std::uint64_t v[4], std::uint64_t m) {
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
}

}  // namespace

SipHash128::SipHash128(const AuditKey &key) {
    v_[0] = key.k0 ^ 0x736f6d6570736575ULL;
    v_[1] = key.k1 ^ 0x646f72616e646f6dULL ^ 0xee;  // 0xee: the 128-bit output variant
    v_[2] = key.k0 ^ 0x6c7967656e657261ULL;
    v_[3] = key.k1 ^ 0x7465646279746573ULL;
}

void SipHash128::update(std::string_view bytes) {
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
    std::size_t n = bytes.size();
    if (n == 0) return;  // an empty view may have no data, and memcpy must not see a null pointer
    length_ += n;
    if (tail_size_ > 0) {
        std::size_t take = n < 8 - tail_size_ ? n : 8 - tail_size_;
        std::memcpy(tail_ + tail_size_, p, take);
        tail_size_ += take;
        p += take;
        n -= take;
        if (tail_size_ < 8) return;
        compress(v_, load_le(tail_));
        tail_size_ = 0;
    }
    for (; n >= 8; p += 8, n -= 8) compress(v_, load_le(p));
    std::memcpy(tail_, p, n);
    tail_size_ = n;
}

AuditHash SipHash128::finish() const {
    std::uint64_t v[4] = {v_[0], v_[1], v_[2], v_[3]};
    std::uint64_t last = length_ << 56;
    for (std::size_t i = 0; i < tail_size_; ++i) last |= std::uint64_t(tail_[i]) << (8 * i);
    compress(v, last);
    v[2] ^= 0xee;
    for (int i = 0; i < 4; ++i) sip_round(v);
    AuditHash h;
    h.lo = v[0] ^ v[1] ^ v[2] ^ v[3];
    v[1] ^= 0xdd;
    for (int i = 0; i < 4; ++i) sip_round(v);
    h.hi = v[0] ^ v[1] ^ v[2] ^ v[3];
    return h;
}

AuditHash content_hash(const AuditKey &key, std::string_view kind, std::string_view text) {
    SipHash128 sip(key);
    sip.update(kind);
    sip.update(std::string_view("\0", 1));
    sip.update(text);
    AuditHash h = sip.finish();
    if (h.none()) h.lo = 1;  // 2^-128: kept only so that "none" stays unambiguous
    return h;
}

void hash_to_bytes(const AuditHash &hash, unsigned char out[16]) {
    store_le(hash.lo, out);
    store_le(hash.hi, out + 8);
}

AuditHash hash_from_bytes(const unsigned char bytes[16]) {
    return AuditHash{load_le(bytes), load_le(bytes + 8)};
}

std::string hash_to_uuid_text(const AuditHash &hash) {
    static const char digits[] = "0123456789abcdef";
    unsigned char bytes[16];
    hash_to_bytes(hash, bytes);
    std::string out;
    out.reserve(36);
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 0xF];
    }
    return out;
}

}  // namespace clarify
