// The Unicode character properties whole-word matching needs (docs/reference.md, `explicit`
// bindings), from tables scripts/unicode_tables.py generates out of the Unicode Character Database.
#pragma once
#include "core/core_guard.hpp"

#include <cstddef>
#include <string_view>

namespace clarify {

// Decodes the well-formed UTF-8 sequence at text[pos] (no overlong forms, surrogates or values
// above U+10FFFF) into cp and returns its length in bytes; 0 when it is malformed or truncated.
std::size_t decode_utf8(std::string_view text, std::size_t pos, char32_t &cp);

// Simple case folding: CaseFolding.txt's C and S mappings, one code point to one. Neither full
// folding (ß stays ß) nor the Turkish mappings of I and İ.
char32_t simple_case_fold(char32_t cp);

// Letters (Alphabetic), marks, decimal digits, connector punctuation (the underscore) and the
// zero-width joiners: what continues a word. Folding never changes the answer.
bool is_word_character(char32_t cp);

}  // namespace clarify
