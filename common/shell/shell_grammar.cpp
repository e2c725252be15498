// shell_grammar.cpp: the shell lexer's recursive core, read in one pass over a buffer: lists,
// pipelines, compound commands, heredocs and redirections, and the words in them with their
// quote removal, escapes and expansions (docs/command-model.md, "Words"). A word's substitution
// reads a list and a list reads words, so both live here; the look-ahead they use that reads
// neither is in shell_lookahead.cpp.
#include "common/shell/shell_lexer_internal.hpp"
#include "common/text/utf8.hpp"

namespace viber::shell::detail {

namespace {

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

} // namespace

namespace {

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

} // namespace

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
    // `printed`: what it prints when the command says (`$(echo pkill)`), read in its place.
    void substitution(std::size_t begin, std::size_t end, bool unquoted,
                      std::optional<std::string_view> printed = std::nullopt) {
        if (!scripted_) {
            scripted_ = true;
            script_.assign(text_so_far());
        }
        const bool was_scripted = scripted_;
        scripted_ = false;
        source(begin, end, unquoted);
        scripted_ = was_scripted;
        script_.append(printed ? *printed : std::string_view("${_}"));
        word.has_substitution = true;
    }

    void set_script(std::string_view body) {
        scripted_ = true;
        script_.assign(body);
    }

    std::size_t size() const { return owned_ ? buf_.size() : view_end_ - view_begin_; }

    Word finish(fast::Arena& arena, std::vector<std::string_view>& scripts) {
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

// From just after `((`, `$((` or `$[`: to just after the closing `))` or `]`. The expression
// is not a command and holds no heredoc, but a $(…) or `…` inside it runs.
void Lexer::skip_arithmetic(unsigned depth, bool* substituted, char closer) {
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

// pos_ on the opening backtick: the body, with the backslash of \` \\ \$ (and inside double
// quotes \") dropped, is its own command line.
void Lexer::backtick(unsigned depth, bool in_double, WordBuilder* word) {
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
    const std::size_t end = pos_;
    PipeText printed;
    if (body.find_first_not_of(" \t\n") != std::string::npos && !deeper_than_cap(depth + 1)) {
        const std::string_view stored = r_.arena.store(body);
        fast::push_back_growing(r_.path, PathStep{"", "`…`"});
        printed =
            Lexer(r_, stored, depth + 1, fed_by_input_, via_find_).parse_list(depth + 1, false);
        r_.path.pop_back();
    }
    // `` `echo pkill` `` is `$(echo pkill)` (§7.3): what it prints is known.
    const bool known = printed.valid && printed.heredoc_end == 0;
    if (known) {
        printed_at_ = begin + 1;
        printed_text_ = r_.arena.store(printed.text);
    }
    if (word != nullptr)
        word->substitution(begin, end, !in_double,
                           known ? std::optional<std::string_view>(printed_text_) : std::nullopt);
}

// pos_ just after `${`: skips the parameter expansion, lexing the substitutions inside it.
// Quotes inside are tracked with a flag, not by recursion, so nesting costs no stack.
void Lexer::parameter_expansion(unsigned depth, bool& substituted) {
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
            dollar_paren(depth, &substituted);
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

// pos_ on `$(`: an arithmetic `$((…))` skipped (nullopt), or a command substitution read (what it
// prints, when known). `substituted`, when given, is set by either that runs a command.
std::optional<PipeText> Lexer::dollar_paren(unsigned depth, bool* substituted) {
    const std::size_t second = op_pos(pos_, 2);
    if (second < src_.size() && src_[second] == '(' && is_arithmetic(second)) {
        pos_ = second + 1;
        skip_arithmetic(depth, substituted, ')');
        return std::nullopt;
    }
    if (substituted != nullptr) *substituted = true;
    op_skip(2);
    return substitution(depth, "$(…)");
}

// pos_ on `$`: an expansion, appended as written.
void Lexer::dollar(unsigned depth, WordBuilder& word, bool unquoted) {
    const std::size_t begin = pos_;
    bool substituted = false;
    bool can_be_empty = true;
    std::optional<std::string_view> known_print; // `$(echo pkill)`: its text (§7.3)
    if (op(1) == '(') {
        const std::size_t inner = std::min(op_pos(pos_, 2), src_.size()); // a substitution's text
        const std::optional<PipeText> printed = dollar_paren(depth, &substituted);
        can_be_empty = printed.has_value();
        if (printed && printed->valid && printed->heredoc_end == 0) {
            printed_at_ = inner;
            printed_text_ = r_.arena.store(printed->text);
            known_print = printed_text_;
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
        if (unquoted && src_.substr(begin, pos_ - begin) == "$IFS") word.word.unquoted_ifs = true;
    } else if (pos_ + 1 < src_.size() && !is_metachar(peek(1)) && peek(1) != '"') {
        pos_ += 2; // $1, $@, $?, $$ …
    } else {
        ++pos_; // a lone `$`
        can_be_empty = false;
    }
    if (src_.substr(begin, pos_ - begin) != "$") word.word.expands = true;
    if (substituted)
        word.substitution(begin, pos_, unquoted && can_be_empty, known_print);
    else
        word.source(begin, pos_, unquoted && can_be_empty);
}

// pos_ on `"` (or on the `"` of `$"`).
void Lexer::double_quoted(unsigned depth, WordBuilder& word) {
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

// pos_ on `$'`: ANSI-C quoting, every bash escape decoded.
void Lexer::ansi_c_quoted(WordBuilder& word) {
    pos_ += 2;
    std::string text;
    while (!at_end() && src_[pos_] != '\'') {
        const char c = src_[pos_++];
        if (c != '\\' || at_end()) {
            text += c;
            continue;
        }
        const char e = src_[pos_++];
        if (const char byte = escaped_byte(e)) {
            text += byte;
            continue;
        }
        switch (e) {
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
                utf8::append(text, value);
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
void Lexer::array_value(unsigned depth, WordBuilder& word) {
    const std::size_t begin = pos_;
    ++pos_;
    bool substituted = false;
    bool literal = true; // every element written out (remember_literal reads them)
    Reading::ArrayValue value;
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
        literal = literal && pos_ != before && !element.expands && !element.unquoted_glob &&
                  !element.brace_inside;
        if (pos_ == before) ++pos_; // a metacharacter inside: never loop in place
        if (!literal) continue;
        if (value.count++ > 0) value.joined += ' ';
        value.joined += element.text;
        if (value.first.size() < Reading::array_indices) value.first.emplace_back(element.text);
    }
    if (substituted)
        word.substitution(begin, pos_, false);
    else
        word.source(begin, pos_);
    if (literal)
        r_.array_sources.insert_or_assign(std::string(src_.substr(begin, pos_ - begin)), value);
}

// One word: quote removal done, substitutions inside it lexed as commands.
Word Lexer::read_word(unsigned depth, std::vector<std::string_view>& scripts) {
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
                (src_[close + 1] == '=' ||
                 (src_[close + 1] == '+' && close + 2 < src_.size() && src_[close + 2] == '=')) &&
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
        if (c == '(' && !in_array_ && !word.word.quoted && pos_ > begin && src_[pos_ - 1] == '=' &&
            is_assignment(src_.substr(begin, pos_ - begin))) {
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
    else if (printed_at_ != std::string_view::npos &&
             ((printed_at_ == begin + 2 && raw.starts_with("$(") && raw.ends_with(")")) ||
              (printed_at_ == begin + 1 && raw.size() > 1 && raw.starts_with("`") &&
               raw.ends_with("`"))))
        word.set_script(printed_text_); // `$(echo pkill)`, `` `echo pkill` ``: what it prints
    return word.finish(r_.arena, scripts);
}

// After an unquoted newline: the bodies of the heredocs opened on that line, in order.
// Returns true when a `DELIM)` line closed the enclosing substitution (pos_ is on the `)`).
bool Lexer::read_heredoc_bodies(unsigned depth, bool in_substitution) {
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
                    line.starts_with(heredoc.delimiter) && line[heredoc.delimiter.size()] == ')') {
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
                dollar_paren(depth, nullptr);
            } else if (c == '`') {
                backtick(depth, false, nullptr);
            } else {
                ++pos_;
            }
        }
        if (pos_ > src_.size()) pos_ = src_.size();
        if (!heredoc.file.empty())
            keep_file(heredoc.file, src_.substr(body_begin, body_end - body_begin), heredoc.append);
        if (heredoc.feeds_shell && !deeper_than_cap(depth + 1)) {
            fast::push_back_growing(r_.path, PathStep{heredoc.shell, "<<"});
            Lexer(r_, src_.substr(body_begin, body_end - body_begin), depth + 1, fed_by_input_,
                  via_find_)
                .run();
            r_.path.pop_back();
        }
    }
    return closed;
}

// pos_ just after `$(`, `<(` or `>(`: the commands inside, one level deeper.
// Returns the text an `echo`/`printf` ending it prints (what `source <(echo …)` runs).
PipeText Lexer::substitution(unsigned depth, std::string_view how) {
    if (deeper_than_cap(depth + 1)) {
        skip_opaque_parens();
        return {};
    }
    const std::size_t begin = pos_;
    std::string_view body;
    const bool idiom = how == "$(…)" && cat_heredoc_idiom(body);
    fast::push_back_growing(r_.path, PathStep{"", how});
    PipeText printed = parse_list(depth + 1, true);
    r_.path.pop_back();
    if (idiom) {
        idiom_at_ = begin;
        idiom_body_ = body;
    }
    return printed;
}

// pos_ on a redirection operator (or its fd number).
void Lexer::redirect(unsigned depth, SimpleCommand& simple) {
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
        r.kind = append ? RedirectKind::append_output_and_error : RedirectKind::output_and_error;
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
    const bool has_target =
        !at_end() && (!is_metachar(peek()) || ((peek() == '<' || peek() == '>') && op(1) == '('));
    if (!has_target) return; // bash refuses the line; a targetless operator stores nothing
    const std::size_t target_at = pos_;
    r.target = read_word(depth, simple.scripts);
    r.target_is_process_substitution =
        (src_[target_at] == '<' || src_[target_at] == '>') && !r.target.quoted;
    if (duplicate) {
        std::string_view target = r.target.text;
        if (!target.empty() && target.back() == '-' && target.size() > 1) target.remove_suffix(1);
        if (!(target == "-" || (!target.empty() && std::ranges::all_of(target, is_digit))))
            r.kind = RedirectKind::output_and_error;
    }
    if (heredoc) {
        // A command written with CRLF line ends carries the CR on the delimiter and on its
        // line.
        std::string delimiter(r.target.text);
        heredocs_.push_back(
            {std::move(delimiter), strip_tabs, r.target.quoted, false, {}, {}, false});
    }
    simple.redirects.push_back(r);
}

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
void Lexer::push_word(SimpleCommand& simple, const Word& w) {
    std::vector<Word>& words = simple.words;
    if (words.size() == words.capacity() && words.size() >= 16) {
        const std::size_t room = words.size() + (src_.size() - std::min(pos_, src_.size())) / 2 + 1;
        if (room * sizeof(Word) < (std::size_t{4} << 20))
            words.reserve(room);
        else if (words.size() >= 256)
            fast::reserve_for_writes(words, room);
    }
    words.push_back(w);
}

// Lexes commands until the end of the buffer or, when `until_paren`, the `)` closing the
// enclosing $(…)/<(…)/>(…). Subshells and case clauses are tracked on a heap stack, so ten
// thousand `(` cost no C++ stack.
PipeText Lexer::parse_list(unsigned base_depth, bool until_paren) {
    std::vector<Frame> frames;
    unsigned depth = base_depth;
    SimpleCommand simple;
    simple.heredocs_begin = heredocs_.size();
    simple.stdin_from_pipe = std::exchange(r_.string_reads_pipe, false);
    PipeText piped;
    fast::Arena::Mark mark = r_.arena.mark();
    Mode mode = Mode::command_start;
    bool after_time = false;     // `time -p`: the -p is the reserved word's option
    bool after_function = false; // `function f ()`: the () belongs to the definition
    // `f() { …; }`, `f() ( … )`: the function whose body comes next, and the bodies open, with
    // the number of `{` groups (for a `( … )` body, of frames) open at their start.
    std::string defined;
    struct OpenBody {
        std::string name;
        std::size_t begin;
        std::size_t groups;
        bool subshell = false;
    };
    std::vector<OpenBody> bodies;
    std::size_t groups = 0;
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
        if (mode != Mode::case_header && mode != Mode::case_pattern && mode != Mode::conditional)
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
            // Inside `cmd /c`, cmd's `&` runs the next command after the first, as bash's `;`
            // does: a chain too (§7.3); its `|` is a pipe.
            if (doubled || (c == '&' && !r_.path.empty() && r_.path.back().name == "cmd"))
                ++r_.summary.chain_operators;
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
                    if (!simple.words.empty()) {
                        r_.sink.function_defined(simple.words[0].text);
                        defined.assign(simple.words[0].text);
                    }
                    simple.clear();
                    mode = Mode::command_start;
                    after_function = false;
                    continue;
                }
            }
            ++pos_;
            if (!defined.empty()) bodies.push_back({std::move(defined), pos_, frames.size(), true});
            defined.clear();
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
            fast::push_back_growing(r_.path, PathStep{"", "( )"});
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
                if (!bodies.empty() && bodies.back().subshell &&
                    bodies.back().groups == frames.size()) {
                    keep_function(bodies.back().name,
                                  src_.substr(bodies.back().begin, pos_ - 1 - bodies.back().begin));
                    bodies.pop_back();
                }
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
            is_name_start(raw[1]) &&
            std::all_of(raw.begin() + 2, raw.end() - 1, [](char c) { return is_name_char(c); })) {
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
                if (plain("{")) {
                    ++groups;
                    if (!defined.empty()) bodies.push_back({std::move(defined), pos_, groups});
                    defined.clear();
                    after_function = false;
                    continue;
                }
                defined.clear();
                if (plain("}")) {
                    if (!bodies.empty() && !bodies.back().subshell &&
                        bodies.back().groups == groups) {
                        keep_function(
                            bodies.back().name,
                            src_.substr(bodies.back().begin, word_at - bodies.back().begin));
                        bodies.pop_back();
                    }
                    groups -= groups > 0 ? 1 : 0;
                    after_function = false;
                    continue;
                }
                if (plain("if") || plain("then") || plain("elif") || plain("else") || plain("do") ||
                    plain("while") || plain("until") || plain("!") || plain("fi") ||
                    plain("done")) {
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
                    if (!frames.empty() && frames.back() == Frame::case_clause) frames.pop_back();
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
            defined.assign(w.text);
            after_function = true;
            mode = Mode::command_start;
            break;
        case Mode::conditional:
            if (plain("]]")) mode = Mode::command_start;
            break;
        }
    }
}

} // namespace viber::shell::detail
