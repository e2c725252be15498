// fast_buffer_test.cpp: the buffer hints (common/fast/buffer.hpp): a vector or string moved onto a
// fresh allocation keeps its elements in order, and a reserve with room already there moves
// nothing.
#define BOOST_TEST_MODULE fast_buffer
#include "common/fast/buffer.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace fast = viber::fast;

BOOST_AUTO_TEST_CASE(a_vector_moved_onto_huge_pages_keeps_its_elements) {
    std::vector<std::string> words;
    for (int i = 0; i < 300; ++i) words.push_back("word number " + std::to_string(i) + " of 300");
    fast::reserve_for_writes(words, 100000);
    BOOST_TEST(words.capacity() >= 100000u);
    BOOST_REQUIRE(words.size() == 300u);
    for (int i = 0; i < 300; ++i)
        BOOST_TEST(words[static_cast<std::size_t>(i)] ==
                   "word number " + std::to_string(i) + " of 300");
    // Room already there: nothing moves.
    const std::string* before = words.data();
    fast::reserve_for_writes(words, 5000);
    BOOST_TEST(words.data() == before);

    // Pushed one by one past 512 KiB (the doubling moves onto huge pages), in order.
    std::vector<std::uint64_t> values;
    constexpr std::uint64_t count = 400000; // 3.2 MB
    for (std::uint64_t i = 0; i < count; ++i) fast::push_back_growing(values, i * 7 + 1);
    BOOST_REQUIRE(values.size() == count);
    bool in_order = true;
    for (std::uint64_t i = 0; i < count; ++i) in_order = in_order && values[i] == i * 7 + 1;
    BOOST_TEST(in_order);
}

BOOST_AUTO_TEST_CASE(a_string_reserved_for_writes_has_the_room) {
    for (const std::size_t bytes : {std::size_t{10}, std::size_t{3} << 20}) {
        std::string text;
        fast::reserve_for_writes(text, bytes);
        BOOST_TEST(text.capacity() >= bytes);
        text.assign(bytes, 'x');
        BOOST_TEST(text.size() == bytes);
    }
}
