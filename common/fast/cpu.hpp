// fast/cpu.hpp: what the running CPU offers, for code that picks its vector instructions at run
// time.
#pragma once

namespace viber::fast::cpu {

// x86-64 only; false on any other CPU.
bool has_avx2();

} // namespace viber::fast::cpu
