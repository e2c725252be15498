// fuzz_shell_guard.cpp: libFuzzer target for shell-guard's whole decision: the bytes as the Bash
// command of viber:task-coder's payload with a cwd (so R4 places targets against a work tree),
// decided in hook mode and again with --explain's trace on, each inside a budget of 50 ms per KiB
// and 64 MB.
#include "fuzz/input_budget.hpp"
#include "shell-guard/shell_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view command(reinterpret_cast<const char*>(data), size);
    viber::fuzzing::decide_guard_within_budget(command, "/nonexistent/work/tree/src",
                                               viber::shell_guard::decide,
                                               "viber guard: this command breaks R");
    return 0;
}
