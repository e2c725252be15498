// fuzz_shell_lexer.cpp: libFuzzer target for the shell lexer the guards share
// (docs/command-model.md): any command line must analyze without crashing, hanging or reading out
// of bounds, and every invocation it reports must have a name that is a path-stripped word.
#include "common/shell/shell_lexer.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view command(reinterpret_cast<const char*>(data), size);
    const viber::shell::Analysis analysis = viber::shell::analyze(command);
    for (const auto& invocation : analysis.invocations) {
        // The depth cap bounds every reported depth.
        if (invocation.depth > viber::shell::Options{}.max_depth) std::abort();
        (void)viber::shell::strip_path_prefix(invocation.command_word.text);
    }
    return 0;
}
