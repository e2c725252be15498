// fuzz_shell_lexer.cpp: libFuzzer target for the shell lexer the guards share
// (docs/command-model.md): any command line must be read without crashing, hanging or reading out
// of bounds, and every command it hands over must be within the depth cap.
#include "common/shell/shell_lexer.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

struct Checker final : viber::shell::CommandSink {
    void command(const viber::shell::Command& c) override {
        // The depth cap bounds every reported depth.
        if (c.depth > viber::shell::Options{}.max_depth) std::abort();
        if (!c.words.empty()) (void)viber::shell::strip_path_prefix(c.words[0].text);
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view command(reinterpret_cast<const char*>(data), size);
    Checker checker;
    (void)viber::shell::read_commands(command, checker);
    return 0;
}
