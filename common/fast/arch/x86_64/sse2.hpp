// fast/arch/x86_64/sse2.hpp: 16 bytes a vector, in every x86-64 CPU.
// One struct of common/fast/vector.hpp's interface (that header lists the operations); only
// common/fast/ includes it.
#pragma once

#include "common/fast/vector.hpp"

namespace viber::fast::simd {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

#if VIBER_SIMD_X86
struct Sse2 {
    using Bytes = __m128i;
    using Lanes = __m128i;
    static constexpr std::size_t width = 16;
    static constexpr unsigned bits_per_byte = 1;
    static Bytes splat(char c) { return _mm_set1_epi8(c); }
    static Bytes pin(Bytes b) {
        asm("" : "+x"(b));
        return b;
    }
    static Bytes load(const char* at) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    }
    static void store(char* at, Bytes b) { _mm_storeu_si128(reinterpret_cast<__m128i*>(at), b); }
    static Lanes eq(Bytes a, Bytes b) { return _mm_cmpeq_epi8(a, b); }
    // max(a, c) == c exactly when a, unsigned, is at most c.
    static Lanes at_most(Bytes a, char c) {
        const Bytes limit = _mm_set1_epi8(c);
        return _mm_cmpeq_epi8(_mm_max_epu8(a, limit), limit);
    }
    static Lanes both(Lanes a, Lanes b) { return _mm_and_si128(a, b); }
    static Lanes either(Lanes a, Lanes b) { return _mm_or_si128(a, b); }
    static bool none(Lanes a) { return _mm_movemask_epi8(a) == 0; }
    static std::uint64_t bits(Lanes a) { return static_cast<std::uint32_t>(_mm_movemask_epi8(a)); }
    static void leave() {}
};
#endif

#pragma GCC diagnostic pop

} // namespace viber::fast::simd
