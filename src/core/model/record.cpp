#include "core/model/record.hpp"
#include "core/model/catalog.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>

namespace clarify {

using nlohmann::json;

const char *to_string(BindingSource source) {
    switch (source) {
        case BindingSource::UserConfirmation:
            return "user_confirmation";
        case BindingSource::ApprovedDefault:
            return "approved_default";
        case BindingSource::Explicit:
            return "explicit";
    }
    return "explicit";
}

std::optional<BindingSource> parse_binding_source(std::string_view text) {
    if (text == "user_confirmation") return BindingSource::UserConfirmation;
    if (text == "approved_default") return BindingSource::ApprovedDefault;
    if (text == "explicit") return BindingSource::Explicit;
    return std::nullopt;
}

namespace {

bool is_blank(std::string_view text) {
    for (char c : text)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
    return true;
}

std::string optional_string(const json &object, const char *key, const std::string &where) {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return {};
    if (!it->is_string())
        throw RecordError(where + "\"" + key + "\" must be a string, not " + it->type_name());
    return it->get<std::string>();
}

std::string required_string(const json &object, const char *key, const std::string &where) {
    auto it = object.find(key);
    if (it == object.end() || it->is_null())
        throw RecordError(where + "\"" + key + "\" is required");
    if (!it->is_string())
        throw RecordError(where + "\"" + key + "\" must be a string, not " + it->type_name());
    std::string value = it->get<std::string>();
    if (is_blank(value)) throw RecordError(where + "\"" + key + "\" must not be empty");
    return value;
}

BindingSource source_of(const std::string &text, const std::string &where, const char *key) {
    auto source = parse_binding_source(text);
    if (!source)
        throw RecordError(where + "\"" + key + "\" must be one of user_confirmation, " +
                          "approved_default, explicit; got \"" + text + "\"");
    return *source;
}

void reject_unknown_keys(const json &object, std::initializer_list<const char *> allowed,
                         const std::string &where) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        bool known = false;
        for (const char *key : allowed) known = known || it.key() == key;
        if (!known) throw RecordError(where + "unknown key \"" + it.key() + "\"");
    }
}

ResolutionRecord parse_shorthand(const json &root) {
    reject_unknown_keys(
        root, {"question_id", "question", "metric", "resolution_source", "user_confirmed"}, "");
    ResolutionRecord record;
    record.question_id = optional_string(root, "question_id", "");
    record.question = optional_string(root, "question", "");
    Binding binding;
    binding.concept_id = required_string(root, "metric", "");
    auto confirmed = root.find("user_confirmed");
    bool user_confirmed = false;
    if (confirmed != root.end() && !confirmed->is_null()) {
        if (!confirmed->is_boolean())
            throw RecordError(std::string("\"user_confirmed\" must be a boolean, not ") +
                              confirmed->type_name());
        user_confirmed = confirmed->get<bool>();
    }
    std::string source = optional_string(root, "resolution_source", "");
    if (!source.empty())
        binding.source = source_of(source, "", "resolution_source");
    else if (user_confirmed)
        binding.source = BindingSource::UserConfirmation;
    else
        throw RecordError("\"resolution_source\" is required unless \"user_confirmed\" is true");
    record.bindings.push_back(std::move(binding));
    return record;
}

ResolutionRecord parse_full(const json &root) {
    reject_unknown_keys(root, {"question_id", "question", "bindings"}, "");
    ResolutionRecord record;
    record.question_id = optional_string(root, "question_id", "");
    record.question = optional_string(root, "question", "");
    auto bindings = root.find("bindings");
    if (bindings == root.end() || bindings->is_null()) return record;
    if (!bindings->is_array())
        throw RecordError(std::string("\"bindings\" must be an array, not ") +
                          bindings->type_name());
    std::size_t index = 0;
    for (const json &item : *bindings) {
        std::string where = "bindings[" + std::to_string(index++) + "]: ";
        if (!item.is_object())
            throw RecordError(where + "must be an object, not " + item.type_name());
        reject_unknown_keys(item, {"term", "concept", "source"}, where);
        Binding binding;
        binding.term = normalize_term(optional_string(item, "term", where));
        binding.concept_id = required_string(item, "concept", where);
        binding.source = source_of(required_string(item, "source", where), where, "source");
        record.bindings.push_back(std::move(binding));
    }
    return record;
}

}  // namespace

ResolutionRecord parse_record(std::string_view text, DatabaseEncoding encoding) {
    if (text.size() > kMaxRecordBytes)
        throw RecordError("the record has " + std::to_string(text.size()) + " bytes; at most " +
                          std::to_string(kMaxRecordBytes) + " are accepted");
    if (is_blank(text)) return {};
    // PostgreSQL's rules first: the parser below is more lenient (it skips a byte order mark,
    // takes \u0000), and what it accepts must still cast to jsonb wherever the record is kept.
    try {
        check_jsonb_input(text, encoding, kMaxRecordDepth);
    } catch (const JsonbInputError &e) {
        throw RecordError(e.what());
    }
    json root;
    try {
        root = json::parse(text.begin(), text.end());
    } catch (const json::exception &e) {
        // Only what PostgreSQL accepts gets here: e.g. a number too large for a double.
        std::string what = e.what();
        auto colon = what.find("] ");
        throw RecordError("unreadable JSON: " +
                          (colon == std::string::npos ? what : what.substr(colon + 2)));
    }
    if (!root.is_object())
        throw RecordError(std::string("the record must be a JSON object, not ") + root.type_name());
    ResolutionRecord record = root.contains("metric") && !root.contains("bindings")
                                  ? parse_shorthand(root)
                                  : parse_full(root);
    record.json = root.dump();
    return record;
}

namespace {

void put_u32(std::vector<char> &out, std::uint32_t v) {
    char bytes[4];
    std::memcpy(bytes, &v, 4);
    out.insert(out.end(), bytes, bytes + 4);
}

void put_string(std::vector<char> &out, const std::string &s) {
    put_u32(out, static_cast<std::uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
}

std::uint32_t get_u32(const char *&p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    p += 4;
    return v;
}

std::string get_string(const char *&p) {
    std::uint32_t n = get_u32(p);
    std::string s(p, n);
    p += n;
    return s;
}

}  // namespace

// Layout: u32 total size, u32 binding count, question_id, question, json, then per binding
// term, concept, u32 source; strings are u32 length + bytes.
std::vector<char> flatten(const ResolutionRecord &record) {
    std::vector<char> out;
    put_u32(out, 0);
    put_u32(out, static_cast<std::uint32_t>(record.bindings.size()));
    put_string(out, record.question_id);
    put_string(out, record.question);
    put_string(out, record.json);
    for (const Binding &b : record.bindings) {
        put_string(out, b.term);
        put_string(out, b.concept_id);
        put_u32(out, static_cast<std::uint32_t>(b.source));
    }
    std::uint32_t total = static_cast<std::uint32_t>(out.size());
    std::memcpy(out.data(), &total, 4);
    return out;
}

std::size_t flat_size(const void *block) {
    std::uint32_t total;
    std::memcpy(&total, block, 4);
    return total;
}

ResolutionRecord unflatten(const void *block) {
    const char *p = static_cast<const char *>(block) + 4;
    ResolutionRecord record;
    std::uint32_t count = get_u32(p);
    record.question_id = get_string(p);
    record.question = get_string(p);
    record.json = get_string(p);
    record.bindings.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        Binding b;
        b.term = get_string(p);
        b.concept_id = get_string(p);
        b.source = static_cast<BindingSource>(get_u32(p));
        record.bindings.push_back(std::move(b));
    }
    return record;
}

}  // namespace clarify
