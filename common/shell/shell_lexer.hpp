// shell_lexer.hpp: the command model both guards share: every simple command a bash command line
// can run.
//
// `read_commands` reads a command line as bash 5 would run it and hands each simple command that
// can run to a sink, with its normalised name, its words, its redirections, the flags the rules
// need and the wrapper path through which it was reached (docs/command-model.md). It sees through
// quotes and escapes, `$(…)`, backticks and process substitutions, subshells, groups, function
// bodies, reserved words (only in command position), assignments, path prefixes and case, the
// wrapper table, shell strings (`bash -c`, `eval`, `env -S`, `su -c`, `ssh host cmd`, …), scripts
// a shell reads from stdin (heredoc, here-string, `echo … |`), and command words built by
// expansion (`$(true) pkill`, `pkill${IFS}x`, `{rm,-rf,x}`, `/bin/r?`).
//
// Cost: each byte is lexed a bounded number of times whatever the nesting. A `$(…)` is lexed once,
// as commands; a string read again (a `-c` string, `eval`'s words) holds a placeholder where a
// substitution stood, never its text. Words live only while their simple command is handed to the
// sink (views into the command, or into an arena released after the command); a wrapper chain is
// walked over one word vector without copying or recursion. Nesting deeper than
// Options::max_depth is skipped as opaque text, `reached_depth_cap` is set, and lexing goes on
// after it. What the values of variables and aliases add to the reading is bounded by the
// command's length plus 64 KiB; a value past that is not read and `reached_expansion_cap` is set.
// At most Options::max_commands commands are handed to the sink; the reading ends there and
// `reached_command_cap` is set, so no command costs more than a bounded number of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace viber {
class Trace;
}

namespace viber::shell {

// One word after quote removal. Expansions stay as written: `$x` is the text "$x".
struct Word {
    std::string_view text;
    // Bytes of `text` that are unquoted expansions at its start (at most 65,535).
    std::uint16_t leading_expansion = 0;
    // When non-zero, 1 + the index of the text a shell string reads again in place of `text`
    // (each command substitution replaced by an expansion that can be empty, or the body of the
    // `"$(cat <<EOF … EOF)"` idiom). Kept out of line so a word stays 24 bytes: a simple command
    // of half a million words is 12 MB.
    std::uint16_t script_index = 0;
    bool quoted : 1 = false; // some part was quoted ('…', "…", $'…') or backslash-escaped
    bool has_substitution : 1 = false; // holds $(…) or `…` unquoted or inside double quotes
    bool unquoted_ifs : 1 = false;     // holds an unquoted $IFS / ${IFS}
    bool unquoted_glob : 1 = false;    // holds an unquoted ?, * or [
    bool unquoted_brace : 1 = false;   // opens with an unquoted {
    bool only_expansion : 1 = false;   // nothing but unquoted expansions that can be empty
    bool expands : 1 = false; // holds an expansion bash replaces ($x, ${…}, $(…), `…`, $((…)), ~)
    bool brace_inside : 1 = false; // holds an unquoted `{` anywhere (brace expansion may apply)
};

enum class RedirectKind : std::uint8_t {
    output,                  // >    N>
    append,                  // >>   N>>
    clobber,                 // >|   N>|
    output_and_error,        // &>   and >&WORD where WORD is not a number or `-`
    append_output_and_error, // &>>
    duplicate_output,        // >&N  N>&M  >&-  N>&-  (target is a number or "-")
    input,                   // <    N<
    duplicate_input,         // <&N
    read_write,              // <>
    heredoc,                 // <<   <<-   (target is the delimiter)
    herestring,              // <<<
};

struct Redirect {
    int fd = -1; // explicit descriptor number before the operator, -1 when none was written
    RedirectKind kind = RedirectKind::output;
    Word target; // the file, the descriptor number, "-", or the heredoc delimiter
    bool target_is_process_substitution = false; // `2> >(grep x)`
};

// One step of the way to a command: a wrapper (`sudo`), or a place where commands run
// (`bash -c`, `$(…)`, `` `…` ``, `<(…)`, `eval`, `find -exec`, `bash <<EOF`, `| bash`).
struct PathStep {
    std::string_view name; // "sudo", "bash", "find", "" for a substitution
    std::string_view how; // "", "-c", "$(…)", "`…`", "<(…)", "eval", "-exec", "<<", "<<<", "|", …
};

// What a word stands for when it expands only variables the command gave a literal earlier
// (§7.3: `p=-1; kill -9 $p` is `kill -9 -1`), as the reading knows them when the command is
// handed on.
class WordValues {
public:
    virtual ~WordValues() = default;
    // The word's text with each `$NAME` / `${NAME}` replaced by its literal (the text itself when
    // it expands nothing); nullopt when a part stays unknown.
    virtual std::optional<std::string> literal_value(const Word& word) const = 0;
    // The words bash passes for it: the literal value, split at blanks and newlines where the word
    // is unquoted, or where it is `"$@"` / `"${NAME[@]}"` (each element a word); nullopt when a
    // part stays unknown.
    std::optional<std::vector<std::string>> literal_fields(const Word& word) const;
};

struct Command {
    std::string_view
        name; // normalised: path stripped, lower case, `.exe` cut; "" for redirections alone
    std::span<const Word> words; // words[0] is the command word; empty for redirections alone
    // Every word of the simple command as written, before any wrapper was walked or a command
    // word split (`sudo -u x pkill y` for both `sudo` and `pkill`): what --commands-json shows.
    std::span<const Word> simple_words;
    std::span<const Word> assignments; // NAME=value words before the command word
    std::span<const Redirect> redirects;
    std::span<const PathStep> path; // outermost first
    unsigned depth = 0;             // nesting levels: $(…), `…`, subshells, strings read again
    bool first_in_simple_command =
        false; // the outermost command of its simple command (judge its redirects once)
    bool is_wrapper = false;         // runs a command given after it (listed next), or a string
    bool query = false;              // `command -v x`: looks a name up, runs nothing
    bool glob_name = false;          // the name holds unquoted glob characters: use matches()
    bool fed_by_input = false;       // run by xargs or parallel: its operands come from input
    bool via_find = false;           // run by find -exec / fd -x: `{}` is a found path
    bool stdin_from_pipe = false;    // not the first command of a pipeline
    bool stdin_from_heredoc = false; // a << or <<< redirection feeds it
    bool stdin_from_process_substitution = false; // `< <(…)` feeds it
    bool reads_script_from_stdin = false; // a shell with no -c and no script operand (or -s)
    const WordValues* values = nullptr;   // the literals the reading knows (valid during the call)

    std::span<const Word> args() const { return words.empty() ? words : words.subspan(1); }
    // True when the command's name is `lower_name` (lower case, no `.exe`), or, for a command word
    // with glob characters, when its pattern matches `lower_name`.
    bool is(std::string_view lower_name) const;
};

// Receives each command as it is found. The spans are valid only during the call.
class CommandSink {
public:
    virtual ~CommandSink() = default;
    virtual void command(const Command& command) = 0;
    // `for NAME in WORDS` / `select`: the loop variable, and whether a word of its list holds a
    // command substitution.
    virtual void loop_variable(std::string_view /*name*/, bool /*from_substitution*/) {}
    // `f() { …; }` / `function f`: a function the command defines (its body is read as commands).
    virtual void function_defined(std::string_view /*name*/) {}
};

struct Summary {
    std::size_t chain_operators =
        0; // unquoted `;`, `&&`, `||` where commands run (not `;;`, `[[ && ]]`, arithmetic)
    bool reached_depth_cap = false; // some part nested deeper than Options::max_depth was skipped
    // A value the command gives (a literal variable, an alias, `$(echo …)`) was not read as the
    // commands it stands for: the values read before it took the whole expansion budget.
    bool reached_expansion_cap = false;
    // The reading handed Options::max_commands commands and ended there: what follows them was
    // not read.
    bool reached_command_cap = false;
    // Bytes of expanded text the reading took (values, eval strings, typed lines): at most the
    // command's length plus the expansion allowance (docs/command-model.md, "Caps and cost").
    std::size_t expanded_bytes = 0;
};

struct Options {
    unsigned max_depth = 32;
    // Commands handed to the sink (each simple command, and each wrapper, alias or function call
    // it passes through) before the reading ends: far more than any command an agent writes,
    // few enough that the most each one costs keeps a 1 MiB command within SPEC §10's bound.
    std::size_t max_commands = 10000;
};

// Reads `command` and hands every simple command it can run to `sink`, in document order at each
// level. Never throws (an internal failure ends the reading; what was found was handed over).
Summary read_commands(std::string_view command, CommandSink& sink, const Options& options = {});

// True when glob `pattern` (`?`, `*`, `[…]`, `[!…]`) matches all of `name`. No backtracking: a
// set of positions in `name` is advanced per pattern character, O(|pattern| × |name|).
bool glob_matches(std::string_view pattern, std::string_view name);

// The value of constant arithmetic (`1-2`, `-(0)`, `3*0`: + - * / % parentheses, decimal
// integers); nullopt when it names a variable, overflows or is not read. Linear in the text.
std::optional<long> constant_arithmetic(std::string_view expression);
// `$((1-2))` / `$[1-2]` as a whole word (§7.3: `$[…]` is `$((…))`): its constant value, if any.
std::optional<long> arithmetic_word_value(std::string_view word);

// The command text a `powershell` / `pwsh` invocation runs (§7.2, §7.3): every argument after
// `-Command` (any prefix, `/c`) joined by spaces, or the `-EncodedCommand` (`-e`, `-ec`, `-enc` …)
// base64 of UTF-16LE text decoded; with `positional_is_command` (Windows PowerShell) a first
// plain argument opens the command too. nullopt when it runs a file or nothing.
std::optional<std::string> powershell_command_text(std::span<const Word> args,
                                                   bool positional_is_command);
// Base64 (padding and whitespace skipped) of UTF-16LE text, as UTF-8. Linear.
std::string decode_base64_utf16le(std::string_view text);
// A word of PowerShell command text as both guards read it (§7.2): the text is split on
// whitespace and `;` `|` `{` `}` `(` `)` `&`; `before` holds the separators between the previous
// word and this one (a pipe, a statement's end).
struct PowerShellWord {
    std::string_view before;
    std::string_view text;
};
std::vector<PowerShellWord> powershell_words(std::string_view command_text);

// "/usr/bin/pkill" -> "pkill", "C:\\Windows\\TaskKill.EXE" -> "TaskKill.EXE".
std::string_view strip_path_prefix(std::string_view word);

// The words of `command` joined by spaces for --explain (a word holding a space, a quote or an
// operator in single quotes), cut after about `max_bytes` (a command
// may hold a mebibyte of words; a person needs its start).
std::string joined_words(const Command& command, std::size_t max_bytes = 1000);

// --explain's listing: each command `command` runs, with its words and wrapper path, as trace
// steps (the first 200; the rest are counted), and the nesting cap when it was reached.
Summary explain_commands(std::string_view command, Trace& trace);

// The path of `command` as `--explain` prints it: "sudo > bash -c > $(…)", "" at top level. A
// path longer than `max_steps` keeps its first and last steps and says how many it left out, so
// describing every command of a long wrapper chain stays linear.
std::string describe_path(std::span<const PathStep> path, std::size_t max_steps = 12);

} // namespace viber::shell
