// ascii.hpp: byte classes for text the hooks scan (commands, YAML lines, plan text): ASCII only,
// never the C locale's <cctype>, which depends on the environment and is undefined for bytes
// above 0x7F.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace viber::ascii {

constexpr bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}
constexpr bool is_upper(char c) noexcept {
    return c >= 'A' && c <= 'Z';
}
constexpr bool is_lower(char c) noexcept {
    return c >= 'a' && c <= 'z';
}
constexpr bool is_alpha(char c) noexcept {
    return is_upper(c) || is_lower(c);
}
constexpr bool is_alnum(char c) noexcept {
    return is_alpha(c) || is_digit(c);
}
// The six bytes C's isspace() accepts in the "C" locale.
constexpr bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
// Space or tab: what separates words on one line.
constexpr bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t';
}
constexpr char to_lower(char c) noexcept {
    return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}
// `text` with A-Z lowered.
inline std::string lowered(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = to_lower(c);
    return out;
}
// The value of a hexadecimal digit, or -1.
constexpr int hex_value(char c) noexcept {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace viber::ascii
