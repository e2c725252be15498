// shell_options.cpp: the shells and how one reads its options (shell_options.hpp).
#include "common/shell/shell_options.hpp"

#include <algorithm>

namespace viber::shell {

bool is_shell_name(std::string_view name) {
    return std::find(shell_names.begin(), shell_names.end(), name) != shell_names.end();
}

ShellOptions read_shell_options(std::span<const Word> words, std::size_t begin, std::size_t end) {
    ShellOptions out;
    bool has_s = false;
    std::size_t i = begin;
    while (i < end) {
        const std::string_view w = words[i].text;
        if (w == "--" || w == "-") {
            ++i;
            break;
        }
        if (w.size() > 2 && w[0] == '-' && w[1] == '-') {
            if (w == "--rcfile" || w == "--init-file") {
                if (i + 1 < end) out.rcfile = i + 1;
                ++i;
            }
            if (w == "--version" || w == "--help") out.names_other = true;
            ++i;
            continue;
        }
        if (w.size() > 1 && (w[0] == '-' || w[0] == '+')) {
            bool takes_value = false;
            for (std::size_t k = 1; k < w.size(); ++k) {
                if (w[k] == 'c' && w[0] == '-') out.command_option = true;
                if (w[k] == 's' && w[0] == '-') has_s = true;
                if (w[k] == 'n' && w[0] == '-') out.no_exec = true;
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
    if (out.command_option) {
        if (i < end) out.command_string = i;
        return out;
    }
    if (has_s || i >= end || words[i].text == "/dev/stdin" || words[i].text == "/dev/fd/0")
        out.script_from_stdin = true;
    out.stdin_option = has_s;
    if (!has_s && i < end) out.script = i;
    return out;
}

namespace {

// `entry` names `option`: equal, or for `--ta(rget-dir)` a prefix of `--target-dir` from `--ta`.
bool names(std::string_view entry, std::string_view option) {
    // A word written with a prefix ends with its `)`; any other is compared whole.
    if (entry.empty() || entry.back() != ')') return entry == option;
    const std::size_t open = entry.find('(');
    if (open == std::string_view::npos) return entry == option;
    const std::string_view head = entry.substr(0, open);
    std::string_view tail = entry.substr(open + 1);
    if (tail.ends_with(")")) tail.remove_suffix(1);
    return option.starts_with(head) && tail.starts_with(option.substr(head.size()));
}

} // namespace

bool lists_option(std::string_view list, std::string_view option) {
    while (!list.empty()) {
        const std::size_t space = list.find(' ');
        if (names(list.substr(0, space), option)) return true;
        if (space == std::string_view::npos) break;
        list.remove_prefix(space + 1);
    }
    return false;
}

} // namespace viber::shell
