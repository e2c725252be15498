// shell_lexer.cpp: the command model both guards share (docs/command-model.md), read in one pass.
#include "common/shell_lexer.hpp"

#include "common/ascii.hpp"
#include "common/os.hpp"
#include "common/trace.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace viber::shell {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}
using ascii::is_digit;
bool is_name_start(char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
bool is_name_char(char c) {
    return is_name_start(c) || is_digit(c);
}
constexpr auto lower = ascii::to_lower;

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

// Bytes read_word takes as they are: no metacharacter, quote, escape, expansion or glob
// character starts with one. A table, because long commands are mostly such bytes.
constexpr std::array<bool, 256> plain_bytes = [] {
    std::array<bool, 256> table{};
    for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        table[static_cast<std::size_t>(b)] = !is_metachar(c) && c != '\\' && c != '\'' &&
                                             c != '"' && c != '$' && c != '`' && c != '?' &&
                                             c != '*' && c != '[' && c != '{';
    }
    return table;
}();

bool is_plain_byte(char c) {
    return plain_bytes[static_cast<unsigned char>(c)];
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_digit(c)) return false;
    return true;
}

// `NAME=`, `NAME+=` or `NAME[subscript]=` opening a word's raw text: an assignment.
bool is_assignment(std::string_view raw) {
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

// ---------------------------------------------------------------------------------------------
// Word text that is not a slice of the command (quotes removed from the middle, escapes
// decoded, strings joined) lives in an arena released after its simple command, so memory
// follows the largest simple command, not the whole line.
class Arena {
public:
    struct Mark {
        std::size_t chunk = 0;
        std::size_t used = 0;
    };

    Mark mark() const { return {chunks_.size(), chunks_.empty() ? 0 : chunks_.back().used}; }

    // Frees what was stored since `m` (one empty chunk is kept for reuse).
    void release(Mark m) {
        if (m.chunk == 0) {
            if (!chunks_.empty()) {
                chunks_.resize(1);
                chunks_[0].used = 0;
            }
            return;
        }
        if (chunks_.size() > m.chunk) chunks_.resize(m.chunk);
        if (chunks_.size() == m.chunk) chunks_.back().used = m.used;
    }

    std::string_view store(std::string_view text) {
        if (text.empty()) return {};
        if (chunks_.empty() || chunks_.back().size - chunks_.back().used < text.size()) {
            const std::size_t size =
                os::huge_page_capacity(std::max<std::size_t>(text.size(), 16384));
            chunks_.push_back({std::unique_ptr<char[]>(new char[size]), size, 0}); // not zeroed
            os::expect_writes(chunks_.back().bytes.get(), text.size(), size);
        }
        Chunk& chunk = chunks_.back();
        char* at = chunk.bytes.get() + chunk.used;
        std::copy(text.begin(), text.end(), at);
        chunk.used += text.size();
        return {at, text.size()};
    }

private:
    struct Chunk {
        std::unique_ptr<char[]> bytes;
        std::size_t size = 0;
        std::size_t used = 0;
    };
    std::vector<Chunk> chunks_;
};

// What one reading shares across every buffer it lexes.
struct Reading {
    CommandSink& sink;
    const Options& options;
    Summary summary;
    Arena arena;
    std::vector<PathStep> path;
    // What the command said earlier (§7.2): variables assigned a literal and aliases, each the
    // text a later `$NAME` command word, shell string or alias name stands for.
    std::unordered_map<std::string, std::string> literals;
    std::unordered_map<std::string, std::string> aliases;
    // Bytes those values may still add to the reading: the command's own length, so a value
    // expanded again and again keeps the work linear (past it, a value is not guessed).
    std::size_t expansion_budget = 0;
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
    std::string_view long_values = {};   // each followed by a space: "--user --group "
    std::string_view query_options = {}; // make it run nothing (`command -v`, `chrt -p`)
    char shell_string_option = 0;        // `-c STRING` is a shell string (flock, su, script, npx)
    char split_string_option = 0;        // env -S STRING: env's words again
    char exec_option = 0;                // watch -x: the rest is a command, not a line
    std::uint8_t operands = 0;           // words before the command (timeout DURATION, ssh HOST)
    Assignments assignments = Assignments::none;
    Rest rest = Rest::command;
    bool fed_by_input = false;   // xargs, parallel: the command's operands come from input
    bool dash_is_option = false; // `env -` is `env -i`
    bool version_suffix = false; // npx: a `name@version` command word is `name`
    bool after_dashdash = false; // kubectl exec: when a `--` follows, the command comes after it
};

constexpr std::array wrapper_rules{
    WrapperRule{.name = "sudo",
                .value_options = "ugphCDrtUTR",
                .long_values = "--user --group --host --prompt --close-from --chdir --role --type "
                               "--other-user --command-timeout ",
                .assignments = Assignments::before_dashdash},
    WrapperRule{.name = "doas", .value_options = "uC"},
    WrapperRule{.name = "env",
                .value_options = "uCSP",
                .long_values = "--unset --chdir ",
                .split_string_option = 'S',
                .assignments = Assignments::always,
                .dash_is_option = true},
    WrapperRule{.name = "command", .query_options = "vV"},
    WrapperRule{.name = "builtin"},
    WrapperRule{.name = "exec", .value_options = "a"},
    WrapperRule{.name = "nohup"},
    WrapperRule{.name = "time", .value_options = "fo", .long_values = "--format --output "},
    WrapperRule{.name = "nice", .value_options = "n", .long_values = "--adjustment "},
    WrapperRule{.name = "timeout",
                .value_options = "sk",
                .long_values = "--signal --kill-after ",
                .operands = 1},
    WrapperRule{
        .name = "stdbuf", .value_options = "ioe", .long_values = "--input --output --error "},
    WrapperRule{.name = "setsid"},
    WrapperRule{.name = "unbuffer"},
    WrapperRule{.name = "unshare", .value_options = "SGRw"},
    WrapperRule{.name = "ionice", .value_options = "cnp"},
    WrapperRule{.name = "chrt", .query_options = "p", .operands = 1},
    WrapperRule{.name = "taskset", .query_options = "p", .operands = 1},
    WrapperRule{.name = "flock",
                .value_options = "wE",
                .long_values = "--timeout --conflict-exit-code ",
                .shell_string_option = 'c',
                .operands = 1},
    WrapperRule{.name = "chroot", .long_values = "--userspec --groups ", .operands = 1},
    WrapperRule{.name = "runuser",
                .value_options = "ugGsw",
                .long_values = "--user --group --supp-group --shell --whitelist-environment ",
                .shell_string_option = 'c'},
    WrapperRule{.name = "su",
                .value_options = "ugGsw",
                .long_values = "--user --group --supp-group --shell --whitelist-environment ",
                .shell_string_option = 'c',
                .rest = Rest::nothing},
    WrapperRule{.name = "script",
                .value_options = "EOIBTm",
                .long_values = "--echo --log-out --log-in --log-io --log-timing --logging-format ",
                .shell_string_option = 'c',
                .operands = 1},
    WrapperRule{.name = "watch",
                .value_options = "nq",
                .attached_only = "d",
                .long_values = "--interval --equexit ",
                .exec_option = 'x',
                .rest = Rest::joined_line},
    WrapperRule{.name = "strace", .value_options = "eopsuaIXPb"},
    WrapperRule{.name = "ltrace", .value_options = "eopsuanAD"},
    WrapperRule{
        .name = "systemd-run",
        .value_options = "pEM",
        .long_values = "--unit --property --setenv --description --slice --machine "
                       "--working-directory --uid --gid --nice ",
    },
    WrapperRule{.name = "busybox"},
    WrapperRule{.name = "xargs",
                .value_options = "nPILsdEaJRS",
                .attached_only = "iel",
                .long_values = "--arg-file --delimiter --max-args --max-procs --max-chars "
                               "--process-slot-var --max-lines --eof --replace ",
                .fed_by_input = true},
    WrapperRule{.name = "parallel",
                .value_options = "jSaI",
                .long_values = "--sshlogin --slf --sshloginfile --arg-file --colsep --delay "
                               "--timeout --jobs --joblog --results --tmpdir --workdir --env ",
                .rest = Rest::parallel,
                .fed_by_input = true},
    WrapperRule{.name = "find", .rest = Rest::find_clauses},
    WrapperRule{.name = "fd", .rest = Rest::fd_clauses},
    WrapperRule{.name = "fdfind", .rest = Rest::fd_clauses},
    WrapperRule{.name = "ssh",
                .value_options = "piloOFJLRDbcEemQSWwBI",
                .operands = 1,
                .rest = Rest::joined_line},
    WrapperRule{.name = "docker",
                .subcommand = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --env-file --detach-keys ",
                .operands = 1},
    WrapperRule{.name = "podman",
                .subcommand = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --env-file --detach-keys ",
                .operands = 1},
    WrapperRule{.name = "docker",
                .subcommand = "compose",
                .subcommand2 = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --index ",
                .operands = 1},
    WrapperRule{.name = "docker-compose",
                .subcommand = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --index ",
                .operands = 1},
    WrapperRule{.name = "kubectl",
                .subcommand = "exec",
                .value_options = "cnf",
                .long_values = "--container --namespace --filename --context --kubeconfig "
                               "--pod-running-timeout ",
                .operands = 1,
                .after_dashdash = true},
    WrapperRule{.name = "wsl",
                .value_options = "du",
                .long_values = "--distribution --user --cd --shell-type ",
                .exec_option = 'e',
                .rest = Rest::joined_line},
    WrapperRule{.name = "npx",
                .value_options = "p",
                .long_values = "--package --call ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "pnpx",
                .value_options = "p",
                .long_values = "--package ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "npm",
                .subcommand = "exec",
                .value_options = "pw",
                .long_values = "--package --workspace --call ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "uvx",
                .value_options = "p",
                .long_values = "--from --with --with-requirements --python --index --directory ",
                .version_suffix = true},
    WrapperRule{.name = "pipx",
                .subcommand = "run",
                .long_values = "--spec --python --index-url --pip-args ",
                .version_suffix = true},
    WrapperRule{.name = "conda",
                .subcommand = "run",
                .value_options = "np",
                .long_values = "--name --prefix --cwd "},
    WrapperRule{
        .name = "pdm", .subcommand = "run", .value_options = "p", .long_values = "--project "},
    WrapperRule{.name = "hatch", .subcommand = "run"},
    WrapperRule{.name = "rye", .subcommand = "run"},
    WrapperRule{
        .name = "bunx", .value_options = "p", .long_values = "--package ", .version_suffix = true},
    WrapperRule{.name = "pnpm",
                .subcommand = "dlx",
                .value_options = "p",
                .long_values = "--package ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "pnpm",
                .subcommand = "exec",
                .value_options = "CF",
                .long_values = "--dir --filter ",
                .shell_string_option = 'c'},
    WrapperRule{.name = "yarn",
                .subcommand = "dlx",
                .value_options = "p",
                .long_values = "--package ",
                .version_suffix = true},
    WrapperRule{.name = "yarn", .subcommand = "exec"},
    WrapperRule{
        .name = "uv",
        .subcommand = "run",
        .value_options = "p",
        .long_values = "--with --with-requirements --python --from --project --directory "
                       "--env-file --extra --group --index --package --module ",
    },
    WrapperRule{.name = "poetry",
                .subcommand = "run",
                .value_options = "CP",
                .long_values = "--directory --project "},
    WrapperRule{.name = "pipenv", .subcommand = "run"},
    WrapperRule{.name = "cmd", .rest = Rest::joined_line},
    // `git submodule foreach [--recursive] STRING`: git runs STRING in each submodule (§7.2).
    WrapperRule{.name = "git",
                .subcommand = "submodule",
                .subcommand2 = "foreach",
                .rest = Rest::joined_line},
};

// Shells whose `-c` runs its string and that read a script from stdin without one.
constexpr std::array<std::string_view, 9> shell_names{"bash", "sh",  "zsh",  "dash",      "ksh",
                                                      "mksh", "ash", "fish", "busybox-sh"};

bool is_shell_name(std::string_view name) {
    return std::find(shell_names.begin(), shell_names.end(), name) != shell_names.end();
}

bool lists_long_option(std::string_view list, std::string_view option) {
    std::size_t at = 0;
    while ((at = list.find(option, at)) != std::string_view::npos) {
        const std::size_t end = at + option.size();
        if ((at == 0 || list[at - 1] == ' ') && end < list.size() && list[end] == ' ') return true;
        at = end;
    }
    return false;
}

bool contains(std::string_view letters, char c) {
    return c != 0 && letters.find(c) != std::string_view::npos;
}

// `/c`, `//c`, `/C`: cmd's "run this line".
bool is_cmd_run_option(std::string_view w) {
    std::size_t slashes = 0;
    while (slashes < w.size() && w[slashes] == '/') ++slashes;
    return slashes > 0 && w.size() == slashes + 1 && lower(w[slashes]) == 'c';
}

// ---------------------------------------------------------------------------------------------

struct PendingHeredoc {
    std::string delimiter;
    bool strip_tabs = false;
    bool quoted = false;      // the body is data
    bool feeds_shell = false; // a shell reads it as its script
    std::string shell;        // that shell's name, for the path
};

struct SimpleCommand {
    std::vector<Word> words;
    std::vector<Word> assignments;
    std::vector<Redirect> redirects;
    std::vector<std::string_view> scripts; // Word::script_text of words whose script differs
    bool stdin_from_pipe = false;
    bool prefix_seen = false; // an assignment or redirection: reserved words are plain words now
    std::size_t heredocs_begin = 0;

    void clear() {
        words.clear();
        assignments.clear();
        redirects.clear();
        scripts.clear();
        stdin_from_pipe = false;
        prefix_seen = false;
    }
};

// The joined words of `echo`/`printf` before a pipe: the script a shell after the pipe reads.
struct PipeText {
    std::string text;
    bool valid = false;
    // `cat <<EOF | bash`: the heredocs (indices into the lexer's pending list) whose bodies the
    // shell after the pipe reads as its script.
    std::size_t heredoc_begin = 0, heredoc_end = 0;
};

// `$NAME` or `${NAME}`, exactly: NAME; else empty.
std::string_view lone_variable(std::string_view text) {
    if (text.size() >= 2 && text[0] == '$' && text[1] != '{')
        text.remove_prefix(1);
    else if (text.size() >= 4 && text.starts_with("${") && text.back() == '}')
        text = text.substr(2, text.size() - 3);
    else
        return {};
    if (text.empty() || !is_name_start(text[0])) return {};
    for (const char c : text)
        if (!is_name_char(c)) return {};
    return text;
}

enum class Mode : std::uint8_t {
    command_start, // the next word is a command word (or a reserved word, or an assignment)
    in_command,    // the next word is an argument
    for_name,      // `for`: the loop variable
    for_header,    // `for NAME in WORDS`: data until `;`, a newline or `do`
    case_header,   // `case WORD in`
    case_pattern,  // `PATTERN | PATTERN )`
    function_name, // `function NAME`
    coproc_name,   // `coproc NAME {` or `coproc command`
    conditional,   // `[[ … ]]`
};

enum class Frame : std::uint8_t { subshell, case_clause };

// A word past the 65,534th with its own script text in one simple command reads again as this.
constexpr std::uint16_t lost_script = 0xFFFF;

// Builds one word: a view of the command while its text is a contiguous slice, an owned buffer
// once quote removal or decoding makes it differ.
class WordBuilder {
public:
    explicit WordBuilder(std::string_view src) : src_(src) {}

    void source(std::size_t begin, std::size_t end, bool lead_expansion = false) {
        if (end <= begin) return;
        if (!owned_ && (view_end_ == view_begin_ || view_end_ == begin)) {
            if (view_end_ == view_begin_) view_begin_ = begin;
            view_end_ = end;
        } else {
            own();
            buf_.append(src_.substr(begin, end - begin));
        }
        if (scripted_) script_.append(src_.substr(begin, end - begin));
        lead(lead_expansion);
    }

    void decoded(std::string_view text) {
        own();
        buf_.append(text);
        if (scripted_) script_.append(text);
        lead(false);
    }

    // A command substitution (or an expansion holding one): the text as written, and in the
    // script an expansion that can be empty, so a string read again never lexes it twice.
    void substitution(std::size_t begin, std::size_t end, bool unquoted) {
        if (!scripted_) {
            scripted_ = true;
            script_.assign(text_so_far());
        }
        const bool was_scripted = scripted_;
        scripted_ = false;
        source(begin, end, unquoted);
        scripted_ = was_scripted;
        script_.append("${_}");
        word.has_substitution = true;
    }

    void set_script(std::string_view body) {
        scripted_ = true;
        script_.assign(body);
    }

    std::size_t size() const { return owned_ ? buf_.size() : view_end_ - view_begin_; }

    Word finish(Arena& arena, std::vector<std::string_view>& scripts) {
        word.text = owned_ ? arena.store(buf_) : src_.substr(view_begin_, view_end_ - view_begin_);
        word.only_expansion = leading_ && !word.text.empty() && !word.quoted;
        if (scripted_) {
            if (scripts.size() < lost_script) {
                scripts.push_back(arena.store(script_));
                word.script_index = static_cast<std::uint16_t>(scripts.size());
            } else {
                word.script_index = lost_script; // read again as an unknown expansion
            }
        }
        return word;
    }

    Word word;

private:
    std::string_view text_so_far() const {
        return owned_ ? std::string_view(buf_) : src_.substr(view_begin_, view_end_ - view_begin_);
    }
    void own() {
        if (owned_) return;
        owned_ = true;
        buf_.assign(src_.substr(view_begin_, view_end_ - view_begin_));
    }
    void lead(bool expansion) {
        if (!leading_) return;
        if (expansion)
            word.leading_expansion =
                static_cast<std::uint16_t>(std::min<std::size_t>(size(), 0xFFFF));
        else
            leading_ = false;
    }

    std::string_view src_;
    std::size_t view_begin_ = 0, view_end_ = 0;
    bool owned_ = false;
    bool scripted_ = false;
    bool leading_ = true;
    std::string buf_;
    std::string script_;
};

// Lexes one buffer: the command, a backtick body, a string read again. `$(…)` and `<(…)` in the
// same buffer are lexed by nested parse_list calls on the same Lexer, so the heredocs pending
// at a newline are the buffer's own.
class Lexer {
public:
    Lexer(Reading& reading, std::string_view source, unsigned depth, bool fed_by_input,
          bool via_find)
        : r_(reading), src_(source), depth_(depth), fed_by_input_(fed_by_input),
          via_find_(via_find) {}

    void run() { (void)parse_list(depth_, false); }

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

    // ---- parentheses ------------------------------------------------------------------------

    // Pairs of matching parentheses in the buffer, quotes skipped: `((` and `$((` are arithmetic
    // only when the `)` matching the second `(` is followed at once by `)`. Built once, so a
    // line of ten thousand `((` stays linear.
    void build_paren_pairs() {
        paren_pairs_built_ = true;
        std::vector<std::uint32_t> open;
        for (std::size_t i = 0; i < src_.size(); ++i) {
            const char c = src_[i];
            if (c == '\\') {
                ++i;
            } else if (c == '\'') {
                const std::size_t close = src_.find('\'', i + 1);
                if (close == std::string_view::npos) break;
                i = close;
            } else if (c == '(') {
                open.push_back(static_cast<std::uint32_t>(i));
            } else if (c == ')' && !open.empty()) {
                os::push_back_on_huge_pages(paren_pairs_,
                                            {open.back(), static_cast<std::uint32_t>(i)});
                open.pop_back();
            }
        }
        std::sort(paren_pairs_.begin(), paren_pairs_.end());
    }

    // `at` is the second `(` of `((`.
    bool is_arithmetic(std::size_t at) {
        if (!paren_pairs_built_) build_paren_pairs();
        const auto it = std::lower_bound(
            paren_pairs_.begin(), paren_pairs_.end(),
            std::pair<std::uint32_t, std::uint32_t>(static_cast<std::uint32_t>(at), 0));
        if (it == paren_pairs_.end() || it->first != at) return true; // unclosed: arithmetic
        const std::size_t after = op_pos(it->second + 1, 0);
        return after < src_.size() && src_[after] == ')';
    }

    // From just after an opening `(` whose contents are skipped past the depth cap: to just
    // after its matching `)`. Quotes and nested substitutions are tracked on a heap stack.
    void skip_opaque_parens() {
        std::vector<char> stack{')'};
        while (!at_end() && !stack.empty()) {
            const char c = src_[pos_];
            if (c == '\\') {
                pos_ += 2;
                continue;
            }
            if (stack.back() == '"') {
                if (c == '"')
                    stack.pop_back();
                else if (c == '$' && peek(1) == '(') {
                    stack.push_back(')');
                    ++pos_;
                }
                ++pos_;
                continue;
            }
            if (c == '\'') {
                const std::size_t close = src_.find('\'', pos_ + 1);
                pos_ = close == std::string_view::npos ? src_.size() : close + 1;
                continue;
            }
            if (c == '"')
                stack.push_back('"');
            else if (c == '(')
                stack.push_back(')');
            else if (c == ')')
                stack.pop_back();
            ++pos_;
        }
        if (pos_ > src_.size()) pos_ = src_.size();
    }

    // ---- heredocs ---------------------------------------------------------------------------

    // After an unquoted newline: the bodies of the heredocs opened on that line, in order.
    // Returns true when a `DELIM)` line closed the enclosing substitution (pos_ is on the `)`).
    bool read_heredoc_bodies(unsigned depth, bool in_substitution) {
        std::vector<PendingHeredoc> pending = std::move(heredocs_);
        heredocs_.clear();
        bool closed = false;
        for (const PendingHeredoc& heredoc : pending) {
            if (closed) break;
            const std::size_t body_begin = pos_;
            std::size_t body_end = src_.size();
            bool line_start = true;
            while (!at_end()) {
                if (line_start) {
                    line_start = false;
                    std::size_t eol = src_.find('\n', pos_);
                    if (eol == std::string_view::npos) eol = src_.size();
                    std::string_view line = src_.substr(pos_, eol - pos_);
                    if (heredoc.strip_tabs)
                        while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
                    if (line == heredoc.delimiter) {
                        body_end = pos_;
                        pos_ = eol < src_.size() ? eol + 1 : eol;
                        break;
                    }
                    // Inside $(…), bash also ends the body at a line opening with the delimiter
                    // and `)`: the `)` closes the substitution and the line goes on after it.
                    if (in_substitution && line.size() > heredoc.delimiter.size() &&
                        line.starts_with(heredoc.delimiter) &&
                        line[heredoc.delimiter.size()] == ')') {
                        body_end = pos_;
                        pos_ = static_cast<std::size_t>(line.data() - src_.data()) +
                               heredoc.delimiter.size(); // on the `)`
                        closed = true;
                        break;
                    }
                    if (heredoc.quoted || heredoc.feeds_shell) {
                        pos_ = eol < src_.size() ? eol + 1 : eol;
                        line_start = true;
                        continue;
                    }
                }
                // An unquoted delimiter: `$(…)` and backticks in the body run.
                const char c = src_[pos_];
                if (c == '\n') {
                    ++pos_;
                    line_start = true;
                } else if (c == '\\') {
                    pos_ += (peek(1) == '\n') ? 2 : 2;
                } else if (c == '$' && op(1) == '(') {
                    const std::size_t second = op_pos(pos_, 2);
                    if (second < src_.size() && src_[second] == '(' && is_arithmetic(second)) {
                        pos_ = second + 1;
                        skip_arithmetic(depth, nullptr, ')');
                    } else {
                        op_skip(2);
                        substitution(depth, "$(…)");
                    }
                } else if (c == '`') {
                    backtick(depth, false, nullptr);
                } else {
                    ++pos_;
                }
            }
            if (pos_ > src_.size()) pos_ = src_.size();
            if (heredoc.feeds_shell && !deeper_than_cap(depth + 1)) {
                os::push_back_on_huge_pages(r_.path, PathStep{heredoc.shell, "<<"});
                Lexer(r_, src_.substr(body_begin, body_end - body_begin), depth + 1, fed_by_input_,
                      via_find_)
                    .run();
                r_.path.pop_back();
            }
        }
        return closed;
    }

    // ---- expansions -------------------------------------------------------------------------

    // From just after `((`, `$((` or `$[`: to just after the closing `))` or `]`. The expression
    // is not a command and holds no heredoc, but a $(…) or `…` inside it runs.
    void skip_arithmetic(unsigned depth, bool* substituted, char closer) {
        int open = closer == ')' ? 2 : 1;
        const char opener = closer == ')' ? '(' : '[';
        while (!at_end() && open > 0) {
            const char c = src_[pos_];
            if (c == '$' && op(1) == '(' && op(2) != '(') {
                if (substituted != nullptr) *substituted = true;
                op_skip(2);
                substitution(depth, "$(…)");
                continue;
            }
            if (c == '`') {
                if (substituted != nullptr) *substituted = true;
                backtick(depth, false, nullptr);
                continue;
            }
            if (c == '\\') {
                pos_ += 2;
                continue;
            }
            ++pos_;
            if (c == opener)
                ++open;
            else if (c == closer)
                --open;
        }
        if (pos_ > src_.size()) pos_ = src_.size();
    }

    // pos_ just after `$(`, `<(` or `>(`: the commands inside, one level deeper.
    // Returns the text an `echo`/`printf` ending it prints (what `source <(echo …)` runs).
    PipeText substitution(unsigned depth, std::string_view how) {
        if (deeper_than_cap(depth + 1)) {
            skip_opaque_parens();
            return {};
        }
        const std::size_t begin = pos_;
        std::string_view body;
        const bool idiom = how == "$(…)" && cat_heredoc_idiom(body);
        os::push_back_on_huge_pages(r_.path, PathStep{"", how});
        PipeText printed = parse_list(depth + 1, true);
        r_.path.pop_back();
        if (idiom) {
            idiom_at_ = begin;
            idiom_body_ = body;
        }
        return printed;
    }

    // At pos_ (just after `$(`): `cat <<DELIM` then a body then the `DELIM` line then `)`, the
    // way agents write a long string. Sets `body`; pos_ is unchanged.
    bool cat_heredoc_idiom(std::string_view& body) const {
        std::size_t p = pos_;
        while (p < src_.size() && is_blank(src_[p])) ++p;
        if (src_.substr(p, 3) != "cat") return false;
        p += 3;
        std::size_t blanks = p;
        while (p < src_.size() && is_blank(src_[p])) ++p;
        if (p == blanks && src_.substr(p, 2) != "<<") return false;
        if (src_.substr(p, 2) != "<<") return false;
        p += 2;
        bool strip = false;
        if (p < src_.size() && src_[p] == '-') {
            strip = true;
            ++p;
        }
        while (p < src_.size() && is_blank(src_[p])) ++p;
        std::string delimiter;
        while (p < src_.size() && src_[p] != '\n' && !is_blank(src_[p])) {
            const char c = src_[p++];
            if (c == '\'' || c == '"' || c == '\\') continue;
            if (is_metachar(c)) return false;
            delimiter += c;
        }
        while (p < src_.size() && is_blank(src_[p])) ++p;
        if (delimiter.empty() || p >= src_.size() || src_[p] != '\n') return false;
        const std::size_t body_begin = ++p;
        while (p <= src_.size()) {
            std::size_t eol = src_.find('\n', p);
            if (eol == std::string_view::npos) eol = src_.size();
            std::string_view line = src_.substr(p, eol - p);
            if (strip)
                while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
            std::size_t rest = std::string_view::npos;
            if (line == delimiter)
                rest = eol;
            else if (line.size() > delimiter.size() && line.starts_with(delimiter) &&
                     line[delimiter.size()] == ')')
                rest = static_cast<std::size_t>(line.data() - src_.data()) + delimiter.size();
            if (rest != std::string_view::npos) {
                body = src_.substr(body_begin, p - body_begin);
                while (rest < src_.size() && (is_blank(src_[rest]) || src_[rest] == '\n')) ++rest;
                return rest < src_.size() && src_[rest] == ')';
            }
            if (eol >= src_.size()) return false;
            p = eol + 1;
        }
        return false;
    }

    // pos_ on the opening backtick: the body, with the backslash of \` \\ \$ (and inside double
    // quotes \") dropped, is its own command line.
    void backtick(unsigned depth, bool in_double, WordBuilder* word) {
        const std::size_t begin = pos_;
        ++pos_;
        std::string body;
        while (!at_end() && src_[pos_] != '`') {
            const char c = src_[pos_];
            if (c == '\\' && pos_ + 1 < src_.size()) {
                const char next = src_[pos_ + 1];
                if (next == '`' || next == '\\' || next == '$' || (in_double && next == '"')) {
                    body += next;
                    pos_ += 2;
                    continue;
                }
            }
            body += c;
            ++pos_;
        }
        if (!at_end()) ++pos_;
        if (word != nullptr) word->substitution(begin, pos_, !in_double);
        if (body.find_first_not_of(" \t\n") == std::string::npos) return; // `` runs nothing
        if (deeper_than_cap(depth + 1)) return;
        const std::string_view stored = r_.arena.store(body);
        os::push_back_on_huge_pages(r_.path, PathStep{"", "`…`"});
        Lexer(r_, stored, depth + 1, fed_by_input_, via_find_).run();
        r_.path.pop_back();
    }

    // pos_ just after `${`: skips the parameter expansion, lexing the substitutions inside it.
    // Quotes inside are tracked with a flag, not by recursion, so nesting costs no stack.
    void parameter_expansion(unsigned depth, bool& substituted) {
        int braces = 1;
        bool in_double = false;
        while (!at_end() && braces > 0) {
            const char c = src_[pos_];
            if (c == '\\') {
                pos_ += 2;
            } else if (c == '\'' && !in_double) {
                const std::size_t close = src_.find('\'', pos_ + 1);
                pos_ = close == std::string_view::npos ? src_.size() : close + 1;
            } else if (c == '"') {
                in_double = !in_double;
                ++pos_;
            } else if (c == '$' && op(1) == '(') {
                const std::size_t second = op_pos(pos_, 2);
                if (second < src_.size() && src_[second] == '(' && is_arithmetic(second)) {
                    pos_ = second + 1;
                    skip_arithmetic(depth, &substituted, ')');
                } else {
                    substituted = true;
                    op_skip(2);
                    substitution(depth, "$(…)");
                }
            } else if (c == '`') {
                substituted = true;
                backtick(depth, in_double, nullptr);
            } else if (c == '$' && peek(1) == '{') {
                ++braces;
                pos_ += 2;
            } else {
                if (c == '}') --braces;
                ++pos_;
            }
        }
        if (pos_ > src_.size()) pos_ = src_.size();
    }

    // pos_ on `$`: an expansion, appended as written.
    void dollar(unsigned depth, WordBuilder& word, bool unquoted) {
        const std::size_t begin = pos_;
        bool substituted = false;
        bool can_be_empty = true;
        if (op(1) == '(') {
            const std::size_t second = op_pos(pos_, 2);
            if (second < src_.size() && src_[second] == '(' && is_arithmetic(second)) {
                pos_ = second + 1;
                skip_arithmetic(depth, &substituted, ')');
                can_be_empty = false;
            } else {
                substituted = true;
                op_skip(2);
                const std::size_t inner = pos_;
                const PipeText printed = substitution(depth, "$(…)");
                if (printed.valid && printed.heredoc_end == 0) {
                    printed_at_ = inner;
                    printed_text_ = r_.arena.store(printed.text);
                }
            }
        } else if (op(1) == '[') {
            op_skip(2);
            skip_arithmetic(depth, &substituted, ']');
            can_be_empty = false;
        } else if (peek(1) == '{') {
            pos_ += 2;
            parameter_expansion(depth, substituted);
            const std::string_view text = src_.substr(begin, pos_ - begin);
            if (unquoted && text == "${IFS}") word.word.unquoted_ifs = true;
        } else if (is_name_start(peek(1))) {
            ++pos_;
            while (!at_end() && is_name_char(src_[pos_])) ++pos_;
            if (unquoted && src_.substr(begin, pos_ - begin) == "$IFS")
                word.word.unquoted_ifs = true;
        } else if (pos_ + 1 < src_.size() && !is_metachar(peek(1)) && peek(1) != '"') {
            pos_ += 2; // $1, $@, $?, $$ …
        } else {
            ++pos_; // a lone `$`
            can_be_empty = false;
        }
        if (src_.substr(begin, pos_ - begin) != "$") word.word.expands = true;
        if (substituted)
            word.substitution(begin, pos_, unquoted && can_be_empty);
        else
            word.source(begin, pos_, unquoted && can_be_empty);
    }

    // pos_ on `"` (or on the `"` of `$"`).
    void double_quoted(unsigned depth, WordBuilder& word) {
        ++pos_;
        std::size_t run = pos_;
        const auto flush = [&] {
            if (pos_ > run) word.source(run, pos_);
        };
        while (!at_end() && src_[pos_] != '"') {
            const char c = src_[pos_];
            if (c == '\\' && pos_ + 1 < src_.size()) {
                const char next = src_[pos_ + 1];
                if (next == '\n' || next == '$' || next == '`' || next == '"' || next == '\\') {
                    flush();
                    if (next != '\n') word.decoded(std::string_view(&src_[pos_ + 1], 1));
                    pos_ += 2;
                    run = pos_;
                } else {
                    pos_ += 2;
                }
            } else if (c == '$') {
                flush();
                dollar(depth, word, false);
                run = pos_;
            } else if (c == '`') {
                flush();
                word.word.expands = true;
                backtick(depth, true, &word);
                run = pos_;
            } else {
                ++pos_;
            }
        }
        if (pos_ > src_.size()) pos_ = src_.size();
        flush();
        if (!at_end()) ++pos_;
    }

    static int hex_value(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    static void append_utf8(std::string& out, std::uint32_t cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | ((cp >> 18) & 0x07));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    // pos_ on `$'`: ANSI-C quoting, every bash escape decoded.
    void ansi_c_quoted(WordBuilder& word) {
        pos_ += 2;
        std::string text;
        while (!at_end() && src_[pos_] != '\'') {
            const char c = src_[pos_++];
            if (c != '\\' || at_end()) {
                text += c;
                continue;
            }
            const char e = src_[pos_++];
            switch (e) {
            case 'n':
                text += '\n';
                break;
            case 't':
                text += '\t';
                break;
            case 'r':
                text += '\r';
                break;
            case 'a':
                text += '\a';
                break;
            case 'b':
                text += '\b';
                break;
            case 'f':
                text += '\f';
                break;
            case 'v':
                text += '\v';
                break;
            case 'e':
            case 'E':
                text += '\x1b';
                break;
            case 'c':
                if (!at_end()) text += static_cast<char>(src_[pos_++] & 0x1f);
                break;
            case 'x':
            case 'u':
            case 'U': {
                const int max_digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                std::uint32_t value = 0;
                int digits = 0;
                while (digits < max_digits && !at_end() && hex_value(src_[pos_]) >= 0) {
                    value = value * 16 + static_cast<std::uint32_t>(hex_value(src_[pos_++]));
                    ++digits;
                }
                if (digits == 0) {
                    text += '\\';
                    text += e;
                } else if (e == 'x') {
                    text += static_cast<char>(value);
                } else {
                    append_utf8(text, value);
                }
                break;
            }
            case '0':
            case '1':
            case '2':
            case '3':
            case '4':
            case '5':
            case '6':
            case '7': {
                int value = e - '0', digits = 1;
                while (digits < 3 && !at_end() && src_[pos_] >= '0' && src_[pos_] <= '7') {
                    value = value * 8 + (src_[pos_++] - '0');
                    ++digits;
                }
                text += static_cast<char>(value & 0xff);
                break;
            }
            case '\\':
            case '\'':
            case '"':
            case '?':
                text += e;
                break;
            default:
                text += '\\';
                text += e;
            }
        }
        if (!at_end()) ++pos_;
        word.decoded(text);
    }

    // pos_ on `(` right after `NAME=`: an array value; its elements are words, so a $(…) in
    // them runs.
    void array_value(unsigned depth, WordBuilder& word) {
        const std::size_t begin = pos_;
        ++pos_;
        bool substituted = false;
        while (true) {
            while (!at_end() && (is_blank(src_[pos_]) || src_[pos_] == '\n')) ++pos_;
            if (at_end()) break;
            if (src_[pos_] == ')') {
                ++pos_;
                break;
            }
            if (src_[pos_] == '#') {
                skip_comment();
                continue;
            }
            std::vector<std::string_view> scratch;
            const std::size_t before = pos_;
            in_array_ = true; // bash has no nested arrays: `a=(b=(` reads no deeper
            const Word element = read_word(depth, scratch);
            in_array_ = false;
            substituted = substituted || element.has_substitution;
            if (pos_ == before) ++pos_; // a metacharacter inside: never loop in place
        }
        if (substituted)
            word.substitution(begin, pos_, false);
        else
            word.source(begin, pos_);
    }

    // One word: quote removal done, substitutions inside it lexed as commands.
    Word read_word(unsigned depth, std::vector<std::string_view>& scripts) {
        WordBuilder word(src_);
        const std::size_t begin = pos_;
        if ((peek() == '<' || peek() == '>') && op(1) == '(') {
            op_skip(2);
            const PipeText printed = substitution(depth, src_[begin] == '<' ? "<(…)" : ">(…)");
            word.substitution(begin, pos_, false);
            if (printed.valid) word.set_script(printed.text);
        }
        // `a[1<<2]=x`: an assignment's subscript is arithmetic, metacharacters included.
        if (begin == pos_ && !at_end() && is_name_start(src_[pos_])) {
            std::size_t p = pos_;
            while (p < src_.size() && is_name_char(src_[p])) ++p;
            if (p < src_.size() && src_[p] == '[') {
                const std::size_t limit = std::min(src_.size(), p + 256);
                const std::size_t close = src_.substr(0, limit).find(']', p);
                if (close != std::string_view::npos && close + 1 < src_.size() &&
                    (src_[close + 1] == '=' || (src_[close + 1] == '+' && close + 2 < src_.size() &&
                                                src_[close + 2] == '=')) &&
                    src_.substr(p, close - p).find('\n') == std::string_view::npos) {
                    word.source(pos_, p + 1);
                    pos_ = p + 1;
                    bool substituted = false;
                    const std::size_t sub_begin = pos_;
                    skip_arithmetic(depth, &substituted, ']');
                    if (substituted)
                        word.substitution(sub_begin, pos_, false);
                    else
                        word.source(sub_begin, pos_);
                }
            }
        }
        if (begin == pos_ && !at_end() && src_[pos_] == '~') word.word.expands = true; // `~/x`
        while (!at_end()) {
            const char c = src_[pos_];
            if (c == '(' && !in_array_ && !word.word.quoted && pos_ > begin &&
                src_[pos_ - 1] == '=' && is_assignment(src_.substr(begin, pos_ - begin))) {
                array_value(depth, word);
                continue;
            }
            if (is_metachar(c)) break;
            if (c == '\\') {
                if (peek(1) == '\n') {
                    pos_ += 2;
                } else if (pos_ + 1 < src_.size()) {
                    word.word.quoted = true;
                    word.source(pos_ + 1, pos_ + 2);
                    pos_ += 2;
                } else {
                    word.source(pos_, pos_ + 1);
                    ++pos_;
                }
            } else if (c == '\'') {
                word.word.quoted = true;
                const std::size_t close = src_.find('\'', pos_ + 1);
                const std::size_t end = close == std::string_view::npos ? src_.size() : close;
                word.source(pos_ + 1, end);
                if (end == pos_ + 1) word.decoded({});
                pos_ = close == std::string_view::npos ? src_.size() : close + 1;
            } else if (c == '"') {
                word.word.quoted = true;
                const std::size_t before = word.size();
                double_quoted(depth, word);
                if (word.size() == before) word.decoded({});
            } else if (c == '$' && peek(1) == '\'') {
                word.word.quoted = true;
                ansi_c_quoted(word);
            } else if (c == '$' && peek(1) == '"') {
                word.word.quoted = true;
                ++pos_;
                double_quoted(depth, word);
            } else if (c == '$') {
                dollar(depth, word, true);
            } else if (c == '`') {
                word.word.expands = true;
                backtick(depth, false, &word);
            } else if (c == '?' || c == '*' || c == '[') {
                word.word.unquoted_glob = true;
                word.source(pos_, pos_ + 1);
                ++pos_;
            } else if (c == '{') {
                if (pos_ == begin) word.word.unquoted_brace = true;
                word.word.brace_inside = true;
                word.source(pos_, pos_ + 1);
                ++pos_;
            } else {
                // A run of plain bytes at once: most of a long command is plain words.
                std::size_t end = pos_ + 1;
                while (end < src_.size() && is_plain_byte(src_[end])) ++end;
                if (src_.substr(pos_, end - pos_).find('{') != std::string_view::npos)
                    word.word.brace_inside = true;
                word.source(pos_, end);
                pos_ = end;
            }
        }
        // `"$(cat <<'EOF' … EOF)"`, exactly: the string is the heredoc's body.
        const std::string_view raw = src_.substr(begin, pos_ - begin);
        if (idiom_at_ != std::string_view::npos &&
            ((raw.starts_with("\"$(") && raw.ends_with(")\"") && idiom_at_ == begin + 3) ||
             (raw.starts_with("$(") && raw.ends_with(")") && idiom_at_ == begin + 2)))
            word.set_script(idiom_body_);
        else if (printed_at_ != std::string_view::npos && printed_at_ == begin + 2 &&
                 raw.starts_with("$(") && raw.ends_with(")"))
            word.set_script(printed_text_); // `$(echo pkill)`: what it prints
        return word.finish(r_.arena, scripts);
    }

    // True at `N<`/`N>` where the digits are the whole prefix (`2>x`; `a2>x` is a word then `>x`).
    std::size_t fd_prefix_length() const {
        std::size_t i = pos_;
        while (i < src_.size() && is_digit(src_[i])) ++i;
        if (i == pos_ || i >= src_.size() || i - pos_ > 9) return 0;
        if (src_[i] != '<' && src_[i] != '>') return 0;
        return i - pos_;
    }

    // pos_ on a redirection operator (or its fd number).
    void redirect(unsigned depth, SimpleCommand& simple) {
        Redirect r;
        const std::size_t digits = fd_prefix_length();
        if (digits > 0) {
            int fd = 0;
            for (std::size_t k = 0; k < digits; ++k) fd = fd * 10 + (src_[pos_ + k] - '0');
            r.fd = fd;
            pos_ += digits;
        }
        bool duplicate = false; // >& or <&: a number or `-` duplicates, anything else is a file
        bool heredoc = false, strip_tabs = false;
        if (op(0) == '&' && op(1) == '>') {
            const bool append = op(2) == '>';
            r.kind =
                append ? RedirectKind::append_output_and_error : RedirectKind::output_and_error;
            op_skip(append ? 3 : 2);
        } else if (op(0) == '>') {
            if (op(1) == '>') {
                r.kind = RedirectKind::append;
                op_skip(2);
            } else if (op(1) == '|') {
                r.kind = RedirectKind::clobber;
                op_skip(2);
            } else if (op(1) == '&') {
                duplicate = true;
                r.kind = RedirectKind::duplicate_output;
                op_skip(2);
            } else {
                r.kind = RedirectKind::output;
                op_skip(1);
            }
        } else { // '<'
            if (op(1) == '<' && op(2) == '<') {
                r.kind = RedirectKind::herestring;
                op_skip(3);
            } else if (op(1) == '<') {
                heredoc = true;
                strip_tabs = op(2) == '-';
                r.kind = RedirectKind::heredoc;
                op_skip(strip_tabs ? 3 : 2);
            } else if (op(1) == '&') {
                r.kind = RedirectKind::duplicate_input;
                op_skip(2);
            } else if (op(1) == '>') {
                r.kind = RedirectKind::read_write;
                op_skip(2);
            } else {
                r.kind = RedirectKind::input;
                op_skip(1);
            }
        }
        skip_blanks();
        simple.prefix_seen = true;
        const bool has_target = !at_end() && (!is_metachar(peek()) ||
                                              ((peek() == '<' || peek() == '>') && op(1) == '('));
        if (!has_target) return; // bash refuses the line; a targetless operator stores nothing
        const std::size_t target_at = pos_;
        r.target = read_word(depth, simple.scripts);
        r.target_is_process_substitution =
            (src_[target_at] == '<' || src_[target_at] == '>') && !r.target.quoted;
        if (duplicate) {
            std::string_view target = r.target.text;
            if (!target.empty() && target.back() == '-' && target.size() > 1)
                target.remove_suffix(1);
            if (!(target == "-" || all_digits(target))) r.kind = RedirectKind::output_and_error;
        }
        if (heredoc) {
            // A command written with CRLF line ends carries the CR on the delimiter and on its
            // line.
            std::string delimiter(r.target.text);
            heredocs_.push_back({std::move(delimiter), strip_tabs, r.target.quoted, false, {}});
        }
        simple.redirects.push_back(r);
    }

    // ---- emitting ---------------------------------------------------------------------------

    struct Walk {
        std::size_t begin = 0, end = 0;
        std::size_t path_size = 0;
        bool fed_by_input = false;
        bool via_find = false;
    };

    // The name rules compare: path prefix cut, lower case, `.exe` cut.
    std::string_view normalise(std::string_view text, bool version_suffix) {
        text = strip_path_prefix(text);
        if (version_suffix) {
            const std::size_t at = text.find('@', 1);
            if (at != std::string_view::npos) text = text.substr(0, at);
        }
        bool folded = false;
        for (char c : text)
            if (c >= 'A' && c <= 'Z') folded = true;
        std::string_view name = text;
        if (folded) {
            std::string lowered(text);
            for (char& c : lowered) c = lower(c);
            name = r_.arena.store(lowered);
        }
        if (name.size() > 4 && name.ends_with(".exe")) name.remove_suffix(4);
        return name;
    }

    // `pkill${IFS}x` and `{rm,-rf,x}` in the command word: the parts, as views of its text.
    static std::vector<std::string_view> command_word_parts(const Word& w) {
        std::vector<std::string_view> parts;
        std::string_view text = w.text;
        if (w.unquoted_brace && text.size() > 2 && text.front() == '{' && text.back() == '}') {
            int nesting = 0;
            std::size_t start = 1;
            bool comma = false;
            for (std::size_t i = 1; i + 1 < text.size(); ++i) {
                if (text[i] == '{') ++nesting;
                if (text[i] == '}') --nesting;
                if (text[i] == ',' && nesting == 0) {
                    parts.push_back(text.substr(start, i - start));
                    start = i + 1;
                    comma = true;
                }
            }
            if (!comma) return {};
            parts.push_back(text.substr(start, text.size() - 1 - start));
            return parts;
        }
        if (w.unquoted_ifs) {
            std::size_t start = 0;
            for (std::size_t i = 0; i < text.size();) {
                std::size_t len = 0;
                if (text.substr(i, 6) == "${IFS}")
                    len = 6;
                else if (text.substr(i, 4) == "$IFS" &&
                         (i + 4 == text.size() || !is_name_char(text[i + 4])))
                    len = 4;
                if (len == 0) {
                    ++i;
                    continue;
                }
                if (i > start) parts.push_back(text.substr(start, i - start));
                i += len;
                start = i;
            }
            if (start < text.size()) parts.push_back(text.substr(start));
        }
        return parts;
    }

    Command base_command(const SimpleCommand& simple, bool fed, bool find) const {
        Command cmd;
        cmd.simple_words = simple_words_.empty() ? std::span<const Word>(simple.words)
                                                 : std::span<const Word>(simple_words_);
        cmd.assignments = simple.assignments;
        cmd.redirects = simple.redirects;
        cmd.path = r_.path;
        cmd.fed_by_input = fed;
        cmd.via_find = find;
        cmd.stdin_from_pipe = simple.stdin_from_pipe;
        for (const Redirect& rd : simple.redirects) {
            if (rd.fd > 0) continue;
            if (rd.kind == RedirectKind::heredoc || rd.kind == RedirectKind::herestring)
                cmd.stdin_from_heredoc = true;
            if (rd.kind == RedirectKind::input && rd.target_is_process_substitution)
                cmd.stdin_from_process_substitution = true;
        }
        return cmd;
    }

    // A command line given as a string: lexed on its own, one level deeper.
    void nested(std::string_view line, unsigned depth, PathStep step, bool fed, bool find) {
        if (deeper_than_cap(depth + 1)) return;
        if (line.find_first_not_of(" \t\n") == std::string_view::npos) return;
        // `c='pkill x'; eval "$c"`, `FOO='rm -rf /' … sh -c '$FOO'`: a variable the command
        // assigned a literal stands for that literal (§7.2).
        std::string_view trimmed = line.substr(line.find_first_not_of(" \t\n"));
        trimmed = trimmed.substr(0, trimmed.find_last_not_of(" \t\n") + 1);
        if (trimmed.size() > 2 && trimmed.front() == '"' && trimmed.back() == '"')
            trimmed = trimmed.substr(1, trimmed.size() - 2);
        if (const std::string_view name = lone_variable(trimmed); !name.empty()) {
            const auto it = r_.literals.find(std::string(name));
            if (it == r_.literals.end() || it->second.size() > r_.expansion_budget) return;
            r_.expansion_budget -= it->second.size();
            const std::string value = it->second; // the map may grow while it is read
            os::push_back_on_huge_pages(r_.path, step);
            Lexer(r_, value, depth + 1, fed, find).run();
            r_.path.pop_back();
            return;
        }
        os::push_back_on_huge_pages(r_.path, step);
        Lexer(r_, line, depth + 1, fed, find).run();
        r_.path.pop_back();
    }

    static std::string_view script_of(const SimpleCommand& simple, const Word& w) {
        if (w.script_index == lost_script) return "${_}";
        if (w.script_index == 0 || w.script_index > simple.scripts.size()) return w.text;
        return simple.scripts[w.script_index - 1];
    }

    // The bytes `words`' scripts take joined by spaces (one more for each word).
    static std::size_t scripts_bytes(const SimpleCommand& simple, std::span<const Word> words) {
        std::size_t bytes = 0;
        for (const Word& w : words) bytes += script_of(simple, w).size() + 1;
        return bytes;
    }

    std::string_view join_scripts(const SimpleCommand& simple, std::span<const Word> words,
                                  std::string_view prefix = {}) {
        std::string line;
        os::reserve_on_huge_pages(line, prefix.size() + scripts_bytes(simple, words));
        line += prefix;
        for (const Word& w : words) {
            if (!line.empty()) line += ' ';
            line += script_of(simple, w);
        }
        return r_.arena.store(line);
    }

    // A shell reading its script from stdin: a heredoc, a here-string or `echo … |` feeding it.
    void stdin_script(SimpleCommand& simple, std::string_view shell, unsigned depth,
                      const PipeText& piped, bool fed, bool find) {
        for (const Redirect& rd : simple.redirects) {
            if (rd.fd > 0) continue;
            if (rd.kind == RedirectKind::herestring)
                nested(script_of(simple, rd.target), depth, {shell, "<<<"}, fed, find);
        }
        for (std::size_t k = simple.heredocs_begin; k < heredocs_.size(); ++k) {
            heredocs_[k].feeds_shell = true;
            heredocs_[k].shell = std::string(shell);
        }
        if (simple.stdin_from_pipe && piped.valid) {
            for (std::size_t k = piped.heredoc_begin; k < piped.heredoc_end && k < heredocs_.size();
                 ++k) {
                heredocs_[k].feeds_shell = true;
                heredocs_[k].shell = std::string(shell);
            }
            nested(piped.text, depth, {shell, "|"}, fed, find);
        }
    }

    // The index of the string `bash -c` runs, options anywhere before it; `stdin` is set when
    // the shell reads its script from stdin instead.
    static std::optional<std::size_t> shell_string_at(std::span<const Word> words, std::size_t i,
                                                      std::size_t end, bool& stdin_script) {
        bool has_c = false, has_s = false;
        stdin_script = false;
        while (i < end) {
            const std::string_view w = words[i].text;
            if (w == "--" || w == "-") {
                ++i;
                break;
            }
            if (w.size() > 2 && w[0] == '-' && w[1] == '-') {
                if (w == "--rcfile" || w == "--init-file") ++i;
                ++i;
                continue;
            }
            if (w.size() > 1 && (w[0] == '-' || w[0] == '+')) {
                bool takes_value = false;
                for (std::size_t k = 1; k < w.size(); ++k) {
                    if (w[k] == 'c' && w[0] == '-') has_c = true;
                    if (w[k] == 's' && w[0] == '-') has_s = true;
                    if (w[k] == 'o' || w[k] == 'O') {
                        takes_value = k + 1 == w.size(); // `-Oextglob` carries its value
                        break;
                    }
                }
                i += takes_value ? 2 : 1;
                continue;
            }
            break;
        }
        if (has_c) {
            if (i >= end) return std::nullopt;
            return i;
        }
        if (has_s || i >= end || words[i].text == "/dev/stdin" || words[i].text == "/dev/fd/0")
            stdin_script = true;
        return std::nullopt;
    }

    // The first word after a shell's options (its script operand), or nullptr.
    static const Word* first_operand(std::span<const Word> words, std::size_t i, std::size_t end) {
        while (i < end && words[i].text.size() > 1 &&
               (words[i].text[0] == '-' || words[i].text[0] == '+'))
            ++i;
        return i < end ? &words[i] : nullptr;
    }

    struct WrapperReading {
        std::size_t command = 0; // index of the wrapped command word (== end: none)
        bool query = false;      // runs nothing
        bool exec = false;       // watch -x
        bool nothing = false;    // su, runuser USER: runs only its -c string
        std::optional<std::size_t> shell_string;
        std::optional<std::string_view> split_string; // env -S
    };

    WrapperReading read_wrapper(std::span<const Word> words, std::size_t i, std::size_t end,
                                const WrapperRule& rule) {
        WrapperReading out;
        if (!rule.subcommand.empty()) ++i; // the subcommand word, already matched
        if (!rule.subcommand2.empty()) ++i;
        bool saw_user = false; // runuser -u USER: a command follows; else USER -c STRING
        while (i < end) {
            const std::string_view w = words[i].text;
            if (w == "--") {
                ++i;
                if (rule.assignments == Assignments::always)
                    while (i < end && is_assignment(words[i].text)) ++i;
                break;
            }
            if (w == "-" && rule.dash_is_option) {
                ++i;
                continue;
            }
            if (rule.name == "cmd" && w.starts_with("/")) {
                ++i;
                if (is_cmd_run_option(w)) break;
                continue;
            }
            if (w.size() > 2 && w[0] == '-' && w[1] == '-') {
                const std::size_t eq = w.find('=');
                const std::string_view option = w.substr(0, eq);
                if (rule.split_string_option != 0 && option == "--split-string") {
                    if (eq != std::string_view::npos)
                        out.split_string = w.substr(eq + 1);
                    else if (i + 1 < end)
                        out.split_string = script_of(*simple_, words[++i]);
                } else if (rule.shell_string_option != 0 && option == "--command") {
                    if (eq != std::string_view::npos) {
                        out.split_string = w.substr(eq + 1);
                        out.query = false;
                    } else if (i + 1 < end) {
                        out.shell_string = ++i;
                    }
                } else if (rule.exec_option != 0 && option == "--exec") {
                    out.exec = true;
                } else if (eq == std::string_view::npos &&
                           lists_long_option(rule.long_values, option)) {
                    ++i;
                }
                if (option == "--user") saw_user = true;
                ++i;
                continue;
            }
            if (w.size() > 1 && w[0] == '-') {
                bool consumed_next = false;
                for (std::size_t k = 1; k < w.size(); ++k) {
                    const char letter = w[k];
                    if (letter == 'u') saw_user = true;
                    if (contains(rule.query_options, letter)) out.query = true;
                    if (letter == rule.exec_option) out.exec = true;
                    const bool shell_string = letter == rule.shell_string_option;
                    const bool split = letter == rule.split_string_option;
                    if (shell_string || split || contains(rule.value_options, letter)) {
                        if (k + 1 < w.size()) {
                            if (shell_string || split) out.split_string = w.substr(k + 1);
                        } else if (i + 1 < end) {
                            if (shell_string) out.shell_string = i + 1;
                            if (split) out.split_string = script_of(*simple_, words[i + 1]);
                            consumed_next = true;
                        }
                        break;
                    }
                    if (contains(rule.attached_only, letter)) break;
                }
                if (out.split_string && rule.split_string_option == 0) {
                    // `-cSTRING`: a shell string given attached.
                    out.command = end;
                    return out;
                }
                i += consumed_next ? 2 : 1;
                continue;
            }
            if (rule.assignments != Assignments::none && is_assignment(w)) {
                ++i;
                continue;
            }
            break;
        }
        if (!out.query && !out.shell_string && !out.split_string) {
            for (unsigned k = 0; k < rule.operands && i < end; ++k) ++i;
            // `kubectl exec POD -c app -- cmd`, `docker exec C -- cmd`.
            if (rule.after_dashdash)
                for (std::size_t k = i; k < end; ++k)
                    if (words[k].text == "--") {
                        i = k;
                        break;
                    }
            if (rule.operands > 0 && i < end && words[i].text == "--") ++i;
            // `flock FILE -c STRING`, `script FILE -c …` after the operand.
            if (rule.shell_string_option != 0 && i + 1 < end && words[i].text.size() == 2 &&
                words[i].text[0] == '-' && words[i].text[1] == rule.shell_string_option)
                out.shell_string = i + 1;
        }
        // runuser [-l] USER -c STRING reads as su does; `runuser -u USER cmd` runs cmd.
        const bool su_like = rule.rest == Rest::nothing || (rule.name == "runuser" && !saw_user);
        if (su_like && !out.shell_string && !out.split_string) {
            out.nothing = true;
            // su USER -c STRING: the option may follow the user.
            for (std::size_t k = i; k + 1 < end; ++k)
                if (words[k].text == "-c" || words[k].text == "--command") {
                    out.shell_string = k + 1;
                    break;
                }
        }
        out.command = i;
        return out;
    }

    const WrapperRule* wrapper_for(std::string_view name, std::span<const Word> words,
                                   std::size_t i, std::size_t end) const {
        if (name.empty()) return nullptr;
        for (const WrapperRule& rule : wrapper_rules) {
            if (rule.name[0] != name[0] || rule.name != name) continue;
            if (rule.subcommand.empty()) return &rule;
            if (i + 1 < end && words[i + 1].text == rule.subcommand &&
                (rule.subcommand2.empty() ||
                 (i + 2 < end && words[i + 2].text == rule.subcommand2)))
                return &rule;
        }
        return nullptr;
    }

    static std::span<const Word> words_of(const SimpleCommand& simple) { return simple.words; }

    // `x=pkill`, `export x=pkill`, `alias k='pkill node'`: values a later command word or shell
    // string stands for (§7.2). At most 4,096 names each, so the tables stay small.
    void remember_literal(std::string_view assignment, bool substituted) {
        const std::size_t eq = assignment.find('=');
        if (eq == std::string_view::npos || eq == 0 || assignment[eq - 1] == '+') return;
        const std::string name(assignment.substr(0, eq));
        const std::string_view value = assignment.substr(eq + 1);
        if (substituted || value.find_first_of("$`") != std::string_view::npos) {
            r_.literals.erase(name); // its value is unknown now
            return;
        }
        if (r_.literals.size() < 4096 || r_.literals.count(name) != 0)
            r_.literals[name] = std::string(value);
    }

    void remember(std::string_view name, std::span<const Word> args) {
        if (name == "alias") {
            for (const Word& a : args) {
                const std::size_t eq = a.text.find('=');
                if (eq == std::string_view::npos || eq == 0 || a.text.starts_with("-")) continue;
                if (r_.aliases.size() < 4096)
                    r_.aliases[std::string(a.text.substr(0, eq))] =
                        std::string(a.text.substr(eq + 1));
            }
            return;
        }
        if (name == "export" || name == "local" || name == "declare" || name == "typeset" ||
            name == "readonly")
            for (const Word& a : args)
                if (is_assignment(a.text)) remember_literal(a.text, a.has_substitution);
    }

    // `exec "$@"`, `nice "$@"`: the plain words before a final `"$@"`, else empty.
    static std::string_view words_before_all_arguments(std::string_view s) {
        std::string_view lead;
        if (s.ends_with(" \"$@\""))
            lead = s.substr(0, s.size() - 5);
        else if (s.ends_with(" $@"))
            lead = s.substr(0, s.size() - 3);
        else
            return {};
        while (!lead.empty() && is_blank(lead.front())) lead.remove_prefix(1);
        while (!lead.empty() && is_blank(lead.back())) lead.remove_suffix(1);
        for (const char c : lead)
            if (!(is_name_char(c) || c == '-' || c == '/' || c == '.' || c == ' ')) return {};
        return lead;
    }

    // A command word that is only an expansion: when the command itself gives its value (a
    // literal variable, `$(echo WORDS)`), that value and the words after it are a command line.
    void expanded_command_word(const SimpleCommand& simple, std::span<const Word> words,
                               std::size_t i, std::size_t end, unsigned depth, const Walk& walk) {
        const Word& w = words[i];
        std::string_view value;
        if (const std::string_view var = lone_variable(w.text); !var.empty()) {
            const auto it = r_.literals.find(std::string(var));
            if (it == r_.literals.end()) return;
            value = it->second;
        } else if (w.has_substitution) {
            value = script_of(simple, w);
            if (value == "${_}" || value == w.text) return;
        } else {
            return;
        }
        const std::span<const Word> rest = words.subspan(i + 1, end - i - 1);
        const std::size_t bytes = value.size() + scripts_bytes(simple, rest);
        if (bytes > r_.expansion_budget) return; // not guessed past the budget
        r_.expansion_budget -= bytes;
        std::string line(value);
        line += ' ';
        line += join_scripts(simple, rest);
        nested(r_.arena.store(line), depth, {"", "$…"}, walk.fed_by_input, walk.via_find);
    }

    // Hands a finished simple command to the sink: the command word, then through each wrapper,
    // find clause and shell string. A chain of wrappers is walked in a loop over one vector.
    void emit(SimpleCommand& simple, unsigned depth, PipeText& piped) {
        for (const Word& a : simple.assignments) remember_literal(a.text, a.has_substitution);
        if (simple.words.empty()) {
            if (!simple.redirects.empty() || !simple.assignments.empty()) {
                Command bare = base_command(simple, fed_by_input_, via_find_);
                bare.first_in_simple_command = true;
                r_.sink.command(bare);
            }
            return;
        }
        PipeText feeding = std::move(piped);
        piped = PipeText{};
        emitted_any_ = false;
        const std::size_t path_base = r_.path.size();
        std::vector<Walk> work{{0, simple.words.size(), path_base, fed_by_input_, via_find_}};
        bool rewritten = false; // one IFS or brace rewrite per simple command keeps this linear
        while (!work.empty()) {
            Walk walk = work.back();
            work.pop_back();
            r_.path.resize(walk.path_size);
            std::size_t i = walk.begin;
            std::size_t end = walk.end;
            bool version_suffix = false;
            while (i < end) {
                const Word& w = simple.words[i];
                const bool shell_variable = w.text == "$SHELL" || w.text == "${SHELL}";
                // `$(true) pkill`: an unquoted expansion that can be empty is no command word.
                if (!shell_variable && w.only_expansion) {
                    // `x=pkill; $x node`, `$(echo pkill) node`: a value the command itself
                    // gives is that command word (§7.2); the words are also read without it.
                    expanded_command_word(simple, words_of(simple), i, end, depth, walk);
                    ++i;
                    continue;
                }
                if (!rewritten && work.empty() && (w.unquoted_ifs || w.unquoted_brace)) {
                    const std::vector<std::string_view> parts = command_word_parts(w);
                    if (parts.size() > 1 || (parts.size() == 1 && parts[0] != w.text)) {
                        rewritten = true;
                        std::vector<Word> split;
                        for (std::string_view part : parts) {
                            Word piece = w;
                            piece.text = part;
                            piece.unquoted_ifs = piece.unquoted_brace = false;
                            piece.leading_expansion = 0;
                            piece.script_index = 0;
                            split.push_back(piece);
                        }
                        if (split.empty()) {
                            ++i;
                            continue;
                        }
                        simple_words_ = simple.words; // as written, for --commands-json
                        os::reserve_on_huge_pages(simple.words,
                                                  simple.words.size() + split.size() - 1);
                        const auto at = simple.words.begin() + static_cast<std::ptrdiff_t>(i);
                        simple.words.erase(at);
                        simple.words.insert(simple.words.begin() + static_cast<std::ptrdiff_t>(i),
                                            split.begin(), split.end());
                        end = end + split.size() - 1;
                        continue;
                    }
                }
                std::string_view text =
                    w.text.substr(std::min<std::size_t>(w.leading_expansion, w.text.size()));
                if (w.unquoted_ifs) {
                    const std::size_t cut = std::min(text.find("$IFS"), text.find("${IFS}"));
                    if (cut != std::string_view::npos && cut > 0) text = text.substr(0, cut);
                }
                std::string_view name =
                    shell_variable ? std::string_view("sh") : normalise(text, version_suffix);
                version_suffix = false;
                const std::span<const Word> words(simple.words);
                if (!w.quoted && !r_.aliases.empty()) {
                    // `alias k='pkill node'` earlier in the command: `k` is that line (§7.2).
                    const auto it = r_.aliases.find(std::string(w.text));
                    if (it != r_.aliases.end() &&
                        it->second.size() +
                                scripts_bytes(simple, words.subspan(i + 1, end - i - 1)) <=
                            r_.expansion_budget) {
                        std::string line = it->second;
                        r_.expansion_budget -= line.size();
                        line += ' ';
                        line += join_scripts(simple, words.subspan(i + 1, end - i - 1));
                        Command alias = base_command(simple, walk.fed_by_input, walk.via_find);
                        alias.name = name;
                        alias.depth = depth;
                        alias.words = words.subspan(i, end - i);
                        alias.is_wrapper = true;
                        hand(alias);
                        nested(r_.arena.store(line), depth, {name, "alias"}, walk.fed_by_input,
                               walk.via_find);
                        break;
                    }
                }
                Command cmd = base_command(simple, walk.fed_by_input, walk.via_find);
                cmd.name = name;
                cmd.depth = depth;
                cmd.glob_name = w.unquoted_glob;

                if (const WrapperRule* rule = wrapper_for(name, words, i, end)) {
                    simple_ = &simple;
                    WrapperReading reading = read_wrapper(words, i + 1, end, *rule);
                    if (reading.query) {
                        cmd.words = words.subspan(i, end - i);
                        cmd.query = true;
                        hand(cmd);
                        break;
                    }
                    if (rule->rest == Rest::find_clauses || rule->rest == Rest::fd_clauses) {
                        cmd.words = words.subspan(i, end - i);
                        cmd.is_wrapper = true;
                        hand(cmd);
                        find_clauses(words, i + 1, end, *rule, walk, work);
                        break;
                    }
                    const std::size_t own_end =
                        rule->rest == Rest::parallel ? end : std::min(reading.command, end);
                    cmd.words = words.subspan(i, own_end - i);
                    cmd.is_wrapper = true;
                    hand(cmd);
                    const bool fed = walk.fed_by_input || rule->fed_by_input;
                    if (reading.split_string) {
                        if (rule->split_string_option != 0) {
                            const std::string_view line = join_scripts(
                                simple, words.subspan(reading.command, end - reading.command),
                                std::string("env ") + std::string(*reading.split_string));
                            nested(line, depth, {name, "-S"}, fed, walk.via_find);
                        } else {
                            nested(*reading.split_string, depth, {name, "-c"}, fed, walk.via_find);
                        }
                        break;
                    }
                    if (reading.shell_string) {
                        nested(script_of(simple, words[*reading.shell_string]), depth, {name, "-c"},
                               fed, walk.via_find);
                        break;
                    }
                    if (reading.nothing) break;
                    if (rule->rest == Rest::joined_line && !reading.exec) {
                        if (reading.command < end)
                            nested(join_scripts(simple, words.subspan(reading.command,
                                                                      end - reading.command)),
                                   depth, {name, "…"}, fed, walk.via_find);
                        break;
                    }
                    if (rule->rest == Rest::parallel) {
                        std::size_t marker = reading.command;
                        while (marker < end && words[marker].text != ":::" &&
                               words[marker].text != "::::")
                            ++marker;
                        if (marker == reading.command) {
                            for (std::size_t k = marker + 1; k < end; ++k)
                                nested(script_of(simple, words[k]), depth, {name, ":::"}, fed,
                                       walk.via_find);
                            break;
                        }
                        end = marker;
                    }
                    os::push_back_on_huge_pages(r_.path, PathStep{name, rule->subcommand});
                    walk.fed_by_input = fed;
                    version_suffix = rule->version_suffix;
                    i = reading.command;
                    continue;
                }

                if (is_shell_name(name) || shell_variable) {
                    const std::size_t first = i + 1;
                    bool reads_stdin = false;
                    const std::optional<std::size_t> at =
                        shell_string_at(words, first, end, reads_stdin);
                    cmd.words = words.subspan(i, end - i);
                    cmd.is_wrapper = at.has_value();
                    cmd.reads_script_from_stdin = reads_stdin;
                    hand(cmd);
                    if (at) {
                        const Word& string = words[*at];
                        const std::string_view s = string.text;
                        if (s == "$@" || s == "\"$@\"") {
                            os::push_back_on_huge_pages(r_.path, PathStep{name, "-c"});
                            i = *at + 2; // the words after $0 are the command
                            continue;
                        }
                        // `sh -c 'exec "$@"' sh pkill node`: leading words, then the words
                        // after $0 (§7.2).
                        if (const std::string_view lead = words_before_all_arguments(s);
                            !lead.empty() && *at + 2 < end) {
                            std::string line(lead);
                            line += ' ';
                            line += join_scripts(simple, words.subspan(*at + 2, end - *at - 2));
                            nested(r_.arena.store(line), depth, {name, "-c"}, walk.fed_by_input,
                                   walk.via_find);
                            break;
                        }
                        std::size_t n = 0;
                        if (s.size() == 2 && s[0] == '$' && s[1] >= '1' && s[1] <= '9')
                            n = static_cast<std::size_t>(s[1] - '0');
                        if (s.size() == 4 && s.starts_with("${") && s[2] >= '1' && s[2] <= '9' &&
                            s[3] == '}')
                            n = static_cast<std::size_t>(s[2] - '0');
                        if (n > 0) {
                            if (*at + 1 + n < end)
                                nested(script_of(simple, words[*at + 1 + n]), depth, {name, "-c"},
                                       walk.fed_by_input, walk.via_find);
                            break;
                        }
                        nested(script_of(simple, string), depth, {name, "-c"}, walk.fed_by_input,
                               walk.via_find);
                    } else if (reads_stdin) {
                        stdin_script(simple, name, depth, feeding, walk.fed_by_input,
                                     walk.via_find);
                    } else if (const Word* script = first_operand(words, first, end);
                               script != nullptr && script->text.starts_with("<(") &&
                               script->script_index != 0) {
                        nested(script_of(simple, *script), depth, {name, "<(…)"}, walk.fed_by_input,
                               walk.via_find);
                    }
                    break;
                }
                if (name == "eval") {
                    std::size_t first = i + 1;
                    if (first < end && words[first].text == "--") ++first;
                    cmd.words = words.subspan(i, end - i);
                    cmd.is_wrapper = true;
                    hand(cmd);
                    nested(join_scripts(simple, words.subspan(first, end - first)), depth,
                           {name, ""}, walk.fed_by_input, walk.via_find);
                    break;
                }
                if ((name == "source" || name == ".") && i + 1 < end) {
                    std::size_t first = i + 1;
                    if (words[first].text == "--" && first + 1 < end) ++first;
                    cmd.words = words.subspan(i, end - i);
                    hand(cmd);
                    if (words[first].text == "/dev/stdin" || words[first].text == "/dev/fd/0")
                        stdin_script(simple, name, depth, feeding, walk.fed_by_input,
                                     walk.via_find);
                    else if (words[first].text.starts_with("<(") && words[first].script_index != 0)
                        nested(script_of(simple, words[first]), depth, {name, "<(…)"},
                               walk.fed_by_input, walk.via_find);
                    break;
                }
                cmd.words = words.subspan(i, end - i);
                hand(cmd);
                remember(name, words.subspan(i + 1, end - i - 1));
                if (name == "trap") {
                    // `trap 'STRING' SIG` runs STRING (§7.2); `trap - SIG` and `trap -p` do not.
                    std::size_t first = i + 1;
                    if (first < end && words[first].text == "--") ++first;
                    if (first + 1 < end && words[first].text != "-" &&
                        !(words[first].text.starts_with("-") && !words[first].quoted))
                        nested(script_of(simple, words[first]), depth, {name, ""},
                               walk.fed_by_input, walk.via_find);
                    break;
                }
                if (name == "cat" && cmd.path.size() == path_base) {
                    // `cat <<EOF | bash`, `cat <<< '…' | sh`: what feeds cat is what it prints.
                    bool operands = false;
                    for (std::size_t k = i + 1; k < end; ++k)
                        if (words[k].text != "-" && !words[k].text.starts_with("-"))
                            operands = true;
                    if (!operands) {
                        for (const Redirect& rd : simple.redirects)
                            if (rd.fd <= 0 && rd.kind == RedirectKind::herestring) {
                                piped.valid = true;
                                piped.text = script_of(simple, rd.target);
                            }
                        if (simple.heredocs_begin < heredocs_.size()) {
                            piped.valid = true;
                            piped.heredoc_begin = simple.heredocs_begin;
                            piped.heredoc_end = heredocs_.size();
                        }
                    }
                    break;
                }
                if ((name == "echo" || name == "printf") && cmd.path.size() == path_base) {
                    piped.valid = true;
                    std::size_t first = i + 1;
                    // `printf %s WORDS` prints the words.
                    if (name == "printf" && first < end &&
                        (words[first].text == "%s" || words[first].text == "%s\\n" ||
                         words[first].text == "%s "))
                        ++first;
                    if (name == "echo")
                        while (first < end && words[first].text.size() >= 2 &&
                               words[first].text[0] == '-' &&
                               words[first].text.find_first_not_of("neE", 1) ==
                                   std::string_view::npos)
                            ++first;
                    // Sized once: `echo` of a mebibyte of words is one buffer, on huge pages.
                    os::reserve_on_huge_pages(
                        piped.text, scripts_bytes(simple, words.subspan(first, end - first)));
                    for (std::size_t k = first; k < end; ++k) {
                        if (k > first) piped.text += ' ';
                        piped.text += script_of(simple, words[k]);
                    }
                }
                break;
            }
        }
        r_.path.resize(path_base);
        simple_words_.clear();
        if (!emitted_any_) { // every word expanded away: its redirections still happen
            Command bare = base_command(simple, fed_by_input_, via_find_);
            bare.first_in_simple_command = true;
            r_.sink.command(bare);
        }
    }

    void hand(Command& cmd) {
        cmd.first_in_simple_command = !emitted_any_;
        emitted_any_ = true;
        r_.sink.command(cmd);
    }

    // find's -exec/-execdir/-ok/-okdir clauses (up to `;` or `+`), fd's -x/-X: each a command.
    void find_clauses(std::span<const Word> words, std::size_t i, std::size_t end,
                      const WrapperRule& rule, const Walk& walk, std::vector<Walk>& work) {
        std::vector<Walk> found;
        const std::size_t path_size = r_.path.size() + 1;
        os::push_back_on_huge_pages(r_.path, PathStep{rule.name, "-exec"});
        while (i < end) {
            const std::string_view w = words[i].text;
            const bool opens =
                rule.rest == Rest::find_clauses
                    ? (w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir")
                    : (w == "-x" || w == "--exec" || w == "-X" || w == "--exec-batch");
            ++i;
            if (!opens) continue;
            std::size_t j = i;
            while (j < end && words[j].text != ";" &&
                   !(rule.rest == Rest::find_clauses && words[j].text == "+"))
                ++j;
            if (j > i) found.push_back({i, j, path_size, walk.fed_by_input, true});
            i = j + 1;
        }
        for (auto it = found.rbegin(); it != found.rend(); ++it) work.push_back(*it);
    }

    // ---- the grammar ------------------------------------------------------------------------

    // A simple command of 16 words or more reserves, once, room for every word the rest of its
    // buffer can hold (each takes at least two bytes): the vector never grows by copying, and the
    // pages it does not fill are never touched (growing through 32, 64 … 256 words would touch
    // 12 KB of fresh heap, three page faults, before a long command's words even start). Room for
    // 4 MiB of words or more (what is left is 350 KB or more) is reserved once 256 words are in,
    // on huge pages where the OS has them: half a million words are 12 MB, three thousand 4 KiB
    // page faults; below that, words are longer than two bytes often enough that most of the room
    // stays untouched, and a huge page would be zeroed whole for a few of them. At most
    // Options::max_depth + 1 lists are open at once, so reservations under 4 MiB hold under
    // 132 MiB of address space together, none of it touched beyond the words.
    void push_word(SimpleCommand& simple, const Word& w) {
        std::vector<Word>& words = simple.words;
        if (words.size() == words.capacity() && words.size() >= 16) {
            const std::size_t room =
                words.size() + (src_.size() - std::min(pos_, src_.size())) / 2 + 1;
            if (room * sizeof(Word) < (std::size_t{4} << 20))
                words.reserve(room);
            else if (words.size() >= 256)
                os::reserve_on_huge_pages(words, room);
        }
        words.push_back(w);
    }

    // Lexes commands until the end of the buffer or, when `until_paren`, the `)` closing the
    // enclosing $(…)/<(…)/>(…). Subshells and case clauses are tracked on a heap stack, so ten
    // thousand `(` cost no C++ stack.
    PipeText parse_list(unsigned base_depth, bool until_paren) {
        std::vector<Frame> frames;
        unsigned depth = base_depth;
        SimpleCommand simple;
        simple.heredocs_begin = heredocs_.size();
        PipeText piped;
        Arena::Mark mark = r_.arena.mark();
        Mode mode = Mode::command_start;
        bool after_time = false;     // `time -p`: the -p is the reserved word's option
        bool after_function = false; // `function f ()`: the () belongs to the definition
        bool for_saw_in = false;
        bool for_substituted = false;
        std::string for_variable;

        const auto finish = [&] {
            emit(simple, depth, piped);
            simple.clear();
            simple.heredocs_begin = heredocs_.size();
            r_.arena.release(mark);
            mark = r_.arena.mark();
        };
        const auto end_for_header = [&] {
            if (mode == Mode::for_header || mode == Mode::for_name) {
                r_.sink.loop_variable(for_variable, for_substituted);
                mode = Mode::command_start;
            }
        };
        const auto to_command_start = [&] {
            end_for_header();
            if (mode != Mode::case_header && mode != Mode::case_pattern &&
                mode != Mode::conditional)
                mode = Mode::command_start;
        };

        while (true) {
            skip_blanks();
            if (at_end()) {
                finish();
                for (const Frame frame : frames)
                    if (frame == Frame::subshell) r_.path.pop_back();
                return piped;
            }
            const char c = src_[pos_];
            if (c == '#' && mode != Mode::conditional) {
                skip_comment();
                continue;
            }
            if (c == '\n') {
                ++pos_;
                if (mode == Mode::conditional) continue;
                finish();
                if (!heredocs_.empty()) {
                    const bool closed = read_heredoc_bodies(depth, until_paren);
                    simple.heredocs_begin = heredocs_.size();
                    if (closed) continue;
                }
                if (mode == Mode::case_header) continue;
                to_command_start();
                continue;
            }
            if (c == ';') {
                if (mode == Mode::conditional) {
                    ++pos_;
                    continue;
                }
                finish();
                // `;;`, `;&` and `;;&` end a case clause: not a chain.
                const bool clause_end = op(1) == ';' || op(1) == '&';
                if (op(1) == ';' && op(2) == '&')
                    op_skip(3);
                else
                    op_skip(clause_end ? 2 : 1);
                if (!clause_end) ++r_.summary.chain_operators;
                if (clause_end && !frames.empty() && frames.back() == Frame::case_clause)
                    mode = Mode::case_pattern;
                else
                    to_command_start();
                continue;
            }
            if (c == '&' && op(1) == '>') {
                if (mode == Mode::conditional) {
                    op_skip(2);
                    continue;
                }
                redirect(depth, simple);
                continue;
            }
            if (c == '&' || c == '|') {
                const bool doubled = op(1) == c;
                if (mode == Mode::conditional) {
                    op_skip(doubled ? 2 : 1);
                    continue;
                }
                if (c == '|' && !doubled && mode == Mode::case_pattern) {
                    ++pos_;
                    continue;
                }
                if (doubled) ++r_.summary.chain_operators;
                finish();
                if (doubled)
                    op_skip(2);
                else if (c == '|' && op(1) == '&')
                    op_skip(2);
                else
                    ++pos_;
                if (c == '|' && !doubled) simple.stdin_from_pipe = true;
                if (c != '|' || doubled) piped = PipeText{};
                end_for_header();
                mode = Mode::command_start;
                continue;
            }
            if (c == '(') {
                if (mode == Mode::case_pattern || mode == Mode::conditional) {
                    ++pos_;
                    continue;
                }
                if ((mode == Mode::command_start || mode == Mode::for_header ||
                     mode == Mode::for_name) &&
                    op(1) == '(' && simple.words.empty()) {
                    const std::size_t second = op_pos(pos_, 1);
                    if (is_arithmetic(second)) {
                        pos_ = second + 1;
                        skip_arithmetic(depth, nullptr, ')'); // ((…)) and for ((…)) are arithmetic
                        continue;
                    }
                }
                const bool definition = (mode == Mode::in_command && simple.words.size() == 1) ||
                                        (mode == Mode::command_start && after_function);
                if (definition) {
                    std::size_t look = pos_ + 1;
                    while (look < src_.size() && is_blank(src_[look])) ++look;
                    if (look < src_.size() && src_[look] == ')') {
                        // `f() body`: a definition runs nothing now; its body is lexed as commands.
                        pos_ = look + 1;
                        if (!simple.words.empty()) r_.sink.function_defined(simple.words[0].text);
                        simple.clear();
                        mode = Mode::command_start;
                        after_function = false;
                        continue;
                    }
                }
                ++pos_;
                const bool piped_in = simple.stdin_from_pipe && simple.words.empty();
                finish();
                // `pgrep x | (read p; …)`: the subshell's first command reads the pipe (§7.2).
                simple.stdin_from_pipe = piped_in;
                mode = Mode::command_start;
                if (deeper_than_cap(depth + 1)) {
                    skip_opaque_parens();
                    continue;
                }
                frames.push_back(Frame::subshell);
                ++depth;
                os::push_back_on_huge_pages(r_.path, PathStep{"", "( )"});
                continue;
            }
            if (c == ')') {
                ++pos_;
                if (mode == Mode::case_pattern) {
                    mode = Mode::command_start;
                    continue;
                }
                if (mode == Mode::conditional) continue;
                finish();
                mode = Mode::command_start;
                if (!frames.empty() && frames.back() == Frame::subshell) {
                    frames.pop_back();
                    --depth;
                    r_.path.pop_back();
                    continue;
                }
                if (until_paren) {
                    while (!frames.empty()) {
                        if (frames.back() == Frame::subshell) r_.path.pop_back();
                        frames.pop_back();
                    }
                    return piped;
                }
                continue; // a stray `)` at top level
            }
            if ((c == '<' || c == '>') && op(1) != '(') {
                if (mode == Mode::conditional) { // [[ a < b ]] compares
                    ++pos_;
                    continue;
                }
                redirect(depth, simple);
                continue;
            }
            if (mode != Mode::conditional && fd_prefix_length() > 0) {
                redirect(depth, simple);
                continue;
            }

            const std::size_t word_at = pos_;
            Word w = read_word(depth, simple.scripts);
            if (pos_ == word_at) { // nothing consumed: never loop in place
                ++pos_;
                continue;
            }
            const std::string_view raw = src_.substr(word_at, pos_ - word_at);
            // `exec {fd}>file`: `{NAME}` right before a redirection names the descriptor.
            if (mode != Mode::conditional && raw.size() > 2 && raw.front() == '{' &&
                raw.back() == '}' && !at_end() && (src_[pos_] == '<' || src_[pos_] == '>') &&
                is_name_start(raw[1]) && std::all_of(raw.begin() + 2, raw.end() - 1, [](char c) {
                    return is_name_char(c);
                })) {
                simple.prefix_seen = simple.prefix_seen || simple.words.empty();
                redirect(depth, simple);
                continue;
            }
            const auto plain = [&](std::string_view text) { return !w.quoted && raw == text; };
            const bool was_after_time = after_time;
            after_time = false;
            switch (mode) {
            case Mode::command_start: {
                const bool reserved_position = simple.words.empty() && !simple.prefix_seen;
                if (reserved_position) {
                    if (was_after_time && (plain("-p") || plain("--"))) {
                        after_time = plain("-p");
                        continue;
                    }
                    if (plain("if") || plain("then") || plain("elif") || plain("else") ||
                        plain("do") || plain("while") || plain("until") || plain("!") ||
                        plain("{") || plain("}") || plain("fi") || plain("done")) {
                        after_function = false;
                        continue;
                    }
                    if (plain("time")) {
                        after_time = true;
                        continue;
                    }
                    if (plain("coproc")) {
                        mode = Mode::coproc_name;
                        continue;
                    }
                    if (plain("esac")) {
                        if (!frames.empty() && frames.back() == Frame::case_clause)
                            frames.pop_back();
                        continue;
                    }
                    if (plain("for") || plain("select")) {
                        mode = Mode::for_name;
                        for_saw_in = false;
                        for_substituted = false;
                        for_variable.clear();
                        continue;
                    }
                    if (plain("case")) {
                        mode = Mode::case_header;
                        continue;
                    }
                    if (plain("function")) {
                        mode = Mode::function_name;
                        continue;
                    }
                    if (plain("[[")) {
                        mode = Mode::conditional;
                        continue;
                    }
                }
                after_function = false;
                if (simple.words.empty() && is_assignment(raw)) {
                    simple.prefix_seen = true;
                    simple.assignments.push_back(w);
                    continue; // X=1 cmd: the assignment is not the command
                }
                push_word(simple, w);
                mode = Mode::in_command;
                break;
            }
            case Mode::in_command:
                push_word(simple, w);
                break;
            case Mode::coproc_name: {
                // `coproc { …; }` runs its body (§7.2).
                if (plain("{")) {
                    mode = Mode::command_start;
                    continue;
                }
                // `coproc NAME { …; }`: NAME is followed by a compound command.
                std::size_t look = pos_;
                while (look < src_.size() && is_blank(src_[look])) ++look;
                mode = Mode::command_start;
                if (look < src_.size() && (src_[look] == '{' || src_[look] == '(')) continue;
                simple.words.push_back(w);
                mode = Mode::in_command;
                break;
            }
            case Mode::for_name:
                for_variable.assign(w.text);
                mode = Mode::for_header;
                break;
            case Mode::for_header:
                if (plain("in") && !for_saw_in) {
                    for_saw_in = true;
                } else if (plain("do")) {
                    end_for_header();
                } else if (for_saw_in && w.has_substitution) {
                    for_substituted = true;
                }
                break;
            case Mode::case_header:
                if (plain("in")) {
                    frames.push_back(Frame::case_clause);
                    mode = Mode::case_pattern;
                }
                break;
            case Mode::case_pattern:
                if (plain("esac")) {
                    if (!frames.empty() && frames.back() == Frame::case_clause) frames.pop_back();
                    mode = Mode::command_start;
                }
                break;
            case Mode::function_name:
                r_.sink.function_defined(w.text);
                after_function = true;
                mode = Mode::command_start;
                break;
            case Mode::conditional:
                if (plain("]]")) mode = Mode::command_start;
                break;
            }
        }
    }
};

// Collects owned copies, for tests and --explain.
class Collector final : public CommandSink {
public:
    explicit Collector(Analysis& out) : out_(out) {}

    static OwnedWord own(const Word& w) {
        return {std::string(w.text), w.quoted, w.has_substitution};
    }

    void command(const Command& c) override {
        for (const Redirect& rd : c.redirects)
            out_.redirects.push_back({rd.fd, rd.kind, own(rd.target)});
        if (c.words.empty()) return;
        Invocation inv;
        inv.name = std::string(c.name);
        inv.command_word = own(c.words[0]);
        for (const Word& w : c.args()) inv.args.push_back(own(w));
        for (const Word& w : c.assignments) inv.assignments.push_back(own(w));
        for (const Redirect& rd : c.redirects)
            inv.redirects.push_back({rd.fd, rd.kind, own(rd.target)});
        inv.path = describe_path(c.path);
        inv.depth = c.depth;
        inv.is_wrapper = c.is_wrapper;
        inv.query = c.query;
        inv.fed_by_input = c.fed_by_input;
        inv.via_find = c.via_find;
        inv.stdin_from_pipe = c.stdin_from_pipe;
        inv.stdin_from_heredoc = c.stdin_from_heredoc;
        out_.invocations.push_back(std::move(inv));
    }

    void loop_variable(std::string_view name, bool from_substitution) override {
        out_.loop_variables.emplace_back(std::string(name), from_substitution);
    }

private:
    Analysis& out_;
};

} // namespace

bool Command::is(std::string_view lower_name) const {
    // The first byte first: the guards ask each command for a few dozen names.
    if (!glob_name)
        return name.size() == lower_name.size() && (name.empty() || name[0] == lower_name[0]) &&
               name == lower_name;
    return glob_matches(name, lower_name);
}

bool glob_matches(std::string_view pattern, std::string_view name) {
    // states[k]: the pattern read so far can match name[0..k).
    if (name.size() > 64) return false;
    std::array<bool, 65> states{};
    std::array<bool, 65> next{};
    states[0] = true;
    std::size_t p = 0;
    while (p < pattern.size()) {
        const char c = pattern[p];
        next.fill(false);
        if (c == '*') {
            bool reached = false;
            for (std::size_t k = 0; k <= name.size(); ++k) {
                reached = reached || states[k];
                next[k] = reached;
            }
            ++p;
        } else if (c == '[') {
            // A bracket expression: the set of characters up to the closing `]`.
            std::size_t q = p + 1;
            bool negate = false;
            if (q < pattern.size() && (pattern[q] == '!' || pattern[q] == '^')) {
                negate = true;
                ++q;
            }
            const std::size_t set_begin = q;
            if (q < pattern.size() && pattern[q] == ']') ++q;
            while (q < pattern.size() && pattern[q] != ']') ++q;
            if (q >= pattern.size()) { // no closing `]`: a literal `[`
                for (std::size_t k = 0; k < name.size(); ++k)
                    next[k + 1] = states[k] && name[k] == '[';
                ++p;
            } else {
                const std::string_view set = pattern.substr(set_begin, q - set_begin);
                for (std::size_t k = 0; k < name.size(); ++k) {
                    if (!states[k]) continue;
                    bool in = false;
                    for (std::size_t s = 0; s < set.size(); ++s) {
                        if (s + 2 < set.size() && set[s + 1] == '-') {
                            if (lower(name[k]) >= lower(set[s]) &&
                                lower(name[k]) <= lower(set[s + 2]))
                                in = true;
                            s += 2;
                        } else if (lower(set[s]) == name[k]) {
                            in = true;
                        }
                    }
                    next[k + 1] = in != negate;
                }
                p = q + 1;
            }
        } else {
            for (std::size_t k = 0; k < name.size(); ++k)
                next[k + 1] = states[k] && (c == '?' || lower(c) == name[k]);
            ++p;
        }
        states = next;
        bool any = false;
        for (std::size_t k = 0; k <= name.size(); ++k) any = any || states[k];
        if (!any) return false;
    }
    return states[name.size()];
}

std::string_view strip_path_prefix(std::string_view word) {
    const std::size_t slash = word.find_last_of("/\\");
    return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

std::string joined_words(const Command& command, std::size_t max_bytes) {
    std::string out;
    for (const Word& w : command.words) {
        if (!out.empty()) out += ' ';
        // A word that would not read back as one word is shown in single quotes, as a shell
        // would need it: `pkill -f 'vite --port 5173'`.
        const bool quoted =
            w.text.empty() || w.text.find_first_of(" \t\n'\"|&;<>()") != std::string_view::npos;
        if (out.size() + w.text.size() + (quoted ? 2 : 0) > max_bytes) {
            out += "…";
            break;
        }
        if (!quoted) {
            out += w.text;
            continue;
        }
        out += '\'';
        for (char c : w.text) {
            if (c == '\'')
                out += "'\\''";
            else
                out += c;
        }
        out += '\'';
    }
    return out;
}

Summary explain_commands(std::string_view command, Trace& trace) {
    constexpr std::size_t listed_at_most = 200;
    struct Lister final : CommandSink {
        Trace& trace;
        std::size_t found = 0;
        explicit Lister(Trace& t) : trace(t) {}
        void command(const Command& c) override {
            if (c.words.empty() || ++found > listed_at_most) return;
            std::string line = "command `" + std::string(c.name) + "`: " + joined_words(c);
            if (!c.path.empty()) line += "  (through " + describe_path(c.path) + ")";
            trace.step(std::move(line));
        }
    } lister(trace);
    const Summary summary = read_commands(command, lister);
    if (lister.found > listed_at_most)
        trace.step("… and " + std::to_string(lister.found - listed_at_most) + " more commands");
    if (summary.reached_depth_cap) trace.step("the command nests deeper than 32 levels");
    return summary;
}

std::string describe_path(std::span<const PathStep> path, std::size_t max_steps) {
    std::string out;
    const std::size_t keep = std::max<std::size_t>(max_steps / 2, 1);
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path.size() > max_steps && i == keep) {
            out += " > … (" + std::to_string(path.size() - 2 * keep) + " more)";
            i = path.size() - keep - 1;
            continue;
        }
        const PathStep& step = path[i];
        if (!out.empty()) out += " > ";
        out += step.name;
        if (!step.name.empty() && !step.how.empty()) out += ' ';
        out += step.how;
    }
    return out;
}

Summary read_commands(std::string_view command, CommandSink& sink, const Options& options) {
    Reading reading{sink, options, {}, {}, {}, {}, {}, command.size()};
    try {
        Lexer(reading, command, 0, false, false).run();
    } catch (...) {
        // bad_alloc or a sink's exception: what was found has been handed over.
    }
    return reading.summary;
}

Analysis analyze(std::string_view command, const Options& options) {
    Analysis analysis;
    Collector collector(analysis);
    const Summary summary = read_commands(command, collector, options);
    analysis.chain_operators = summary.chain_operators;
    analysis.reached_depth_cap = summary.reached_depth_cap;
    return analysis;
}

} // namespace viber::shell
