// fast/cpu.cpp: the running CPU's vector extensions.
#include "common/fast/cpu.hpp"

#include "common/fast/kernel.hpp"
#include "common/fast/vector.hpp"

#include <algorithm>
#include <cstdint> // defines __GLIBC__ where the C library is glibc, for the test below

// glibc's header declares its answers as C `_Bool`, which GCC accepts in C++ and clang does not.
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__clang__) &&                            \
    __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define VIBER_GLIBC_CPU_FEATURES 1
#else
#define VIBER_GLIBC_CPU_FEATURES 0
#endif

namespace viber::fast::cpu {

#if VIBER_GLIBC_CPU_FEATURES
// glibc (2.33 on) has already asked the CPU, and the OS for the register state, at start-up;
// libgcc's __builtin_cpu_supports would ask again in a constructor, and under a hypervisor every
// cpuid instruction is a trap that a short hook call notices.
bool has_avx2() {
    return CPU_FEATURE_ACTIVE(AVX2);
}
#elif defined(__x86_64__)
bool has_avx2() {
    return __builtin_cpu_supports("avx2");
}
#else
bool has_avx2() {
    return false;
}
#endif

} // namespace viber::fast::cpu

namespace viber::fast {

namespace {

// True when this build and CPU run `kernel`.
bool runs(Kernel kernel) {
    switch (kernel) {
    case Kernel::portable:
    case Kernel::best:
        return true;
    case Kernel::sse2:
        return VIBER_SIMD_X86 != 0;
    case Kernel::neon:
        return VIBER_SIMD_NEON != 0;
    case Kernel::avx2:
        return VIBER_SIMD_WIDE != 0 && cpu::has_avx2();
    }
    return false;
}

} // namespace

bool supported(Kernel kernel, std::span<const Kernel> routine) {
    return kernel == Kernel::best ||
           (std::find(routine.begin(), routine.end(), kernel) != routine.end() && runs(kernel));
}

Kernel resolve(Kernel kernel, std::span<const Kernel> routine) {
    if (kernel != Kernel::best && supported(kernel, routine)) return kernel;
    for (const Kernel fastest : routine)
        if (runs(fastest)) return fastest;
    return Kernel::portable;
}

} // namespace viber::fast
