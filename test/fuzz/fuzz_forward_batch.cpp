// Forwarded batches (src/core/audit/forward_batch.hpp), both sides. The first byte picks one:
// - even: the rest is a batch as a sender may craft it. Splitting, resolving and identifying it
//   refuse or succeed; once resolved, no entry is short, every text lies in the batch's own bytes
//   and the bytes hashed for its identities never exceed the batch's.
// - odd: the rest chooses decisions (texts from a small pool, full, short already, notes, hashes
//   missing) that a standby's writer adds to a batch. The primary always resolves that batch, and
//   each entry keeps its fixed fields, and its texts when the batch could carry them.
#include "core/audit/forward_batch.hpp"
#include "fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace clarify;

namespace {

constexpr AuditKey kStandbyKey = {0x0123456789abcdefULL, 0x0fedcba987654321ULL};
constexpr AuditKey kPrimaryKey = {0x1111111111111111ULL, 0x2222222222222222ULL};

bool inside(std::string_view text, std::string_view bytes) {
    return text.empty() || (text.data() >= bytes.data() &&
                            text.data() + text.size() <= bytes.data() + bytes.size());
}

void as_sent(std::string_view bytes) {
    std::vector<AuditView> batch;
    try {
        batch = split_frames(bytes);
    } catch (const AuditFormatError &) {
        return;
    }
    if (!resolve_short_entries(batch).empty()) return;
    for (const AuditView &a : batch) {
        FUZZ_CHECK(!a.is_short);
        for (std::string_view text : {a.question_id, a.statement, a.reason, a.columns, a.bindings,
                                      a.payload, a.record, a.note})
            FUZZ_CHECK(inside(text, bytes));
    }
    FUZZ_CHECK(identify_forwarded(batch, kPrimaryKey) <= bytes.size());
}

AuditRecord chosen(std::uint8_t what, std::uint8_t texts, std::uint64_t id) {
    static const char *const statements[] = {"SELECT 1", "SELECT 2", "", "SELECT 1 "};
    static const char *const records[] = {"", "{\"question_id\":\"q1\"}",
                                          "{\"question_id\":\"q2\"}", ""};
    AuditRecord a;
    a.decision_id = id;
    a.decided_at = 1'700'000'000'000'000 + static_cast<std::int64_t>(id);
    a.database = 16384;
    a.allowed = (texts & 0x10) == 0;
    a.sync = (what & 0x40) != 0;
    a.state = a.allowed ? State::Resolved : State::Ambiguous;
    a.question_id = (what & 0x80) ? "q" : "";
    a.statement = statements[texts & 3];
    a.reason = (texts & 0x20) ? "resolved" : "not resolved";
    a.columns = (texts & 0x40) ? "[\"a\"]" : "[]";
    a.bindings = "[]";
    a.payload = a.allowed ? "" : "{\"state\":\"AMBIGUOUS\"}";
    a.record = records[(texts >> 2) & 3];
    a.statement_hash = content_hash(kStandbyKey, "statement", a.statement);
    a.shape_hash = shape_hash_of(kStandbyKey, a);
    if (!a.record.empty()) a.record_hash = content_hash(kStandbyKey, "record", a.record);
    // Hashes a backend may not have given (none), and notes, which carry no decision's texts.
    if (what & 0x04) a.statement_hash = AuditHash{};
    if (what & 0x08) a.record_hash = AuditHash{};
    if ((what & 0x03) == 1) {
        a.note = "refused";
        a.statement_hash = a.shape_hash = a.record_hash = AuditHash{};
    }
    return a;
}

void as_framed(std::string_view choices) {
    ForwardedFrames frames;
    std::vector<AuditRecord> added;
    std::vector<bool> queued_short;
    std::string entry;
    for (std::size_t i = 0; i + 1 < choices.size() && added.size() < 64; i += 2) {
        AuditRecord a = chosen(static_cast<std::uint8_t>(choices[i]),
                               static_cast<std::uint8_t>(choices[i + 1]), added.size() + 1);
        bool short_already = (choices[i] & 0x03) == 2 && can_encode_short(a);
        entry.clear();
        if (short_already)
            encode_short(a, entry);
        else
            encode(a, entry);
        FUZZ_CHECK(frames.add(entry, decode_view(entry)));
        added.push_back(a);
        queued_short.push_back(short_already);
    }
    std::vector<AuditView> batch = split_frames(frames.bytes());
    FUZZ_CHECK(batch.size() == added.size());
    FUZZ_CHECK(resolve_short_entries(batch).empty());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const AuditView &got = batch[i];
        const AuditRecord &want = added[i];
        FUZZ_CHECK(!got.is_short);
        FUZZ_CHECK(got.decision_id == want.decision_id && got.decided_at == want.decided_at &&
                   got.allowed == want.allowed && got.state == want.state &&
                   got.sync == want.sync && got.question_id == want.question_id);
        // One short in the queue whose texts the batch did not carry stands in for them.
        bool stood_in = queued_short[i] && got.statement != want.statement;
        if (stood_in) continue;
        FUZZ_CHECK(got.statement == want.statement && got.reason == want.reason &&
                   got.columns == want.columns && got.bindings == want.bindings &&
                   got.payload == want.payload && got.note == want.note);
        // A record without its hash goes in full or not at all (never named by a short entry).
        FUZZ_CHECK(got.record == want.record);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0) return 0;
    std::string_view rest(reinterpret_cast<const char *>(data) + 1, size - 1);
    if (data[0] % 2 == 0)
        as_sent(rest);
    else
        as_framed(rest);
    return 0;
}
