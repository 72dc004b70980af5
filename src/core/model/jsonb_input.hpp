// PostgreSQL's jsonb input rules, checked without a server: a text that passes can be cast to
// jsonb in a database of that encoding, so a record kept in the audit never breaks its views.
#pragma once
#include "core/core_guard.hpp"

#include <stdexcept>
#include <string_view>

namespace clarify {

// What the database's encoding lets a JSON text hold beyond ASCII. The text itself must be
// UTF-8 in every case (the gate matches words in UTF-8).
enum class DatabaseEncoding {
    Utf8,      // any character, raw or \u-escaped
    SqlAscii,  // raw UTF-8 only: jsonb cannot convert a \u escape above U+007F
    Other,     // ASCII only: raw UTF-8 would be misread, and escapes may have no equivalent
};

// Thrown for a text jsonb would refuse (or that nests deeper than allowed); what() names the
// problem and the byte where it starts.
class JsonbInputError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The grammar of PostgreSQL's JSON lexer (whitespace is space, tab, CR and LF only; no byte order
// mark), jsonb's refusals (\u0000, unpaired surrogate escapes, numbers numeric cannot hold), valid
// UTF-8, the encoding's limits above, and at most max_depth nested arrays and objects.
void check_jsonb_input(std::string_view text, DatabaseEncoding encoding, int max_depth);

}  // namespace clarify
