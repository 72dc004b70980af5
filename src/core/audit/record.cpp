#include "core/audit/record.hpp"
#include "core/render/payload.hpp"

#include <cstring>

namespace clarify {

std::string decision_reason(const Decision &d) {
    if (!d.slots.empty()) return d.slots.front().reason;
    if (d.covered.empty()) return "no governed column read";
    return "every governed column read was resolved";
}

const char *to_string(Enforcement mode) {
    switch (mode) {
        case Enforcement::Warn:
            return "warn";
        case Enforcement::Audit:
            return "audit";
        case Enforcement::Enforce:
            break;
    }
    return "enforce";
}

void apply_enforcement(AuditRecord &a, Enforcement mode) {
    a.enforcement = mode;
    a.would_reject = false;
    if (mode == Enforcement::Enforce) return;
    a.would_reject = !a.allowed;
    a.allowed = true;
    std::string key = std::string("\"enforcement\":\"") + to_string(mode) + "\"";
    if (a.payload.size() < 2 || a.payload.back() != '}')
        a.payload = "{" + key + "}";
    else
        a.payload.insert(a.payload.size() - 1, (a.payload.size() > 2 ? "," : "") + key);
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

void put_hash(std::string &out, const AuditHash &h) {
    put(out, h.lo);
    put(out, h.hi);
}

void put_text(std::string &out, std::string_view s) {
    put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
    out.append(s.data(), s.size());
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
    AuditHash hash() {
        AuditHash h;
        h.lo = get<std::uint64_t>();
        h.hi = get<std::uint64_t>();
        return h;
    }
    bool done() const { return pos_ == bytes_.size(); }

  private:
    void need(std::size_t n) const {
        if (bytes_.size() - pos_ < n) throw AuditFormatError("truncated audit entry");
    }
    std::string_view bytes_;
    std::size_t pos_ = 0;
};

// AUD7 ends every entry with its entity bindings; AUD6 entries (in the write-ahead log from before
// an update) are read as having none.
constexpr std::uint32_t kFormat = 0x41554437;      // "AUD7"
constexpr std::uint32_t kFormatAud6 = 0x41554436;  // "AUD6"
constexpr std::uint8_t kShortEntry = 1;

}  // namespace

namespace {
// Writes the fixed part of an AuditRecord or an AuditView.
template <typename Entry>
void put_fixed(const Entry &a, std::string &out, std::uint8_t flags) {
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
    put_hash(out, a.record_hash);
    put_hash(out, a.shape_hash);
    put_hash(out, a.statement_hash);
    put(out, flags);
}
}  // namespace

void encode(const AuditRecord &a, std::string &out) {
    put_fixed(a, out, 0);
    for (const std::string *s : {&a.question_id, &a.statement, &a.reason, &a.columns, &a.bindings,
                                 &a.payload, &a.record, &a.note, &a.entity_bindings})
        put_text(out, *s);
}

bool can_encode_short(const AuditRecord &a) {
    return a.note.empty() && a.statement_hash && a.shape_hash &&
           (a.record.empty() ? a.record_hash.none() : !a.record_hash.none());
}

void encode_short(const AuditRecord &a, std::string &out) {
    if (!can_encode_short(a)) throw AuditFormatError("a short audit entry needs its hashes");
    put_fixed(a, out, kShortEntry);
    put_text(out, a.question_id);
    put_text(out, a.entity_bindings);
}

bool can_encode_short(const AuditView &a) {
    return !a.is_short && a.note.empty() && a.statement_hash && a.shape_hash &&
           (a.record.empty() ? a.record_hash.none() : !a.record_hash.none());
}

void encode_short(const AuditView &a, std::string &out) {
    if (!can_encode_short(a)) throw AuditFormatError("a short audit entry needs its hashes");
    put_fixed(a, out, kShortEntry);
    put_text(out, a.question_id);
    put_text(out, a.entity_bindings);
}

bool same_shape(const AuditView &a, const AuditView &b) {
    return a.allowed == b.allowed && a.state == b.state && a.reason == b.reason &&
           a.columns == b.columns && a.bindings == b.bindings && a.payload == b.payload;
}

void patch_entry(std::string &entry, std::uint64_t decision_id, std::int64_t decided_at) {
    constexpr std::size_t kId = sizeof(kFormat), kAt = kId + sizeof(decision_id);
    if (entry.size() < kAt + sizeof(decided_at)) throw AuditFormatError("truncated audit entry");
    std::memcpy(entry.data() + kId, &decision_id, sizeof(decision_id));
    std::memcpy(entry.data() + kAt, &decided_at, sizeof(decided_at));
}

void patch_entity_bindings(std::string &entry, std::string_view was, std::string_view now) {
    const std::size_t tail = sizeof(std::uint32_t) + was.size();
    if (entry.size() < kAuditEntryPrefix + tail) throw AuditFormatError("truncated audit entry");
    std::uint32_t length;
    std::memcpy(&length, entry.data() + entry.size() - tail, sizeof(length));
    if (length != was.size() || std::string_view(entry).substr(entry.size() - was.size()) != was)
        throw AuditFormatError("audit entry without the entity bindings to patch");
    entry.resize(entry.size() - tail);
    put_text(entry, now);
}

std::string with_entity_bindings_json(std::string_view bindings, std::string_view entity_bindings) {
    // Both are arrays as the gate renders them ("[]" or "[{...},...]"): spliced, not parsed.
    if (entity_bindings.size() <= 2) return std::string(bindings);
    std::string out(bindings.size() >= 2 ? bindings.substr(0, bindings.size() - 1) : "[");
    if (out.size() > 1) out += ",";
    out.append(entity_bindings.substr(1));
    return out;
}

bool short_entry_hashes(std::string_view prefix, AuditHash hashes[3]) noexcept {
    // Fixed offsets, no Reader: this runs under a lock on shared memory and must not throw.
    constexpr std::size_t kRecord = 4 + 8 + 8 + 4 * 4 + 8 + 3, kShape = kRecord + 16,
                          kStatement = kShape + 16, kFlags = kStatement + 16;
    static_assert(kFlags + 1 == kAuditEntryPrefix, "the prefix ends with the flags byte");
    if (prefix.size() < kAuditEntryPrefix) return false;
    std::uint32_t format;
    std::memcpy(&format, prefix.data(), sizeof(format));
    if ((format != kFormat && format != kFormatAud6) ||
        static_cast<std::uint8_t>(prefix[kFlags]) != kShortEntry)
        return false;
    auto hash_at = [&prefix](std::size_t offset) {
        AuditHash h;
        std::memcpy(&h.lo, prefix.data() + offset, 8);
        std::memcpy(&h.hi, prefix.data() + offset + 8, 8);
        return h;
    };
    AuditHash record = hash_at(kRecord), shape = hash_at(kShape), statement = hash_at(kStatement);
    if (statement.none() || shape.none()) return false;
    hashes[0] = statement;
    hashes[1] = shape;
    hashes[2] = record;
    return true;
}

AuditRecord decode(std::string_view bytes) {
    return to_record(decode_view(bytes));
}

namespace {
template <typename R>
AuditHash shape_hash_impl(const AuditKey &k, const R &a) {
    // Each part after its length: no two different shapes give the same bytes, whatever their
    // texts contain (a reason can hold any character an agent put in a term).
    SipHash128 sip(k);
    sip.update(std::string_view("shape\0", 6));
    sip.update(a.allowed ? "1" : "0");
    for (std::string_view part :
         {std::string_view(to_string(a.state)), std::string_view(a.reason),
          std::string_view(a.columns), std::string_view(a.bindings), std::string_view(a.payload)}) {
        unsigned char length[8];
        for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(part.size() >> (8 * i));
        sip.update(std::string_view(reinterpret_cast<const char *>(length), 8));
        sip.update(part);
    }
    AuditHash h = sip.finish();
    if (h.none()) h.lo = 1;
    return h;
}
}  // namespace

AuditHash shape_hash_of(const AuditKey &key, const AuditRecord &a) {
    return shape_hash_impl(key, a);
}
AuditHash shape_hash_of(const AuditKey &key, const AuditView &a) {
    return shape_hash_impl(key, a);
}

AuditView decode_view(std::string_view bytes) {
    Reader r(bytes);
    const auto format = r.get<std::uint32_t>();
    if (format != kFormat && format != kFormatAud6)
        throw AuditFormatError("unknown audit entry format");
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
    if (state > static_cast<std::uint8_t>(State::Grain))
        throw AuditFormatError("audit entry with an unknown state");
    a.state = static_cast<State>(state);
    a.record_hash = r.hash();
    a.shape_hash = r.hash();
    a.statement_hash = r.hash();
    auto flags = r.get<std::uint8_t>();
    if (flags & ~kShortEntry) throw AuditFormatError("audit entry with unknown flags");
    a.is_short = flags == kShortEntry;
    if (a.is_short) {
        if (a.statement_hash.none() || a.shape_hash.none())
            throw AuditFormatError("short audit entry without its hashes");
        a.question_id = r.view();
    } else {
        for (std::string_view *s : {&a.question_id, &a.statement, &a.reason, &a.columns,
                                    &a.bindings, &a.payload, &a.record, &a.note})
            *s = r.view();
    }
    if (format == kFormat) a.entity_bindings = r.view();
    if (!a.note.empty() && !a.entity_bindings.empty())
        throw AuditFormatError("audit note with entity bindings");
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
    a.is_short = v.is_short;
    a.question_id = v.question_id;
    a.statement = v.statement;
    a.reason = v.reason;
    a.columns = v.columns;
    a.bindings = v.bindings;
    a.payload = v.payload;
    a.record = v.record;
    a.note = v.note;
    a.entity_bindings = v.entity_bindings;
    return a;
}

}  // namespace clarify
