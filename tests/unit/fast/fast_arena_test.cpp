// fast_arena_test.cpp: the text arena (common/fast/arena.hpp): what is stored reads back intact
// until it is released, a release to a mark frees only what came after it, and a string larger
// than a chunk gets a chunk of its own.
#define BOOST_TEST_MODULE fast_arena
#include "common/fast/arena.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

using viber::fast::Arena;

BOOST_AUTO_TEST_CASE(stored_text_reads_back_and_an_empty_string_is_empty) {
    Arena arena;
    BOOST_TEST(arena.store("").empty());
    std::vector<std::string_view> views;
    std::vector<std::string> texts;
    // Past several 16 KiB chunks: earlier views stay valid when a new chunk is taken.
    for (int i = 0; i < 5000; ++i) texts.push_back("word " + std::to_string(i));
    for (const std::string& text : texts) views.push_back(arena.store(text));
    bool intact = true;
    for (std::size_t i = 0; i < texts.size(); ++i) intact = intact && views[i] == texts[i];
    BOOST_TEST(intact);
    BOOST_TEST(views[0].data() != texts[0].data()); // a copy, not the caller's bytes
}

BOOST_AUTO_TEST_CASE(a_release_frees_only_what_came_after_its_mark) {
    Arena arena;
    const std::string_view kept = arena.store("kept");
    const Arena::Mark mark = arena.mark();
    (void)arena.store(std::string(40000, 'a')); // a chunk of its own
    (void)arena.store("later");
    arena.release(mark);
    BOOST_TEST(kept == "kept");
    // The space after the mark is used again.
    const std::string_view again = arena.store("again");
    BOOST_TEST(again == "again");
    BOOST_TEST(again.data() == kept.data() + kept.size());
}

BOOST_AUTO_TEST_CASE(a_release_to_the_first_mark_keeps_one_chunk_for_reuse) {
    Arena arena;
    const Arena::Mark start = arena.mark();
    const std::string_view first = arena.store("first");
    (void)arena.store(std::string(100000, 'b'));
    arena.release(start);
    BOOST_TEST(arena.store("reused").data() == first.data());
}

BOOST_AUTO_TEST_CASE(a_string_of_a_few_mebibytes_is_stored_whole) {
    Arena arena;
    const std::string big(3 << 20, 'z');
    const std::string_view stored = arena.store(big);
    BOOST_TEST(stored.size() == big.size());
    BOOST_TEST((stored == big));
}
