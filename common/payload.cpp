// payload.cpp: the bounded stdin reader and top-level key access on the hook payload.
#include "common/payload.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <cstring>

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
    return os::contains_bytes(haystack, needle);
}

} // namespace viber
