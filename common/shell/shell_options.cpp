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

} // namespace viber::shell
