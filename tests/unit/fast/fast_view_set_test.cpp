// fast_view_set_test.cpp: the flat set of string views (common/fast/view_set.hpp) against its
// plain reference, std::unordered_set<std::string_view>: the same answer to every lookup and add
// over random runs that grow the table many times, with views of every length (the empty one
// included) that share prefixes, suffixes and hashes' low bits.
#define BOOST_TEST_MODULE fast_view_set
#include "common/fast/view_set.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <unordered_set>

namespace fast = viber::fast;

namespace {

// Words from a small alphabet, so runs repeat them: most adds find a held view.
std::string random_word(std::mt19937_64& rng, std::size_t vocabulary) {
    const std::uint64_t n = rng() % vocabulary;
    std::string word(n % 7, 'a');
    word += std::to_string(n);
    if (n % 3 == 0) word = "src/" + word + ".ts";
    if (n == 0) word.clear();
    return word;
}

} // namespace

BOOST_AUTO_TEST_CASE(holds_what_it_was_given_once) {
    fast::ViewSet set;
    std::deque<std::string> kept;
    const auto keep = [&](std::string_view view) -> std::string_view {
        return kept.emplace_back(view);
    };
    const std::string a = "src/a.ts";
    BOOST_TEST(!set.contains(a));
    const auto added = set.add_new(a, keep);
    BOOST_TEST_REQUIRE(added.has_value());
    BOOST_TEST(*added == a);
    BOOST_TEST(added->data() == kept.back().data()); // the kept copy, not the caller's bytes
    BOOST_TEST(!set.add_new(std::string("src/a.ts"), keep).has_value());
    BOOST_TEST(set.contains("src/a.ts"));
    BOOST_TEST(set.size() == 1u);
    BOOST_TEST(set.add_new("", keep).has_value());
    BOOST_TEST(set.contains(""));
    BOOST_TEST(set.size() == 2u);
}

BOOST_AUTO_TEST_CASE(agrees_with_an_unordered_set_over_random_runs) {
    std::mt19937_64 rng(0x5e7);
    for (int run = 0; run < 40; ++run) {
        const std::size_t vocabulary = 1 + rng() % (run < 20 ? 64 : 20000);
        fast::ViewSet set(rng() % 100);
        std::unordered_set<std::string_view> reference;
        std::deque<std::string> kept; // stable storage for the views both hold
        const auto keep = [&](std::string_view view) -> std::string_view {
            return kept.emplace_back(view);
        };
        for (int step = 0; step < 30000; ++step) {
            const std::string word = random_word(rng, vocabulary);
            if (rng() % 3 == 0) {
                BOOST_TEST_REQUIRE(set.contains(word) == reference.contains(word),
                                   "run " << run << " step " << step << ": " << word);
                continue;
            }
            const bool held = reference.contains(word);
            const auto added = set.add_new(word, keep);
            BOOST_TEST_REQUIRE(added.has_value() == !held,
                               "run " << run << " step " << step << ": " << word);
            if (added) reference.insert(*added);
            BOOST_TEST_REQUIRE(set.size() == reference.size());
        }
    }
}
