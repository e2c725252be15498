// shell_lexer.cpp: the one-pass shell lexer behind kill-guard and shell-guard (docs/command-model.md).
#include "common/shell_lexer.hpp"

#include <array>
#include <cstdint>
#include <exception>
#include <iterator>
#include <optional>
#include <utility>

namespace viber::shell {

namespace {

// Thrown past the depth cap or the word budget; caught in analyze(), which then reports
// complete == false. It only ever fires on pathological input, so the common path pays nothing
// for it.
struct BoundPassed {};

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_name_start(char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
bool is_name_char(char c) {
    return is_name_start(c) || is_digit(c);
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

// Bytes read_word copies as they are: no metacharacter, quote, escape or expansion starts with
// one. A table, because long commands are mostly such bytes.
constexpr std::array<bool, 256> plain_bytes = [] {
    std::array<bool, 256> table{};
    for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        table[static_cast<std::size_t>(b)] = !is_metachar(c) && c != '\\' && c != '\'' &&
                                             c != '"' && c != '$' && c != '`';
    }
    return table;
}();

bool is_plain_byte(char c) { return plain_bytes[static_cast<unsigned char>(c)]; }

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_digit(c)) return false;
    return true;
}

// `NAME=`, `NAME+=` or `NAME[subscript]=` at the start of the word's raw text: an assignment,
// which the shell performs instead of running it as a command.
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

// The text of a word as the shell would see it when the word is exactly `text`, unquoted.
bool is_plain(const Word& w, std::string_view raw, std::string_view text) {
    return !w.quoted && raw == text && w.text == text;
}

// ---------------------------------------------------------------------------------------------
// Wrappers: commands that run their operand as a command (docs/command-model.md table). Options are skipped
// getopt-style: a cluster `-abc` is read letter by letter; a letter in `value_options` takes the
// rest of the cluster or, when nothing is attached, the next word; a letter in `attached_only`
// takes only an attached value; `--name=v` carries its value; a `--name` listed in `long_values`
// takes the next word; `--` ends the options.
struct WrapperRule {
    std::string_view name;
    std::string_view value_options;
    std::string_view attached_only;
    std::string_view long_values; // space-separated, each with a trailing space: "--user --group "
    std::string_view query_options; // options that make the wrapper run nothing (`command -v`)
    unsigned skipped_operands = 0;  // timeout's DURATION
    bool skips_assignments = false; // `env X=1 cmd`, `sudo X=1 cmd`
    bool dash_is_option = false;    // `env -` is `env -i`
    bool runs_via_xargs = false;    // its command is run by xargs
};

constexpr std::array wrapper_rules{
    WrapperRule{"sudo", "ugphCDrtUT", "",
                "--user --group --host --prompt --close-from --chdir --role --type --other-user "
                "--command-timeout ",
                "", 0, true, false, false},
    WrapperRule{"env", "uCS", "", "--unset --chdir --split-string ", "", 0, true, true, false},
    WrapperRule{"command", "", "", "", "vV", 0, false, false, false},
    WrapperRule{"builtin", "", "", "", "", 0, false, false, false},
    WrapperRule{"exec", "a", "", "", "", 0, false, false, false},
    WrapperRule{"nohup", "", "", "", "", 0, false, false, false},
    WrapperRule{"time", "fo", "", "--format --output ", "", 0, false, false, false},
    WrapperRule{"nice", "n", "", "--adjustment ", "", 0, false, false, false},
    WrapperRule{"timeout", "sk", "", "--signal --kill-after ", "", 1, false, false, false},
    WrapperRule{"stdbuf", "ioe", "", "--input --output --error ", "", 0, false, false, false},
    WrapperRule{"xargs", "nPILsdEa", "iel",
                "--arg-file --delimiter --max-args --max-procs --max-chars --process-slot-var ", "",
                0, false, false, true},
};

const WrapperRule* find_wrapper(std::string_view name) {
    for (const WrapperRule& rule : wrapper_rules)
        if (rule.name == name) return &rule;
    return nullptr;
}

// Shells whose `-c` runs its first operand as a command line.
constexpr std::array shell_names{std::string_view{"bash"}, std::string_view{"sh"},
                                 std::string_view{"zsh"}, std::string_view{"dash"},
                                 std::string_view{"ksh"}};

bool is_shell(std::string_view name) {
    for (std::string_view shell : shell_names)
        if (shell == name) return true;
    return false;
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

struct WrapperOperands {
    std::size_t command = 0;                 // index of the wrapped command word (== size: none)
    bool query = false;                      // `command -v`: runs nothing
    std::optional<std::string> split_string; // env -S STRING
};

WrapperOperands wrapper_operands(const std::vector<Word>& words, std::size_t i,
                                 const WrapperRule& rule) {
    WrapperOperands result;
    const std::size_t n = words.size();
    while (i < n) {
        const std::string_view w = words[i].text;
        if (w == "--") {
            ++i;
            break;
        }
        if (w == "-" && rule.dash_is_option) {
            ++i;
            continue;
        }
        if (w.size() > 2 && w[0] == '-' && w[1] == '-') {
            const std::size_t eq = w.find('=');
            const std::string_view option = w.substr(0, eq);
            if (option == "--split-string" && rule.name == "env") {
                if (eq != std::string_view::npos)
                    result.split_string = std::string(w.substr(eq + 1));
                else if (i + 1 < n)
                    result.split_string = words[++i].text;
            } else if (eq == std::string_view::npos &&
                       lists_long_option(rule.long_values, option)) {
                ++i; // its value
            }
            ++i;
            continue;
        }
        if (w.size() > 1 && w[0] == '-') {
            bool consumed_next = false;
            for (std::size_t k = 1; k < w.size(); ++k) {
                const char letter = w[k];
                if (rule.query_options.find(letter) != std::string_view::npos) result.query = true;
                if (rule.value_options.find(letter) != std::string_view::npos) {
                    std::string value;
                    if (k + 1 < w.size())
                        value = std::string(w.substr(k + 1));
                    else if (i + 1 < n) {
                        value = words[i + 1].text;
                        consumed_next = true;
                    }
                    if (letter == 'S' && rule.name == "env") result.split_string = std::move(value);
                    break;
                }
                if (rule.attached_only.find(letter) != std::string_view::npos) break;
            }
            i += consumed_next ? 2 : 1;
            continue;
        }
        if (rule.skips_assignments && is_assignment(w)) {
            ++i;
            continue;
        }
        break;
    }
    if (!result.query && !result.split_string) {
        for (unsigned skip = 0; skip < rule.skipped_operands && i < n; ++skip) ++i;
    }
    result.command = i;
    return result;
}

} // namespace

std::optional<std::size_t> shell_command_string(const std::vector<Word>& words, std::size_t i) {
    bool has_c = false;
    const std::size_t n = words.size();
    while (i < n) {
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
                if (w[k] == 'o' || w[k] == 'O') takes_value = true;
            }
            i += takes_value ? 2 : 1;
            continue;
        }
        break;
    }
    if (!has_c || i >= n) return std::nullopt;
    return i;
}

namespace {

// ---------------------------------------------------------------------------------------------

struct Lexed {
    Word word;
    std::string_view raw; // the source text of the word, quotes included
};

struct SimpleCommand {
    std::vector<Word> words;
    std::vector<Redirect> redirects;
    bool stdin_from_pipe = false;
    bool stdin_from_heredoc = false;
};

struct PendingHeredoc {
    std::string delimiter;
    bool strip_tabs = false;
};

enum class Mode {
    command_start, // the next word is a command word (or a reserved word, or an assignment)
    in_command,    // the next word is an argument
    for_header,    // `for NAME in WORDS`: the words are data until `;`, a newline or `do`
    case_header,   // `case WORD in`: data until `in`
    case_pattern,  // `PATTERN | PATTERN )`: data until `)`
    function_name, // `function NAME`
    conditional,   // `[[ … ]]`: operands, not commands
};

enum class Frame : std::uint8_t { subshell, case_clause };

// Lexes one buffer (the command, a backtick body, a -c string, an eval line). $(…) and <(…) in
// the same buffer are lexed by nested calls of parse_list on the same Lexer, so the heredocs
// pending at a newline are the buffer's own.
class Lexer {
public:
    Lexer(std::string_view source, unsigned depth, bool via_xargs, Analysis& out,
          const Options& options, std::size_t& words_left)
        : src_(source), depth_(depth), via_xargs_(via_xargs), out_(out), options_(options),
          words_left_(words_left) {}

    void run() { parse_list(depth_, false); }

private:
    std::string_view src_;
    std::size_t pos_ = 0;
    unsigned depth_;
    bool via_xargs_;
    Analysis& out_;
    const Options& options_;
    std::size_t& words_left_; // shared by every Lexer of one analysis
    std::vector<PendingHeredoc> heredocs_;

    bool at_end() const { return pos_ >= src_.size(); }
    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
    }

    void enter(unsigned depth) const {
        if (depth > options_.max_depth) throw BoundPassed{};
    }

    void skip_blanks() {
        while (!at_end()) {
            if (is_blank(src_[pos_]))
                ++pos_;
            else if (src_[pos_] == '\\' && peek(1) == '\n')
                pos_ += 2; // line continuation
            else
                break;
        }
    }

    void skip_comment() {
        while (!at_end() && src_[pos_] != '\n') ++pos_;
    }

    // After an unquoted newline: the bodies of the heredocs opened on that line, in order, are
    // data.
    void read_heredoc_bodies() {
        for (const PendingHeredoc& heredoc : heredocs_) {
            while (!at_end()) {
                std::size_t eol = src_.find('\n', pos_);
                if (eol == std::string_view::npos) eol = src_.size();
                std::string_view line = src_.substr(pos_, eol - pos_);
                pos_ = eol < src_.size() ? eol + 1 : eol;
                if (heredoc.strip_tabs)
                    while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
                if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
                if (line == heredoc.delimiter) break;
            }
        }
        heredocs_.clear();
    }

    // From `((` or `$((` (pos_ just after the opening parentheses): skips to the matching `))`.
    // The expression is not a command, but a $(…) or `…` inside it still runs.
    void skip_arithmetic(unsigned depth, Word* word) {
        int open = 2;
        while (!at_end() && open > 0) {
            const char c = src_[pos_];
            if (c == '$' && peek(1) == '(' && peek(2) != '(') {
                if (word != nullptr) word->has_substitution = true;
                pos_ += 2;
                substitution(depth);
                continue;
            }
            if (c == '`') {
                if (word != nullptr) word->has_substitution = true;
                backtick(depth);
                continue;
            }
            ++pos_;
            if (c == '(')
                ++open;
            else if (c == ')')
                --open;
        }
    }

    // pos_ just after `$(`, `<(` or `>(`: lexes the commands inside, one level deeper.
    void substitution(unsigned depth) {
        enter(depth + 1);
        parse_list(depth + 1, true);
    }

    // pos_ on the opening backtick: the body, with \` \\ \$ unescaped, is its own command line.
    void backtick(unsigned depth) {
        ++pos_;
        std::string body;
        while (!at_end() && src_[pos_] != '`') {
            const char c = src_[pos_];
            if (c == '\\' && pos_ + 1 < src_.size() &&
                (src_[pos_ + 1] == '`' || src_[pos_ + 1] == '\\' || src_[pos_ + 1] == '$')) {
                body += src_[pos_ + 1];
                pos_ += 2;
                continue;
            }
            body += c;
            ++pos_;
        }
        if (!at_end()) ++pos_;
        enter(depth + 1);
        if (body.find_first_not_of(" \t\n") == std::string::npos) return; // `` runs nothing
        Lexer(body, depth + 1, via_xargs_, out_, options_, words_left_).run();
    }

    // pos_ just after `${`: skips the parameter expansion, lexing the substitutions inside it.
    // Quotes inside are tracked with a flag, not by recursion, so nesting costs no stack.
    void parameter_expansion(unsigned depth, Word& word) {
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
            } else if (c == '$' && peek(1) == '(' && peek(2) == '(') {
                pos_ += 3;
                skip_arithmetic(depth, &word);
            } else if (c == '$' && peek(1) == '(') {
                word.has_substitution = true;
                pos_ += 2;
                substitution(depth);
            } else if (c == '`') {
                word.has_substitution = true;
                backtick(depth);
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

    // pos_ on `$`: an expansion. Appends its raw text to the word (expansions stay as written).
    void dollar(unsigned depth, Word& word) {
        const std::size_t begin = pos_;
        if (peek(1) == '(' && peek(2) == '(') {
            pos_ += 3;
            skip_arithmetic(depth, &word); // $((…)) is arithmetic, not a command
        } else if (peek(1) == '(') {
            word.has_substitution = true;
            pos_ += 2;
            substitution(depth);
        } else if (peek(1) == '{') {
            pos_ += 2;
            parameter_expansion(depth, word);
        } else {
            ++pos_;
        }
        word.text.append(src_.substr(begin, pos_ - begin));
    }

    // pos_ on `"`.
    void double_quoted(unsigned depth, Word& word) {
        ++pos_;
        while (!at_end() && src_[pos_] != '"') {
            const char c = src_[pos_];
            if (c == '\\' && pos_ + 1 < src_.size()) {
                const char next = src_[pos_ + 1];
                if (next == '\n') {
                    pos_ += 2;
                } else if (next == '$' || next == '`' || next == '"' || next == '\\') {
                    word.text += next;
                    pos_ += 2;
                } else {
                    word.text += c;
                    ++pos_;
                }
            } else if (c == '$') {
                dollar(depth, word);
            } else if (c == '`') {
                const std::size_t begin = pos_;
                word.has_substitution = true;
                backtick(depth);
                word.text.append(src_.substr(begin, pos_ - begin));
            } else {
                word.text += c;
                ++pos_;
            }
        }
        if (!at_end()) ++pos_;
    }

    static int hex_value(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    // pos_ on `$'`: ANSI-C quoting.
    void ansi_c_quoted(Word& word) {
        pos_ += 2;
        while (!at_end() && src_[pos_] != '\'') {
            const char c = src_[pos_++];
            if (c != '\\' || at_end()) {
                word.text += c;
                continue;
            }
            const char e = src_[pos_++];
            switch (e) {
            case 'n':
                word.text += '\n';
                break;
            case 't':
                word.text += '\t';
                break;
            case 'r':
                word.text += '\r';
                break;
            case 'a':
                word.text += '\a';
                break;
            case 'b':
                word.text += '\b';
                break;
            case 'f':
                word.text += '\f';
                break;
            case 'v':
                word.text += '\v';
                break;
            case 'e':
            case 'E':
                word.text += '\x1b';
                break;
            case 'x': {
                int value = 0, digits = 0;
                while (digits < 2 && !at_end() && hex_value(src_[pos_]) >= 0) {
                    value = value * 16 + hex_value(src_[pos_++]);
                    ++digits;
                }
                if (digits == 0)
                    word.text += "\\x";
                else
                    word.text += static_cast<char>(value);
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
                word.text += static_cast<char>(value & 0xff);
                break;
            }
            case '\\':
            case '\'':
            case '"':
            case '?':
                word.text += e;
                break;
            default:
                word.text += '\\';
                word.text += e;
            }
        }
        if (!at_end()) ++pos_;
    }

    // pos_ on `(` right after `NAME=`: an array value `(a b c)`, part of the assignment word.
    void array_value() {
        int open = 0;
        while (!at_end()) {
            const char c = src_[pos_];
            if (c == '\\') {
                pos_ += 2;
                continue;
            }
            if (c == '\'' || c == '"') {
                const std::size_t close = src_.find(c, pos_ + 1);
                pos_ = close == std::string_view::npos ? src_.size() : close + 1;
                continue;
            }
            ++pos_;
            if (c == '(')
                ++open;
            else if (c == ')' && --open == 0)
                break;
        }
        if (pos_ > src_.size()) pos_ = src_.size();
    }

    // One word: quote removal done, substitutions inside it lexed as commands.
    Lexed read_word(unsigned depth) {
        Lexed lexed;
        Word& word = lexed.word;
        const std::size_t begin = pos_;
        if ((peek() == '<' || peek() == '>') && peek(1) == '(') {
            pos_ += 2;
            substitution(depth); // process substitution
            word.text.append(src_.substr(begin, pos_ - begin));
        }
        while (!at_end()) {
            const char c = src_[pos_];
            if (c == '(' && !word.quoted && is_assignment(src_.substr(begin, pos_ - begin)) &&
                src_[pos_ - 1] == '=') {
                const std::size_t value_begin = pos_;
                array_value();
                word.text.append(src_.substr(value_begin, pos_ - value_begin));
                continue;
            }
            if (is_metachar(c)) break;
            if (c == '\\') {
                if (peek(1) == '\n') {
                    pos_ += 2;
                } else if (pos_ + 1 < src_.size()) {
                    word.quoted = true;
                    word.text += src_[pos_ + 1];
                    pos_ += 2;
                } else {
                    word.text += c;
                    ++pos_;
                }
            } else if (c == '\'') {
                word.quoted = true;
                const std::size_t close = src_.find('\'', pos_ + 1);
                const std::size_t end = close == std::string_view::npos ? src_.size() : close;
                word.text.append(src_.substr(pos_ + 1, end - pos_ - 1));
                pos_ = close == std::string_view::npos ? src_.size() : close + 1;
            } else if (c == '"') {
                word.quoted = true;
                double_quoted(depth, word);
            } else if (c == '$' && peek(1) == '\'') {
                word.quoted = true;
                ansi_c_quoted(word);
            } else if (c == '$' && peek(1) == '"') {
                word.quoted = true;
                ++pos_;
                double_quoted(depth, word);
            } else if (c == '$') {
                dollar(depth, word);
            } else if (c == '`') {
                const std::size_t tick = pos_;
                word.has_substitution = true;
                backtick(depth);
                word.text.append(src_.substr(tick, pos_ - tick));
            } else {
                // A run of plain bytes in one append: most of a long command is plain words.
                std::size_t end = pos_ + 1;
                while (end < src_.size() && is_plain_byte(src_[end])) ++end;
                word.text.append(src_.substr(pos_, end - pos_));
                pos_ = end;
            }
        }
        lexed.raw = src_.substr(begin, pos_ - begin);
        return lexed;
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
            r.fd = std::stoi(std::string(src_.substr(pos_, digits)));
            pos_ += digits;
        }
        bool duplicate = false; // >& or <&: a number or `-` duplicates, anything else is a file
        bool heredoc = false, strip_tabs = false;
        if (peek() == '&' && peek(1) == '>') {
            const bool append = peek(2) == '>';
            r.kind =
                append ? RedirectKind::append_output_and_error : RedirectKind::output_and_error;
            pos_ += append ? 3 : 2;
        } else if (peek() == '>') {
            if (peek(1) == '>') {
                r.kind = RedirectKind::append;
                pos_ += 2;
            } else if (peek(1) == '|') {
                r.kind = RedirectKind::clobber;
                pos_ += 2;
            } else if (peek(1) == '&') {
                duplicate = true;
                r.kind = RedirectKind::duplicate_output;
                pos_ += 2;
            } else {
                r.kind = RedirectKind::output;
                ++pos_;
            }
        } else { // '<'
            if (peek(1) == '<' && peek(2) == '<') {
                r.kind = RedirectKind::herestring;
                pos_ += 3;
            } else if (peek(1) == '<') {
                heredoc = true;
                strip_tabs = peek(2) == '-';
                r.kind = RedirectKind::heredoc;
                pos_ += strip_tabs ? 3 : 2;
            } else if (peek(1) == '&') {
                r.kind = RedirectKind::duplicate_input;
                pos_ += 2;
            } else if (peek(1) == '>') {
                r.kind = RedirectKind::read_write;
                pos_ += 2;
            } else {
                r.kind = RedirectKind::input;
                ++pos_;
            }
        }
        skip_blanks();
        if (!at_end() &&
            (!is_metachar(peek()) || ((peek() == '<' || peek() == '>') && peek(1) == '('))) {
            spend(1);
            r.target = read_word(depth).word;
        }
        if (duplicate) {
            std::string_view target = r.target.text;
            if (!target.empty() && target.back() == '-' && target.size() > 1)
                target.remove_suffix(1);
            if (!(target == "-" || all_digits(target))) r.kind = RedirectKind::output_and_error;
        }
        if (heredoc) {
            // A command written with CRLF line ends carries the CR on the delimiter and on its
            // line.
            std::string delimiter = r.target.text;
            if (!delimiter.empty() && delimiter.back() == '\r') delimiter.pop_back();
            heredocs_.push_back({std::move(delimiter), strip_tabs});
        }
        if (r.kind == RedirectKind::heredoc || r.kind == RedirectKind::herestring)
            simple.stdin_from_heredoc = true;
        out_.redirects.push_back(r);
        simple.redirects.push_back(std::move(r));
    }

    // Counts `count` stored words against Options::max_words: past it the analysis fails open,
    // which bounds memory on a runaway command (each word is a string; each page costs time).
    void spend(std::size_t count) {
        if (count > words_left_) throw BoundPassed{};
        words_left_ -= count;
    }

    // Lists what a finished simple command runs: the command word, then through each wrapper.
    void emit(SimpleCommand& simple, unsigned depth) {
        if (simple.words.empty()) return;
        run_words(simple, depth, via_xargs_);
    }

    // Each wrapper's Invocation copies the words after it, so a chain of wrappers is measured
    // first, without copying: past the cap the whole line fails open, which keeps a line of ten
    // thousand `sudo` linear.
    void check_wrapper_chain(const std::vector<Word>& words) const {
        unsigned wrappers = 0;
        std::size_t i = 0;
        while (i < words.size()) {
            const WrapperRule* rule = find_wrapper(strip_path_prefix(words[i].text));
            if (rule == nullptr) return;
            if (++wrappers > options_.max_depth) throw BoundPassed{};
            const WrapperOperands operands = wrapper_operands(words, i + 1, *rule);
            if (operands.query || operands.split_string) return;
            i = operands.command;
        }
    }

    // The Invocation of words[i] and the words after it. A wrapper's copies them (its operand
    // is listed next); the last Invocation of a simple command takes them.
    Invocation invocation_at(std::vector<Word>& words, std::size_t i, const SimpleCommand& simple,
                             unsigned depth, bool via_xargs, bool take) {
        Invocation inv;
        inv.name = std::string(strip_path_prefix(words[i].text));
        const auto first_arg = words.begin() + static_cast<std::ptrdiff_t>(i) + 1;
        if (take) {
            inv.command_word = std::move(words[i]);
            inv.args.assign(std::make_move_iterator(first_arg),
                            std::make_move_iterator(words.end()));
        } else {
            spend(words.size() - i);
            inv.command_word = words[i];
            inv.args.assign(first_arg, words.end());
        }
        inv.redirects = simple.redirects;
        inv.via_xargs = via_xargs;
        inv.stdin_from_pipe = simple.stdin_from_pipe;
        inv.stdin_from_heredoc = simple.stdin_from_heredoc;
        inv.depth = depth;
        return inv;
    }

    void run_words(SimpleCommand& simple, unsigned depth, bool via_xargs) {
        std::vector<Word>& words = simple.words;
        check_wrapper_chain(words);
        std::size_t i = 0;
        while (i < words.size()) {
            const std::string_view name = strip_path_prefix(words[i].text);
            if (const WrapperRule* rule = find_wrapper(name)) {
                WrapperOperands operands = wrapper_operands(words, i + 1, *rule);
                if (operands.query) { // `command -v pkill` looks a name up and runs nothing
                    out_.invocations.push_back(
                        invocation_at(words, i, simple, depth, via_xargs, true));
                    return;
                }
                const bool next_via_xargs = via_xargs || rule->runs_via_xargs;
                Invocation inv = invocation_at(words, i, simple, depth, via_xargs, false);
                inv.is_wrapper = true;
                out_.invocations.push_back(std::move(inv));
                if (operands.split_string) {
                    std::string line = std::move(*operands.split_string);
                    for (std::size_t k = operands.command; k < words.size(); ++k)
                        (line += ' ') += words[k].text;
                    nested(line, depth, next_via_xargs);
                    return;
                }
                i = operands.command;
                via_xargs = next_via_xargs;
                continue;
            }
            std::string line; // the command line a shell's -c or eval runs
            bool runs_line = false;
            if (is_shell(name)) {
                if (const std::optional<std::size_t> string_at =
                        shell_command_string(words, i + 1)) {
                    line = words[*string_at].text;
                    runs_line = true;
                }
            } else if (name == "eval") {
                for (std::size_t k = i + 1; k < words.size(); ++k) {
                    if (k > i + 1) line += ' ';
                    line += words[k].text;
                }
                runs_line = true;
            }
            Invocation inv = invocation_at(words, i, simple, depth, via_xargs, true);
            inv.is_wrapper = runs_line;
            out_.invocations.push_back(std::move(inv));
            if (runs_line) nested(line, depth, via_xargs);
            return;
        }
    }

    // A command line given as a string (-c, eval, env -S): lexed on its own, one level deeper.
    void nested(std::string_view line, unsigned depth, bool via_xargs) {
        enter(depth + 1);
        Lexer(line, depth + 1, via_xargs, out_, options_, words_left_).run();
    }

    // Lexes commands until the end of the buffer or, when `until_paren`, the `)` closing the
    // enclosing $(…)/<(…)/>(…). Subshells and case clauses are tracked on a heap stack, so ten
    // thousand `(` cost no C++ stack.
    void parse_list(unsigned depth, bool until_paren) {
        std::vector<Frame> frames;
        SimpleCommand simple;
        Mode mode = Mode::command_start;
        bool after_time = false;     // `time -p`: the -p is the reserved word's option
        bool after_function = false; // `function f ()`: the () belongs to the definition
        bool for_saw_in = false;

        const auto finish = [&] {
            emit(simple, depth);
            simple = SimpleCommand{};
        };
        const auto to_command_start = [&] {
            if (mode != Mode::case_header && mode != Mode::case_pattern &&
                mode != Mode::conditional)
                mode = Mode::command_start;
        };

        while (true) {
            skip_blanks();
            if (at_end()) {
                finish();
                return;
            }
            const char c = src_[pos_];
            if (c == '#') {
                skip_comment();
                continue;
            }
            if (c == '\n') {
                ++pos_;
                if (mode == Mode::conditional) continue;
                finish();
                read_heredoc_bodies();
                to_command_start();
                continue;
            }
            if (c == ';') {
                ++out_.chain_operators;
                if (mode == Mode::conditional) {
                    ++pos_;
                    continue;
                }
                finish();
                // `;;`, `;&` and `;;&` end a case clause.
                const bool clause_end = peek(1) == ';' || peek(1) == '&';
                if (peek(1) == ';' && peek(2) == '&')
                    pos_ += 3;
                else
                    pos_ += clause_end ? 2 : 1;
                if (clause_end && !frames.empty() && frames.back() == Frame::case_clause)
                    mode = Mode::case_pattern;
                else
                    to_command_start();
                continue;
            }
            if (c == '&' && peek(1) == '>') {
                if (mode == Mode::conditional) {
                    pos_ += 2;
                    continue;
                }
                redirect(depth, simple);
                continue;
            }
            if (c == '&' || c == '|') {
                const bool doubled = peek(1) == c;
                if (doubled) ++out_.chain_operators;
                if (mode == Mode::conditional) {
                    pos_ += doubled ? 2 : 1;
                    continue;
                }
                if (c == '|' && !doubled && mode == Mode::case_pattern) {
                    ++pos_;
                    continue;
                }
                finish();
                if (doubled)
                    pos_ += 2;
                else if (c == '|' && peek(1) == '&')
                    pos_ += 2;
                else
                    ++pos_;
                if (c == '|' && !doubled) simple.stdin_from_pipe = true;
                mode = Mode::command_start;
                continue;
            }
            if (c == '(') {
                if (mode == Mode::case_pattern || mode == Mode::conditional) {
                    ++pos_;
                    continue;
                }
                if ((mode == Mode::command_start || mode == Mode::for_header) && peek(1) == '(') {
                    pos_ += 2;
                    skip_arithmetic(depth, nullptr); // ((…)) and for ((…)) are arithmetic
                    continue;
                }
                const bool definition = (mode == Mode::in_command && simple.words.size() == 1) ||
                                        (mode == Mode::command_start && after_function);
                if (definition) {
                    std::size_t look = pos_ + 1;
                    while (look < src_.size() && is_blank(src_[look])) ++look;
                    if (look < src_.size() && src_[look] == ')') {
                        // `f() body`: a definition runs nothing now; its body is lexed as commands.
                        pos_ = look + 1;
                        simple = SimpleCommand{};
                        mode = Mode::command_start;
                        after_function = false;
                        continue;
                    }
                }
                ++pos_;
                finish();
                frames.push_back(Frame::subshell);
                mode = Mode::command_start;
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
                    continue;
                }
                if (until_paren) return;
                continue; // a stray `)` at top level
            }
            if ((c == '<' || c == '>') && peek(1) != '(') {
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

            Lexed lexed = read_word(depth);
            if (lexed.raw.empty()) { // nothing consumed: never loop in place
                ++pos_;
                continue;
            }
            const Word& w = lexed.word;
            const bool was_after_time = after_time;
            after_time = false;
            switch (mode) {
            case Mode::command_start: {
                const auto plain = [&](std::string_view text) {
                    return is_plain(w, lexed.raw, text);
                };
                if (was_after_time && plain("-p")) {
                    continue;
                }
                if (plain("if") || plain("then") || plain("elif") || plain("else") || plain("do") ||
                    plain("while") || plain("until") || plain("!") || plain("{") || plain("}") ||
                    plain("fi") || plain("done")) {
                    after_function = false;
                    continue;
                }
                if (plain("time")) {
                    after_time = true;
                    continue;
                }
                if (plain("esac")) {
                    if (!frames.empty() && frames.back() == Frame::case_clause) frames.pop_back();
                    continue;
                }
                if (plain("for") || plain("select")) {
                    mode = Mode::for_header;
                    for_saw_in = false;
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
                after_function = false;
                if (is_assignment(lexed.raw))
                    continue; // X=1 cmd: the assignment is not the command
                spend(1);
                simple.words.push_back(std::move(lexed.word));
                mode = Mode::in_command;
                break;
            }
            case Mode::in_command:
                spend(1);
                simple.words.push_back(std::move(lexed.word));
                break;
            case Mode::for_header:
                if (is_plain(w, lexed.raw, "in"))
                    for_saw_in = true;
                else if (!for_saw_in && is_plain(w, lexed.raw, "do"))
                    mode = Mode::command_start;
                break;
            case Mode::case_header:
                if (is_plain(w, lexed.raw, "in")) {
                    frames.push_back(Frame::case_clause);
                    mode = Mode::case_pattern;
                }
                break;
            case Mode::case_pattern:
                if (is_plain(w, lexed.raw, "esac")) {
                    if (!frames.empty() && frames.back() == Frame::case_clause) frames.pop_back();
                    mode = Mode::command_start;
                }
                break;
            case Mode::function_name:
                after_function = true;
                mode = Mode::command_start;
                break;
            case Mode::conditional:
                if (is_plain(w, lexed.raw, "]]")) mode = Mode::command_start;
                break;
            }
        }
    }
};

} // namespace

std::string_view strip_path_prefix(std::string_view word) {
    const std::size_t slash = word.find_last_of("/\\");
    return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

Analysis analyze(std::string_view command, const Options& options) {
    Analysis analysis;
    try {
        std::size_t words_left = options.max_words;
        Lexer(command, 0, false, analysis, options, words_left).run();
    } catch (const BoundPassed&) {
        analysis.complete = false;
    } catch (...) {
        analysis.complete = false;
    }
    return analysis;
}

} // namespace viber::shell
