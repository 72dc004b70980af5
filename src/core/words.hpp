// Whole-word, case-insensitive matching: how an `explicit` binding is verified against the
// record's question (docs/reference.md, "The resolution record").
#pragma once
#include "core_guard.hpp"

#include <string>

namespace clarify {

// True when phrase occurs in text as whole words, comparing under Unicode simple case folding.
// Both are UTF-8; a malformed sequence is a word boundary that matches nothing.
bool contains_whole_words(const std::string &text, const std::string &phrase);

}  // namespace clarify
