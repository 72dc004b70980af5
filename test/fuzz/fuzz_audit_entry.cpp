// The audit-entry decoder on any bytes (a queue entry is only ever written by encode(), but the
// writer must not trust shared memory blindly): it refuses with AuditFormatError or returns an
// entry that encodes back to bytes decoding to the same entry.
#include "core/audit/record.hpp"
#include "fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

using namespace clarify;

namespace {

std::optional<AuditView> decode_or_refuse(std::string_view bytes) {
    try {
        return decode_view(bytes);
    } catch (const AuditFormatError &) {
        return std::nullopt;
    }
}

bool same(const AuditRecord &a, const AuditRecord &b) {
    return a.decision_id == b.decision_id && a.decided_at == b.decided_at &&
           a.database == b.database && a.session_role == b.session_role &&
           a.acting_role == b.acting_role && a.pid == b.pid && a.query_id == b.query_id &&
           a.allowed == b.allowed && a.sync == b.sync && a.state == b.state &&
           a.question_id == b.question_id && a.statement == b.statement && a.reason == b.reason &&
           a.columns == b.columns && a.bindings == b.bindings && a.payload == b.payload &&
           a.record == b.record && a.note == b.note && a.record_hash == b.record_hash &&
           a.shape_hash == b.shape_hash && a.statement_hash == b.statement_hash &&
           a.is_short == b.is_short && a.entity_bindings == b.entity_bindings;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char *>(data), size);
    AuditHash hashes[3];
    bool short_entry = short_entry_hashes(bytes.substr(0, kAuditEntryPrefix), hashes);

    auto view = decode_or_refuse(bytes);
    if (!view) {
        // decode() refuses exactly what decode_view() refuses.
        try {
            decode(bytes);
            FUZZ_CHECK(!"decode() accepted what decode_view() refused");
        } catch (const AuditFormatError &) {
        }
        return 0;
    }
    AuditRecord record = to_record(*view);
    FUZZ_CHECK(same(decode(bytes), record));

    // The writer's lock-free peek at a short entry agrees with the full decoder.
    FUZZ_CHECK(short_entry == view->is_short);
    if (short_entry)
        FUZZ_CHECK(hashes[0] == view->statement_hash && hashes[1] == view->shape_hash &&
                   hashes[2] == view->record_hash);

    // Encoding what was decoded gives an entry that decodes to the same thing.
    std::string again;
    if (record.is_short) {
        // A short entry whose record hash disagrees with its (absent) record text is still one
        // the decoder takes; encode_short() is stricter about what it writes.
        if (!can_encode_short(record)) return 0;
        encode_short(record, again);
    } else {
        encode(record, again);
    }
    FUZZ_CHECK(same(decode(again), record));

    // Patching rewrites the id and the time, nothing else.
    patch_entry(again, record.decision_id ^ 0x5555, record.decided_at + 1);
    AuditRecord patched = decode(again);
    FUZZ_CHECK(patched.decision_id == (record.decision_id ^ 0x5555));
    FUZZ_CHECK(patched.decided_at == record.decided_at + 1);
    patched.decision_id = record.decision_id;
    patched.decided_at = record.decided_at;
    FUZZ_CHECK(same(patched, record));

    // Rewriting the entity bindings (the last field) changes them and nothing else.
    const std::string other = record.entity_bindings.empty() ? "[1]" : "";
    if (record.note.empty()) {
        patch_entity_bindings(again, record.entity_bindings, other);
        AuditRecord rebound = decode(again);
        FUZZ_CHECK(rebound.entity_bindings == other);
        rebound.entity_bindings = record.entity_bindings;
        rebound.decision_id = record.decision_id;
        rebound.decided_at = record.decided_at;
        FUZZ_CHECK(same(rebound, record));
    }

    // The shape hash is the same whether computed from the view or from the copy.
    AuditKey key{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
    FUZZ_CHECK(shape_hash_of(key, *view) == shape_hash_of(key, record));
    return 0;
}
