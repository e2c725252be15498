// utf8_test.cpp: UTF-8 validity, code point counts, repair and character-boundary offsets.
#define BOOST_TEST_MODULE utf8
#include "common/text/utf8.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

namespace utf8 = viber::utf8;

BOOST_AUTO_TEST_CASE(valid_text_is_valid) {
    for (const char* text : {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80",
                             "\xEF\xBF\xBD", "\xF4\x8F\xBF\xBF"})
        BOOST_TEST(utf8::is_valid(text), text);
}

BOOST_AUTO_TEST_CASE(invalid_sequences_are_invalid) {
    // A lone continuation, a truncated sequence, an overlong form, a surrogate, past U+10FFFF,
    // bytes that never occur.
    for (const char* text : {"\x80", "\xC3", "a\xE2\x82", "\xC0\xAF", "\xE0\x80\xAF",
                             "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFE", "\xFF"})
        BOOST_TEST(!utf8::is_valid(text), text);
}

BOOST_AUTO_TEST_CASE(each_invalid_byte_becomes_one_replacement_character) {
    BOOST_TEST(utf8::repaired("a\xFF"
                              "b") == "a\xEF\xBF\xBD"
                                      "b");
    BOOST_TEST(utf8::repaired("\xC3") == "\xEF\xBF\xBD");
    BOOST_TEST(utf8::repaired("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    BOOST_TEST(utf8::repaired("caf\xC3\xA9") == "caf\xC3\xA9");
    BOOST_TEST(utf8::is_valid(utf8::repaired("\x80\xC3(\xF0\x9F\x98")));
}

BOOST_AUTO_TEST_CASE(code_points_count_characters_and_invalid_bytes) {
    BOOST_TEST(utf8::code_points("") == 0u);
    BOOST_TEST(utf8::code_points("caf\xC3\xA9") == 4u);
    BOOST_TEST(utf8::code_points("\xF0\x9F\x98\x80!") == 2u);
    BOOST_TEST(utf8::code_points("\xFF\xFE") == 2u);
}

BOOST_AUTO_TEST_CASE(offset_of_never_splits_a_character) {
    const std::string text = "a\xC3\xA9\xF0\x9F\x98\x80z";
    BOOST_TEST(utf8::offset_of(text, 0) == 0u);
    BOOST_TEST(utf8::offset_of(text, 1) == 1u);
    BOOST_TEST(utf8::offset_of(text, 2) == 3u);
    BOOST_TEST(utf8::offset_of(text, 3) == 7u);
    BOOST_TEST(utf8::offset_of(text, 4) == 8u);
    BOOST_TEST(utf8::offset_of(text, 99) == 8u);
}
