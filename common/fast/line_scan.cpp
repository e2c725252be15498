// fast/line_scan.cpp: which line-scan kernels this CPU runs (fast/line_scan.hpp).
#include "common/fast/line_scan.hpp"

#include "common/fast/cpu.hpp"

namespace viber::fast {

bool line_kernel_supported(LineKernel kernel) {
    switch (kernel) {
    case LineKernel::portable:
    case LineKernel::best:
        return true;
    case LineKernel::sse2:
        return VIBER_SIMD_X86 != 0;
    case LineKernel::neon:
        return VIBER_SIMD_NEON != 0;
    case LineKernel::avx2:
        return VIBER_SIMD_WIDE != 0 && cpu::has_avx2();
    }
    return false;
}

LineKernel resolve(LineKernel kernel) {
    if (kernel != LineKernel::best && line_kernel_supported(kernel)) return kernel;
    if (line_kernel_supported(LineKernel::avx2)) return LineKernel::avx2;
    if (line_kernel_supported(LineKernel::sse2)) return LineKernel::sse2;
    if (line_kernel_supported(LineKernel::neon)) return LineKernel::neon;
    return LineKernel::portable;
}

} // namespace viber::fast
