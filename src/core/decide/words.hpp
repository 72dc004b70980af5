// Whole-word, case-insensitive matching: how an `explicit` binding is verified against the
// record's question (docs/reference.md, "The resolution record"), and which governed terms the
// question mentions ("Which terms decide a column").
#pragma once
#include "core/core_guard.hpp"

#include <string>
#include <vector>

namespace clarify {

// True when phrase occurs in text as whole words, comparing under Unicode simple case folding.
// Both are UTF-8; a malformed sequence is a word boundary that matches nothing.
bool contains_whole_words(const std::string &text, const std::string &phrase);

// The text's code points under simple case folding; a malformed byte becomes U+FFFD.
std::u32string folded_text(const std::string &text);

// A term prepared for matching: its words, folded, split at runs of spaces, hyphens and line
// breaks (any such run matches between them).
struct TermWords {
    std::vector<std::u32string> words;
};
TermWords term_words(const std::string &term);

// True when the term's words occur in the (folded) question as whole words, in order, separated
// only by runs of spaces, hyphens or line breaks.
bool mentions_term(const std::u32string &folded_question, const TermWords &term);
bool mentions_term(const std::string &question, const std::string &term);

}  // namespace clarify
