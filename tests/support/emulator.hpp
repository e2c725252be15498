// emulator.hpp: runs the hooks through the emulator a cross build's tests run under (qemu-user).
#pragma once

#include <string>
#include <vector>

namespace viber::testing {

// The argv that runs `exe`: [exe] natively; in a cross build whose tests run under an emulator
// (CMAKE_CROSSCOMPILING_EMULATOR, e.g. qemu-aarch64-static), the emulator's argv followed by exe
// when exe is a program built for the same machine as the running test (a hook, or a copy of one
// in a scratch tree). Host programs (bash, strace, cmake) run as they are.
std::vector<std::string> emulated_command(const std::string& exe);

// The emulator the tests run under, empty in a native build. A check that cannot hold under it
// (strace sees the emulator's system calls, not the hook's) is skipped, saying so.
const std::vector<std::string>& test_emulator();

} // namespace viber::testing
