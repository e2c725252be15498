// payload.cpp: the bounded stdin reader and top-level key access on the hook payload.
#include "common/io/payload.hpp"

#include "common/fast/buffer.hpp"
#include "common/fast/json_string.hpp"

#include <algorithm>
#include <bit>
#include <boost/json/memory_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
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
        const long unit = fast::escaped_unit(bytes, size, at);
        if (unit < 0) {
            at += 2; // `\\`, `\"`, `\n`...: the escaped byte never starts another escape
            continue;
        }
        if (fast::is_low_surrogate(unit)) return at;
        if (fast::is_high_surrogate(unit)) {
            if (!fast::is_low_surrogate(fast::escaped_unit(bytes, size, at + 6))) return at;
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

// The memory of a parsed payload: each block is sized and announced as a buffer about to be
// written (fast/buffer.hpp), so a long string decoded here has its pages taken at once and, where
// Linux has them, as huge pages (a short block is left as it is). It holds no state: every value
// parse_object returns shares the one instance, so a decoded string moves into its place in the
// result instead of being copied. Like Boost.JSON's default resource it allocates and frees with
// the plain operator new and delete, whatever alignment is passed (Boost.JSON needs none past the
// default): the aligned forms with the alignments passed were a new/delete mismatch under ASan.
class PayloadStorage final : public boost::json::memory_resource {
    void* do_allocate(std::size_t bytes, std::size_t) override {
        const std::size_t room = fast::buffer_capacity(bytes);
        void* block = ::operator new(room);
        fast::expect_writes(static_cast<char*>(block), bytes, room);
        return block;
    }
    void do_deallocate(void* at, std::size_t, std::size_t) override { ::operator delete(at); }
    bool do_is_equal(const boost::json::memory_resource& other) const noexcept override {
        return this == &other;
    }
};

const boost::json::storage_ptr& payload_storage() {
    static PayloadStorage resource;
    static const boost::json::storage_ptr storage(&resource);
    return storage;
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
    boost::json::string decoded(payload_storage());
    if (bytes.size() < lifted_string_bytes || bytes.size() > decoded.max_size()) return lifted;
    std::size_t copied = 0; // bytes[0, copied) are in lifted.bytes
    std::size_t at = 0;
    // Room for every byte left, a lifted string moving into the parsed value as it is. A payload
    // this long is mostly one long value (a message, a command), so payload_storage takes the
    // pages of a long one at once.
    decoded.reserve(bytes.size());
    for (;;) {
        // Outside strings a quote always opens one (in bytes Boost.JSON accepts).
        const void* quote = std::memchr(bytes.data() + at, '"', bytes.size() - at);
        if (quote == nullptr) break;
        const auto open = static_cast<std::size_t>(static_cast<const char*>(quote) - bytes.data());
        const fast::DecodedString body = fast::decode_string(bytes, open + 1, decoded.data());
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
        decoded = boost::json::string(payload_storage());
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
        boost::json::value value =
            boost::json::parse(lifted.bytes, ec, payload_storage(), payload_options());
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

} // namespace viber
