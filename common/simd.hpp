// simd.hpp: the vector operations the byte scanners are written in, one struct per width: SSE2,
// AVX2 and AVX-512BW on x86-64, NEON on aarch64. A scanner is one template over the width (the
// transcript prefilter, the file limit's byte classes, the payload's string runs), and these are
// its only intrinsics.
//
// SSE2 is in every x86-64 CPU and NEON in every aarch64 one. AVX2 and AVX-512BW are chosen at run
// time (common/cpu.hpp) and exist only in a GCC build (VIBER_SIMD_WIDE): each operation carries
// its target, and a scanner's entry for a width is flattened so that the template and these are
// compiled into one function for that target. Clang refuses vector arguments between functions
// of different targets, so a clang build keeps SSE2 (each scanner's test says which widths it
// could not run).
//
// Every struct has `Bytes` (a vector), `Lanes` (a compare result: a vector of 0/0xFF bytes, or a
// bit mask), `width` (bytes a vector) and `bits_per_byte` (set bits a position in `bits`: 1 on
// x86; 4 with NEON, which has no movemask), and:
//   splat(c), pin(b), load(at)                  a byte everywhere, kept; an unaligned load
//   eq(a, b), both(x, y), either(x, y)          lanes equal; and, or on Lanes
//   none(x), bits(x)                            no lane set; a 64-bit mask of the lanes
//   leave()                                     before a call out of a scanner's loop: vzeroupper
//                                               with AVX2 and AVX-512BW (code built for SSE2 runs
//                                               slowly while wide registers are dirty, and GCC does
//                                               not always put one before a call), else nothing
// SSE2 and AVX2 (the widths of the payload's string runs) also have
//   store(at, b), at_most(a, c)                 an unaligned store; lanes whose unsigned byte <= c
// and AVX2 and AVX-512BW, for lookups of a 16-entry byte table on each nibble (`pshufb`):
//   table(t), low_nibbles(b), high_nibbles(b), lookup(table, nibbles), meet(a, b), high_bits(b)
// `pin` hides a splat's value from the optimiser, which would otherwise rebuild a constant splat
// inside a loop (two shuffle-port micro-ops each, on the port the compares need).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#define VIBER_SIMD_X86 1
#else
#define VIBER_SIMD_X86 0
#endif
#if VIBER_SIMD_X86 && !defined(__clang__)
#define VIBER_SIMD_WIDE 1
#else
#define VIBER_SIMD_WIDE 0
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#define VIBER_SIMD_NEON 1
#else
#define VIBER_SIMD_NEON 0
#endif

namespace viber::simd {

// The vector types pass only between functions flattened into one, so their calling convention
// never matters.
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
    // A 16-byte table stored twice, one copy per 128-bit lane (32 bytes at `t`).
    VIBER_AVX2 static Bytes table(const std::uint8_t* t) {
        return load(reinterpret_cast<const char*>(t));
    }
    VIBER_AVX2 static Bytes low_nibbles(Bytes b) {
        return _mm256_and_si256(b, _mm256_set1_epi8(0x0f));
    }
    VIBER_AVX2 static Bytes high_nibbles(Bytes b) { return low_nibbles(_mm256_srli_epi16(b, 4)); }
    VIBER_AVX2 static Bytes lookup(Bytes table, Bytes nibbles) {
        return _mm256_shuffle_epi8(table, nibbles);
    }
    // The bytes at which `a & b` is not zero.
    VIBER_AVX2 static std::uint64_t meet(Bytes a, Bytes b) {
        const __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(a, b), _mm256_setzero_si256());
        return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(none));
    }
    VIBER_AVX2 static void leave() { _mm256_zeroupper(); }
    VIBER_AVX2 static std::uint64_t high_bits(Bytes b) {
        return static_cast<std::uint32_t>(_mm256_movemask_epi8(b));
    }
};
#undef VIBER_AVX2

// AVX-512BW compares yield bit masks directly.
#define VIBER_AVX512 __attribute__((target("avx512f,avx512bw")))
struct Avx512 {
    using Bytes = __m512i;
    using Lanes = __mmask64;
    static constexpr std::size_t width = 64;
    static constexpr unsigned bits_per_byte = 1;
    VIBER_AVX512 static Bytes splat(char c) { return _mm512_set1_epi8(c); }
    VIBER_AVX512 static Bytes pin(Bytes b) {
        asm("" : "+v"(b));
        return b;
    }
    VIBER_AVX512 static Bytes load(const char* at) { return _mm512_loadu_si512(at); }
    VIBER_AVX512 static Lanes eq(Bytes a, Bytes b) { return _mm512_cmpeq_epi8_mask(a, b); }
    VIBER_AVX512 static Lanes both(Lanes a, Lanes b) { return a & b; }
    // Mask operations, so the test of a whole block stays in the mask registers.
    VIBER_AVX512 static Lanes either(Lanes a, Lanes b) { return _kor_mask64(a, b); }
    VIBER_AVX512 static bool none(Lanes a) { return _kortestz_mask64_u8(a, a) != 0; }
    VIBER_AVX512 static std::uint64_t bits(Lanes a) { return a; }
    // The first 16 bytes at `t` in each 128-bit lane. The zero-masked broadcast: GCC 12 warns that
    // the plain one reads an undefined vector.
    VIBER_AVX512 static Bytes table(const std::uint8_t* t) {
        return _mm512_maskz_broadcast_i32x4(0xFFFF,
                                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(t)));
    }
    VIBER_AVX512 static Bytes low_nibbles(Bytes b) {
        return _mm512_and_si512(b, _mm512_set1_epi8(0x0f));
    }
    VIBER_AVX512 static Bytes high_nibbles(Bytes b) { return low_nibbles(_mm512_srli_epi16(b, 4)); }
    VIBER_AVX512 static Bytes lookup(Bytes table, Bytes nibbles) {
        return _mm512_shuffle_epi8(table, nibbles);
    }
    VIBER_AVX512 static std::uint64_t meet(Bytes a, Bytes b) { return _mm512_test_epi8_mask(a, b); }
    VIBER_AVX512 static std::uint64_t high_bits(Bytes b) { return _mm512_movepi8_mask(b); }
    VIBER_AVX512 static void leave() { _mm256_zeroupper(); }
};
#undef VIBER_AVX512
#endif

#if VIBER_SIMD_NEON
// NEON has no movemask: narrowing each 16-bit pair of compare bytes by 4 bits gives a 64-bit mask
// with 4 bits per position.
struct Neon {
    using Bytes = uint8x16_t;
    using Lanes = uint8x16_t;
    static constexpr std::size_t width = 16;
    static constexpr unsigned bits_per_byte = 4;
    static Bytes splat(char c) { return vdupq_n_u8(static_cast<std::uint8_t>(c)); }
    static Bytes pin(Bytes b) {
        asm("" : "+w"(b));
        return b;
    }
    static Bytes load(const char* at) {
        return vld1q_u8(reinterpret_cast<const std::uint8_t*>(at));
    }
    static Lanes eq(Bytes a, Bytes b) { return vceqq_u8(a, b); }
    static Lanes both(Lanes a, Lanes b) { return vandq_u8(a, b); }
    static Lanes either(Lanes a, Lanes b) { return vorrq_u8(a, b); }
    static bool none(Lanes a) { return vmaxvq_u8(a) == 0; }
    static std::uint64_t bits(Lanes a) {
        return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(a), 4)), 0);
    }
    static void leave() {}
};
#endif

#pragma GCC diagnostic pop

} // namespace viber::simd
