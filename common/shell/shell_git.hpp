// shell_git.hpp: git's global options (git(1): the options before the subcommand), read in order
// up to the subcommand. The one reading of them: the command model's git wrapper (`git submodule
// foreach`) and shell-guard's git rules (R2, R4's git writers, the aliases a `git config` defines)
// ask it where git's subcommand is and what `-c` set.
#pragma once

#include "common/shell/shell_lexer.hpp"

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace viber::shell {

struct GitGlobals {
    std::size_t subcommand = 0; // the index of the subcommand word (args.size(): none)
    bool exits = false;         // `--` or an option that prints and exits came first
    // What `-c KEY=VALUE` (`-cKEY=VALUE`) and `--config-env KEY=VAR` (`--config-env=KEY=VAR`)
    // set, each as written after its option, in order.
    std::vector<std::string_view> settings;
};

// `args` are git's arguments (the words after `git`).
GitGlobals git_globals(std::span<const Word> args);

} // namespace viber::shell
