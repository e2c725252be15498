// ascii_test.cpp: the byte classes of common/text/ascii.hpp, and the 8-byte form of is_space
// agreeing with it on every byte at every position.
#define BOOST_TEST_MODULE ascii
#include "common/text/ascii.hpp"

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

BOOST_AUTO_TEST_CASE(case_and_digit_classes) {
    BOOST_TEST(ascii::is_alpha('a'));
    BOOST_TEST(ascii::is_alpha('Z'));
    BOOST_TEST(!ascii::is_alpha('@'));
    BOOST_TEST(ascii::is_alnum('7'));
    BOOST_TEST(!ascii::is_alnum('-'));
    BOOST_TEST(ascii::to_lower('C') == 'c');
    BOOST_TEST(ascii::to_lower('\xC3') == '\xC3');
}
