// payload.cpp: the bounded stdin reader and top-level key access on the hook payload.
#include "common/payload.hpp"

#include "common/cpu.hpp"
#include "common/simd.hpp"

#include <algorithm>
#include <bit>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
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
// sees a short placeholder in their place (an index, never an address), and parse_object moves
// each decoded string, which the value then owns, back into its place in the result. Anything
// unexpected (an escape Boost.JSON would reject, a placeholder spelling already in the bytes)
// leaves the decision to Boost.JSON, which then decides exactly as before.

// Shorter strings are left to Boost.JSON: the copy and the swap would cost more than they save.
// From a few kilobytes on (a 20 KB command) the decode here is the cheaper one.
constexpr std::size_t lifted_string_bytes = 4 * 1024;
constexpr std::string_view lift_mark = "\\u0000viber-lifted:";                  // in the bytes
constexpr std::string_view lift_text = std::string_view("\0viber-lifted:", 14); // decoded

// Writes `cp` as UTF-8 at `out`; returns the bytes written (at most 4, never more than the 6 of
// the escape it came from).
std::size_t put_utf8(char* out, unsigned cp) {
    if (cp < 0x80) {
        out[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xC0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
}

bool is_special_byte(char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
}

// Copies the plain run of string body bytes from `at` (up to the first `"`, `\` or control byte,
// or `size`) to `out`, and returns where the run ends. `out` is a buffer of its own or lies at or
// before `data + at` (decoding in place): every byte is read before anything is written over it.
// A vector at a time where there are vectors (the run's bytes copied as they are scanned; `V`
// gives the width, a load, a store and the compares of special_bytes), else eight bytes a step
// (WordRun::holds_special_byte);
// the last few bytes one at a time.
// The vector types pass only between functions flattened into one (decode_string_avx2), so
// their calling convention never matters.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// The mask of a vector's special bytes: `"`, `\` and the control bytes (at most 0x1F).
template <class V> inline std::uint64_t special_bytes(typename V::Bytes bytes) {
    return V::bits(V::either(V::either(V::eq(bytes, V::splat('"')), V::eq(bytes, V::splat('\\'))),
                             V::at_most(bytes, 0x1F)));
}

template <class V>
inline std::size_t copy_plain_run(const char* data, std::size_t size, std::size_t at, char* out) {
    const std::size_t start = at;
    if constexpr (V::width > 0) {
        // In place, `out` trails the input by the bytes the escapes so far saved: from a vector's
        // width on, a whole vector stored at `out` ends before the first byte not yet read. A
        // buffer of its own has room for every byte left, so a whole vector always fits.
        const std::uintptr_t trail =
            reinterpret_cast<std::uintptr_t>(data + at) - reinterpret_cast<std::uintptr_t>(out);
        const bool far_behind = trail >= V::width;
        for (; at + V::width <= size; at += V::width) {
            const auto bytes = V::load(data + at);
            if (const std::uint64_t mask = special_bytes<V>(bytes); mask != 0) {
                const auto plain = static_cast<std::size_t>(std::countr_zero(mask));
                // The whole vector when that writes over nothing unread (the bytes past the run
                // are written again by what follows it), else only the run.
                if (far_behind)
                    V::store(out + (at - start), bytes);
                else
                    std::memmove(out + (at - start), data + at, plain);
                return at + plain;
            }
            // Before the trail reaches a vector's width, a store could reach bytes not read yet.
            if (far_behind)
                V::store(out + (at - start), bytes);
            else
                std::memmove(out + (at - start), data + at, V::width);
        }
    } else {
        for (std::uint64_t word = 0; at + 8 <= size; at += 8) {
            std::memcpy(&word, data + at, 8);
            if (V::holds_special_byte(word)) break;
        }
        std::memmove(out, data + start, at - start);
    }
    for (; at < size && !is_special_byte(data[at]); ++at) out[at - start] = data[at];
    return at;
}

// The vector widths copy_plain_run takes (common/simd.hpp): SSE2 on every x86-64 CPU, and AVX2
// chosen at run time in a GCC build, whose flatten compiles decode_string and its run copy into
// one function for that target. Elsewhere, words.
#if VIBER_SIMD_X86
using PlainRun = simd::Sse2;
#else
struct WordRun {
    static constexpr std::size_t width = 0;
    // True when one of the 8 bytes in `word` is `"`, `\` or a control byte (below 0x20): the
    // bytes a string body cannot hold as they are.
    static bool holds_special_byte(std::uint64_t word) {
        constexpr std::uint64_t ones = 0x0101010101010101ull;
        constexpr std::uint64_t highs = 0x8080808080808080ull;
        const auto has_zero = [](std::uint64_t v) { return ((v - ones) & ~v & highs) != 0; };
        return has_zero(word ^ (ones * '"')) || has_zero(word ^ (ones * '\\')) ||
               ((word - ones * 0x20) & ~word & highs) != 0;
    }
};
using PlainRun = WordRun;
#endif

// One decoded string body: where its closing quote is, how long the decoded text is, whether the
// body held an escape, and whether one of those was a lone surrogate.
struct DecodedBody {
    std::size_t close = std::string_view::npos; // npos: Boost.JSON rejects the body
    std::size_t size = 0;
    bool escaped = false;
    bool lone_surrogate = false;
};

// Decodes the string body that starts at `at` (just after its opening quote) into `out`, which
// has room for every byte left in `bytes` (a decoded body is never longer than its spelling) and
// may be `bytes.data() + at` itself (decoding in place), as
// Boost.JSON does with invalid UTF-8 allowed and after replace_lone_surrogates: any byte from
// 0x20 but `"` and `\` as it is, the nine escapes, `\uXXXX` with surrogates in pairs and a lone
// one as U+FFFD. `close` is npos when the body holds what Boost.JSON rejects or never ends.
template <class Run>
inline DecodedBody decode_string_with(std::string_view bytes, std::size_t at, char* out) {
    DecodedBody body;
    const char* const data = bytes.data();
    const std::size_t size = bytes.size();
    std::size_t put = 0;
    for (;;) {
        const std::size_t run = copy_plain_run<Run>(data, size, at, out + put);
        put += run - at;
        at = run;
        if (at == size) return body;
        if (data[at] == '"') {
            body.close = at;
            body.size = put;
            return body;
        }
        if (data[at] != '\\' || at + 1 == size) return body; // a control byte
        body.escaped = true;
        const char kind = data[at + 1];
        at += 2;
        switch (kind) {
        case '"':
        case '\\':
        case '/':
            out[put++] = kind;
            break;
        case 'b':
            out[put++] = '\b';
            break;
        case 'f':
            out[put++] = '\f';
            break;
        case 'n':
            out[put++] = '\n';
            break;
        case 'r':
            out[put++] = '\r';
            break;
        case 't':
            out[put++] = '\t';
            break;
        case 'u': {
            const long unit = escaped_unit(data, size, at - 2);
            if (unit < 0) return body;
            at += 4;
            const long low = is_high_surrogate(unit) ? escaped_unit(data, size, at) : -1;
            if (is_low_surrogate(low)) {
                at += 6;
                put +=
                    put_utf8(out + put, 0x10000 + ((static_cast<unsigned>(unit) - 0xD800) << 10) +
                                            (static_cast<unsigned>(low) - 0xDC00));
            } else if (is_high_surrogate(unit) || is_low_surrogate(unit)) {
                // The escape after a lone high one is read on its own, as replace_lone_surrogates
                // leaves it.
                body.lone_surrogate = true;
                put += put_utf8(out + put, 0xFFFD);
            } else {
                put += put_utf8(out + put, static_cast<unsigned>(unit));
            }
            break;
        }
        default:
            return body;
        }
    }
}

#if VIBER_SIMD_WIDE
__attribute__((target("avx2"), flatten)) DecodedBody decode_string_avx2(std::string_view bytes,
                                                                        std::size_t at, char* out) {
    return decode_string_with<simd::Avx2>(bytes, at, out);
}
#endif

#pragma GCC diagnostic pop

DecodedBody decode_string(std::string_view bytes, std::size_t at, char* out) {
#if VIBER_SIMD_WIDE
    // Long bodies only: a short one is done before the wider loop pays for itself.
    if (bytes.size() - at >= 4096 && cpu::has_avx2()) return decode_string_avx2(bytes, at, out);
#endif
    return decode_string_with<PlainRun>(bytes, at, out);
}

// `bytes` with each long escaped string value replaced by a placeholder, and the decoded strings
// (each decoded straight into the string the parsed value will own). `lifted` is false when
// nothing is worth lifting or something is off (then Boost.JSON parses the bytes). `complete`
// says every string was decoded, so `kept_lone_surrogate` tells whether a string left to
// Boost.JSON holds a lone surrogate escape (it then needs replace_lone_surrogates first).
struct Lifted {
    bool lifted = false;
    bool complete = false;
    bool kept_lone_surrogate = false;
    std::string bytes;
    std::vector<boost::json::string> strings;
};

Lifted lift_long_strings(std::string_view bytes) {
    Lifted lifted;
    boost::json::string decoded;
    if (bytes.size() < lifted_string_bytes || bytes.size() > decoded.max_size()) return lifted;
    std::size_t copied = 0; // bytes[0, copied) are in lifted.bytes
    std::size_t at = 0;
    // Room for every byte left, a lifted string moving into the parsed value as it is. A payload
    // this long is mostly one long value (a message, a command), so its pages are taken at once.
    decoded.reserve(bytes.size());
    os::expect_writes(decoded.data(), bytes.size(), decoded.capacity());
    for (;;) {
        // Outside strings a quote always opens one (in bytes Boost.JSON accepts).
        const void* quote = std::memchr(bytes.data() + at, '"', bytes.size() - at);
        if (quote == nullptr) break;
        const auto open = static_cast<std::size_t>(static_cast<const char*>(quote) - bytes.data());
        const DecodedBody body = decode_string(bytes, open + 1, decoded.data());
        if (body.close == std::string_view::npos) return lifted;
        at = body.close + 1;
        bool lift = body.close - open - 1 >= lifted_string_bytes && body.escaped;
        if (lift) {
            // A key stays where it is: only values are swapped back.
            std::size_t next = at;
            while (next < bytes.size() && (bytes[next] == ' ' || bytes[next] == '\t' ||
                                           bytes[next] == '\n' || bytes[next] == '\r'))
                ++next;
            lift = next == bytes.size() || bytes[next] != ':';
        }
        if (!lift) {
            lifted.kept_lone_surrogate = lifted.kept_lone_surrogate || body.lone_surrogate;
            continue;
        }
        lifted.bytes.append(bytes.data() + copied, open + 1 - copied);
        lifted.bytes += lift_mark;
        lifted.bytes += std::to_string(lifted.strings.size());
        copied = body.close;
        decoded.grow(body.size);
        lifted.strings.push_back(std::move(decoded));
        decoded = boost::json::string();
        decoded.reserve(bytes.size() - at);
    }
    lifted.complete = true;
    if (lifted.strings.empty()) return lifted;
    lifted.bytes.append(bytes.data() + copied, bytes.size() - copied);
    lifted.lifted = true;
    return lifted;
}

// Puts each lifted string back where its placeholder is (moved, not copied); false when one is
// missing or a placeholder spelling came from the payload itself.
bool restore_long_strings(boost::json::value& root, std::vector<boost::json::string>& strings) {
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
            value->get_string() = std::move(strings[index]);
            ++restored;
        }
    }
    return restored == strings.size();
}

boost::json::parse_options payload_options() {
    boost::json::parse_options options;
    options.max_depth = 1024;
    // A stray invalid byte in a command must not switch a guard off.
    options.allow_invalid_utf8 = true;
    return options;
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
    boost::system::error_code ec;
    // One pass over the strings decodes the long ones and finds out whether a lone surrogate
    // escape needs rewriting, so a payload without one is not scanned a second time for it.
    Lifted lifted = lift_long_strings(bytes);
    std::string rewritten;
    const bool may_hold_lone_surrogate = !lifted.complete || lifted.kept_lone_surrogate;
    if (may_hold_lone_surrogate &&
        next_lone_surrogate(bytes.data(), bytes.size(), 0) < bytes.size()) {
        // Only a payload holding a lone surrogate pays for the copy.
        rewritten.assign(bytes);
        replace_lone_surrogates(rewritten.data(), rewritten.size());
        bytes = rewritten;
        if (lifted.kept_lone_surrogate) lifted = lift_long_strings(bytes);
    }
    if (lifted.lifted) {
        boost::json::value value = boost::json::parse(lifted.bytes, ec, {}, payload_options());
        if (!ec && value.is_object() && restore_long_strings(value, lifted.strings))
            return std::move(value.as_object());
        ec.clear(); // decide on the bytes themselves
    }
    boost::json::value value = boost::json::parse(bytes, ec, {}, payload_options());
    if (ec || !value.is_object()) return std::nullopt;
    return std::move(value.as_object());
}

std::optional<std::string_view> string_text(const boost::json::value& value) {
    if (!value.is_string()) return std::nullopt;
    return std::string_view(value.get_string().data(), value.get_string().size());
}

std::optional<std::string_view> string_field(const boost::json::object& obj, std::string_view key) {
    const auto* value = obj.if_contains(key);
    if (value == nullptr) return std::nullopt;
    return string_text(*value);
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
