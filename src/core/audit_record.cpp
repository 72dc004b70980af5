#include "audit_record.hpp"
#include "payload.hpp"

#include <cstring>

namespace clarify {

std::string decision_reason(const Decision &d) {
    if (!d.slots.empty()) return d.slots.front().reason;
    if (d.covered.empty()) return "no governed column read";
    return "every governed column read was resolved";
}

AuditRecord audit_record_of(const Catalog &catalog, const Decision &decision,
                            const ResolutionRecord &record) {
    AuditRecord a;
    a.allowed = decision.allowed();
    a.state = decision.state;
    a.question_id = record.question_id;
    a.reason = decision_reason(decision);
    a.columns = columns_json(decision);
    a.bindings = bindings_json(decision);
    if (!a.allowed) a.payload = decision_json(catalog, decision, "", record.question_id, false);
    a.record = record.json;
    return a;
}

namespace {

template <typename T>
void put(std::string &out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

void put_text(std::string &out, const std::string &s) {
    put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
    out += s;
}

class Reader {
  public:
    explicit Reader(std::string_view bytes) : bytes_(bytes) {}
    template <typename T>
    T get() {
        need(sizeof(T));
        T value;
        std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return value;
    }
    std::string_view view() {
        auto n = get<std::uint32_t>();
        need(n);
        std::string_view s = bytes_.substr(pos_, n);
        pos_ += n;
        return s;
    }
    bool done() const { return pos_ == bytes_.size(); }

  private:
    void need(std::size_t n) const {
        if (bytes_.size() - pos_ < n) throw AuditFormatError("truncated audit entry");
    }
    std::string_view bytes_;
    std::size_t pos_ = 0;
};

constexpr std::uint32_t kFormat = 0x41554435;  // "AUD5"
constexpr std::uint8_t kTextsStored = 1;

}  // namespace

namespace {
void put_fixed(const AuditRecord &a, std::string &out, std::uint8_t flags) {
    put(out, kFormat);
    put(out, a.decision_id);
    put(out, a.decided_at);
    put(out, a.database);
    put(out, a.session_role);
    put(out, a.acting_role);
    put(out, a.pid);
    put(out, a.query_id);
    put<std::uint8_t>(out, a.allowed);
    put<std::uint8_t>(out, a.sync);
    put<std::uint8_t>(out, static_cast<std::uint8_t>(a.state));
    put(out, a.record_hash);
    put(out, a.shape_hash);
    put(out, a.statement_hash);
    put(out, flags);
}
}  // namespace

void encode(const AuditRecord &a, std::string &out) {
    put_fixed(a, out, 0);
    for (const std::string *s : {&a.question_id, &a.statement, &a.reason, &a.columns, &a.bindings,
                                 &a.payload, &a.record, &a.note})
        put_text(out, *s);
}

bool can_encode_stored(const AuditRecord &a) {
    return a.note.empty() && a.statement_hash != 0 && a.shape_hash != 0 &&
           (a.record.empty() ? a.record_hash == 0 : a.record_hash != 0);
}

void encode_stored(const AuditRecord &a, std::string &out) {
    if (!can_encode_stored(a)) throw AuditFormatError("a short audit entry needs its hashes");
    put_fixed(a, out, kTextsStored);
    put_text(out, a.question_id);
}

void patch_entry(std::string &entry, std::uint64_t decision_id, std::int64_t decided_at) {
    constexpr std::size_t kId = sizeof(kFormat), kAt = kId + sizeof(decision_id);
    if (entry.size() < kAt + sizeof(decided_at)) throw AuditFormatError("truncated audit entry");
    std::memcpy(entry.data() + kId, &decision_id, sizeof(decision_id));
    std::memcpy(entry.data() + kAt, &decided_at, sizeof(decided_at));
}

bool short_entry_hashes(std::string_view prefix, std::int64_t hashes[3]) noexcept {
    // Fixed offsets, no Reader: this runs under a lock on shared memory and must not throw.
    constexpr std::size_t kRecord = 4 + 8 + 8 + 4 * 4 + 8 + 3, kShape = kRecord + 8,
                          kStatement = kShape + 8, kFlags = kStatement + 8;
    static_assert(kFlags + 1 == kAuditEntryPrefix, "the prefix ends with the flags byte");
    if (prefix.size() < kAuditEntryPrefix) return false;
    std::uint32_t format;
    std::memcpy(&format, prefix.data(), sizeof(format));
    if (format != kFormat || static_cast<std::uint8_t>(prefix[kFlags]) != kTextsStored)
        return false;
    std::int64_t record, shape, statement;
    std::memcpy(&record, prefix.data() + kRecord, 8);
    std::memcpy(&shape, prefix.data() + kShape, 8);
    std::memcpy(&statement, prefix.data() + kStatement, 8);
    if (statement == 0 || shape == 0) return false;
    hashes[0] = statement;
    hashes[1] = shape;
    hashes[2] = record;
    return true;
}

AuditRecord decode(std::string_view bytes) {
    return to_record(decode_view(bytes));
}

// Eight bytes at a time (multiply-xorshift), then a final avalanche; stable across platforms
// with the same byte order, which is all a key stored in the same database needs.
std::int64_t content_hash(std::string_view kind, std::string_view text) {
    constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
    std::uint64_t h = 0x243F6A8885A308D3ULL ^ (text.size() * kMul);
    auto mix = [&h](std::string_view s) {
        std::size_t i = 0;
        for (; i + 8 <= s.size(); i += 8) {
            std::uint64_t word;
            std::memcpy(&word, s.data() + i, 8);
            h = (h ^ word) * kMul;
            h ^= h >> 29;
        }
        std::uint64_t tail = 0;
        std::memcpy(&tail, s.data() + i, s.size() - i);
        h = (h ^ tail ^ (std::uint64_t(s.size() - i) << 56)) * kMul;
        h ^= h >> 32;
    };
    mix(kind);
    mix(text);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return static_cast<std::int64_t>(h);
}

namespace {
template <typename R>
std::int64_t shape_hash_impl(const R &a) {
    std::string key;
    key.reserve(a.reason.size() + a.columns.size() + a.bindings.size() + a.payload.size() + 16);
    key += a.allowed ? "1" : "0";
    key += to_string(a.state);
    for (std::string_view part : {std::string_view(a.reason), std::string_view(a.columns),
                                  std::string_view(a.bindings), std::string_view(a.payload)}) {
        key += '\0';
        key += part;
    }
    return content_hash("shape", key);
}
}  // namespace

std::int64_t shape_hash_of(const AuditRecord &a) {
    return shape_hash_impl(a);
}
std::int64_t shape_hash_of(const AuditView &a) {
    return shape_hash_impl(a);
}

AuditView decode_view(std::string_view bytes) {
    Reader r(bytes);
    if (r.get<std::uint32_t>() != kFormat) throw AuditFormatError("unknown audit entry format");
    AuditView a;
    a.decision_id = r.get<std::uint64_t>();
    a.decided_at = r.get<std::int64_t>();
    a.database = r.get<std::uint32_t>();
    a.session_role = r.get<std::uint32_t>();
    a.acting_role = r.get<std::uint32_t>();
    a.pid = r.get<std::int32_t>();
    a.query_id = r.get<std::int64_t>();
    a.allowed = r.get<std::uint8_t>() != 0;
    a.sync = r.get<std::uint8_t>() != 0;
    auto state = r.get<std::uint8_t>();
    if (state > static_cast<std::uint8_t>(State::Unverified))
        throw AuditFormatError("audit entry with an unknown state");
    a.state = static_cast<State>(state);
    a.record_hash = r.get<std::int64_t>();
    a.shape_hash = r.get<std::int64_t>();
    a.statement_hash = r.get<std::int64_t>();
    auto flags = r.get<std::uint8_t>();
    if (flags & ~kTextsStored) throw AuditFormatError("audit entry with unknown flags");
    a.texts_stored = flags == kTextsStored;
    if (a.texts_stored) {
        if (a.statement_hash == 0 || a.shape_hash == 0)
            throw AuditFormatError("short audit entry without its hashes");
        a.question_id = r.view();
    } else {
        for (std::string_view *s : {&a.question_id, &a.statement, &a.reason, &a.columns,
                                    &a.bindings, &a.payload, &a.record, &a.note})
            *s = r.view();
    }
    if (!r.done()) throw AuditFormatError("audit entry longer than its fields");
    return a;
}

AuditRecord to_record(const AuditView &v) {
    AuditRecord a;
    a.decision_id = v.decision_id;
    a.decided_at = v.decided_at;
    a.database = v.database;
    a.session_role = v.session_role;
    a.acting_role = v.acting_role;
    a.pid = v.pid;
    a.query_id = v.query_id;
    a.allowed = v.allowed;
    a.sync = v.sync;
    a.state = v.state;
    a.record_hash = v.record_hash;
    a.shape_hash = v.shape_hash;
    a.statement_hash = v.statement_hash;
    a.texts_stored = v.texts_stored;
    a.question_id = v.question_id;
    a.statement = v.statement;
    a.reason = v.reason;
    a.columns = v.columns;
    a.bindings = v.bindings;
    a.payload = v.payload;
    a.record = v.record;
    a.note = v.note;
    return a;
}

}  // namespace clarify
