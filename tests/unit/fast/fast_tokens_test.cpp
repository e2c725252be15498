// fast_tokens_test.cpp: the token scan's kernels (common/fast/tokens.hpp) against its plain
// reference (a byte at a time): the same tokens handed on, in the same order, for random texts and
// filters at every length 0..300 and every alignment 0..63 (tests/support/fast_sweep.hpp), and for
// long texts whose tokens cross many blocks.
#define BOOST_TEST_MODULE fast_tokens
#include "common/fast/tokens.hpp"
#include "support/fast_sweep.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace fast = viber::fast;

namespace {

// Bytes a filter is made of: whitespace, the file count's name bytes and wrapping, letters, a
// zero byte and non-ASCII bytes.
const std::string alphabet =
    std::string(" \t\n\r\v\f/\\:~`\"'()[]<>.,;aZm0_-") + '\0' + "\x80\xc3\xa9\xff";

std::string random_text(std::mt19937_64& rng, std::size_t size) {
    std::string out;
    while (out.size() < size) {
        switch (rng() % 8) {
        case 0: // a long token, or a long run of one separator: edges far from each other
            out.append(rng() % 150, rng() % 2 ? 'a' : ' ');
            break;
        case 1:
            out += static_cast<char>(rng() % 256);
            break;
        default:
            out += alphabet[rng() % alphabet.size()];
        }
    }
    out.resize(size);
    return out;
}

fast::ByteSet random_set(std::mt19937_64& rng, unsigned in_of_8) {
    fast::ByteSet set;
    for (const char c : alphabet)
        if (static_cast<unsigned char>(c) < 0x80 && rng() % 8 < in_of_8) set.add(c);
    if (rng() % 2) set.add('\x80'); // every non-ASCII byte
    return set;
}

fast::TokenFilter random_filter(std::mt19937_64& rng) {
    fast::TokenFilter filter;
    filter.separators = random_set(rng, 2);
    filter.separators.add(" \t\n"[rng() % 3]); // never empty
    filter.anywhere = random_set(rng, rng() % 3);
    filter.first = random_set(rng, rng() % 3);
    filter.last = random_set(rng, rng() % 3);
    filter.pair_first = random_set(rng, rng() % 5);
    filter.pair_last = random_set(rng, rng() % 5);
    return filter;
}

// The tokens handed on, as (offset, length) in `text`.
using Tokens = std::vector<std::pair<std::size_t, std::size_t>>;

template <class Scan> Tokens tokens_of(std::string_view text, Scan scan) {
    Tokens tokens;
    scan([&](std::string_view token) {
        tokens.emplace_back(static_cast<std::size_t>(token.data() - text.data()), token.size());
    });
    return tokens;
}

std::vector<std::pair<fast::Kernel, const char*>> kernels_here() {
    std::vector<std::pair<fast::Kernel, const char*>> here{{fast::Kernel::portable, "portable"},
                                                           {fast::Kernel::best, "best"}};
    if (fast::supported(fast::Kernel::avx2, fast::token_kernels))
        here.emplace_back(fast::Kernel::avx2, "avx2");
    else
        std::cout << "note: token kernel avx2 not run: this CPU or this build lacks it\n";
    return here;
}

// `text` at `alignment` in a 64-byte-aligned buffer, scanned by every kernel and the reference.
void agree(const std::string& text, std::size_t alignment, const fast::TokenFilter& filter,
           std::uint64_t seed) {
    static const auto kernels = kernels_here();
    std::unique_ptr<char[]> storage(new char[text.size() + 128]);
    char* base = storage.get() + (64 - reinterpret_cast<std::uintptr_t>(storage.get()) % 64) % 64;
    char* at = base + alignment;
    if (!text.empty()) std::memcpy(at, text.data(), text.size());
    const std::string_view view(at, text.size());
    const Tokens want =
        tokens_of(view, [&](auto visit) { fast::for_each_token_reference(view, filter, visit); });
    for (const auto& [kernel, name] : kernels) {
        const fast::Kernel k = kernel;
        const Tokens got =
            tokens_of(view, [&](auto visit) { fast::TokenScan(filter, k).each(view, visit); });
        BOOST_TEST_REQUIRE((got == want), "text of " << text.size() << " bytes at " << alignment
                                                     << ", seed " << seed << ", kernel " << name);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(the_reference_hands_on_what_the_filter_picks) {
    fast::TokenFilter filter;
    filter.separators = fast::ByteSet::of([](char c) { return c == ' ' || c == '\n'; }, false);
    filter.anywhere.add('/');
    filter.first.add('`');
    filter.last.add('.');
    filter.pair_first.add('M');
    filter.pair_last.add('e');
    const std::string text = "plain src/a.ts `quoted plain end. \n word x/ Make Mx xe M e ";
    std::vector<std::string> got;
    fast::for_each_token_reference(text, filter,
                                   [&](std::string_view token) { got.emplace_back(token); });
    const std::vector<std::string> want = {"src/a.ts", "`quoted", "end.", "x/", "Make"};
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_byte_set_holds_every_non_ascii_byte_or_none) {
    fast::ByteSet set;
    set.add('a');
    BOOST_TEST(set.contains('a'));
    BOOST_TEST(!set.contains('b'));
    BOOST_TEST(!set.contains('\xc3'));
    set.add('\xff');
    for (unsigned byte = 0x80; byte < 0x100; ++byte)
        BOOST_TEST(set.contains(static_cast<char>(byte)));
    BOOST_TEST(!set.contains('b'));
}

BOOST_AUTO_TEST_CASE(kernels_agree_with_the_reference_at_every_length_and_alignment) {
    const std::uint64_t sweeps =
        viber::testing::sweep(0x70c5, [](std::mt19937_64& rng, std::size_t length,
                                         std::size_t alignment, std::uint64_t seed) {
            const fast::TokenFilter filter = random_filter(rng);
            agree(random_text(rng, length), alignment, filter, seed);
        });
    BOOST_TEST(sweeps >= 1u);
}

BOOST_AUTO_TEST_CASE(kernels_agree_on_long_texts_and_every_token_picked_or_none) {
    std::mt19937_64 rng(0x7e47);
    for (int round = 0; round < 200; ++round) {
        const std::string text = random_text(rng, 64 * (1 + rng() % 300) + rng() % 64);
        agree(text, rng() % 64, random_filter(rng), round);
        // Every token picked (each opens with a byte of `first`), then none (empty sets).
        fast::TokenFilter all;
        all.separators.add(' ');
        all.first = fast::ByteSet::of([](char c) { return c != ' '; }, true);
        agree(text, rng() % 64, all, round);
        fast::TokenFilter none;
        none.separators.add(' ');
        agree(text, rng() % 64, none, round);
    }
    // One token as long as the text, marked only at its first, its last or one middle byte.
    for (const std::size_t size : {63u, 64u, 65u, 128u, 4096u, 4097u}) {
        fast::TokenFilter filter;
        filter.separators.add(' ');
        filter.anywhere.add('/');
        filter.first.add('`');
        filter.last.add('.');
        filter.pair_first.add('M');
        filter.pair_last.add('e');
        for (const std::size_t mark : {std::size_t{0}, size / 2, size - 1}) {
            for (const char c : {'/', '`', '.', 'M', 'e'}) {
                std::string text(size, 'a');
                text[mark] = c;
                agree(text, 0, filter, mark);
                agree(" " + text, 0, filter, mark);
                text.front() = 'M';
                text.back() = 'e'; // opens and ends with the pair
                agree(text, 0, filter, mark);
            }
        }
    }
}
