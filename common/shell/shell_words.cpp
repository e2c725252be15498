// shell_words.cpp: the shell lexer's words: quote removal, escapes, expansions and the
// substitutions inside a word (docs/command-model.md, "Words").
#include "common/shell/shell_lexer_internal.hpp"
#include "common/text/utf8.hpp"

namespace viber::shell::detail {

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

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
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
void Lexer::dollar(unsigned depth, WordBuilder& word, bool unquoted) {
    const std::size_t begin = pos_;
    bool substituted = false;
    bool can_be_empty = true;
    std::optional<std::string_view> known_print; // `$(echo pkill)`: its text (§7.3)
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
                known_print = printed_text_;
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
void Lexer::array_value(unsigned depth, WordBuilder& word) {
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

} // namespace viber::shell::detail
