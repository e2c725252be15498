// shell_git.cpp: git's global options, kept as tables (shell_git.hpp).
#include "common/shell/shell_git.hpp"

#include <algorithm>
#include <array>

namespace viber::shell {

namespace {

constexpr std::array<std::string_view, 9> git_options_with_value{"-C",
                                                                 "-c",
                                                                 "--git-dir",
                                                                 "--work-tree",
                                                                 "--namespace",
                                                                 "--super-prefix",
                                                                 "--config-env",
                                                                 "--attr-source",
                                                                 "--shallow-file"};
// These make git print something and exit before any subcommand runs (and `--list-cmds=LIST`).
constexpr std::array<std::string_view, 8> git_options_that_exit{
    "--version", "-v", "--help", "-h", "--html-path", "--man-path", "--info-path", "--exec-path"};

} // namespace

GitGlobals git_globals(std::span<const Word> args) {
    GitGlobals globals;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w.empty() || w[0] != '-') break;
        if (w == "--" || w.starts_with("--list-cmds=") ||
            std::ranges::find(git_options_that_exit, w) != git_options_that_exit.end()) {
            globals.exits = true;
            break;
        }
        if ((w == "-c" || w == "--config-env") && i + 1 < args.size())
            globals.settings.push_back(args[i + 1].text);
        else if (w.starts_with("--config-env="))
            globals.settings.push_back(w.substr(13));
        else if (w.starts_with("-c") && w.size() > 2)
            globals.settings.push_back(w.substr(2));
        if (std::ranges::find(git_options_with_value, w) != git_options_with_value.end())
            ++i; // attached forms are one word
    }
    globals.subcommand = std::min(i, args.size());
    return globals;
}

} // namespace viber::shell
