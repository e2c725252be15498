// fast/arch/x86_64/avx2.hpp: 32 bytes a vector, chosen at run time (fast/cpu.hpp) in a GCC build.
// One struct of common/fast/vector.hpp's interface (that header lists the operations); only
// common/fast/ includes it.
#pragma once

#include "common/fast/vector.hpp"

namespace viber::fast::simd {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

#if VIBER_SIMD_WIDE
#define VIBER_AVX2 __attribute__((target("avx2")))
struct Avx2 {
    using Bytes = __m256i;
    using Lanes = __m256i;
    static constexpr std::size_t width = 32;
    static constexpr unsigned bits_per_byte = 1;
    VIBER_AVX2 static Bytes splat(char c) { return _mm256_set1_epi8(c); }
    VIBER_AVX2 static Bytes pin(Bytes b) {
        asm("" : "+x"(b));
        return b;
    }
    VIBER_AVX2 static Bytes load(const char* at) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    }
    VIBER_AVX2 static void store(char* at, Bytes b) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(at), b);
    }
    VIBER_AVX2 static Lanes eq(Bytes a, Bytes b) { return _mm256_cmpeq_epi8(a, b); }
    VIBER_AVX2 static Lanes at_most(Bytes a, char c) {
        const Bytes limit = _mm256_set1_epi8(c);
        return _mm256_cmpeq_epi8(_mm256_max_epu8(a, limit), limit);
    }
    VIBER_AVX2 static Lanes both(Lanes a, Lanes b) { return _mm256_and_si256(a, b); }
    VIBER_AVX2 static Lanes either(Lanes a, Lanes b) { return _mm256_or_si256(a, b); }
    VIBER_AVX2 static bool none(Lanes a) { return _mm256_testz_si256(a, a) != 0; }
    VIBER_AVX2 static std::uint64_t bits(Lanes a) {
        return static_cast<std::uint32_t>(_mm256_movemask_epi8(a));
    }
    VIBER_AVX2 static void leave() { _mm256_zeroupper(); }
};
#undef VIBER_AVX2
#endif

#pragma GCC diagnostic pop

} // namespace viber::fast::simd
