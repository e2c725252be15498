// explain_input.hpp: where `--explain` takes its payload from: stdin (as hook mode reads it), a
// payload file, or a line of the troubleshooting log (`--log FILE[:LINE]`).
#pragma once

#include "common/hook/hook_main.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber {

struct ExplainInput {
    // The payload's bytes as hook mode would read them (a leading BOM removed); nullopt when they
    // could not be read in full (stdin past a bound).
    std::optional<std::string> bytes;
    // Where the bytes came from and what to know about them, first lines of the Read: section.
    std::vector<std::string> notes;
    // The one source the bytes came from, named once in the Read: section.
    PayloadSource source = PayloadSource::standard_input;
    // Nothing to explain: the one line printed on stderr (a usage error, exit 2).
    std::optional<std::string> error;
};

// stdin: a terminal is not read (the error says how to give a payload); an empty stdin is said
// to be empty at once.
ExplainInput explain_input_stdin();

// A payload file (at most 64 MiB, a regular file only).
ExplainInput explain_input_file(const std::string& path);

// A call of `hook` in the troubleshooting log: `spec` is FILE or FILE:LINE (1-based physical
// line); without LINE, the last line the log holds for `hook`. The file is read line by line
// (a line over 64 MiB is passed over).
ExplainInput explain_input_log(std::string_view spec, std::string_view hook);

} // namespace viber
