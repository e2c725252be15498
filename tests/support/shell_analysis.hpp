// shell_analysis.hpp: an owned copy of what the command model hands its sink, for the command
// model's tests and fuzz target (the guards read the model through a CommandSink).
#pragma once

#include "common/shell/shell_lexer.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace viber::shell {

struct OwnedWord {
    std::string text;
    bool quoted = false;
    bool has_substitution = false;
};

struct OwnedRedirect {
    int fd = -1;
    RedirectKind kind = RedirectKind::output;
    OwnedWord target;
};

struct Invocation {
    std::string name; // normalised
    OwnedWord command_word;
    std::vector<OwnedWord> args;
    std::vector<OwnedWord> assignments;
    std::vector<OwnedRedirect> redirects;
    std::string path; // "sudo > bash -c > $(…)"; empty at top level
    unsigned depth = 0;
    bool is_wrapper = false;
    bool query = false;
    bool fed_by_input = false;
    bool via_find = false;
    bool stdin_from_pipe = false;
    bool stdin_from_heredoc = false;
};

struct Analysis {
    std::vector<Invocation> invocations;  // commands with a command word, in the order found
    std::vector<OwnedRedirect> redirects; // every redirection, also those of a bare redirection
    std::vector<std::pair<std::string, bool>> loop_variables;
    std::size_t chain_operators = 0;
    bool reached_depth_cap = false;
    bool reached_expansion_cap = false;
    bool reached_command_cap = false;
};

Analysis analyze(std::string_view command, const Options& options = {});

} // namespace viber::shell
