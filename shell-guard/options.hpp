// options.hpp: shell-guard's one option reader. A writer (R4) or an interpreter (R5) declares how
// its command line reads as a row (OptionGrammar): which short and long options take a value,
// where the options end. OptionReader walks the words once and hands back each option with its
// value, and each operand.
#pragma once

#include "shell-guard/rules.hpp"

#include <cstddef>
#include <optional>
#include <string_view>

namespace viber::shell_guard {

// Lists are words each followed by a space ("-e --rsh "). A long option written `--ta(rget-dir)`
// is also named by any prefix of it down to `--ta` (GNU's unambiguous prefixes), only where the
// command's own reading takes them.
struct OptionGrammar {
    std::string_view value_letters = {}; // short options taking the rest of the word, or the next
    std::string_view attached_letters = {}; // short options taking only the rest of the word
    std::string_view value_words = {};      // `-e` alone (not in a cluster) takes the next word
    std::string_view long_values = {};      // `--opt=VALUE` or `--opt VALUE`
    std::string_view long_flags = {};       // long options known to take no value
    bool dashdash_ends = true;              // `--` ends the options; else it is a long option
    bool operand_ends = false;              // the first operand ends the options (POSIX order)
    bool unknown_long_values = false; // an unlisted long option takes the next word unless `-…`
    bool clusters = true;   // false: `-abc` is one option, read as a long one is (node, php)
    bool fold_case = false; // long_values name options in any case (PowerShell's -EP)
};

// One option or operand of a command line.
struct Argument {
    std::size_t word = 0;                       // the index of its word
    char letter = 0;                            // a short option's letter
    std::string_view text = {};                 // a long option up to any `=`, or the operand
    std::optional<std::string_view> value = {}; // an option's value, when it has one
    bool attached = false; // the value came in the option's own word (`-ofile`, `--out=file`)
    bool operand = false;

    // True when this is an option `list` names: "-o --output ".
    bool in(std::string_view list) const;
};

class OptionReader {
public:
    OptionReader(Words args, const OptionGrammar& grammar) : args_(args), grammar_(grammar) {}

    // The next option or operand; nothing after the last word.
    std::optional<Argument> next();

private:
    Argument letter();

    Words args_;
    const OptionGrammar& grammar_;
    std::size_t word_ = 0;   // the next word
    std::size_t letter_ = 0; // inside a cluster: the next letter's index; 0 outside one
    bool operands_ = false;  // the options have ended
};

} // namespace viber::shell_guard
