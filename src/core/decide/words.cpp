#include "core/decide/words.hpp"
#include "core/decide/unicode.hpp"

namespace clarify {

namespace {

// What may separate the words of a multi-word term: spaces, hyphens and line breaks.
bool separates_words(char32_t c) {
    switch (c) {
        case U' ':
        case U'\t':
        case U'\n':
        case U'\v':
        case U'\f':
        case U'\r':
        case U'-':
        case 0x85:    // next line
        case 0xA0:    // no-break space
        case 0x2010:  // hyphen
        case 0x2011:  // non-breaking hyphen
        case 0x2028:  // line separator
        case 0x2029:  // paragraph separator
            return true;
        default:
            return false;
    }
}

// Whether the words of `term` follow one another from `pos`, each run between them made only
// of separators; `*end` receives where the last word ends.
bool words_at(const std::u32string &hay, std::size_t pos, const TermWords &term, std::size_t *end) {
    std::size_t at = pos;
    for (std::size_t w = 0; w < term.words.size(); ++w) {
        if (w > 0) {
            std::size_t gap = at;
            while (gap < hay.size() && separates_words(hay[gap])) ++gap;
            if (gap == at) return false;
            at = gap;
        }
        const std::u32string &word = term.words[w];
        if (hay.compare(at, word.size(), word) != 0) return false;
        at += word.size();
    }
    *end = at;
    return true;
}

}  // namespace

std::u32string folded_text(const std::string &text) {
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

bool contains_whole_words(const std::string &text, const std::string &phrase) {
    const std::u32string hay = folded_text(text), needle = folded_text(phrase);
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

TermWords term_words(const std::string &term) {
    TermWords out;
    std::u32string word;
    for (char32_t c : folded_text(term)) {
        if (!separates_words(c)) {
            word.push_back(c);
            continue;
        }
        if (!word.empty()) out.words.push_back(std::move(word));
        word.clear();
    }
    if (!word.empty()) out.words.push_back(std::move(word));
    return out;
}

bool mentions_term(const std::u32string &hay, const TermWords &term) {
    if (term.words.empty()) return false;
    const std::u32string &first = term.words.front();
    for (std::size_t pos = hay.find(first); pos != std::u32string::npos;
         pos = hay.find(first, pos + 1)) {
        if (pos > 0 && is_word_character(hay[pos - 1])) continue;
        std::size_t end = 0;
        if (!words_at(hay, pos, term, &end)) continue;
        if (end == hay.size() || !is_word_character(hay[end])) return true;
    }
    return false;
}

bool mentions_term(const std::string &question, const std::string &term) {
    return mentions_term(folded_text(question), term_words(term));
}

}  // namespace clarify
