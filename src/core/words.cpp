#include "words.hpp"
#include "unicode.hpp"

namespace clarify {

namespace {

// Code points, each folded; a malformed byte becomes U+FFFD, which is never part of a word.
std::u32string folded(const std::string &text) {
    std::u32string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        char32_t cp = 0;
        std::size_t length = decode_utf8(text, i, cp);
        if (length == 0) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        out.push_back(simple_case_fold(cp));
        i += length;
    }
    return out;
}

}  // namespace

bool contains_whole_words(const std::string &text, const std::string &phrase) {
    const std::u32string hay = folded(text), needle = folded(phrase);
    if (needle.empty()) return false;
    for (std::size_t pos = hay.find(needle); pos != std::u32string::npos;
         pos = hay.find(needle, pos + 1)) {
        bool starts = pos == 0 || !is_word_character(hay[pos - 1]);
        std::size_t end = pos + needle.size();
        bool ends = end == hay.size() || !is_word_character(hay[end]);
        if (starts && ends) return true;
    }
    return false;
}

}  // namespace clarify
