// ascii_test.cpp: the byte classes of common/ascii.hpp, and the 8-byte form of is_space agreeing
// with it on every byte at every position.
#define BOOST_TEST_MODULE ascii
#include "common/ascii.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdint>

namespace ascii = viber::ascii;

BOOST_AUTO_TEST_CASE(the_six_c_locale_spaces_and_no_other_byte) {
    int spaces = 0;
    for (int c = 0; c < 256; ++c) spaces += ascii::is_space(static_cast<char>(c)) ? 1 : 0;
    BOOST_TEST(spaces == 6);
    for (const char c : {' ', '\t', '\n', '\v', '\f', '\r'}) BOOST_TEST(ascii::is_space(c));
    BOOST_TEST(!ascii::is_space('\0'));
    BOOST_TEST(!ascii::is_space('\x85')); // NEL, a space only in some locales
    BOOST_TEST(!ascii::is_space('\xA0')); // no-break space in Latin-1
}

BOOST_AUTO_TEST_CASE(space_bytes_sets_the_high_bit_of_each_space_byte_and_nothing_else) {
    // Every byte value at every position, among neighbours that are spaces and neighbours that
    // are not: a borrow or carry from one byte into the next would show as a wrong bit.
    for (const std::uint64_t background :
         {std::uint64_t{0x4141414141414141}, // "AAAAAAAA"
          std::uint64_t{0x2020202020202020}, // "        "
          std::uint64_t{0xFFFFFFFFFFFFFFFF}, std::uint64_t{0x0000000000000000},
          std::uint64_t{0x0E080E080E080E08}}) {
        for (int position = 0; position < 8; ++position) {
            for (int c = 0; c < 256; ++c) {
                const int shift = 8 * position;
                const std::uint64_t word = (background & ~(std::uint64_t{0xFF} << shift)) |
                                           (static_cast<std::uint64_t>(c) << shift);
                std::uint64_t expected = 0;
                for (int byte = 0; byte < 8; ++byte) {
                    const char b = static_cast<char>((word >> (8 * byte)) & 0xFF);
                    if (ascii::is_space(b)) expected |= std::uint64_t{0x80} << (8 * byte);
                }
                BOOST_TEST(ascii::space_bytes(word) == expected,
                           "byte " << c << " at " << position);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(case_and_digit_classes) {
    BOOST_TEST(ascii::is_alpha('a'));
    BOOST_TEST(ascii::is_alpha('Z'));
    BOOST_TEST(!ascii::is_alpha('@'));
    BOOST_TEST(ascii::is_alnum('7'));
    BOOST_TEST(!ascii::is_alnum('-'));
    BOOST_TEST(ascii::to_lower('C') == 'c');
    BOOST_TEST(ascii::to_lower('\xC3') == '\xC3');
}
