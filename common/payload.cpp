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

std::optional<boost::json::object> parse_object(std::string_view bytes) {
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

std::optional<std::string_view> bash_command(const boost::json::object& payload) {
    const auto* tool_input = payload.if_contains("tool_input");
    if (tool_input == nullptr || !tool_input->is_object()) return std::nullopt;
    return string_field(tool_input->get_object(), "command");
}

bool is_true(const boost::json::object& obj, std::string_view key) {
    const auto* value = obj.if_contains(key);
    return value != nullptr && value->is_bool() && value->get_bool();
}

bool contains(std::string_view haystack, std::string_view needle) {
    if (needle.empty()) return true;
    // An empty haystack may have a null data(): memmem must not see it.
    if (haystack.size() < needle.size()) return false;
    return ::memmem(haystack.data(), haystack.size(), needle.data(), needle.size()) != nullptr;
}

} // namespace viber
