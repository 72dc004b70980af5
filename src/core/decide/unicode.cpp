#include "core/decide/unicode.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace clarify {

namespace {

// Every code point in [first, last] whose distance from first is a multiple of step folds to
// itself plus delta (step 2 covers the alternating capital/small pairs of many blocks).
struct FoldRange {
    char32_t first, last;
    std::int32_t delta;
    std::uint32_t step;
};

struct CodeRange {
    char32_t first, last;
};

#include "core/decide/unicode_tables.inc"

// The range that may hold cp: the last one starting at or before it.
template <typename Range, std::size_t N>
const Range *range_of(const Range (&ranges)[N], char32_t cp) {
    auto after = std::upper_bound(std::begin(ranges), std::end(ranges), cp,
                                  [](char32_t c, const Range &r) { return c < r.first; });
    if (after == std::begin(ranges)) return nullptr;
    const Range *range = std::prev(after);
    return cp <= range->last ? range : nullptr;
}

}  // namespace

std::size_t decode_utf8(std::string_view text, std::size_t pos, char32_t &cp) {
    auto byte = [&](std::size_t k) -> unsigned {
        return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0;
    };
    unsigned lead = byte(0);
    std::size_t length;
    unsigned low = 0x80, high = 0xBF;  // the second byte's range, narrower after some leads
    if (lead < 0x80) {
        cp = lead;
        return pos < text.size() ? 1 : 0;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (byte(1) < low || byte(1) > high) return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
    cp = lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (byte(k) & 0x3F);
    return length;
}

char32_t simple_case_fold(char32_t cp) {
    if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    const FoldRange *range = range_of(kFoldRanges, cp);
    if (!range || (cp - range->first) % range->step != 0) return cp;
    return static_cast<char32_t>(static_cast<std::int32_t>(cp) + range->delta);
}

bool is_word_character(char32_t cp) {
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
               cp == '_';
    return range_of(kWordRanges, cp) != nullptr;
}

}  // namespace clarify
