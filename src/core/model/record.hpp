// The resolution record an agent attaches with SET pg_clarify.resolution: claims, not permission.
#pragma once
#include "core/core_guard.hpp"
#include "core/model/jsonb_input.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace clarify {

enum class BindingSource { UserConfirmation, ApprovedDefault, Explicit };

const char *to_string(BindingSource source);
std::optional<BindingSource> parse_binding_source(std::string_view text);

struct Binding {
    std::string term;  // normalized; empty when the record names no term
    std::string concept_id;
    BindingSource source = BindingSource::Explicit;
};

struct ResolutionRecord {
    std::string question_id;  // empty when absent
    std::string question;
    std::vector<Binding> bindings;
    // The record as kept and shown (audit, last_decision(), SHOW): the parser's own serialization
    // of what was set (keys sorted, no whitespace, the last of duplicate keys), never the text as
    // typed. Empty when there is no record.
    std::string json;
};

// Thrown for a record that must not be accepted; what() names the problem for the SET's error.
class RecordError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

constexpr std::size_t kMaxRecordBytes = 64 * 1024;
constexpr int kMaxRecordDepth = 8;

// Validates and parses either shape of docs/reference.md, "The resolution record". An empty or
// blank text is "no record". The text must also be one PostgreSQL's jsonb accepts in a database of
// this encoding.
ResolutionRecord parse_record(std::string_view json,
                              DatabaseEncoding encoding = DatabaseEncoding::Utf8);

// A pointer-free, contiguous encoding of a parsed record, kept as the GUC's extra so that the
// text is parsed once at SET time. flatten() output starts with its own total size.
std::vector<char> flatten(const ResolutionRecord &record);
ResolutionRecord unflatten(const void *block);
std::size_t flat_size(const void *block);

}  // namespace clarify
