// fast/kernel.hpp: the speed layer's one kernel selection. Each fast routine has a `portable`
// kernel (general registers: the line scan's a byte at a time, the token scan's and the string
// decoder's 8 bytes at a time) and some of `sse2` (x86-64), `avx2` (x86-64 CPUs with AVX2, in a
// GCC build) and `neon` (aarch64); `best` is the fastest of a routine's kernels this CPU runs. A
// kernel the routine, the build or the CPU lacks runs as `best`. Apart from the kernels' code, so
// that a header of rule code can let a test choose one without including a vector header.
#pragma once

#include <array>
#include <span>

namespace viber::fast {

enum class Kernel { portable, sse2, avx2, neon, best };

// Each routine's kernels, fastest first.
inline constexpr std::array line_kernels{Kernel::avx2, Kernel::sse2, Kernel::neon,
                                         Kernel::portable};                // fast/line_scan.hpp
inline constexpr std::array token_kernels{Kernel::avx2, Kernel::portable}; // fast/tokens.hpp
inline constexpr std::array string_kernels{Kernel::avx2, Kernel::sse2,
                                           Kernel::portable}; // fast/json_string.hpp

// True when `kernel` runs for a routine whose kernels are `routine`: `best` always; another when
// the routine has it and this build and CPU run it.
bool supported(Kernel kernel, std::span<const Kernel> routine);
// The kernel such a routine runs when asked for `kernel`: it, when supported; else the fastest
// of the routine's kernels this build and CPU run.
Kernel resolve(Kernel kernel, std::span<const Kernel> routine);

} // namespace viber::fast
