// The identity under which the audit stores a statement text, record or decision shape: a keyed
// 128-bit hash (SipHash-2-4, 128-bit output). The key is secret, so nobody who submits a text can
// choose or predict its identity, nor make two texts collide (docs/reference.md, "Tables and
// views").
#pragma once
#include "core/core_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clarify {

// 16 key bytes read as two little-endian words (k0: bytes 0-7).
struct AuditKey {
    std::uint64_t k0 = 0, k1 = 0;
};

// SipHash's 16 output bytes as two little-endian words (lo: bytes 0-7); all zero means "none".
struct AuditHash {
    std::uint64_t lo = 0, hi = 0;
    bool none() const { return lo == 0 && hi == 0; }
    explicit operator bool() const { return !none(); }
    bool operator==(const AuditHash &o) const { return lo == o.lo && hi == o.hi; }
    bool operator!=(const AuditHash &o) const { return !(*this == o); }
};

// For hash tables: the bits are already uniformly distributed.
struct AuditHashHasher {
    std::size_t operator()(const AuditHash &h) const { return static_cast<std::size_t>(h.lo); }
};

// SipHash-2-4 with 128-bit output over the concatenation of every update().
class SipHash128 {
  public:
    explicit SipHash128(const AuditKey &key);
    void update(std::string_view bytes);
    AuditHash finish() const;

  private:
    std::uint64_t v_[4];
    unsigned char tail_[8];
    std::size_t tail_size_ = 0;
    std::uint64_t length_ = 0;
};

// The identity of `text` as a `kind` ("statement", "record", "shape"): kind, a NUL, then text.
// Never all zero (that value means "none").
AuditHash content_hash(const AuditKey &key, std::string_view kind, std::string_view text);

// The 16 bytes in SipHash's output order, as PostgreSQL's uuid stores them.
void hash_to_bytes(const AuditHash &hash, unsigned char out[16]);
AuditHash hash_from_bytes(const unsigned char bytes[16]);
// The same bytes in uuid text form (8-4-4-4-12 lowercase hex digits).
std::string hash_to_uuid_text(const AuditHash &hash);

}  // namespace clarify
