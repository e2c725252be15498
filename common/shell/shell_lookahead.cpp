// shell_lookahead.cpp: the shell lexer's look-ahead over the buffer: parenthesis pairs, whether
// `((` opens arithmetic, a `( … )` skipped past the depth cap, the `$(cat <<DELIM …)` idiom and an
// fd number before a redirection. None of them reads a word or a list.
#include "common/shell/shell_lexer_internal.hpp"

namespace viber::shell::detail {

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

} // namespace viber::shell::detail
