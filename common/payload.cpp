// payload.cpp: the bounded stdin reader and top-level key access on the hook payload.
#include "common/payload.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace viber {

std::optional<std::string> read_bounded(os::Stream stream, const StdinLimits& limits) {
    std::optional<std::string> bytes = os::read_stream(stream, limits);
    if (!bytes) return std::nullopt;
    const std::string_view body = strip_bom(*bytes);
    if (body.size() != bytes->size()) bytes->erase(0, bytes->size() - body.size());
    return bytes;
}

std::string_view strip_bom(std::string_view bytes) {
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (bytes.substr(0, bom.size()) == bom) bytes.remove_prefix(bom.size());
    return bytes;
}

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The code unit of a `\uXXXX` escape whose backslash is at `at`; -1 when it is not one.
long escaped_unit(const char* bytes, std::size_t size, std::size_t at) {
    if (size - at < 6 || bytes[at] != '\\' || bytes[at + 1] != 'u') return -1;
    long unit = 0;
    for (std::size_t i = at + 2; i < at + 6; ++i) {
        const int digit = hex_digit(bytes[i]);
        if (digit < 0) return -1;
        unit = unit * 16 + digit;
    }
    return unit;
}

bool is_high_surrogate(long unit) {
    return unit >= 0xD800 && unit <= 0xDBFF;
}
bool is_low_surrogate(long unit) {
    return unit >= 0xDC00 && unit <= 0xDFFF;
}

// The offset of the first lone surrogate escape at or after `at`; `size` when there is none.
// Every backslash starts an escape (outside strings a backslash is not JSON at all), so going
// from one escape to the next keeps `\\ud800` an escaped backslash followed by `ud800`.
std::size_t next_lone_surrogate(const char* bytes, std::size_t size, std::size_t at) {
    while (at < size) {
        const void* found = std::memchr(bytes + at, '\\', size - at);
        if (found == nullptr) break;
        at = static_cast<std::size_t>(static_cast<const char*>(found) - bytes);
        if (at + 1 < size && bytes[at + 1] != 'u') {
            at += 2; // `\\`, `\"`, `\n`...: the escaped byte never starts another escape
            continue;
        }
        const long unit = escaped_unit(bytes, size, at);
        if (unit < 0) {
            at += 2; // `\\`, `\"`, `\n`...: the escaped byte never starts another escape
            continue;
        }
        if (is_low_surrogate(unit)) return at;
        if (is_high_surrogate(unit)) {
            if (!is_low_surrogate(escaped_unit(bytes, size, at + 6))) return at;
            at += 12; // a valid pair
            continue;
        }
        at += 6;
    }
    return size;
}

// ---------------------------------------------------------------------------------------------
// Long escaped strings (docs/contract.md, "Payload strings")
//
// Boost.JSON 1.81 decodes a string one byte at a time from its first escape to its end: a 5 MB
// agent message with a `\n` every line costs about 18 instructions a byte, three quarters of a
// verdict-nudge call. Such strings are decoded here instead, with the same rules, and the parser
// sees a short placeholder in their place, swapped back in its result. Anything unexpected (an
// escape Boost.JSON would reject, a placeholder spelling already in the bytes) leaves the bytes
// to Boost.JSON alone, which then decides exactly as before.

// Shorter strings are left to Boost.JSON: the copy and the swap would cost more than they save.
constexpr std::size_t lifted_string_bytes = 64 * 1024;
constexpr std::string_view lift_mark = "\\u0000viber-lifted:";                  // in the bytes
constexpr std::string_view lift_text = std::string_view("\0viber-lifted:", 14); // decoded

void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// True when one of the 8 bytes in `word` is `"`, `\` or a control byte (below 0x20): the bytes a
// string body cannot hold as they are.
bool holds_special_byte(std::uint64_t word) {
    constexpr std::uint64_t ones = 0x0101010101010101ull;
    constexpr std::uint64_t highs = 0x8080808080808080ull;
    const auto has_zero = [](std::uint64_t v) { return ((v - ones) & ~v & highs) != 0; };
    return has_zero(word ^ (ones * '"')) || has_zero(word ^ (ones * '\\')) ||
           ((word - ones * 0x20) & ~word & highs) != 0;
}

bool is_special_byte(char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
}

// Decodes the string body that starts at `at` (just after its opening quote) as Boost.JSON does
// with invalid UTF-8 allowed: any byte from 0x20 but `"` and `\` as it is, the nine escapes,
// `\uXXXX` with surrogates in pairs. Returns the offset of the closing quote, or npos when the
// body holds what Boost.JSON rejects or never ends; `escaped` says whether it held an escape.
std::size_t decode_string(std::string_view bytes, std::size_t at, std::string& out, bool& escaped) {
    out.clear();
    escaped = false;
    const char* const data = bytes.data();
    const std::size_t size = bytes.size();
    for (;;) {
        std::size_t run = at;
        // Eight bytes a step over the plain runs between escapes.
        for (std::uint64_t word = 0; run + 8 <= size; run += 8) {
            std::memcpy(&word, data + run, 8);
            if (holds_special_byte(word)) break;
        }
        while (run < size && !is_special_byte(data[run])) ++run;
        out.append(data + at, run - at);
        at = run;
        if (at == size) return std::string_view::npos;
        if (data[at] == '"') return at;
        if (data[at] != '\\' || at + 1 == size) return std::string_view::npos; // a control byte
        escaped = true;
        const char kind = data[at + 1];
        at += 2;
        switch (kind) {
        case '"':
            out.push_back('"');
            break;
        case '\\':
            out.push_back('\\');
            break;
        case '/':
            out.push_back('/');
            break;
        case 'b':
            out.push_back('\b');
            break;
        case 'f':
            out.push_back('\f');
            break;
        case 'n':
            out.push_back('\n');
            break;
        case 'r':
            out.push_back('\r');
            break;
        case 't':
            out.push_back('\t');
            break;
        case 'u': {
            const long unit = escaped_unit(data, size, at - 2);
            if (unit < 0 || is_low_surrogate(unit)) return std::string_view::npos;
            at += 4;
            if (!is_high_surrogate(unit)) {
                append_utf8(out, static_cast<unsigned>(unit));
                break;
            }
            const long low = escaped_unit(data, size, at);
            if (!is_low_surrogate(low)) return std::string_view::npos;
            at += 6;
            append_utf8(out, 0x10000 + ((static_cast<unsigned>(unit) - 0xD800) << 10) +
                                 (static_cast<unsigned>(low) - 0xDC00));
            break;
        }
        default:
            return std::string_view::npos;
        }
    }
}

// `bytes` with each long escaped string value replaced by a placeholder, and the decoded strings;
// nullopt when nothing is worth lifting or something is off (then Boost.JSON parses the bytes).
struct Lifted {
    std::string bytes;
    std::vector<std::string> strings;
};

std::optional<Lifted> lift_long_strings(std::string_view bytes) {
    if (bytes.size() < lifted_string_bytes || bytes.find(lift_mark) != std::string_view::npos)
        return std::nullopt;
    Lifted lifted;
    std::size_t copied = 0; // bytes[0, copied) are in lifted.bytes
    std::size_t at = 0;
    std::string decoded;
    for (;;) {
        // Outside strings a quote always opens one (in bytes Boost.JSON accepts).
        const void* quote = std::memchr(bytes.data() + at, '"', bytes.size() - at);
        if (quote == nullptr) break;
        const auto open = static_cast<std::size_t>(static_cast<const char*>(quote) - bytes.data());
        bool escaped = false;
        const std::size_t close = decode_string(bytes, open + 1, decoded, escaped);
        if (close == std::string_view::npos) return std::nullopt;
        at = close + 1;
        if (close - open - 1 < lifted_string_bytes || !escaped) continue;
        // A key stays where it is: only values are swapped back.
        std::size_t next = at;
        while (next < bytes.size() && (bytes[next] == ' ' || bytes[next] == '\t' ||
                                       bytes[next] == '\n' || bytes[next] == '\r'))
            ++next;
        if (next < bytes.size() && bytes[next] == ':') continue;
        lifted.bytes.append(bytes.data() + copied, open + 1 - copied);
        lifted.bytes += lift_mark;
        lifted.bytes += std::to_string(lifted.strings.size());
        copied = close;
        lifted.strings.push_back(std::move(decoded));
        decoded = std::string();
    }
    if (lifted.strings.empty()) return std::nullopt;
    lifted.bytes.append(bytes.data() + copied, bytes.size() - copied);
    return lifted;
}

// Puts each lifted string back where its placeholder is; false when one is missing.
bool restore_long_strings(boost::json::value& root, std::vector<std::string>& strings) {
    std::size_t restored = 0;
    std::vector<boost::json::value*> stack{&root};
    while (!stack.empty()) {
        boost::json::value* value = stack.back();
        stack.pop_back();
        if (value->is_object()) {
            for (auto& member : value->get_object()) stack.push_back(&member.value());
        } else if (value->is_array()) {
            for (auto& element : value->get_array()) stack.push_back(&element);
        } else if (value->is_string()) {
            const std::string_view text(value->get_string().data(), value->get_string().size());
            if (!text.starts_with(lift_text)) continue;
            std::size_t index = 0;
            for (const char c : text.substr(lift_text.size())) {
                if (c < '0' || c > '9') return false;
                index = index * 10 + static_cast<std::size_t>(c - '0');
            }
            if (index >= strings.size()) return false;
            value->get_string() =
                boost::json::string_view(strings[index].data(), strings[index].size());
            std::string().swap(strings[index]);
            ++restored;
        }
    }
    return restored == strings.size();
}

} // namespace

std::size_t replace_lone_surrogates(char* bytes, std::size_t size) {
    std::size_t replaced = 0;
    for (std::size_t at = next_lone_surrogate(bytes, size, 0); at < size;
         at = next_lone_surrogate(bytes, size, at + 6)) {
        std::memcpy(bytes + at + 2, "FFFD", 4);
        ++replaced;
    }
    return replaced;
}

std::optional<boost::json::object> parse_object(std::string_view bytes) {
    std::string rewritten;
    if (next_lone_surrogate(bytes.data(), bytes.size(), 0) < bytes.size()) {
        // Only a payload holding a lone surrogate pays for the copy.
        rewritten.assign(bytes);
        replace_lone_surrogates(rewritten.data(), rewritten.size());
        bytes = rewritten;
    }
    boost::json::parse_options options;
    options.max_depth = 1024;
    // A stray invalid byte in a command must not switch a guard off.
    options.allow_invalid_utf8 = true;
    boost::system::error_code ec;
    if (std::optional<Lifted> lifted = lift_long_strings(bytes)) {
        boost::json::value value = boost::json::parse(lifted->bytes, ec, {}, options);
        if (!ec && value.is_object() && restore_long_strings(value, lifted->strings))
            return std::move(value.as_object());
        ec.clear(); // decide on the bytes themselves
    }
    boost::json::value value = boost::json::parse(bytes, ec, {}, options);
    if (ec || !value.is_object()) return std::nullopt;
    return std::move(value.as_object());
}

std::optional<std::string_view> string_field(const boost::json::object& obj, std::string_view key) {
    const auto* value = obj.if_contains(key);
    if (value == nullptr || !value->is_string()) return std::nullopt;
    const auto& s = value->get_string();
    return std::string_view(s.data(), s.size());
}

const boost::json::object* object_field(const boost::json::object& obj, std::string_view key) {
    const auto* value = obj.if_contains(key);
    return value != nullptr && value->is_object() ? &value->get_object() : nullptr;
}

std::optional<std::string_view> bash_command(const boost::json::object& payload) {
    const boost::json::object* tool_input = object_field(payload, "tool_input");
    if (tool_input == nullptr) return std::nullopt;
    return string_field(*tool_input, "command");
}

bool is_true(const boost::json::object& obj, std::string_view key) {
    const auto* value = obj.if_contains(key);
    return value != nullptr && value->is_bool() && value->get_bool();
}

bool contains(std::string_view haystack, std::string_view needle) {
    return os::contains_bytes(haystack, needle);
}

} // namespace viber
