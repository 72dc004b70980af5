// The payload builder (core/render/payload.cpp) fed by any resolution record: the record's strings
// also become catalog rows (labels, descriptions, terms, column names), so whatever text reaches a
// payload comes from the fuzzer. Every JSON output must parse and cast to jsonb, and the message
// and hint stay single lines of valid UTF-8.
#include "core/audit/record.hpp"
#include "fuzz_check.hpp"
#include "core/model/jsonb_input.hpp"
#include "core/render/payload.hpp"
#include "core/model/record.hpp"
#include "revenue_fixture.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace clarify;
using namespace clarify::testing;
using nlohmann::json;

namespace {

void check_json(const std::string &text) {
    FUZZ_CHECK(text.find('\n') == std::string::npos);
    FUZZ_CHECK(!json::parse(text, nullptr, false).is_discarded());
    try {
        check_jsonb_input(text, DatabaseEncoding::Utf8, 64);
    } catch (const JsonbInputError &e) {
        std::fprintf(stderr, "not jsonb: %s\n%s\n", e.what(), text.c_str());
        FUZZ_CHECK(!"a payload jsonb refuses");
    }
}

void check_line(const std::string &text) {
    for (char c : text) FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
    check_json(json(text).dump());  // dump() throws on invalid UTF-8
}

ResolutionRecord parse_or_none(std::string_view text) {
    try {
        return parse_record(text);
    } catch (const RecordError &) {
        return {};
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    ResolutionRecord record =
        parse_or_none(std::string_view(reinterpret_cast<const char *>(data), size));

    RevenueCatalog rows;
    std::vector<ColumnKey> keys;
    for (const ColumnRow &c : rows.columns) keys.push_back(c.key);
    const std::size_t fixture_columns = keys.size();
    std::int64_t approval = 100;
    for (std::size_t i = 0; i < record.bindings.size() && i < 16; ++i) {
        const Binding &b = record.bindings[i];
        if (!rows.concepts.count(b.concept_id)) {
            Concept c = make_concept(
                b.concept_id, i % 2 ? ConceptKind::Dimension : ConceptKind::Metric, record.question,
                b.term, record.question_id, i % 3 ? ConceptStatus::Approved : ConceptStatus::Draft);
            c.aliases = {b.term};
            rows.add(c);
        }
        if (!b.term.empty()) {
            rows.terms.emplace_back(b.term, b.concept_id);
            if (i % 2) rows.add_default(b.term, b.concept_id);
        }
        if (!record.question_id.empty() && i % 3 != 2)
            rows.add_approval(++approval, record.question_id, b.term, b.concept_id).question =
                std::string(trim_space(record.question));
        ColumnKey key{17000 + static_cast<std::uint32_t>(i), static_cast<std::int16_t>(i + 1)};
        rows.columns.push_back({key, record.question_id + "." + b.term, b.concept_id});
        keys.push_back(key);
    }
    Catalog catalog = rows.build();
    // Odd sizes read only the record's own columns, so slots can come from those alone.
    if (size % 2 && keys.size() > fixture_columns)
        keys.erase(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(fixture_columns));

    Decision decision = decide(catalog, analyst(), record, reads(catalog, keys));
    check_json(decision_json(catalog, decision, "d-1", record.question_id, false));
    check_json(decision_json(catalog, decision, "", record.question_id, true));
    check_json(columns_json(decision));
    check_json(bindings_json(decision));
    check_line(message_text(catalog, decision));
    check_line(hint_text(catalog, decision));

    std::vector<std::string> terms{"revenue"};
    for (const Binding &b : record.bindings) terms.push_back(b.term);
    for (const std::string &term : terms) {
        TermResolution r = resolve_term(catalog, analyst(), record, term, record.question_id);
        check_json(resolution_json(catalog, r, true));
        check_json(resolution_json(catalog, r, false));
    }

    // The audit's copy of the decision survives the queue.
    AuditRecord audit = audit_record_of(catalog, decision, record);
    std::string entry;
    encode(audit, entry);
    AuditRecord back = decode(entry);
    FUZZ_CHECK(back.payload == audit.payload && back.bindings == audit.bindings &&
               back.record == audit.record && back.reason == audit.reason);
    if (!audit.payload.empty()) check_json(audit.payload);
    check_json(audit.columns);
    check_json(audit.bindings);
    return 0;
}
