// fast_json_string_test.cpp: the JSON string decoder's kernels (common/fast/json_string.hpp)
// against its plain reference (a byte at a time): the same result and the same decoded bytes,
// into a buffer of its own and in place, on random and adversarial bodies of every length 0..300
// at every alignment 0..63 (tests/support/fast_sweep.hpp).
#define BOOST_TEST_MODULE fast_json_string
#include "common/fast/json_string.hpp"
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

// Plain bytes, every escape, lone and paired surrogates, bad escapes, control and high bytes.
const std::vector<std::string> pieces = {
    "a",       "plain text ", "\xc3\xa9",       "\xff",    "\\n",     "\\\"",
    "\\\\",    "\\/",         "\\b\\f\\r\\t",   "\\u00e9", "\\u20AC", "\\ud83d\\ude00",
    "\\ud800", "\\udc00",     "\\ud800\\u0041", "\\x",     "\\u12G4", "\x01",
    "\t",      "\x1e",        "\x1f",           " ",       "\x7f",    "\x80",
    "\"",      "\\",
};

std::string random_body(std::mt19937_64& rng, std::size_t size) {
    std::string out;
    // Most bodies run plain for a while first: an escape or stop then falls at every offset of a
    // vector.
    if (rng() % 2) out.assign(rng() % (size + 1), 'p');
    while (out.size() < size) {
        if (rng() % 8 == 0)
            out += static_cast<char>(rng() % 256); // any byte at all
        else if (rng() % 3 == 0)
            out += pieces[rng() % pieces.size()];
        else
            out += static_cast<char>(' ' + rng() % 95);
    }
    out.resize(size);
    return out;
}

// Plain runs with one kind of stop, so a run ends at each offset: the run between two escapes of
// 0..40 bytes, then a closing quote, a control byte or the end.
std::string adversarial_body(std::mt19937_64& rng, std::size_t size) {
    static const std::string stops[] = {"\\n", "\\u00e9", "\\ud83d\\ude00", "\\ud800"};
    std::string out;
    const std::string& stop = stops[rng() % std::size(stops)];
    while (out.size() < size) {
        out += std::string(rng() % 41, 'q');
        out += stop;
    }
    out.resize(size);
    switch (rng() % 3) {
    case 0:
        out += '"';
        break;
    case 1:
        out += '\x1f';
        break;
    default:
        break;
    }
    return out;
}

struct Decoded {
    fast::DecodedString result;
    std::string text;
    bool operator==(const Decoded&) const = default;
};

// `body` at `alignment` in a 64-byte-aligned buffer, decoded from `at` into a buffer of its own, or
// in place (into the body's own bytes).
template <class Decode>
Decoded decode(const std::string& body, std::size_t alignment, bool in_place, Decode run) {
    std::unique_ptr<char[]> storage(new char[body.size() + 128]);
    char* base = storage.get() + (64 - reinterpret_cast<std::uintptr_t>(storage.get()) % 64) % 64;
    char* at = base + alignment;
    if (!body.empty()) std::memcpy(at, body.data(), body.size());
    std::string out(body.size() + 64, '\0');
    char* into = in_place ? at : out.data();
    const fast::DecodedString result = run(std::string_view(at, body.size()), into);
    Decoded decoded{result, {}};
    if (result.close != std::string_view::npos) decoded.text.assign(into, result.size);
    return decoded;
}

std::vector<std::pair<fast::Kernel, const char*>> kernels_here() {
    std::vector<std::pair<fast::Kernel, const char*>> here{{fast::Kernel::portable, "portable"},
                                                           {fast::Kernel::best, "best"}};
    for (const auto& [kernel, name] :
         {std::pair{fast::Kernel::sse2, "sse2"}, std::pair{fast::Kernel::avx2, "avx2"}}) {
        if (fast::supported(kernel, fast::string_kernels))
            here.emplace_back(kernel, name);
        else
            std::cout << "note: JSON string kernel " << name
                      << " not run: this CPU or this build lacks it\n";
    }
    return here;
}

void agree(const std::string& body, std::size_t alignment, const char* what, std::uint64_t seed) {
    static const auto kernels = kernels_here();
    const Decoded want = decode(body, alignment, false, [](std::string_view bytes, char* out) {
        return fast::decode_string_reference(bytes, 0, out);
    });
    for (const bool in_place : {false, true}) {
        for (const auto& [kernel, name] : kernels) {
            const fast::Kernel k = kernel;
            const Decoded got =
                decode(body, alignment, in_place, [k](std::string_view bytes, char* out) {
                    return fast::decode_string_with(k, bytes, 0, out);
                });
            BOOST_TEST_REQUIRE((got == want), what << " body of " << body.size() << " bytes at "
                                                   << alignment << ", seed " << seed << ", kernel "
                                                   << name << (in_place ? ", in place" : ""));
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(the_reference_decodes_as_json_says) {
    const std::string body = R"(a\n\"b\" \u00e9\ud83d\ude00\ud800x" tail)";
    const Decoded got = decode(body, 0, false, [](std::string_view bytes, char* out) {
        return fast::decode_string_reference(bytes, 0, out);
    });
    BOOST_TEST(got.result.close == body.find("\" tail"));
    BOOST_TEST(got.result.escaped);
    BOOST_TEST(got.result.lone_surrogate);
    BOOST_TEST(got.text == "a\n\"b\" \xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
    // A control byte or a bad escape is rejected; so is a body with no end.
    for (const std::string bad : {"ab\x01\"", "a\\x\"", "abc"}) {
        const Decoded rejected = decode(bad, 0, false, [](std::string_view bytes, char* out) {
            return fast::decode_string_reference(bytes, 0, out);
        });
        BOOST_TEST(rejected.result.close == std::string_view::npos, bad);
    }
}

BOOST_AUTO_TEST_CASE(kernels_agree_with_the_reference_at_every_length_and_alignment) {
    const std::uint64_t sweeps =
        viber::testing::sweep(20261202, [](std::mt19937_64& rng, std::size_t length,
                                           std::size_t alignment, std::uint64_t seed) {
            agree(random_body(rng, length), alignment, "random", seed);
            agree(adversarial_body(rng, length), alignment, "adversarial", seed);
        });
    BOOST_TEST(sweeps >= 1u);
}

BOOST_AUTO_TEST_CASE(a_long_body_takes_the_widest_kernel_and_agrees) {
    // decode_string itself (best) switches to AVX2 from 4 KiB left on.
    std::mt19937_64 rng(4096);
    for (int round = 0; round < 50; ++round) {
        const std::string body = random_body(rng, 4000 + rng() % 5000) + "\"";
        agree(body, static_cast<std::size_t>(round % 64), "long", 4096);
    }
}
