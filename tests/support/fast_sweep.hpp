// fast_sweep.hpp: the sweep every differential test of common/fast/ runs: every length 0..300 at
// every alignment 0..63 of a 64-byte-aligned buffer, one seeded input each, repeated with the next
// seed for VIBER_FAST_TEST_SECONDS seconds (unset: one sweep, a few seconds in CI; scripts/fuzz.sh
// runs it longer).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace viber::testing {

inline constexpr std::size_t sweep_longest = 300;
inline constexpr std::size_t sweep_alignments = 64;

// Calls `one(rng, length, alignment, seed)` for every length and alignment, with `rng` seeded from
// `seed`, sweep after sweep (seed + 1 each) while VIBER_FAST_TEST_SECONDS allows; returns the
// sweeps run.
template <class One> std::uint64_t sweep(std::uint64_t seed, One&& one) {
    const char* env = std::getenv("VIBER_FAST_TEST_SECONDS");
    const double seconds = env != nullptr ? std::strtod(env, nullptr) : 0.0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::uint64_t sweeps = 0;
    do {
        std::mt19937_64 rng(seed + sweeps);
        for (std::size_t length = 0; length <= sweep_longest; ++length)
            for (std::size_t alignment = 0; alignment < sweep_alignments; ++alignment)
                one(rng, length, alignment, seed + sweeps);
        ++sweeps;
    } while (std::chrono::steady_clock::now() < until);
    return sweeps;
}

} // namespace viber::testing
