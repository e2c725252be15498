// shell_lexer.cpp: the command model both guards share (docs/command-model.md): its public entry
// points over the Lexer (shell_lexer_internal.hpp), read in one pass.
#include "common/shell/shell_lexer.hpp"

#include "common/io/trace.hpp"
#include "common/shell/shell_lexer_internal.hpp"

#include <array>
#include <string>
#include <utility>

namespace viber::shell {

using detail::lower;

bool Command::is(std::string_view lower_name) const {
    // The first byte first: the guards ask each command for a few dozen names.
    if (!glob_name)
        return name.size() == lower_name.size() && (name.empty() || name[0] == lower_name[0]) &&
               name == lower_name;
    return glob_matches(name, lower_name);
}

bool glob_matches(std::string_view pattern, std::string_view name) {
    // states[k]: the pattern read so far can match name[0..k).
    if (name.size() > 64) return false;
    std::array<bool, 65> states{};
    std::array<bool, 65> next{};
    states[0] = true;
    std::size_t p = 0;
    while (p < pattern.size()) {
        const char c = pattern[p];
        next.fill(false);
        if (c == '*') {
            bool reached = false;
            for (std::size_t k = 0; k <= name.size(); ++k) {
                reached = reached || states[k];
                next[k] = reached;
            }
            ++p;
        } else if (c == '[') {
            // A bracket expression: the set of characters up to the closing `]`.
            std::size_t q = p + 1;
            bool negate = false;
            if (q < pattern.size() && (pattern[q] == '!' || pattern[q] == '^')) {
                negate = true;
                ++q;
            }
            const std::size_t set_begin = q;
            if (q < pattern.size() && pattern[q] == ']') ++q;
            while (q < pattern.size() && pattern[q] != ']') ++q;
            if (q >= pattern.size()) { // no closing `]`: a literal `[`
                for (std::size_t k = 0; k < name.size(); ++k)
                    next[k + 1] = states[k] && name[k] == '[';
                ++p;
            } else {
                const std::string_view set = pattern.substr(set_begin, q - set_begin);
                for (std::size_t k = 0; k < name.size(); ++k) {
                    if (!states[k]) continue;
                    bool in = false;
                    for (std::size_t s = 0; s < set.size(); ++s) {
                        if (s + 2 < set.size() && set[s + 1] == '-') {
                            if (lower(name[k]) >= lower(set[s]) &&
                                lower(name[k]) <= lower(set[s + 2]))
                                in = true;
                            s += 2;
                        } else if (lower(set[s]) == name[k]) {
                            in = true;
                        }
                    }
                    next[k + 1] = in != negate;
                }
                p = q + 1;
            }
        } else {
            for (std::size_t k = 0; k < name.size(); ++k)
                next[k + 1] = states[k] && (c == '?' || lower(c) == name[k]);
            ++p;
        }
        states = next;
        bool any = false;
        for (std::size_t k = 0; k <= name.size(); ++k) any = any || states[k];
        if (!any) return false;
    }
    return states[name.size()];
}

std::string_view strip_path_prefix(std::string_view word) {
    const std::size_t slash = word.find_last_of("/\\");
    return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

std::string joined_words(const Command& command, std::size_t max_bytes) {
    std::string out;
    for (const Word& w : command.words) {
        if (!out.empty()) out += ' ';
        // A word that would not read back as one word is shown in single quotes, as a shell
        // would need it: `pkill -f 'vite --port 5173'`.
        const bool quoted =
            w.text.empty() || w.text.find_first_of(" \t\n'\"|&;<>()") != std::string_view::npos;
        if (out.size() + w.text.size() + (quoted ? 2 : 0) > max_bytes) {
            out += "…";
            break;
        }
        out += quoted ? detail::single_quoted(w.text) : std::string(w.text);
    }
    return out;
}

Summary explain_commands(std::string_view command, Trace& trace) {
    constexpr std::size_t listed_at_most = 200;
    struct Lister final : CommandSink {
        Trace& trace;
        std::size_t found = 0;
        explicit Lister(Trace& t) : trace(t) {}
        void command(const Command& c) override {
            if (c.words.empty() || ++found > listed_at_most) return;
            std::string line = "command `" + std::string(c.name) + "`: " + joined_words(c);
            if (!c.path.empty()) line += "  (through " + describe_path(c.path) + ")";
            trace.step(std::move(line));
        }
    } lister(trace);
    const Summary summary = read_commands(command, lister);
    if (lister.found > listed_at_most)
        trace.step("… and " + std::to_string(lister.found - listed_at_most) + " more commands");
    if (summary.reached_depth_cap) trace.step("the command nests deeper than 32 levels");
    if (summary.reached_expansion_cap)
        trace.step("the command expands too many variables and aliases to be read");
    if (summary.reached_command_cap)
        trace.step("the command runs more than 10,000 commands; the rest was not read");
    return summary;
}

std::string describe_path(std::span<const PathStep> path, std::size_t max_steps) {
    std::string out;
    const std::size_t keep = std::max<std::size_t>(max_steps / 2, 1);
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path.size() > max_steps && i == keep) {
            out += " > … (" + std::to_string(path.size() - 2 * keep) + " more)";
            i = path.size() - keep - 1;
            continue;
        }
        const PathStep& step = path[i];
        if (!out.empty()) out += " > ";
        out += step.name;
        if (!step.name.empty() && !step.how.empty()) out += ' ';
        out += step.how;
    }
    return out;
}

// What the values of variables and aliases may add to a reading beyond the command's own length:
// a short command that runs one value a few times (`c='npm run build'; $c; $c; $c`) stays within
// it, and the work stays linear (the command's length plus a constant).
constexpr std::size_t expansion_allowance = std::size_t{64} << 10;

std::optional<std::vector<std::string>> WordValues::literal_fields(const Word& word) const {
    std::optional<std::string> value = literal_value(word);
    if (!value) return std::nullopt;
    const bool elements = word.text == "$@" || word.text == "${@}" ||
                          (word.text.starts_with("${") && word.text.ends_with("[@]}"));
    if (word.quoted && !elements) return std::vector<std::string>{std::move(*value)};
    std::vector<std::string> fields;
    std::string_view rest = *value;
    while (!rest.empty()) {
        const std::size_t start = rest.find_first_not_of(" \t\n");
        if (start == std::string_view::npos) break;
        rest.remove_prefix(start);
        const std::size_t end = std::min(rest.find_first_of(" \t\n"), rest.size());
        fields.emplace_back(rest.substr(0, end));
        rest.remove_prefix(end);
    }
    return fields;
}

Summary read_commands(std::string_view command, CommandSink& sink, const Options& options) {
    const std::size_t expansion_budget = command.size() + expansion_allowance;
    detail::Reading reading{sink, options, {}, {}, {}, {}, {}, {}, expansion_budget};
    reading.function_bytes = expansion_budget;
    try {
        detail::Lexer(reading, command, 0, false, false).run();
    } catch (const detail::CommandCapReached&) {
        // The reading ends at the command cap; the summary says so.
    } catch (...) {
        // bad_alloc or a sink's exception: what was found has been handed over.
    }
    reading.summary.expanded_bytes = expansion_budget - reading.expansion_budget;
    return reading.summary;
}

} // namespace viber::shell
