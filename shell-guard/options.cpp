// options.cpp: shell-guard's one option reader (options.hpp).
#include "shell-guard/options.hpp"

#include "common/shell/shell_options.hpp"
#include "common/text/ascii.hpp"

#include <string>

namespace viber::shell_guard {

namespace {

bool has(std::string_view letters, char c) {
    return letters.find(c) != std::string_view::npos;
}

} // namespace

bool Argument::in(std::string_view list) const {
    if (operand) return false;
    if (letter == 0) return shell::lists_option(list, text);
    const char spelled[2] = {'-', letter};
    return shell::lists_option(list, std::string_view(spelled, 2));
}

std::optional<Argument> OptionReader::next() {
    if (letter_ != 0) return letter();
    if (word_ >= args_.size()) return std::nullopt;
    const std::size_t at = word_++;
    const std::string_view w = args_[at].text;
    const auto next_word = [&]() -> std::optional<std::string_view> {
        if (word_ < args_.size()) return args_[word_++].text;
        ++word_;
        return std::nullopt;
    };
    if (operands_ || !is_option(w)) {
        operands_ = operands_ || grammar_.operand_ends;
        return Argument{.word = at, .text = w, .operand = true};
    }
    if (grammar_.dashdash_ends && w == "--") {
        operands_ = true;
        return next();
    }
    if (shell::lists_option(grammar_.value_words, w))
        return Argument{.word = at, .letter = w[1], .value = next_word()};
    if (w.starts_with("--") || !grammar_.clusters) {
        const std::size_t eq = w.find('=');
        Argument option{.word = at, .text = w.substr(0, eq)};
        option.attached = eq != std::string_view::npos;
        if (option.attached)
            option.value = w.substr(eq + 1);
        else if (shell::lists_option(grammar_.long_values, grammar_.fold_case
                                                               ? ascii::lowered(option.text)
                                                               : option.text))
            option.value = next_word();
        else if (grammar_.unknown_long_values &&
                 !shell::lists_option(grammar_.long_flags, option.text) && word_ < args_.size() &&
                 !args_[word_].text.starts_with("-"))
            option.value = next_word();
        return option;
    }
    word_ = at;
    letter_ = 1;
    return letter();
}

Argument OptionReader::letter() {
    const std::string_view w = args_[word_].text;
    const char c = w[letter_];
    Argument option{.word = word_, .letter = c};
    if (has(grammar_.value_letters, c) || has(grammar_.attached_letters, c)) {
        option.attached = letter_ + 1 < w.size();
        if (option.attached)
            option.value = w.substr(letter_ + 1);
        else if (has(grammar_.value_letters, c) && ++word_ < args_.size())
            option.value = args_[word_].text;
        letter_ = 0;
        ++word_;
        return option;
    }
    if (++letter_ == w.size()) {
        letter_ = 0;
        ++word_;
    }
    return option;
}

} // namespace viber::shell_guard
