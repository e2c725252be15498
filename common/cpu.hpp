// cpu.hpp: what the running CPU offers, for code that picks its vector instructions at run time.
#pragma once

namespace viber::cpu {

// x86-64 only; false on any other CPU.
bool has_avx2();
// AVX-512F and AVX-512BW together.
bool has_avx512bw();

} // namespace viber::cpu
