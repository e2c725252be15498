// fast/line_kernel.hpp: the kernels of the line scan (fast/line_scan.hpp), named apart from it so
// that a header of rule code can let a test choose one without including a vector header.
#pragma once

namespace viber::fast {

// The kernels: `portable` (a byte at a time, one table lookup per byte: the reference), `sse2`
// (x86-64), `avx2` (x86-64 CPUs with AVX2, in a GCC build), `neon` (aarch64); `best` is the
// fastest this CPU runs. A kernel the CPU or the build lacks runs as `best`.
// `scalar` is the portable kernel's older name, which tests still use.
enum class LineKernel { portable, scalar = portable, sse2, best, avx2, neon };
bool line_kernel_supported(LineKernel kernel);
LineKernel resolve(LineKernel kernel);

} // namespace viber::fast
