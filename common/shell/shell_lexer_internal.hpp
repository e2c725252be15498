// shell_lexer_internal.hpp: the shell lexer's own parts, shared by the files that implement it:
// the byte classes, the reading's shared state, the wrapper rule's fields, the simple command being
// built and the Lexer class (its members are defined in shell_grammar.cpp, shell_lookahead.cpp,
// shell_commands.cpp, shell_values.cpp and shell_wrappers.cpp). Not for the guards: they use
// shell_lexer.hpp.
#pragma once

#include "common/fast/arena.hpp"
#include "common/fast/buffer.hpp"
#include "common/shell/shell_lexer.hpp"
#include "common/text/ascii.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace viber::shell::detail {

using ascii::hex_value;
using ascii::is_blank;
using ascii::is_digit;
inline bool is_name_start(char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
inline bool is_name_char(char c) {
    return is_name_start(c) || is_digit(c);
}
inline constexpr auto lower = ascii::to_lower;

// `'…'` around `text` with each `'` written `'\''`: a word sh reads back as `text`.
std::string single_quoted(std::string_view text);

// The byte a one-letter backslash escape stands for in `$'…'` and in printf (`\n` `\t` `\r` `\a`
// `\b` `\f` `\v` `\e` `\\` `\'` `\"`), or '\0' for any other letter.
inline char escaped_byte(char c) {
    constexpr std::string_view letters = "ntrabfve\\'\"";
    constexpr std::string_view bytes = "\n\t\r\a\b\f\v\x1b\\'\"";
    const std::size_t at = letters.find(c);
    return at == std::string_view::npos ? '\0' : bytes[at];
}

// Characters that end an unquoted word.
constexpr bool is_metachar(char c) {
    switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case ';':
    case '&':
    case '|':
    case '(':
    case ')':
    case '<':
    case '>':
        return true;
    default:
        return false;
    }
}

// `NAME=`, `NAME+=` or `NAME[subscript]=` opening a word's raw text: an assignment.
inline bool is_assignment(std::string_view raw) {
    if (raw.empty() || !is_name_start(raw[0])) return false;
    std::size_t i = 1;
    while (i < raw.size() && is_name_char(raw[i])) ++i;
    if (i < raw.size() && raw[i] == '[') {
        const std::size_t close = raw.find(']', i);
        if (close == std::string_view::npos) return false;
        i = close + 1;
    }
    if (i < raw.size() && raw[i] == '+') ++i;
    return i < raw.size() && raw[i] == '=';
}

// Thrown when a reading has handed Options::max_commands commands: it unwinds every lexer of the
// reading to read_commands, which ends the reading there.
struct CommandCapReached {};

// What one reading shares across every buffer it lexes.
struct Reading {
    CommandSink& sink;
    const Options& options;
    Summary summary;
    fast::Arena arena;
    std::vector<PathStep> path;
    // What the command said earlier (§7.2): variables assigned a literal and aliases, each the
    // text a later `$NAME` command word, shell string or alias name stands for.
    std::unordered_map<std::string, std::string> literals;
    std::unordered_map<std::string, std::string> aliases;
    // `set -- WORDS` or a function's call: `$@` and `$*` (the words joined by spaces) and
    // `$1`-`$9`, when every word is literal.
    struct Positionals {
        bool known = false;
        std::string all;
        std::vector<std::string> words;
    };
    Positionals positionals;
    // Bytes those values may still add to the reading: the command's own length and a constant
    // allowance (read_commands), so a value expanded again and again keeps the work linear. Past
    // it, a value is not guessed and summary.reached_expansion_cap says so.
    std::size_t expansion_budget = 0;
    // Commands handed to the sink so far (Options::max_commands).
    std::size_t commands = 0;
    // `pgrep x | bash -c 'while read p; …'`: the string's first command reads the pipe that
    // feeds the shell (§7.3). Set just before the string is read, taken by its first command.
    bool string_reads_pipe = false;
    // The variables whose values are being read as command lines, outermost first (at most the
    // nesting cap deep): a value read again inside itself is a cycle.
    std::vector<std::pair<std::string, std::string>> reading_values = {};
    // `x=(a 'b c')`: each array value the reading lexed whose elements are all literal, by its
    // source text: the elements joined by spaces, the first array_indices of them, how many.
    struct ArrayValue {
        std::string joined;
        std::vector<std::string> first;
        std::size_t count = 0;
    };
    static constexpr std::size_t array_indices = 10;
    std::unordered_map<std::string, ArrayValue> array_sources = {};
    // The arrays the command gave literal elements, by name (their `$NAME` is in `literals`).
    std::unordered_map<std::string, ArrayValue> arrays = {};
    // `f() { …; }`: the body of each function the command defines with braces, read again at
    // each call with the call's words as its positional parameters (§7.3).
    std::unordered_map<std::string, std::string> functions = {};
    // Bytes of bodies the table may still keep (the command's length and the allowance): a
    // body is copied, and bodies nest.
    std::size_t function_bytes = 0;
    // `echo 'pkill node' > k.sh`, `cat > k.sh <<EOF`: what the command wrote to each file, by
    // its path as written, for a later `bash k.sh`, `source k.sh` or `./k.sh` (§7.3); the bytes
    // kept are bounded as the bodies are (function_bytes).
    std::unordered_map<std::string, std::string> files = {};
    // The functions being called, outermost first: a call inside its own body is not read again.
    std::vector<std::string> calls = {};
};

// ---------------------------------------------------------------------------------------------
// Wrappers (docs/command-model.md, "Wrappers"): commands that run their operand. Options are
// read getopt-style: a cluster `-abc` letter by letter; a letter in `value_options` takes the
// rest of the cluster or, when nothing is attached, the next word; a letter in `attached_only`
// takes only an attached value; `--name=v` carries its value; a `--name` in `long_values` takes
// the next word; `--` ends the options.

enum class Assignments : std::uint8_t {
    none,
    before_dashdash, // sudo: NAME=VALUE operands before `--`
    always,          // env: also after `--`
};

enum class Rest : std::uint8_t {
    command,      // the words after the options (and operands) are a command
    joined_line,  // joined by spaces, a command line (ssh, watch, cmd /c)
    nothing,      // runs a command only through its shell-string option (su)
    parallel,     // words before ::: are the command; with none, each argument after it is a line
    find_clauses, // -exec … ; and friends
    fd_clauses,   // fd -x …, -X …
};

struct WrapperRule {
    std::string_view name;
    std::string_view subcommand = {};  // `docker exec`, `uv run`: this word must come next
    std::string_view subcommand2 = {}; // `docker compose exec`: and then this one
    std::string_view value_options = {};
    std::string_view attached_only = {};
    // Long options taking the next word or an attached `=VALUE`, each followed by a space:
    // "--user --group "; `--u(ser)` also names every prefix down to `--u` (GNU getopt_long's
    // unambiguous prefixes, where the tool reads them: shell::lists_option).
    std::string_view long_values = {};
    std::string_view query_options = {}; // make it run nothing (`command -v`, `chrt -p`)
    char shell_string_option = 0;        // `-c STRING` is a shell string (flock, su, script, npx)
    std::string_view shell_string_long = "--command "; // ... and its long spellings
    char split_string_option = 0;                      // env -S STRING: env's words again
    char exec_option = 0; // watch -x: the rest is a command, not a line
    std::string_view exec_long = "--exec ";
    // Options may follow the operands (GNU getopt_long's permutation; script): an operand is
    // passed over and options are read after it.
    bool permutes = false;
    std::uint8_t operands = 0; // words before the command (timeout DURATION, ssh HOST)
    Assignments assignments = Assignments::none;
    Rest rest = Rest::command;
    bool fed_by_input = false;   // xargs, parallel: the command's operands come from input
    bool dash_is_option = false; // `env -` is `env -i`
    bool version_suffix = false; // npx: a `name@version` command word is `name`
    bool after_dashdash = false; // kubectl exec: when a `--` follows, the command comes after it
    // git: git's global options come before the subcommand (shell::git_globals; one that prints
    // and exits runs nothing), and `between` lists the options the subcommand takes before
    // subcommand2 (`git submodule --quiet foreach`), each followed by a space.
    bool git_globals = false;
    std::string_view between = {};
};

// ---------------------------------------------------------------------------------------------

struct PendingHeredoc {
    std::string delimiter;
    bool strip_tabs = false;
    bool quoted = false;      // the body is data
    bool feeds_shell = false; // a shell reads it as its script
    std::string shell;        // that shell's name, for the path
    std::string file;         // `cat > FILE <<EOF`: the file the body is written to
    bool append = false;      // ... with `>>`
};

struct SimpleCommand {
    std::vector<Word> words;
    std::vector<Word> assignments;
    std::vector<Redirect> redirects;
    std::vector<std::string_view> scripts; // Word::script_text of words whose script differs
    bool stdin_from_pipe = false;
    bool prefix_seen = false; // an assignment or redirection: reserved words are plain words now
    std::size_t heredocs_begin = 0;
    // script_offsets[k]: the bytes the scripts of words[0, k) take joined by spaces, built on
    // first use (Lexer::rest_bytes) and dropped when the words change: a command word that is
    // only an expansion weighs the words after it against the expansion budget, and with
    // 300,000 `$x` in a row, walking those words each time was quadratic.
    mutable std::vector<std::size_t> script_offsets;

    void clear() {
        words.clear();
        assignments.clear();
        redirects.clear();
        scripts.clear();
        script_offsets.clear();
        stdin_from_pipe = false;
        prefix_seen = false;
    }
};

// The joined words of `echo`/`printf` before a pipe: the script a shell after the pipe reads.
struct PipeText {
    std::string text;
    bool valid = false;
    bool newline = false; // echo without -n ends its text with a newline (a file holds it)
    // `cat <<EOF | bash`: the heredocs (indices into the lexer's pending list) whose bodies the
    // shell after the pipe reads as its script.
    std::size_t heredoc_begin = 0, heredoc_end = 0;
};

// What `printf FORMAT ARGS…` prints (shell_printf.cpp): `%s` `%b` `%c` `%d` `%%`, the format's
// escapes, the format reused for extra arguments. nullopt for a conversion it does not read or
// when the text would pass `limit` bytes (the format reused a million times stays bounded).
// `arg(k)` is the k-th of `count` arguments, read only as the format reaches it.
std::optional<std::string> printf_output(std::string_view format, std::size_t count,
                                         const std::function<std::string_view(std::size_t)>& arg,
                                         std::size_t limit, bool* over = nullptr);

// `$NAME` or `${NAME}`, exactly: NAME; else empty (shell_values.cpp).
std::string_view lone_variable(std::string_view text);
// The path a file the command writes is known by: its lexically normal spelling.
std::string file_key(std::string_view path);

// A word past the 65,534th with its own script text in one simple command reads again as this.
constexpr std::uint16_t lost_script = 0xFFFF;

// Builds one word (shell_grammar.cpp).
class WordBuilder;

// Lexes one buffer: the command, a backtick body, a string read again. `$(…)` and `<(…)` in the
// same buffer are lexed by nested parse_list calls on the same Lexer, so the heredocs pending
// at a newline are the buffer's own.
class Lexer final : public WordValues {
public:
    Lexer(Reading& reading, std::string_view source, unsigned depth, bool fed_by_input,
          bool via_find)
        : r_(reading), src_(source), depth_(depth), fed_by_input_(fed_by_input),
          via_find_(via_find) {}

    void run() { (void)parse_list(depth_, false); }

    std::optional<std::string> literal_value(const Word& word) const override {
        if (word.has_substitution) return std::nullopt;
        if (!word.expands) return std::string(word.text);
        return literal_text(word.text);
    }

private:
    Reading& r_;
    std::string_view src_;
    std::size_t pos_ = 0;
    unsigned depth_;
    bool fed_by_input_;
    bool via_find_;
    std::vector<PendingHeredoc> heredocs_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> paren_pairs_; // built on first `((`
    bool paren_pairs_built_ = false;
    bool in_array_ = false;
    bool emitted_any_ = false;
    const SimpleCommand* simple_ = nullptr; // the command read_wrapper reads
    std::vector<Word> simple_words_; // the words before an IFS or brace rewrite of the command word
    // Set by substitution() when `$(cat <<DELIM … DELIM)` was read: where it began and its body.
    std::size_t idiom_at_ = std::string_view::npos;
    std::string_view idiom_body_;
    // Set when a `$(…)` ends in `echo`/`printf` of known words: where its body began, and the text.
    std::size_t printed_at_ = std::string_view::npos;
    std::string_view printed_text_;

    bool at_end() const { return pos_ >= src_.size(); }
    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
    }

    // The position of the `ahead`-th character from `from`, line continuations (backslash-
    // newline) skipped: bash removes them inside operators too (`&\⏎&` is `&&`).
    std::size_t op_pos(std::size_t from, std::size_t ahead) const {
        std::size_t p = from;
        for (std::size_t k = 0;; ++k) {
            while (p + 1 < src_.size() && src_[p] == '\\' && src_[p + 1] == '\n') p += 2;
            if (k == ahead) return p;
            ++p;
        }
    }
    char op(std::size_t ahead) const {
        const std::size_t p = op_pos(pos_, ahead);
        return p < src_.size() ? src_[p] : '\0';
    }
    void op_skip(std::size_t count) { pos_ = std::min(op_pos(pos_, count), src_.size()); }

    bool deeper_than_cap(unsigned depth) {
        if (depth <= r_.options.max_depth) return false;
        r_.summary.reached_depth_cap = true;
        return true;
    }

    // True when `bytes` of expanded text fit what is left of the expansion budget (the caller
    // takes what it uses). When they do not, the value is not read, and the summary says that a
    // part of the command went unread, as past the depth cap.
    bool expansion_fits(std::size_t bytes) {
        if (bytes <= r_.expansion_budget) return true;
        r_.summary.reached_expansion_cap = true;
        return false;
    }

    void skip_blanks() {
        while (!at_end()) {
            if (is_blank(src_[pos_]))
                ++pos_;
            else if (src_[pos_] == '\\' && peek(1) == '\n')
                pos_ += 2;
            else
                break;
        }
    }

    // `# note \⏎pkill x`: a comment ends at the newline, a backslash before it included.
    void skip_comment() {
        while (!at_end() && src_[pos_] != '\n') ++pos_;
    }

    // ---- shell_lookahead.cpp: look-ahead that reads no word and no list ------------------------

    void build_paren_pairs();
    bool is_arithmetic(std::size_t at);
    void skip_opaque_parens();
    bool cat_heredoc_idiom(std::string_view& body) const;
    std::size_t fd_prefix_length() const;

    // ---- shell_grammar.cpp: heredocs, substitutions, redirections, lists; words, quotes, escapes
    // and expansions

    bool read_heredoc_bodies(unsigned depth, bool in_substitution);
    PipeText substitution(unsigned depth, std::string_view how);
    std::optional<PipeText> dollar_paren(unsigned depth, bool* substituted);
    void redirect(unsigned depth, SimpleCommand& simple);
    void push_word(SimpleCommand& simple, const Word& w);
    PipeText parse_list(unsigned base_depth, bool until_paren);

    void skip_arithmetic(unsigned depth, bool* substituted, char closer);
    void backtick(unsigned depth, bool in_double, WordBuilder* word);
    void parameter_expansion(unsigned depth, bool& substituted);
    void dollar(unsigned depth, WordBuilder& word, bool unquoted);
    void double_quoted(unsigned depth, WordBuilder& word);
    void ansi_c_quoted(WordBuilder& word);
    void array_value(unsigned depth, WordBuilder& word);
    Word read_word(unsigned depth, std::vector<std::string_view>& scripts);

    // ---- shell_commands.cpp: each simple command handed to the sink ----------------------------

    struct Walk {
        std::size_t begin = 0, end = 0;
        std::size_t path_size = 0;
        bool fed_by_input = false;
        bool via_find = false;
    };

    struct WrapperReading {
        std::size_t command = 0; // index of the wrapped command word (== end: none)
        bool query = false;      // runs nothing
        bool exec = false;       // watch -x
        bool nothing = false;    // su, runuser USER: runs only its -c string
        std::optional<std::size_t> shell_string;
        std::optional<std::string_view> split_string; // env -S
    };

    std::string_view normalise(std::string_view text, bool version_suffix);
    Command base_command(const SimpleCommand& simple, bool fed, bool find) const;
    void nested(std::string_view line, unsigned depth, PathStep step, bool fed, bool find);
    static std::string_view script_of(const SimpleCommand& simple, const Word& w);
    static std::size_t scripts_bytes(const SimpleCommand& simple, std::span<const Word> words);
    static std::size_t rest_bytes(const SimpleCommand& simple, std::size_t begin, std::size_t end);
    std::string_view join_scripts(const SimpleCommand& simple, std::span<const Word> words,
                                  std::string_view prefix = {});
    void stdin_script(SimpleCommand& simple, std::string_view shell, unsigned depth,
                      const PipeText& piped, bool fed, bool find);
    std::string_view eval_line(const SimpleCommand& simple, std::span<const Word> words);
    // shell_values.cpp: the values the command gives (literals, arrays, positional parameters,
    // functions, written scripts)
    void remember_literal(const Word& assignment, std::string_view script);
    void remember_array(const std::string& name, const Reading::ArrayValue& value, bool append);
    std::optional<std::string> array_element(std::string_view name,
                                             std::string_view subscript) const;
    std::optional<long> subscript_value(std::string_view subscript) const;
    std::optional<std::string> literal_text(std::string_view text) const;
    void remember(std::string_view name, std::span<const Word> args);
    void remember_read(const SimpleCommand& simple, std::span<const Word> args);
    void remember_positionals(std::span<const Word> args);
    void set_positionals(std::span<const Word> words);
    const std::string* value_of(std::string_view name) const;
    void keep_function(std::string_view name, std::string_view body);
    void keep_file(std::string_view path, std::string_view text, bool append);
    void run_file(std::string_view path, unsigned depth, PathStep step, bool fed, bool find);
    std::optional<std::string> file_text(std::string_view path) const;
    void call_function(std::string_view name, std::span<const Word> args, unsigned depth,
                       const Walk& walk);
    // shell_commands.cpp
    void expanded_command_word(const SimpleCommand& simple, std::span<const Word> words,
                               std::size_t i, std::size_t end, unsigned depth, const Walk& walk);
    void emit(SimpleCommand& simple, unsigned depth, PipeText& piped);
    // shell_terminals.cpp: tmux and screen run their strings and typed lines (§7.3).
    void terminal_commands(const SimpleCommand& simple, std::span<const Word> words, std::size_t i,
                           std::size_t end, std::string_view name, unsigned depth, bool fed,
                           bool find);
    void finish_typed(const std::vector<std::string>& lines, unsigned depth, std::string_view name,
                      bool fed, bool find);
    void hand(Command& cmd);
    // Hands `cmd` to the sink; the reading ends (CommandCapReached) once it has handed
    // Options::max_commands.
    void deliver(const Command& cmd);
    void find_clauses(std::span<const Word> words, std::size_t i, std::size_t end,
                      const WrapperRule& rule, const Walk& walk, std::vector<Walk>& work);
    static std::span<const Word> words_of(const SimpleCommand& simple) { return simple.words; }

    // ---- shell_wrappers.cpp: the wrapper table's option reading --------------------------------

    WrapperReading read_wrapper(std::span<const Word> words, std::size_t i, std::size_t end,
                                const WrapperRule& rule);
    const WrapperRule* wrapper_for(std::string_view name, std::span<const Word> words,
                                   std::size_t i, std::size_t end) const;
};

} // namespace viber::shell::detail
