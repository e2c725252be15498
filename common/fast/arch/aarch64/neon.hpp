// fast/arch/aarch64/neon.hpp: 16 bytes a vector, in every aarch64 CPU.
// One struct of common/fast/vector.hpp's interface (that header lists the operations); only
// common/fast/ includes it.
#pragma once

#include "common/fast/vector.hpp"

namespace viber::fast::simd {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

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

} // namespace viber::fast::simd
