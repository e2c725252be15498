// shell_variables.hpp: the command model's reading of variables whose value is a command's output
// (docs/command-model.md, "Variables"): what a guard asks when a word expands a variable it cannot
// know the value of. A variable is filled from output by an assignment or a declaration (`local`,
// `declare`, `typeset`, `export`, `readonly`) holding a substitution, `printf -v NAME` with one,
// a loop over one, `set` or a call of a function the command defines with one (the positional
// parameters), and `read`/`mapfile`/`readarray` fed by a pipe, a process substitution or a
// here-string of one (or any loop's reads, when some `< <(…)` feeds one). Order does not matter:
// the answer is asked once the whole command is read, as a loop may fill a variable after its use.
#pragma once

#include "common/shell/shell_lexer.hpp"

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace viber::shell {

// Calls visit(name) for each variable a word (quotes removed) expands: `$p`, `${p}`,
// `"${ps[@]}"`, and the positional `$@`, `$*`, `$1`-`$9`.
template <typename F> void for_each_variable(std::string_view text, F&& visit) {
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != '$') continue;
        std::size_t start = i + 1;
        if (text[start] == '{') ++start;
        if (start < text.size() && (text[start] == '@' || text[start] == '*' ||
                                    (text[start] >= '1' && text[start] <= '9'))) {
            visit(text.substr(start, 1));
            continue;
        }
        std::size_t end = start;
        while (end < text.size() && (text[end] == '_' || (text[end] >= 'a' && text[end] <= 'z') ||
                                     (text[end] >= 'A' && text[end] <= 'Z') ||
                                     (end > start && text[end] >= '0' && text[end] <= '9')))
            ++end;
        if (end > start) visit(text.substr(start, end - start));
        i = end > i ? end - 1 : i;
    }
}

// Fed every command (and loop variable, function definition) the model hands a guard's sink, in
// order; then finish(), then filled() for each name.
class OutputVariables {
public:
    void command(const Command& c);
    void loop_variable(std::string_view name, bool from_substitution);
    void function_defined(std::string_view name);
    void finish();
    // True when `name` may hold a command's output (after finish()).
    bool filled(std::string_view name) const;

private:
    void note_read(const Command& c);

    std::set<std::string> filled_;
    std::vector<std::string> read_names_;     // read/mapfile targets
    std::vector<std::string> read_names_fed_; // … fed by a pipe or a process substitution
    bool fed_reads_all_ = false;              // some `< <(…)` feeds a loop's reads
    std::set<std::string> functions_; // defined in the command: a call's substitutions fill $@
};

} // namespace viber::shell
