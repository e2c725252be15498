// fast/vector.hpp: the vector operations the kernels of common/fast/ are written in, one struct
// per width in arch/: SSE2 (arch/x86_64/sse2.hpp) and AVX2 (arch/x86_64/avx2.hpp) on x86-64, NEON
// (arch/aarch64/neon.hpp) on aarch64. A kernel is one template over the width (the
// line scan for needles, the JSON string decoder), and these are its only intrinsics.
//
// SSE2 is in every x86-64 CPU and NEON in every aarch64 one. AVX2 is chosen at run
// time (fast/cpu.hpp) and exists only in a GCC build (VIBER_SIMD_WIDE): each operation carries
// its target, and a scanner's entry for a width is flattened so that the template and these are
// compiled into one function for that target. Clang refuses vector arguments between functions
// of different targets, so a clang build keeps SSE2 (the differential tests say which widths
// they could not run).
//
// Every struct has `Bytes` (a vector), `Lanes` (a compare result: a vector of 0/0xFF bytes, or a
// bit mask), `width` (bytes a vector) and `bits_per_byte` (set bits a position in `bits`: 1 on
// x86; 4 with NEON, which has no movemask), and:
//   splat(c), pin(b), load(at)                  a byte everywhere, kept; an unaligned load
//   eq(a, b), both(x, y), either(x, y)          lanes equal; and, or on Lanes
//   none(x), bits(x)                            no lane set; a 64-bit mask of the lanes
//   leave()                                     before a call out of a scanner's loop: vzeroupper
//                                               with AVX2 (code built for SSE2 runs
//                                               slowly while wide registers are dirty, and GCC does
//                                               not always put one before a call), else nothing
// SSE2 and AVX2 (the widths of the payload's string runs) also have
//   store(at, b), at_most(a, c)                 an unaligned store; lanes whose unsigned byte <= c
// AVX2 (the token scan's byte classes, fast/tokens.hpp) also has
//   table(entries), lookup(t, i)                a 16-entry table per 128-bit lane; t[i] per byte
//   low_nibbles(b), high_nibbles(b)             each byte's low or high 4 bits
//   meet(a, b), high_bits(b)                    a bit per byte: a & b not zero; its high bit set
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

// The widths, each in its own header: vector.hpp is included by them, never by rule code.
