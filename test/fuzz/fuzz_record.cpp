// The resolution-record parser (parse_record, and the jsonb input rules it applies first) on any
// bytes: it refuses with RecordError or returns a record whose canonical JSON parses back to
// itself.
#include "fuzz_check.hpp"
#include "core/model/record.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

using namespace clarify;

namespace {

std::optional<ResolutionRecord> parse(std::string_view text, DatabaseEncoding encoding) {
    try {
        return parse_record(text, encoding);
    } catch (const RecordError &) {
        return std::nullopt;  // any other exception escapes and is reported as a crash
    }
}

bool same(const ResolutionRecord &a, const ResolutionRecord &b) {
    if (a.question_id != b.question_id || a.question != b.question || a.json != b.json ||
        a.bindings.size() != b.bindings.size())
        return false;
    for (std::size_t i = 0; i < a.bindings.size(); ++i)
        if (a.bindings[i].term != b.bindings[i].term ||
            a.bindings[i].concept_id != b.bindings[i].concept_id ||
            a.bindings[i].source != b.bindings[i].source)
            return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char *>(data), size);
    auto utf8 = parse(text, DatabaseEncoding::Utf8);
    auto sql_ascii = parse(text, DatabaseEncoding::SqlAscii);
    auto other = parse(text, DatabaseEncoding::Other);

    // The other encodings only take away: what they accept, a UTF-8 database accepts alike.
    if (sql_ascii) FUZZ_CHECK(utf8 && same(*sql_ascii, *utf8));
    if (other) FUZZ_CHECK(utf8 && same(*other, *utf8));
    if (!utf8) return 0;

    // The kept text is a record itself, in the same database, and parses back to the same record.
    const ResolutionRecord &record = *utf8;
    FUZZ_CHECK(record.json.size() <= kMaxRecordBytes);
    auto again = parse(record.json, DatabaseEncoding::Utf8);
    FUZZ_CHECK(again && same(*again, record));
    if (sql_ascii) FUZZ_CHECK(parse(record.json, DatabaseEncoding::SqlAscii));
    if (other) FUZZ_CHECK(parse(record.json, DatabaseEncoding::Other));

    // The GUC's flat copy holds the same record.
    std::vector<char> flat = flatten(record);
    FUZZ_CHECK(flat_size(flat.data()) == flat.size());
    FUZZ_CHECK(same(unflatten(flat.data()), record));
    return 0;
}
