// payload.cpp: the bounded stdin reader and top-level key access on the hook payload.
#include "common/payload.hpp"

#include "common/cpu.hpp"
#include "common/simd.hpp"

#include <algorithm>
#include <bit>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <charconv>
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
// sees a short placeholder in their place: parse_object swaps the decoded string back in its
// result, parse_object_in_place (below) leaves the text in the caller's buffer. Anything
// unexpected (an escape Boost.JSON would reject, a placeholder spelling already in the bytes)
// leaves the decision to Boost.JSON, which then decides exactly as before.

// Shorter strings are left to Boost.JSON: the copy and the swap would cost more than they save.
constexpr std::size_t lifted_string_bytes = 64 * 1024;
// In place (parse_object_in_place) nothing is swapped back, and a value Boost.JSON would copy
// costs a page fault for each 4 KiB of it: a 20 KB command is worth decoding where it lies.
constexpr std::size_t in_place_string_bytes = 4 * 1024;
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
    // Room for every byte left: only the pages a decode writes are ever touched, and a lifted
    // string moves into the parsed value as it is.
    decoded.reserve(bytes.size());
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

// ---------------------------------------------------------------------------------------------
// Long string values decoded in place (parse_object_in_place)
//
// A 5 MB message copied once more costs as much as everything else a call does: each fresh page
// of a copy is a page fault. So the hook's own stdin buffer holds the decoded text, and the
// parsed value keeps only a placeholder naming where it is, which string_text reads as a view.
// Only a value allocated from `lifted_storage()` is read that way: a value parsed any other way
// (a transcript line, parse_object) has another resource, so a placeholder spelled in its text
// stays text; and a parse whose own strings spell one is not kept (placeholders_are_ours).

// A resource that allocates as the default one does: its address marks a value whose
// placeholders are views. It holds no state.
class LiftedStorage final : public boost::json::memory_resource {
    void* do_allocate(std::size_t bytes, std::size_t align) override {
        return boost::json::storage_ptr().get()->allocate(bytes, align);
    }
    void do_deallocate(void* at, std::size_t bytes, std::size_t align) override {
        boost::json::storage_ptr().get()->deallocate(at, bytes, align);
    }
    bool do_is_equal(const boost::json::memory_resource& other) const noexcept override {
        return this == &other;
    }
};

const boost::json::storage_ptr& lifted_storage() {
    static LiftedStorage resource;
    static const boost::json::storage_ptr storage(&resource);
    return storage;
}

// What follows `lift_text` in placeholder `index` for the text at [text, text + size): the
// number, then the address and the size in hex.
std::string placeholder_suffix(std::size_t index, const char* text, std::size_t size) {
    char address[2 * sizeof(std::uintptr_t) + 2];
    char length[2 * sizeof(std::size_t) + 2];
    const auto address_end = std::to_chars(address, address + sizeof address,
                                           reinterpret_cast<std::uintptr_t>(text), 16);
    const auto length_end = std::to_chars(length, length + sizeof length, size, 16);
    return std::to_string(index) + ":" + std::string(address, address_end.ptr) + ":" +
           std::string(length, length_end.ptr);
}

// The index in a placeholder suffix; nullopt when `suffix` does not start with one.
std::optional<std::size_t> placeholder_index(std::string_view suffix) {
    std::size_t index = 0;
    const auto [end, ec] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), index);
    if (ec != std::errc() || end == suffix.data() + suffix.size() || *end != ':')
        return std::nullopt;
    return index;
}

// The text a placeholder suffix names; nullopt when it is not one.
std::optional<std::string_view> placeholder_text(std::string_view suffix) {
    if (!placeholder_index(suffix)) return std::nullopt;
    suffix.remove_prefix(suffix.find(':') + 1);
    const std::size_t colon = suffix.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::uintptr_t address = 0;
    std::size_t size = 0;
    const char* const end = suffix.data() + suffix.size();
    if (std::from_chars(suffix.data(), suffix.data() + colon, address, 16).ec != std::errc() ||
        std::from_chars(suffix.data() + colon + 1, end, size, 16).ptr != end)
        return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(address), size);
}

// True when the string opening at `open` is an object member's value: in bytes Boost.JSON
// accepts, a quote after a colon (and whitespace) opens a value, never a key.
bool opens_member_value(std::string_view bytes, std::size_t open) {
    while (open > 0) {
        const char c = bytes[--open];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c == ':';
    }
    return false;
}

// What the in-place pass found.
struct InPlace {
    enum class Outcome {
        untouched, // nothing lifted, the buffer is as read: parse it as parse_object does
        rejected,  // a lifted value holds what Boost.JSON rejects: so does the payload
        lifted,
    } outcome = Outcome::untouched;
    std::string bytes; // the payload with each lifted body replaced by a placeholder
    std::vector<std::string> suffixes;       // each placeholder's, after `lift_mark`
    std::vector<std::string_view> texts;     // each lifted value's decoded text
    std::vector<std::size_t> placeholder_at; // offset of each placeholder body in `bytes`
};

InPlace lift_in_place(std::string& buffer) {
    InPlace lifted;
    const std::string_view bytes = buffer;
    if (bytes.size() < in_place_string_bytes) return lifted;
    // A short string is decoded here first, so the buffer changes only under a string known to
    // be long; a long one that is not a member's value (a key, an array element) goes to `aside`.
    // The scratch is uninitialised: a page of it is touched only where a decode writes (most
    // strings are short), and on a virtual machine each page a call touches costs microseconds.
    const std::unique_ptr<char[]> scratch(new char[in_place_string_bytes]);
    std::unique_ptr<char[]> aside;
    std::size_t copied = 0; // bytes[0, copied) are in lifted.bytes
    std::size_t at = 0;
    bool written = false; // the buffer no longer holds the payload's text
    const auto fail = [&] {
        lifted.outcome = written ? InPlace::Outcome::rejected : InPlace::Outcome::untouched;
        return std::move(lifted);
    };
    for (;;) {
        const void* quote = std::memchr(bytes.data() + at, '"', bytes.size() - at);
        if (quote == nullptr) break;
        const auto open = static_cast<std::size_t>(static_cast<const char*>(quote) - bytes.data());
        const std::size_t bound = std::min(bytes.size(), open + 1 + in_place_string_bytes);
        const DecodedBody head = decode_string(bytes.substr(0, bound), open + 1, scratch.get());
        if (head.close != std::string_view::npos) {
            at = head.close + 1;
            continue;
        }
        if (bound == bytes.size()) return fail();
        DecodedBody body;
        if (opens_member_value(bytes, open)) {
            body = decode_string(bytes, open + 1, buffer.data() + open + 1);
            written = written || body.escaped;
            // Boost.JSON rejects this body, so the payload is rejected whatever was written.
            if (body.close == std::string_view::npos) return fail();
            const std::string_view text(buffer.data() + open + 1, body.size);
            lifted.suffixes.push_back(
                placeholder_suffix(lifted.texts.size(), text.data(), text.size()));
            lifted.texts.push_back(text);
            lifted.bytes.append(bytes.data() + copied, open + 1 - copied);
            lifted.placeholder_at.push_back(lifted.bytes.size());
            lifted.bytes += lift_mark;
            lifted.bytes += lifted.suffixes.back();
            copied = body.close;
        } else {
            if (!aside) aside.reset(new char[bytes.size()]);
            body = decode_string(bytes, open + 1, aside.get());
            if (body.close == std::string_view::npos) return fail();
        }
        at = body.close + 1;
    }
    if (lifted.texts.empty()) return lifted;
    lifted.bytes.append(bytes.data() + copied, bytes.size() - copied);
    lifted.outcome = InPlace::Outcome::lifted;
    return lifted;
}

// True when the placeholders in `root` are exactly the lifted ones, each once: no string of the
// payload itself reads as one.
bool placeholders_are_ours(const boost::json::value& root,
                           const std::vector<std::string>& suffixes) {
    std::vector<bool> seen(suffixes.size(), false);
    std::size_t found = 0;
    std::vector<const boost::json::value*> stack{&root};
    while (!stack.empty()) {
        const boost::json::value* value = stack.back();
        stack.pop_back();
        if (value->is_object()) {
            for (const auto& member : value->get_object()) stack.push_back(&member.value());
        } else if (value->is_array()) {
            for (const auto& element : value->get_array()) stack.push_back(&element);
        } else if (value->is_string()) {
            const std::string_view text(value->get_string().data(), value->get_string().size());
            if (!text.starts_with(lift_text)) continue;
            const std::string_view suffix = text.substr(lift_text.size());
            const std::optional<std::size_t> index = placeholder_index(suffix);
            if (!index || *index >= suffixes.size() || seen[*index] || suffix != suffixes[*index])
                return false;
            seen[*index] = true;
            ++found;
        }
    }
    return found == suffixes.size();
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

std::optional<boost::json::object> parse_object_in_place(std::string& bytes) {
    InPlace lifted = lift_in_place(bytes);
    if (lifted.outcome == InPlace::Outcome::untouched) return parse_object(bytes);
    if (lifted.outcome == InPlace::Outcome::rejected) return std::nullopt;
    // The bytes left to Boost.JSON are few: rewriting a lone surrogate there costs nothing, and
    // the lifted values had theirs decoded as U+FFFD already.
    replace_lone_surrogates(lifted.bytes.data(), lifted.bytes.size());
    boost::system::error_code ec;
    boost::json::value value =
        boost::json::parse(lifted.bytes, ec, lifted_storage(), payload_options());
    if (ec || !value.is_object()) return std::nullopt;
    if (placeholders_are_ours(value, lifted.suffixes)) return std::move(value.as_object());
    // A string of the payload spells a placeholder: the decoded values go back in as JSON text,
    // and the whole is parsed with no view.
    std::string whole;
    std::size_t copied = 0;
    for (std::size_t i = 0; i < lifted.texts.size(); ++i) {
        const std::size_t at = lifted.placeholder_at[i];
        whole.append(lifted.bytes, copied, at - copied);
        const std::string quoted = boost::json::serialize(
            boost::json::string_view(lifted.texts[i].data(), lifted.texts[i].size()));
        whole.append(quoted, 1, quoted.size() - 2); // without its quotes
        copied = at + lift_mark.size() + lifted.suffixes[i].size();
    }
    whole.append(lifted.bytes, copied);
    return parse_object(whole);
}

std::optional<std::string_view> string_text(const boost::json::value& value) {
    if (!value.is_string()) return std::nullopt;
    const std::string_view text(value.get_string().data(), value.get_string().size());
    if (!text.starts_with(lift_text) || value.storage() != lifted_storage()) return text;
    return placeholder_text(text.substr(lift_text.size())).value_or(text);
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
