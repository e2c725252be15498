// rules.hpp: what crosses shell-guard's own files: R5's interpreters (interpreters.cpp), R4's
// writers (writers.cpp) and the word helpers they share with the rules (shell_guard.cpp). Internal:
// shell_guard.hpp is the hook's interface.
#pragma once

#include "common/shell/shell_git.hpp"
#include "common/shell/shell_lexer.hpp"
#include "common/text/ascii.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

namespace viber::shell_guard {

using Words = std::span<const shell::Word>;

// ---------------------------------------------------------------------------------------------
// Small word helpers.

using ascii::is_alpha;
using ascii::is_digit;
constexpr auto lower = ascii::to_lower;

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& table) {
    return std::find(table.begin(), table.end(), word) != table.end();
}

// `base` alone or followed by a version (`python3`, `python3.11`, `perl5.36`).
inline bool is_versioned(std::string_view name, std::string_view base) {
    if (!name.starts_with(base)) return false;
    std::string_view version = name.substr(base.size());
    if (version.size() > 1 && version.back() == 't') version.remove_suffix(1); // python3.13t
    return std::all_of(version.begin(), version.end(),
                       [](char c) { return is_digit(c) || c == '.'; });
}

inline bool is_option(std::string_view w) {
    return w.size() > 1 && w[0] == '-';
}

// ---------------------------------------------------------------------------------------------
// awk's command line, read once for R4 (`-i inplace`, `print > "file"`) and R5 (`system(`, -f
// .temp/ code): its options (-v, -F, -i/--include, -l, -E take the next word unless attached;
// -f/--file FILE and --file=FILE name a program file), then the program text unless a file names
// it, then the files it reads. `--` ends the options.
struct AwkLine {
    std::optional<std::size_t> program;           // the program text's index (no -f)
    std::optional<std::string_view> program_file; // the first -f FILE
    std::size_t files = 0;                        // the index of the first file operand
    bool in_place = false;                        // -i inplace, --include=inplace, -iinplace
};

AwkLine read_awk_line(Words args);

// ---------------------------------------------------------------------------------------------
// R5 (interpreters.cpp).

// perl and ruby share one switch grammar: clustered switches; -e CODE (the rest of the word or the
// next word); -i[EXTENSION] (in place); -0 and -l followed by digits; switches whose argument is
// the rest of the word or the next word. R4 reads it too: `perl -i` edits its files in place.
struct SwitchGrammar {
    std::string_view inline_switches; // give the program as code
    std::string_view rest_switches;   // take the rest of the word
    std::string_view next_switches;   // take the rest of the word, or the next word
};

inline constexpr SwitchGrammar perl_switches{"eE", "CdDFMmxV", "I"};
inline constexpr SwitchGrammar ruby_switches{"e", "FxWK", "CEIr"};

struct Switches {
    bool inline_code = false;
    bool in_place = false;
    bool names_other = false;
    std::size_t first_operand = 0; // the script (without inline code), then the program's arguments
};

Switches read_switches(Words args, const SwitchGrammar& grammar);

// True when `c` is one of R5's interpreters (python, node, a shell, `.` …): a wrapper that is one
// (`bash -c`) is judged as a command, not only passed through.
bool is_interpreter(const shell::Command& c);

// An assignment to a variable that loads code (BASH_ENV, NODE_OPTIONS, PYTHONPATH …) naming .temp/
// code.
bool assignment_loads_temp_code(std::string_view assignment);

// R5 for one command.
bool runs_inline_code(const shell::Command& c);

// ---------------------------------------------------------------------------------------------
// R4 (writers.cpp).

// True when a redirection opens its target for writing.
bool redirect_writes(const shell::Redirect& redirect);

// Receives each file a command writes, as a word of the command or a path made from one.
using WriteTarget = std::function<void(std::string_view)>;

// Calls `write` with every file `c` writes (its own operands; redirections are judged apart).
// Returns true when the files come from input the guard cannot see (sed -i under xargs).
bool written_files(const shell::Command& c, const WriteTarget& write);

} // namespace viber::shell_guard
