// shell_lexer.hpp: finds every command a shell command line would run (docs/command-model.md), for the guards.
//
// The lexer reads POSIX/bash syntax far enough to answer one question exactly: which words stand
// in command position, with which arguments and redirections. It sees through quotes and escapes,
// $(…), backticks and process substitutions (recursively), subshells, { …; } groups, function
// bodies, reserved words, assignments, path prefixes, the wrappers of docs/command-model.md (sudo, env, command,
// builtin, exec, nohup, time, nice, timeout, stdbuf, xargs) and the strings given to
// `bash|sh|zsh|dash|ksh -c`, `eval` and `env -S`. Heredoc bodies and comments are data.
// It is linear in the input (each recursion level re-reads at most its own text, and the depth is
// capped) and never throws past `analyze`.
//
// Details the guards rely on:
// - A wrapper's query form runs nothing: `command -v pkill` / `command -V pkill` is one Invocation
//   named "command" with is_wrapper false, and pkill is not listed.
// - `bash|sh|zsh|dash|ksh` is listed with is_wrapper true only when it has -c (its string is then
//   analyzed one level deeper); `bash script.sh` is a plain Invocation.
// - The string of `env -S STRING` (followed by env's remaining operands) is analyzed one level
//   deeper, like a -c string.
// - The reserved word `time` (and its `-p`) at a command position is skipped like `if` or `!`;
//   `time` in a wrapper's operand position, `"time"` and `/usr/bin/time` are the time wrapper.
// - A chain of more than Options::max_depth wrappers in one simple command counts as passing the
//   depth cap (complete == false), which keeps `sudo sudo sudo …` linear.
// - Past Options::max_words stored words the analysis stops, complete == false.
// - An unterminated quote or substitution ends at the end of the input (the shell would refuse to
//   run the line; what was lexed is still reported, and complete stays true).
// - Heredoc bodies are data whatever the delimiter's quoting; `((…))`, `$((…))` and the `;` inside
//   `for ((…))` are arithmetic, not commands and not chain operators, though a $(…) or `…` inside
//   the arithmetic still runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::shell {

// One word after quote removal. Expansions stay as written: `$x` is the text "$x".
struct Word {
    std::string text;
    bool quoted = false;           // some part was quoted ('…', "…", $'…') or backslash-escaped
    bool has_substitution = false; // holds $(…) or `…` unquoted or inside double quotes
};

enum class RedirectKind {
    output,                  // >    N>
    append,                  // >>   N>>
    clobber,                 // >|   N>|
    output_and_error,        // &>   and >&WORD where WORD is not a number or `-`
    append_output_and_error, // &>>
    duplicate_output,        // >&N  N>&M  >&-  N>&-  (target is a number or "-")
    input,                   // <    N<
    duplicate_input,         // <&N
    read_write,              // <>
    heredoc,                 // <<   <<-   (target is the delimiter; the body is data)
    herestring,              // <<<
};

struct Redirect {
    int fd = -1; // explicit descriptor number before the operator, -1 when none was written
    RedirectKind kind = RedirectKind::output;
    Word target; // the file, the descriptor number, "-", or the heredoc delimiter
};

// A command the shell would run, wrappers seen through. A wrapper is itself listed (with
// is_wrapper set) and its operand follows as its own Invocation.
struct Invocation {
    std::string name;                // command word without quotes and path prefix: "/usr/bin/pkill" -> "pkill"
    Word command_word;               // the command word as lexed
    std::vector<Word> args;          // the words after the command word
    std::vector<Redirect> redirects; // the redirections of its simple command
    bool is_wrapper = false;         // sudo, env, xargs, bash -c …: runs a command listed after it
    bool via_xargs = false;          // run by xargs: directly, through wrappers, or inside a -c string xargs runs
    bool stdin_from_pipe = false;    // not the first command of a pipeline
    bool stdin_from_heredoc = false; // its simple command has a << or <<< redirection
    unsigned depth = 0;              // 0 at top level; +1 per $(…), `…`, <(…), >(…), -c string, eval
};

struct Analysis {
    std::vector<Invocation> invocations; // every command run, in document order, at every depth
    std::vector<Redirect> redirects;     // every redirection at every depth, compound commands included
    std::size_t chain_operators = 0;     // unquoted `;`, `;;`, `&&`, `||` at every depth (a newline, `|`, `&` are not)
    bool complete = true;                // false when the depth cap (or the word budget) was passed: callers fail open
};

struct Options {
    unsigned max_depth = 32;
    // Words stored (command words, arguments, redirection targets, and each wrapper's copy of
    // its words) before the analysis gives up with complete == false. Bounds memory and time on
    // a runaway command; a real command of 20 KB holds a few thousand words.
    std::size_t max_words = std::size_t{1} << 17;
};

// Analyzes `command`. Never throws (an internal failure returns complete == false).
Analysis analyze(std::string_view command, const Options& options = {});

// The arguments of `bash|sh|zsh|dash|ksh` from index `i` on: the index of the string a `-c`
// (also combined, `-lc`) runs, options with values (`-o`, `--rcfile`) skipped; nullopt without -c.
std::optional<std::size_t> shell_command_string(const std::vector<Word>& args, std::size_t i = 0);

// "/usr/bin/pkill" -> "pkill", "./x" -> "x", "C:\\Windows\\taskkill.exe" -> "taskkill.exe": the
// part after the last `/` or `\`.
std::string_view strip_path_prefix(std::string_view word);

} // namespace viber::shell
