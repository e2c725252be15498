// fuzz_kill_guard.cpp: libFuzzer target for kill-guard's whole decision: the bytes as the Bash
// command of a viber agent's payload, decided in hook mode and again with --explain's trace on,
// each inside a budget of 50 ms per KiB and 64 MB. A deny must open `viber guard:`.
#include "fuzz/input_budget.hpp"
#include "kill-guard/kill_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view command(reinterpret_cast<const char*>(data), size);
    viber::fuzzing::decide_guard_within_budget(command, "", viber::kill_guard::decide,
                                               "viber guard:");
    return 0;
}
