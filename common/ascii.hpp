// ascii.hpp: byte classes for text the hooks scan (commands, YAML lines, plan text): ASCII only,
// never the C locale's <cctype>, which depends on the environment and is undefined for bytes
// above 0x7F.
#pragma once

#include <cstdint>

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
// is_space for 8 bytes at once: the high bit of each byte of `word` is set exactly when that byte
// is one of the six, and every other bit is clear (no sum carries from one byte into the next). A
// scan that splits long text at whitespace reads a word at a time instead of branching per byte.
constexpr std::uint64_t space_bytes(std::uint64_t word) noexcept {
    constexpr std::uint64_t low_bits = 0x0101010101010101ull;
    constexpr std::uint64_t high_bits = 0x8080808080808080ull;
    const std::uint64_t low7 = word & ~high_bits;
    // ' ': a zero byte of word ^ ' '.
    const std::uint64_t from_blank = word ^ (' ' * low_bits);
    const std::uint64_t blank =
        ~(((from_blank & ~high_bits) + ~high_bits) | from_blank) & high_bits;
    // '\t' to '\r' (9 to 13): at least 9 and under 14, high bit clear.
    const std::uint64_t control =
        (low7 + 0x77 * low_bits) & ~(low7 + 0x72 * low_bits) & ~word & high_bits;
    return blank | control;
}
// Space or tab: what separates words on one line.
constexpr bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t';
}
constexpr char to_lower(char c) noexcept {
    return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}

} // namespace viber::ascii
