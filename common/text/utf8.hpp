// utf8.hpp: UTF-8 validity, code point counts and repair, for text that reaches stdout or a log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace viber::utf8 {

// U+FFFD REPLACEMENT CHARACTER, which stands in for every byte that is not valid UTF-8.
inline constexpr std::string_view replacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence starting at `at`, or 0 when the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF are invalid, as in Unicode
// Table 3-7).
std::size_t sequence_length(std::string_view text, std::size_t at) noexcept;

// True when every byte of `text` belongs to a valid sequence.
bool is_valid(std::string_view text) noexcept;

// Unicode code points in `text`; every byte of an invalid sequence counts as one.
std::size_t code_points(std::string_view text) noexcept;

// `text` with each byte that belongs to no valid sequence replaced by U+FFFD.
std::string repaired(std::string_view text);

// Appends code point `cp` to `out` in UTF-8 (one to four bytes; past U+10FFFF the four-byte form
// of its low 21 bits, as bash writes $'\U…').
void append(std::string& out, std::uint32_t cp);

// The byte offset just past the first `count` code points of `text` (its size when it holds
// fewer): a cut there never splits a character.
std::size_t offset_of(std::string_view text, std::size_t count) noexcept;

} // namespace viber::utf8
