// payload.cpp: the bounded stdin reader and top-level key access on the hook payload.
#include "common/payload.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <unistd.h>

namespace viber {

namespace {
using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() < 0 ? 0 : static_cast<int>(left.count());
}
} // namespace

std::optional<std::string> read_bounded(int fd, const StdinLimits& limits) {
    std::string bytes;
    const auto total_deadline = Clock::now() + limits.total;
    char buffer[64 * 1024];
    for (;;) {
        const int wait =
            std::min(static_cast<int>(limits.idle.count()), remaining_ms(total_deadline));
        pollfd pfd{fd, POLLIN, 0};
        const int ready = ::poll(&pfd, 1, wait);
        if (ready < 0) {
            if (errno == EINTR) continue;
            return std::nullopt;
        }
        if (ready == 0) return std::nullopt; // idle or total bound passed with no data
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return std::nullopt;
        }
        if (got == 0) break;
        if (bytes.size() + static_cast<std::size_t>(got) > limits.max_bytes) return std::nullopt;
        bytes.append(buffer, static_cast<std::size_t>(got));
        if (Clock::now() >= total_deadline) return std::nullopt;
    }
    const std::string_view body = strip_bom(bytes);
    if (body.size() != bytes.size()) bytes.erase(0, bytes.size() - body.size());
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
    if (needle.empty()) return true;
    return ::memmem(haystack.data(), haystack.size(), needle.data(), needle.size()) != nullptr;
}

} // namespace viber
