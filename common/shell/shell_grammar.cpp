// shell_grammar.cpp: the shell lexer's grammar: lists, pipelines, compound commands, heredocs,
// substitutions and redirections, read in one pass over a buffer.
#include "common/shell/shell_lexer_internal.hpp"

namespace viber::shell::detail {

namespace {

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_digit(c)) return false;
    return true;
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

} // namespace

// Pairs of matching parentheses in the buffer, quotes skipped: `((` and `$((` are arithmetic
// only when the `)` matching the second `(` is followed at once by `)`. Built once, so a
// line of ten thousand `((` stays linear.
void Lexer::build_paren_pairs() {
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
            fast::push_back_growing(paren_pairs_, {open.back(), static_cast<std::uint32_t>(i)});
            open.pop_back();
        }
    }
    std::sort(paren_pairs_.begin(), paren_pairs_.end());
}

// `at` is the second `(` of `((`.
bool Lexer::is_arithmetic(std::size_t at) {
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
void Lexer::skip_opaque_parens() {
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

// At pos_ (just after `$(`): `cat <<DELIM` then a body then the `DELIM` line then `)`, the
// way agents write a long string. Sets `body`; pos_ is unchanged.
bool Lexer::cat_heredoc_idiom(std::string_view& body) const {
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

// True at `N<`/`N>` where the digits are the whole prefix (`2>x`; `a2>x` is a word then `>x`).
std::size_t Lexer::fd_prefix_length() const {
    std::size_t i = pos_;
    while (i < src_.size() && is_digit(src_[i])) ++i;
    if (i == pos_ || i >= src_.size() || i - pos_ > 9) return 0;
    if (src_[i] != '<' && src_[i] != '>') return 0;
    return i - pos_;
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
