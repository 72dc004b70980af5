#include "core/model/jsonb_input.hpp"
#include "core/decide/unicode.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace clarify {

namespace {

// numeric's storage limits: at most 16383 digits after the decimal point, and a first
// significant digit at most 131071 places before it (weight 32767 in base-10000 digits);
// numeric_in refuses an exponent of magnitude INT_MAX / 2 or more before looking further.
constexpr std::int64_t kMaxScale = 16383;
constexpr std::int64_t kMaxDecimalWeight = 131071;
constexpr std::int64_t kExponentLimit = 1073741823;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Bytes PostgreSQL's lexer gathers into one token when it meets a word it does not know.
bool is_token_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string hex_byte(unsigned char value) {
    char out[4];
    std::snprintf(out, sizeof(out), "%02X", value);
    return out;
}

class Checker {
  public:
    Checker(std::string_view text, DatabaseEncoding encoding, int max_depth)
        : text_(text), encoding_(encoding), max_depth_(max_depth) {}

    void run() {
        skip_whitespace();
        value(0);
        skip_whitespace();
        if (pos_ < text_.size()) fail("expected the end of the text but found " + found());
    }

  private:
    // Not JSON as PostgreSQL reads it.
    [[noreturn]] void fail(const std::string &problem) { fail_at(problem, pos_); }
    [[noreturn]] void fail_at(const std::string &problem, std::size_t at) {
        throw JsonbInputError("malformed JSON: " + problem + " (at byte " + std::to_string(at + 1) +
                              ")");
    }
    // JSON, but not something jsonb can hold in this database.
    [[noreturn]] void refuse_at(const std::string &problem, std::size_t at) {
        throw JsonbInputError("PostgreSQL's jsonb refuses it: " + problem + " (at byte " +
                              std::to_string(at + 1) + ")");
    }

    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return text_[pos_]; }

    void skip_whitespace() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++pos_;
    }

    // What stands at the current position, for an error message.
    std::string found() const {
        if (at_end()) return "the end of the text";
        if (text_.substr(pos_, 3) == "\xEF\xBB\xBF") return "a byte order mark (U+FEFF)";
        std::size_t end = pos_;
        while (end < text_.size() && end - pos_ < 24 && is_token_byte(text_[end])) ++end;
        if (end == pos_) {
            unsigned char c = static_cast<unsigned char>(peek());
            if (c < 0x20 || c == 0x7F) return "the control character 0x" + hex_byte(c);
            return "\"" + std::string(1, peek()) + "\"";
        }
        std::string token(text_.substr(pos_, end - pos_));
        for (char c : token)
            if (static_cast<unsigned char>(c) >= 0x80) return "a non-ASCII character";
        return "\"" + token + "\"";
    }

    void value(int depth) {
        skip_whitespace();
        if (at_end()) fail("the text ends where a JSON value is expected");
        char c = peek();
        if (c == '{' || c == '[') {
            if (depth + 1 > max_depth_)
                throw JsonbInputError("the record nests deeper than " + std::to_string(max_depth_) +
                                      " levels");
            if (c == '{')
                object(depth + 1);
            else
                array(depth + 1);
        } else if (c == '"') {
            string();
        } else if (c == '-' || is_digit(c)) {
            number();
        } else {
            literal();
        }
    }

    void object(int depth) {
        ++pos_;
        skip_whitespace();
        if (!at_end() && peek() == '}') {
            ++pos_;
            return;
        }
        for (;;) {
            skip_whitespace();
            if (at_end() || peek() != '"') fail("expected a string (a key) but found " + found());
            string();
            skip_whitespace();
            if (at_end() || peek() != ':') fail("expected \":\" but found " + found());
            ++pos_;
            value(depth);
            skip_whitespace();
            if (!at_end() && peek() == ',') {
                ++pos_;
                continue;
            }
            if (!at_end() && peek() == '}') {
                ++pos_;
                return;
            }
            fail("expected \",\" or \"}\" but found " + found());
        }
    }

    void array(int depth) {
        ++pos_;
        skip_whitespace();
        if (!at_end() && peek() == ']') {
            ++pos_;
            return;
        }
        for (;;) {
            value(depth);
            skip_whitespace();
            if (!at_end() && peek() == ',') {
                ++pos_;
                continue;
            }
            if (!at_end() && peek() == ']') {
                ++pos_;
                return;
            }
            fail("expected \",\" or \"]\" but found " + found());
        }
    }

    void literal() {
        std::size_t start = pos_;
        while (!at_end() && is_token_byte(peek())) ++pos_;
        std::string_view token = text_.substr(start, pos_ - start);
        if (token == "true" || token == "false" || token == "null") return;
        pos_ = start;
        if (token.substr(0, 3) == "\xEF\xBB\xBF")
            fail("a byte order mark (U+FEFF) is not allowed outside a string");
        fail("expected a JSON value but found " + found());
    }

    void string() {
        std::size_t start = pos_++;
        bool high_surrogate = false;  // a \uD800-\uDBFF escape waits for its low half
        auto unpaired = [&](std::size_t at) {
            refuse_at("Unicode low surrogate must follow a high surrogate", at);
        };
        for (;;) {
            if (at_end()) fail_at("the string starting here is not terminated", start);
            unsigned char c = static_cast<unsigned char>(peek());
            if (c == '"') {
                if (high_surrogate) unpaired(pos_);
                ++pos_;
                return;
            }
            if (c < 0x20) fail("character with value 0x" + hex_byte(c) + " must be escaped");
            if (c == '\\') {
                std::size_t escape = pos_;
                if (pos_ + 1 >= text_.size())
                    fail_at("the string starting here is not terminated", start);
                char kind = text_[pos_ + 1];
                if (kind != 'u') {
                    if (high_surrogate) unpaired(escape);
                    if (std::string_view("\"\\/bfnrt").find(kind) == std::string_view::npos)
                        fail(kind > ' ' && kind < 0x7F
                                 ? "escape sequence \"\\" + std::string(1, kind) + "\" is invalid"
                                 : "a backslash followed by byte 0x" +
                                       hex_byte(static_cast<unsigned char>(kind)) +
                                       " is no escape sequence");
                    pos_ += 2;
                    continue;
                }
                unsigned code = 0;
                for (std::size_t k = 2; k < 6; ++k) {
                    int digit = pos_ + k < text_.size() ? hex_value(text_[pos_ + k]) : -1;
                    if (digit < 0) fail("\"\\u\" must be followed by four hexadecimal digits");
                    code = code * 16 + static_cast<unsigned>(digit);
                }
                pos_ += 6;
                if (code >= 0xD800 && code <= 0xDBFF) {
                    if (high_surrogate)
                        refuse_at("Unicode high surrogate must not follow a high surrogate",
                                  escape);
                    high_surrogate = true;
                    continue;
                }
                if (code >= 0xDC00 && code <= 0xDFFF) {
                    if (!high_surrogate) unpaired(escape);
                    high_surrogate = false;
                    code = 0x10000;  // some code point above U+FFFF: only its range matters
                } else if (high_surrogate) {
                    unpaired(escape);
                }
                if (code == 0) refuse_at("\\u0000 cannot be converted to text", escape);
                if (code > 0x7F && encoding_ != DatabaseEncoding::Utf8)
                    refuse_at("\\u escapes above U+007F need a database encoded in UTF8", escape);
                continue;
            }
            if (high_surrogate) unpaired(pos_);
            if (c < 0x80) {
                ++pos_;
                continue;
            }
            if (encoding_ == DatabaseEncoding::Other)
                refuse_at("non-ASCII characters need a database encoded in UTF8 or SQL_ASCII",
                          pos_);
            char32_t cp;
            std::size_t length = decode_utf8(text_, pos_, cp);
            if (length == 0) fail("invalid UTF-8 byte sequence");
            pos_ += length;
        }
    }

    // JSON's number grammar, then what numeric can store (numeric_in's limits).
    void number() {
        std::size_t start = pos_;
        if (peek() == '-') ++pos_;
        std::size_t int_start = pos_;
        if (!at_end() && peek() == '0') {
            ++pos_;
        } else if (!at_end() && is_digit(peek()) && peek() != '0') {
            while (!at_end() && is_digit(peek())) ++pos_;
        } else {
            bad_number(start);
        }
        std::size_t int_end = pos_, frac_start = pos_, frac_end = pos_;
        if (!at_end() && peek() == '.') {
            frac_start = ++pos_;
            if (at_end() || !is_digit(peek())) bad_number(start);
            while (!at_end() && is_digit(peek())) ++pos_;
            frac_end = pos_;
        }
        std::int64_t exponent = 0;
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            ++pos_;
            bool negative = false;
            if (!at_end() && (peek() == '+' || peek() == '-')) negative = text_[pos_++] == '-';
            if (at_end() || !is_digit(peek())) bad_number(start);
            while (!at_end() && is_digit(peek())) {
                if (exponent < kExponentLimit) exponent = exponent * 10 + (peek() - '0');
                ++pos_;
            }
            if (negative) exponent = -exponent;
        }
        if (!at_end() && is_token_byte(peek())) bad_number(start);

        auto overflow = [&] {
            refuse_at(
                "the number " +
                    std::string(text_.substr(start, std::min<std::size_t>(pos_ - start, 40))) +
                    " overflows PostgreSQL's numeric",
                start);
        };
        if (exponent >= kExponentLimit || exponent <= -kExponentLimit) overflow();
        std::int64_t scale = static_cast<std::int64_t>(frac_end - frac_start) - exponent;
        if (scale > kMaxScale) overflow();
        // The place of the first significant digit: 0 for units, -1 for tenths.
        for (std::size_t i = int_start; i < frac_end; ++i) {
            if (i == int_end) continue;  // the decimal point
            if (text_[i] == '0') continue;
            std::int64_t place = i < int_end ? static_cast<std::int64_t>(int_end - i) - 1
                                             : -static_cast<std::int64_t>(i - frac_start) - 1;
            if (place + exponent > kMaxDecimalWeight) overflow();
            break;
        }
    }

    [[noreturn]] void bad_number(std::size_t start) {
        pos_ = start;
        std::size_t end = start + 1;
        // ASCII only: the message must stay valid UTF-8 whatever the text holds.
        while (end < text_.size() && end - start < 40 &&
               static_cast<unsigned char>(text_[end]) < 0x80 &&
               (is_token_byte(text_[end]) || text_[end] == '.' || text_[end] == '+' ||
                text_[end] == '-'))
            ++end;
        fail("invalid number \"" + std::string(text_.substr(start, end - start)) + "\"");
    }

    std::string_view text_;
    DatabaseEncoding encoding_;
    int max_depth_;
    std::size_t pos_ = 0;
};

}  // namespace

void check_jsonb_input(std::string_view text, DatabaseEncoding encoding, int max_depth) {
    Checker(text, encoding, max_depth).run();
}

}  // namespace clarify
