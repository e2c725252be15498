// shell_arithmetic.cpp: the value of constant shell arithmetic (`$((1-2))`, `$[0]`), so an
// operand spelled as a sum is compared by what bash makes of it (SPEC §7.2, §7.3).
#include "common/shell/shell_lexer.hpp"

#include <cstdint>

namespace viber::shell {

namespace {

// Recursive descent over + - * / % ( ) and unary + -, on 64-bit integers. Nesting is capped
// (a deeper expression is unknown), so the work is linear and the stack bounded.
class ConstantArithmetic {
public:
    explicit ConstantArithmetic(std::string_view text) : text_(text) {}

    std::optional<long> value() {
        const std::optional<std::int64_t> v = sum(0);
        skip_blanks();
        if (!v || pos_ != text_.size()) return std::nullopt;
        return static_cast<long>(*v);
    }

private:
    static constexpr unsigned max_nesting = 64;
    std::string_view text_;
    std::size_t pos_ = 0;

    void skip_blanks() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n'))
            ++pos_;
    }
    char next() {
        skip_blanks();
        return pos_ < text_.size() ? text_[pos_] : '\0';
    }

    std::optional<std::int64_t> sum(unsigned nesting) {
        std::optional<std::int64_t> left = product(nesting);
        while (left) {
            const char op = next();
            if (op != '+' && op != '-') break;
            // `--x` / `++x` are increments of a variable: not constant.
            if (pos_ + 1 < text_.size() && text_[pos_ + 1] == op) return std::nullopt;
            ++pos_;
            const std::optional<std::int64_t> right = product(nesting);
            if (!right) return std::nullopt;
            std::int64_t out = 0;
            if (op == '+' ? __builtin_add_overflow(*left, *right, &out)
                          : __builtin_sub_overflow(*left, *right, &out))
                return std::nullopt;
            left = out;
        }
        return left;
    }

    std::optional<std::int64_t> product(unsigned nesting) {
        std::optional<std::int64_t> left = unary(nesting);
        while (left) {
            const char op = next();
            if (op != '*' && op != '/' && op != '%') break;
            if (pos_ + 1 < text_.size() && (text_[pos_ + 1] == '*' || text_[pos_ + 1] == '='))
                return std::nullopt; // `**`, `*=`: not read
            ++pos_;
            const std::optional<std::int64_t> right = unary(nesting);
            if (!right) return std::nullopt;
            if (op == '*') {
                std::int64_t out = 0;
                if (__builtin_mul_overflow(*left, *right, &out)) return std::nullopt;
                left = out;
            } else {
                if (*right == 0 || (*left == INT64_MIN && *right == -1)) return std::nullopt;
                left = op == '/' ? *left / *right : *left % *right;
            }
        }
        return left;
    }

    std::optional<std::int64_t> unary(unsigned nesting) {
        if (nesting > max_nesting) return std::nullopt;
        const char c = next();
        if (c == '-' || c == '+') {
            if (pos_ + 1 < text_.size() && text_[pos_ + 1] == c) return std::nullopt;
            ++pos_;
            const std::optional<std::int64_t> v = unary(nesting + 1);
            if (!v || *v == INT64_MIN) return std::nullopt;
            return c == '-' ? -*v : *v;
        }
        if (c == '(') {
            ++pos_;
            const std::optional<std::int64_t> v = sum(nesting + 1);
            if (!v || next() != ')') return std::nullopt;
            ++pos_;
            return v;
        }
        std::int64_t v = 0;
        const std::size_t begin = pos_;
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
            if (pos_ - begin >= 18) return std::nullopt;
            v = v * 10 + (text_[pos_] - '0');
            ++pos_;
        }
        if (pos_ == begin) return std::nullopt;
        return v;
    }
};

} // namespace

std::optional<long> constant_arithmetic(std::string_view expression) {
    return ConstantArithmetic(expression).value();
}

std::optional<long> arithmetic_word_value(std::string_view word) {
    if (word.starts_with("$((") && word.ends_with("))") && word.size() >= 5)
        return constant_arithmetic(word.substr(3, word.size() - 5));
    if (word.starts_with("$[") && word.ends_with("]") && word.size() >= 3)
        return constant_arithmetic(word.substr(2, word.size() - 3));
    return std::nullopt;
}

} // namespace viber::shell
