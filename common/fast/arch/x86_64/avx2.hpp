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

    // Nibble lookups (the token scan's byte classes): a 16-entry table stored once per 128-bit
    // lane; lookup(t, i) is t[i] for an index 0-15 in each byte.
    VIBER_AVX2 static Bytes table(const std::uint8_t* entries) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(entries));
    }
    VIBER_AVX2 static Bytes lookup(Bytes table, Bytes index) {
        return _mm256_shuffle_epi8(table, index);
    }
    VIBER_AVX2 static Bytes low_nibbles(Bytes b) {
        return _mm256_and_si256(b, _mm256_set1_epi8(0x0f));
    }
    VIBER_AVX2 static Bytes high_nibbles(Bytes b) {
        return _mm256_and_si256(_mm256_srli_epi16(b, 4), _mm256_set1_epi8(0x0f));
    }
    // A bit per byte: whether a & b is not zero; whether the byte's high bit is set.
    VIBER_AVX2 static std::uint64_t meet(Bytes a, Bytes b) {
        const Bytes zero = _mm256_cmpeq_epi8(_mm256_and_si256(a, b), _mm256_setzero_si256());
        return ~static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(zero))) &
               0xffffffffu;
    }
    VIBER_AVX2 static std::uint64_t high_bits(Bytes b) {
        return static_cast<std::uint32_t>(_mm256_movemask_epi8(b));
    }
};
#undef VIBER_AVX2
#endif

#pragma GCC diagnostic pop

} // namespace viber::fast::simd
