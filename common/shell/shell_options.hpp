// shell_options.hpp: the shells (`bash`, `sh`, …) and how one reads its options: where its `-c`
// string or its script is, and whether it reads its script from stdin. One list and one reader, so
// the command model (shell_lexer) and shell-guard's R5 read a shell's words the same way.
#pragma once

#include "common/shell/shell_lexer.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace viber::shell {

// Shells whose `-c` runs its string and that read a script from stdin without one.
inline constexpr std::array<std::string_view, 9> shell_names{
    "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox-sh"};

// True when `name` (normalised: lower case, no path, no `.exe`) is one of shell_names.
bool is_shell_name(std::string_view name);

// What a shell's words say about the code it runs. Indices are into the `words` given to
// read_shell_options. The command model reads command_string, script_from_stdin and script;
// shell-guard's R5 needs the rest too (a `-c` with or without its string is inline code, an rcfile
// under .temp/ is .temp/ code, `-n` and `--version` run nothing).
struct ShellOptions {
    // The string `-c` runs: the first operand after every option, when a `-c` letter appeared
    // in a cluster opening with `-` (`-c`, `-xc`, `-c -x STRING` alike, as bash reads them).
    std::optional<std::size_t> command_string;
    bool command_option = false; // a `-c` letter appeared, with or without a string after it
    // No `-c`: the script comes from stdin (`-s`, no operand, `/dev/stdin`, `/dev/fd/0`). Also set
    // for `bash --version` and `bash -n`, which run nothing (names_other, no_exec).
    bool script_from_stdin = false;
    // `-s` (no `-c`): the script comes from stdin whatever the operands, which are its arguments.
    bool stdin_option = false;
    // No `-c` and no `-s`: the first operand, the script file the shell runs.
    std::optional<std::size_t> script;
    std::optional<std::size_t> rcfile; // the value of `--rcfile` / `--init-file`
    bool no_exec = false;              // `-n`: the script is read for syntax, nothing runs
    bool names_other = false;          // `--version` / `--help`: nothing runs
};

// Reads a shell's words [begin, end) after its name the way bash reads its arguments: every
// option first (clusters `-xe` letter by letter, `+` clusters turning options off; `-o NAME`,
// `-O NAME` and their `+` forms take the next word unless the value is attached, `-Oextglob`;
// `--rcfile FILE` and `--init-file FILE` take the next word; other `--long` options none), up to
// the first word that is no option, or after `--` or `-`; then the operands.
ShellOptions read_shell_options(std::span<const Word> words, std::size_t begin, std::size_t end);

// util-linux script's options (script(1), 2.38): the letters that take a value (attached or the
// next word), -t's only attached one, and the long options that take one, by GNU prefix. The
// command model reads its -c string with them, shell-guard's R4 the logs it writes.
inline constexpr std::string_view script_value_letters = "cEIOBTmo";
inline constexpr std::string_view script_attached_letters = "t";
inline constexpr std::string_view script_long_values =
    "--c(ommand) --e(cho) --log-in --log-io --log-o(ut) --log-t(iming) --logg(ing-format) "
    "--o(utput-limit) ";

// True when `list` (words each followed by a space: "-o --output ") names `option`: a word equal
// to it, or a word written `--ta(rget-dir)` of which `option` is a prefix from `--ta` on (GNU's
// unambiguous prefixes, where the command's own reading takes them).
bool lists_option(std::string_view list, std::string_view option);

} // namespace viber::shell
