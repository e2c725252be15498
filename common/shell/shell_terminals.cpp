// shell_terminals.cpp: what tmux and screen run in another shell (SPEC §7.3): a tmux command's
// shell string (`new-session`, `new-window`, `split-window`, `respawn-*`, `run-shell`), and the
// lines `tmux send-keys` and `screen -X stuff` type up to an Enter.
#include "common/shell/shell_lexer_internal.hpp"

namespace viber::shell::detail {

namespace {

// tmux subcommands (and their aliases) whose operands, joined, are a shell command.
bool runs_shell_string(std::string_view sub) {
    for (const std::string_view s :
         {"new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane",
          "respawnp", "respawn-window", "respawnw", "run-shell", "run"})
        if (sub == s) return true;
    return false;
}

// The option letters of a tmux subcommand that take a value (`-n NAME`, `-t TARGET`, `-s NAME`,
// `-c DIR`, `-e VAR=VALUE` …): `-d` is a flag but run-shell's delay; `-l` a size but send-keys'
// literal flag.
std::string_view tmux_value_options(std::string_view sub) {
    if (sub == "send-keys" || sub == "send") return "Nt";
    if (sub == "run-shell" || sub == "run") return "dtc";
    if (sub == "new-session" || sub == "new") return "cefFnstxy";
    return "cefFlnst";
}

} // namespace

std::string single_quoted(std::string_view text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

void Lexer::terminal_commands(const SimpleCommand& simple, std::span<const Word> words,
                              std::size_t i, std::size_t end, std::string_view name, unsigned depth,
                              bool fed, bool find) {
    std::vector<std::string> lines;
    std::string typed; // send-keys / stuff: the keys so far on the current line
    const auto typed_text = [&](std::string_view text) {
        // `^M`, `\n`, `\r` (two characters, or the real character) end a line.
        for (std::size_t k = 0; k < text.size(); ++k) {
            const char c = text[k];
            const bool two =
                k + 1 < text.size() && ((c == '^' && (text[k + 1] == 'M' || text[k + 1] == 'J')) ||
                                        (c == '\\' && (text[k + 1] == 'n' || text[k + 1] == 'r')));
            if (c == '\n' || c == '\r' || two) {
                lines.push_back(typed);
                typed.clear();
                if (two) ++k;
                continue;
            }
            typed += c;
        }
    };
    if (name == "screen") {
        // screen [options] -X stuff TEXT; without -X, `screen [options] CMD ARGS…` runs CMD.
        std::size_t k = i + 1;
        while (k < end && words[k].text.size() >= 2 && words[k].text[0] == '-') {
            const std::string_view w = words[k].text;
            if (w == "-X") {
                if (k + 2 < end && words[k + 1].text == "stuff")
                    typed_text(script_of(simple, words[k + 2]));
                return finish_typed(lines, depth, name, fed, find);
            }
            // `-S NAME`, `-dmS NAME`: a flag group ending in a letter that takes a value.
            const bool value =
                std::string_view("ScehpTts").find(w.back()) != std::string_view::npos &&
                w.find_first_not_of("dmDRrxAaLlqUOi", 1) >= w.size() - 1;
            k += value ? 2 : 1;
        }
        if (k < end) lines.emplace_back(join_scripts(simple, words.subspan(k, end - k)));
    } else {
        std::size_t k = i + 1;
        // tmux's own options, then the subcommand.
        while (k < end && words[k].text.size() >= 2 && words[k].text[0] == '-') {
            const std::string_view w = words[k].text;
            if (w == "--") {
                ++k;
                break;
            }
            if (w.size() == 2 && w[1] == 'c' && k + 1 < end) { // tmux -c SHELL-COMMAND
                lines.emplace_back(script_of(simple, words[k + 1]));
                k += 2;
                continue;
            }
            k += (w.size() == 2 && (w[1] == 'L' || w[1] == 'S' || w[1] == 'f' || w[1] == 'T')) ? 2
                                                                                               : 1;
        }
        if (k >= end) return;
        const std::string_view sub = words[k].text;
        const bool send = sub == "send-keys" || sub == "send";
        if (!send && !runs_shell_string(sub)) return;
        ++k;
        bool literal = false;
        while (k < end && words[k].text.size() >= 2 && words[k].text[0] == '-') {
            const std::string_view w = words[k].text;
            ++k;
            if (w == "--") break;
            const std::string_view values = tmux_value_options(sub);
            for (std::size_t c = 1; c < w.size(); ++c) {
                if (send && w[c] == 'l') literal = true;
                if (values.find(w[c]) == std::string_view::npos) continue;
                if (c + 1 == w.size()) ++k; // `-t TARGET`; `-tTARGET` carries it
                break;
            }
        }
        if (k >= end) return;
        if (!send) {
            // The remaining words, joined, are a shell command: read as `sh -c STRING`.
            const std::string_view line = join_scripts(simple, words.subspan(k, end - k));
            if (!expansion_fits(line.size() + 8)) return;
            r_.expansion_budget -= line.size() + 8;
            nested(r_.arena.store("sh -c " + single_quoted(line)), depth, {name, sub}, fed, find);
            return;
        }
        for (; k < end; ++k) {
            const std::string_view key = words[k].text;
            if (!literal && (key == "Enter" || key == "C-m" || key == "KPEnter" || key == "C-j")) {
                lines.push_back(typed);
                typed.clear();
            } else if (!literal && key == "Space") {
                typed += ' ';
            } else if (!literal && key == "Tab") {
                typed += '\t';
            } else {
                typed_text(script_of(simple, words[k]));
            }
        }
    }
    finish_typed(lines, depth, name, fed, find);
}

// Each completed typed line (or screen's command) read as a command line.
void Lexer::finish_typed(const std::vector<std::string>& lines, unsigned depth,
                         std::string_view name, bool fed, bool find) {
    for (const std::string& line : lines) {
        if (!expansion_fits(line.size())) return;
        r_.expansion_budget -= line.size();
        nested(r_.arena.store(line), depth, {name, "typed"}, fed, find);
    }
}

} // namespace viber::shell::detail
