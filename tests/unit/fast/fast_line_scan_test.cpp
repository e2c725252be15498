// fast_line_scan_test.cpp: the line scan's kernels (common/fast/line_scan.hpp) against its plain
// reference, the portable kernel: the same newlines, the same needle hits on each line, the same
// stop after a newline the sink ends at, on random and adversarial bytes of every length 0..300 at
// every alignment 0..63 (tests/support/fast_sweep.hpp), for every needle mask a caller compiles.
#define BOOST_TEST_MODULE fast_line_scan
#include "common/fast/line_scan.hpp"
#include "support/fast_sweep.hpp"

#include <algorithm>
#include <array>
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

// Needles shaped as the transcript's are: probe bytes near the start, apart, adjacent, at the end,
// a needle that is all one byte, one that shares its bytes with another.
constexpr std::array<fast::LineNeedle, 7> needles{{
    {"permissionMode", 9, 10},
    {"\"Skill\"", 1, 2},
    {"file_path", 0, 4},
    {"<command-message>viber:", 16, 17},
    {"plans", 0, 4},
    {"aaaa", 0, 3},
    {"VERDICT:", 6, 7},
}};
constexpr std::uint32_t all_needles = (1u << needles.size()) - 1;
constexpr std::uint32_t some_needles = (1u << 1) | (1u << 4) | (1u << 5);

constexpr std::size_t look_behind = fast::look_behind_of(needles);
constexpr std::size_t padding = fast::line_scan_padding(needles);

// What a scan reported: newline positions in order, needle hits as (start, needle) sorted (a
// vector kernel reports a line's hits in the order of their probe bytes, the reference in the
// order of their starts: the caller reads a line's hits as a set), and each call's return.
struct Events {
    std::vector<std::size_t> newlines;
    std::vector<std::pair<std::size_t, unsigned>> hits;
    std::vector<std::size_t> returns;
    bool operator==(const Events&) const = default;
};

struct Recorder {
    Events* events;
    bool stop_at_newlines;
    bool newline(std::size_t at) {
        events->newlines.push_back(at);
        return !stop_at_newlines;
    }
    void hit(std::size_t at, unsigned needle) { events->hits.emplace_back(at, needle); }
};

// Scans `data` (readable from data - look_behind to data + size + padding) with `Scan`, from 0 to
// the end, a stretch at a time: up to `cut`, then to the end (as the transcript scanner scans what
// one read brought, the bytes after it already there). A needle is reported once, by the stretch
// that holds its start (the reference) or its first probe byte (a vector kernel). With `stop`, the
// sink ends each call at a newline and the scan resumes after it, as the transcript scanner does
// when the needles it wants change.
template <class Scan>
Events scan_all(const char* data, std::size_t size, std::size_t cut, bool stop, Scan scan) {
    Events events;
    Recorder sink{&events, stop};
    std::size_t from = 0;
    for (const std::size_t end : {std::min(cut, size), size}) {
        while (from < end) {
            from = scan(data, from, end, sink);
            events.returns.push_back(from);
        }
    }
    std::sort(events.hits.begin(), events.hits.end());
    return events;
}

// The bytes a sweep draws from: the needles' own bytes, newlines, zero and high bytes.
std::string random_bytes(std::mt19937_64& rng, std::size_t size) {
    static const std::string alphabet = "permissionModeSkil\"file_path<command-message>viber:plansa"
                                        "VERDICT:\n\n\n\0\xff \t{}";
    std::string out(size, ' ');
    for (char& c : out) c = alphabet[rng() % alphabet.size()];
    return out;
}

// Needles whole, cut short, with one byte changed, glued to each other and split by newlines.
std::string adversarial_bytes(std::mt19937_64& rng, std::size_t size) {
    std::string out;
    while (out.size() < size) {
        const std::string_view needle = needles[rng() % needles.size()].text;
        switch (rng() % 6) {
        case 0:
            out += needle;
            break;
        case 1:
            out += needle.substr(0, rng() % needle.size());
            break;
        case 2: {
            std::string near(needle);
            near[rng() % near.size()] ^= 0x20;
            out += near;
            break;
        }
        case 3:
            out += '\n';
            break;
        case 4:
            out += std::string(rng() % 40, static_cast<char>(rng() % 2 ? 'a' : '\n'));
            break;
        default:
            out += std::string(needle.substr(0, needle.size() / 2)) + "\n" +
                   std::string(needle.substr(needle.size() / 2));
        }
    }
    out.resize(size);
    return out;
}

// A 64-byte-aligned buffer with `bytes` at `alignment`, zeros before (the look-behind) and after.
struct Placed {
    std::unique_ptr<char[]> storage;
    const char* data;
    Placed(const std::string& bytes, std::size_t alignment) {
        const std::size_t before = (look_behind + 63) / 64 * 64;
        storage.reset(new char[before + 64 + bytes.size() + padding + 64]());
        char* base = storage.get();
        base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
        char* at = base + before + alignment;
        if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
        data = at;
    }
};

template <std::uint32_t Mask>
Events reference(const Placed& p, std::size_t size, std::size_t cut, bool stop) {
    return scan_all(p.data, size, cut, stop,
                    [](const char* d, std::size_t f, std::size_t t, auto& s) {
                        return fast::scan_lines_reference<needles, Mask>(d, f, t, s);
                    });
}
template <std::uint32_t Mask>
Events with(fast::Kernel kernel, const Placed& p, std::size_t size, std::size_t cut, bool stop) {
    return scan_all(p.data, size, cut, stop,
                    [kernel](const char* d, std::size_t f, std::size_t t, auto& s) {
                        return fast::scan_lines<needles, Mask>(kernel, d, f, t, s);
                    });
}

// The kernels this CPU runs; one it lacks is named in the log and on the console, never counted
// as run.
std::vector<fast::Kernel> kernels_here() {
    std::vector<fast::Kernel> here;
    for (const auto& [kernel, name] :
         {std::pair{fast::Kernel::sse2, "sse2"}, std::pair{fast::Kernel::avx2, "avx2"},
          std::pair{fast::Kernel::neon, "neon"}}) {
        if (fast::supported(kernel, fast::line_kernels)) {
            here.push_back(kernel);
            BOOST_TEST_MESSAGE("line scan kernel " << name << ": run");
        } else {
            std::cout << "note: line scan kernel " << name
                      << " not run: this CPU or this build lacks it\n";
        }
    }
    return here;
}

template <std::uint32_t Mask>
void agree(const Placed& p, std::size_t size, std::size_t cut, const char* what,
           std::size_t alignment, std::uint64_t seed) {
    static const std::vector<fast::Kernel> kernels = kernels_here();
    for (const bool stop : {false, true}) {
        const Events want = reference<Mask>(p, size, cut, stop);
        for (const fast::Kernel kernel : kernels) {
            const Events got = with<Mask>(kernel, p, size, cut, stop);
            BOOST_TEST_REQUIRE((got == want), what << " bytes, length " << size << ", alignment "
                                                   << alignment << ", seed " << seed << ", kernel "
                                                   << static_cast<int>(kernel) << ", mask " << Mask
                                                   << ", cut " << cut << ", stop " << stop);
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(a_vector_kernel_runs_here) {
    // On x86-64 SSE2 always, on aarch64 NEON: a differential test with no kernel would pass empty.
    BOOST_TEST(!kernels_here().empty());
}

BOOST_AUTO_TEST_CASE(the_reference_finds_what_a_plain_search_finds) {
    const std::string text = "x\"Skill\"\nplans aaaaa\nVERD\nICT:";
    const Placed p(text, 0);
    const Events got = reference<all_needles>(p, text.size(), text.size(), false);
    BOOST_TEST((got.newlines == std::vector<std::size_t>{8, 20, 25}));
    const std::vector<std::pair<std::size_t, unsigned>> hits{{1, 1}, {9, 4}, {15, 5}, {16, 5}};
    BOOST_TEST((got.hits == hits));
}

BOOST_AUTO_TEST_CASE(kernels_agree_with_the_reference_at_every_length_and_alignment) {
    const std::uint64_t sweeps =
        viber::testing::sweep(20261202, [](std::mt19937_64& rng, std::size_t length,
                                           std::size_t alignment, std::uint64_t seed) {
            const std::string random = random_bytes(rng, length);
            const std::string hostile = adversarial_bytes(rng, length);
            const Placed a(random, alignment);
            const Placed b(hostile, alignment);
            const std::size_t cut = length == 0 ? 0 : rng() % (length + 1);
            agree<all_needles>(a, length, length, "random", alignment, seed);
            agree<all_needles>(a, length, cut, "random", alignment, seed);
            agree<all_needles>(b, length, cut, "adversarial", alignment, seed);
            agree<some_needles>(b, length, cut, "adversarial", alignment, seed);
        });
    BOOST_TEST(sweeps >= 1u);
}

BOOST_AUTO_TEST_CASE(uniform_bytes_agree) {
    // Every position an event, or none: all newlines, all of one needle's first probe byte.
    for (const char c : {'\n', 'a', 'p', '\0', 'x'}) {
        for (std::size_t length = 0; length <= viber::testing::sweep_longest; ++length) {
            const std::string bytes(length, c);
            for (std::size_t alignment = 0; alignment < 64; alignment += 7) {
                const Placed p(bytes, alignment);
                agree<all_needles>(p, length, length / 2, "uniform", alignment, 0);
            }
        }
    }
}
