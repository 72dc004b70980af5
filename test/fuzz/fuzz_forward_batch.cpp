// A forwarded batch on any bytes, both ways. As the primary reads it: split_frames() and
// resolve_short_entries() refuse or resolve, and a resolved batch has no short entry left and
// only views into the batch's own bytes. As the standby writes it: the full entries the input
// holds, framed by ForwardedFrames, resolve on the primary to the same texts whenever each hash
// they carry names one text (as the standby's keyed hashes do).
#include "forward_batch.hpp"
#include "fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

using namespace clarify;

namespace {

bool inside(std::string_view part, std::string_view whole) {
    return part.empty() || (part.data() >= whole.data() &&
                            part.data() + part.size() <= whole.data() + whole.size());
}

bool same_texts(const AuditView &a, const AuditView &b) {
    return a.decision_id == b.decision_id && a.allowed == b.allowed && a.state == b.state &&
           a.question_id == b.question_id && a.statement == b.statement && a.reason == b.reason &&
           a.columns == b.columns && a.bindings == b.bindings && a.payload == b.payload &&
           a.record == b.record && a.note == b.note;
}

// Whether every hash the input's full entries carry names one text (as keyed hashes of the texts
// do on a standby): only then may its writer shorten by hash alone.
bool consistent(const std::vector<AuditView> &full) {
    std::map<std::pair<std::uint64_t, std::uint64_t>, const AuditView *> statements, shapes,
        records;
    auto key = [](const AuditHash &h) { return std::make_pair(h.lo, h.hi); };
    for (const AuditView &a : full) {
        if (!can_encode_short(a)) continue;
        auto s = statements.emplace(key(a.statement_hash), &a).first->second;
        auto h = shapes.emplace(key(a.shape_hash), &a).first->second;
        if (s->statement != a.statement || !same_shape(*h, a)) return false;
        if (a.record_hash &&
            records.emplace(key(a.record_hash), &a).first->second->record != a.record)
            return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    std::vector<AuditView> batch;
    try {
        batch = split_frames(bytes);
    } catch (const AuditFormatError &) {
        return 0;
    }
    const std::vector<AuditView> sent = batch;

    // The primary's side.
    if (resolve_short_entries(batch).empty()) {
        for (const AuditView &a : batch) {
            FUZZ_CHECK(!a.is_short);
            for (std::string_view text : {a.question_id, a.statement, a.reason, a.columns,
                                          a.bindings, a.payload, a.record, a.note})
                FUZZ_CHECK(inside(text, bytes));
        }
    }

    // The standby's side: the full entries of the input, framed as its writer frames them.
    ForwardedFrames frames;
    std::vector<std::string> entries;
    std::vector<AuditView> full;
    for (const AuditView &a : sent) {
        if (a.is_short) continue;
        std::string entry;
        encode(to_record(a), entry);
        entries.push_back(std::move(entry));
        full.push_back(a);
    }
    for (const std::string &entry : entries) frames.add(entry, decode_view(entry));
    std::vector<AuditView> received = split_frames(frames.bytes());
    FUZZ_CHECK(received.size() == full.size());
    if (!consistent(full)) return 0;
    std::string why = resolve_short_entries(received);
    if (!why.empty()) std::fprintf(stderr, "why: %s\n", why.c_str());
    FUZZ_CHECK(why.empty());
    for (std::size_t i = 0; i < full.size(); ++i) FUZZ_CHECK(same_texts(received[i], full[i]));
    return 0;
}
