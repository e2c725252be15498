// kill_guard.cpp: kill-guard's rules (docs/kill-guard.md), kept as a table, and the decision around
// them.
//
// Why: a viber agent that stops processes by name (`pkill node`, `killall python`, `taskkill /IM
// node.exe`, `fuser -k 3000/tcp`, `pgrep x | xargs kill`, `kill $(pgrep x)`) also stops processes
// it never started: the user's editor, another session's dev server, Claude Code itself. `kill -1`
// and `kill 0` stop every process the user may signal, or the agent's own process group. The
// agent knows the PIDs it started (`$!`, the output of its own launches); stopping those, one by
// one, and confirming each is gone, is always enough. So a stop by name or by search is refused
// with that correction, and everything else (a PID, `kill -0`, `kill -l`, `kill $!`, `kill %1`,
// `taskkill //PID`) passes silently: the guard never answers allow, so the next hook and the
// user's own permission rules still apply. A command nesting deeper than the command model reads
// is refused too: what it hides cannot be checked, and no agent needs 33 levels.
#include "kill-guard/kill_guard.hpp"

#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/shell/shell_lexer.hpp"
#include "common/shell/shell_variables.hpp"
#include "common/text/ascii.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <vector>

namespace viber::kill_guard {

namespace {

using shell::Command;
using shell::Word;

enum class When {
    always,             // the command stops by name whatever its arguments
    search_option,      // taskkill /IM, -IM or any /FI filter (any case, any number of slashes)
    kill_option,        // fuser -k, also in a flag group, or --kill
    kill_by_search,     // kill -1 / kill 0, or kill fed by xargs, parallel or a substitution
    powershell_by_name, // Stop-Process -Name inside a powershell -Command string
    wmic_process,       // wmic process … delete / call terminate
    tskill_name,        // tskill NAME (not a number)
    pm2_stop,           // pm2 stop|delete|kill
};

struct Rule {
    std::string_view command; // normalised: lower case, without `.exe`
    When when;
    std::string_view why;
};

constexpr std::array rules{
    Rule{.command = "killall",
         .when = When::always,
         .why = "killall stops every process with that name"},
    Rule{.command = "killall5",
         .when = When::always,
         .why = "killall5 signals every process but its own session"},
    Rule{.command = "pkill",
         .when = When::always,
         .why = "pkill stops every process whose name or command line matches"},
    Rule{.command = "skill",
         .when = When::always,
         .why = "skill stops every process matching a name, user or terminal"},
    Rule{.command = "snice",
         .when = When::always,
         .why = "snice changes and can stop every process matching a name, user or terminal"},
    Rule{.command = "kill-port",
         .when = When::always,
         .why = "kill-port stops whatever holds the port, whoever started it"},
    Rule{.command = "taskkill",
         .when = When::search_option,
         .why = "taskkill /IM or /FI stops every process its search matches"},
    Rule{.command = "fuser",
         .when = When::kill_option,
         .why = "fuser -k stops whatever holds the file or port, whoever started it"},
    Rule{.command = "kill",
         .when = When::kill_by_search,
         .why = "kill with PID -1 or 0, or with PIDs from a search, stops processes you did not "
                "start"},
    Rule{.command = "fkill",
         .when = When::always,
         .why = "fkill stops every process matching a name or port"},
    Rule{.command = "fkill-cli",
         .when = When::always,
         .why = "fkill stops every process matching a name or port"},
    Rule{.command = "wmic",
         .when = When::wmic_process,
         .why = "wmic process … delete or call terminate stops every process its query matches"},
    Rule{.command = "tskill",
         .when = When::tskill_name,
         .why = "tskill with a name stops every process with that name"},
    Rule{.command = "pm2",
         .when = When::pm2_stop,
         .why = "pm2 stop, delete or kill stops processes pm2 runs for anyone, by name or all"},
    Rule{.command = "powershell",
         .when = When::powershell_by_name,
         .why = "Stop-Process -Name stops every process with that name"},
    Rule{.command = "pwsh",
         .when = When::powershell_by_name,
         .why = "Stop-Process -Name stops every process with that name"},
};

constexpr std::string_view nesting_cap_reason =
    "viber guard: this command nests deeper than 32 levels; split it into simpler commands";

// Past the lexer's expansion budget a variable or alias the command defines is not read as the
// command it stands for (`y=pkill; $y node` after 300,000 uses of `$x`): what it runs is unknown,
// so it is refused as a command nesting past the cap is.
constexpr std::string_view expansion_cap_reason =
    "viber guard: this command expands too many variables and aliases to be read; split it into "
    "simpler commands";

// Past the lexer's command cap the rest of the command is not read: what it runs is unknown.
constexpr std::string_view command_cap_reason =
    "viber guard: this command runs more than 10,000 commands to be read; split it into simpler "
    "commands";

constexpr std::string_view correction =
    "Stop only the PIDs you started yourself, one at a time, with `kill <PID>`, and confirm each "
    "is gone with `kill -0 <PID>` (it fails once the process has exited).";

constexpr auto lower = ascii::to_lower;

bool equals_folded(std::string_view a, std::string_view lower_b) {
    return a.size() == lower_b.size() && std::equal(a.begin(), a.end(), lower_b.begin(),
                                                    [](char x, char y) { return lower(x) == y; });
}

// `/IM`, `//IM`, `-IM`, `/FI`, any case.
bool is_search_option(std::string_view arg) {
    std::size_t lead = 0;
    while (lead < arg.size() && arg[lead] == '/') ++lead;
    if (lead == 0 && !arg.empty() && arg[0] == '-') lead = 1;
    if (lead == 0) return false;
    arg.remove_prefix(lead);
    return equals_folded(arg, "im") || equals_folded(arg, "fi");
}

// fuser's `-k`, alone or in a group of its one-letter flags (`-km`, `-vk`), or `--kill`. A
// signal (`-TERM`, `-9`) is upper case or digits, so it never reads as a group.
bool fuser_kills(std::span<const Word> args) {
    for (const Word& word : args) {
        const std::string_view w = word.text;
        if (w == "--kill") return true;
        if (w.size() < 2 || w[0] != '-' || w[1] == '-') continue;
        // §7.2: `-k` counts in any group of lower-case letters (`-kn tcp`, `-vkn`, `-fk`).
        const std::string_view letters = w.substr(1);
        if (letters.find('k') != std::string_view::npos &&
            letters.find_first_not_of("abcdefghijklmnopqrstuvwxyz46") == std::string_view::npos)
            return true;
    }
    return false;
}

// The signal and operands of `kill` (bash's builtin and procps agree on this much): the first
// word opening with `-` is the signal unless it is `--`, `-s X` or `-n N`; `-l`/`-L` list.
struct KillCall {
    bool lists = false;       // -l, -L: prints signal names, stops nothing
    bool checks = false;      // signal 0: tests the PIDs exist, stops nothing
    std::size_t operands = 0; // index of the first PID operand in args
};

bool is_signal_zero(std::string_view s) {
    return s == "0" || equals_folded(s, "sig0") || equals_folded(s, "null");
}

KillCall read_kill(std::span<const Word> args) {
    KillCall call;
    std::size_t i = 0;
    if (i < args.size()) {
        const std::string_view w = args[i].text;
        if (w == "-l" || w == "-L" || w == "--list" || w == "--table" || w.starts_with("-l")) {
            call.lists = true;
            return call;
        }
        if (w == "--") {
            call.operands = 1;
            return call;
        }
        if (w == "-s" || w == "-n" || w == "--signal") {
            if (i + 1 < args.size()) call.checks = is_signal_zero(args[i + 1].text);
            i += 2;
        } else if (w.size() > 1 && w[0] == '-') {
            call.checks = is_signal_zero(w.substr(1));
            ++i;
        }
    }
    if (i < args.size() && args[i].text == "--") ++i;
    call.operands = std::min(i, args.size());
    return call;
}

// The integer an operand stands for when it is a literal (`-01`, `+0`, `00`) or constant
// arithmetic (`$((0))`, `$((1-2))`, `$[-1]`, read by the command model); quotes are already
// removed (§7.2, §7.3). nullopt otherwise.
std::optional<long> integer_value(std::string_view text) {
    if (text.starts_with("$((") || text.starts_with("$["))
        return shell::arithmetic_word_value(text);
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    bool negative = false;
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        negative = text.front() == '-';
        text.remove_prefix(1);
    }
    if (text.empty() || text.size() > 18) return std::nullopt;
    long value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return negative ? -value : value;
}

// `where ProcessId=N` alone (a numeric PID; quotes, parentheses and blanks aside): one PID (§7.3).
bool selects_one_pid(std::span<const Word> clause) {
    std::string joined;
    for (const Word& w : clause)
        for (const char c : w.text)
            if (c != ' ' && c != '\t' && c != '(' && c != ')' && c != '"' && c != '\'') joined += c;
    constexpr std::string_view key = "processid=";
    if (joined.size() <= key.size() || !equals_folded(joined.substr(0, key.size()), key))
        return false;
    return std::all_of(joined.begin() + key.size(), joined.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

bool wmic_stops(std::span<const Word> args) {
    bool process = false;
    std::size_t where = args.size(); // the where clause's first word
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (equals_folded(w, "process")) process = true;
        if (!process) continue;
        if (equals_folded(w, "where")) where = i + 1;
        const bool stops =
            equals_folded(w, "delete") || (equals_folded(w, "call") && i + 1 < args.size() &&
                                           equals_folded(args[i + 1].text, "terminate"));
        if (!stops) continue;
        // `where ProcessId=N call terminate` stops one PID; every other selection is refused.
        return !(where < i && selects_one_pid(args.subspan(where, i - where)));
    }
    return false;
}

// PowerShell's command text (the arguments after `-Command` joined, or the decoded
// `-EncodedCommand`, read by the command model: §7.3), split on whitespace and `;`:
// Stop-Process (spps, kill) given -Name or -ProcessName.
bool powershell_stops_by_name(std::span<const Word> args, bool positional_is_command) {
    const std::optional<std::string> command =
        shell::powershell_command_text(args, positional_is_command);
    if (!command) return false;
    bool in_stop = false;
    bool after_pipe = false; // `Get-Process node | Stop-Process`: fed by a pipe
    for (const shell::PowerShellWord& word : shell::powershell_words(*command)) {
        for (const char c : word.before) {
            if (c == '|') after_pipe = true;
            if (c == ';' || c == '|' || c == '{' || c == '}' || c == '&' || c == '\n')
                in_stop = false;
            if (c == ';' || c == '{' || c == '}' || c == '\n') after_pipe = false;
        }
        std::string_view token = word.text;
        if (equals_folded(token, "stop-process") || equals_folded(token, "spps") ||
            equals_folded(token, "kill")) {
            if (after_pipe) return true;
            in_stop = true;
            continue;
        }
        if (!in_stop || token.size() < 2 || token[0] != '-') continue;
        // `-Name:node`; any prefix of -Name or -ProcessName (`-n`, `-proc`).
        token = token.substr(1, token.find(':') == std::string_view::npos ? std::string_view::npos
                                                                          : token.find(':') - 1);
        if (token.empty()) continue;
        constexpr std::string_view name = "name", process_name = "processname";
        if ((token.size() <= name.size() && equals_folded(token, name.substr(0, token.size()))) ||
            (token.size() <= process_name.size() &&
             equals_folded(token, process_name.substr(0, token.size()))))
            return true;
    }
    return false;
}

// Reads the command model once, keeping the first finding and what the variable rule needs
// (which variables hold a command's output: the model's shell::OutputVariables).
class Finder final : public shell::CommandSink {
public:
    std::optional<StopByName> found;

    void command(const Command& c) override {
        variables_.command(c);
        if (c.words.empty() || c.query || found) return;
        note_pipeline(c);
        if (found) return;
        if (c.is_wrapper && !c.is("powershell") && !c.is("pwsh")) return;
        for (const Rule& rule : rules) {
            if (!c.is(rule.command)) continue;
            if (holds(rule, c)) {
                record(c, rule.why);
                return;
            }
        }
    }

    void loop_variable(std::string_view name, bool from_substitution) override {
        variables_.loop_variable(name, from_substitution);
    }

    void function_defined(std::string_view name) override { variables_.function_defined(name); }

    // After the whole command: a kill whose operand expands a variable filled from a search.
    void finish() {
        if (found) return;
        variables_.finish();
        for (const PendingKill& kill : kills_) {
            for (const std::string& name : kill.variables) {
                if (variables_.filled(name)) {
                    found = StopByName{"kill", kill.words, kill.path,
                                       "kill of PIDs a search put in a variable stops processes "
                                       "you did not start"};
                    return;
                }
            }
        }
    }

private:
    struct PendingKill {
        std::vector<std::string> variables;
        std::string words;
        std::string path;
    };
    shell::OutputVariables variables_; // the model's reading of which variables hold output
    std::vector<PendingKill> kills_;
    // Per nesting depth: the pipeline being read holds a process search or the word `kill`.
    std::array<bool, 64> search_in_pipeline_{};

    // `pgrep node | sed 's/^/kill /' | sh` (§7.2): a shell reading its script from a pipe whose
    // producer's output is unknown, after a process search or the word `kill`.
    void note_pipeline(const Command& c) {
        bool& search = search_in_pipeline_[std::min<std::size_t>(c.depth, 63)];
        if (c.first_in_simple_command && !c.stdin_from_pipe) search = false;
        if (c.reads_script_from_stdin && c.stdin_from_pipe && search) {
            found = StopByName{std::string(c.name), shell::joined_words(c),
                               shell::describe_path(c.path),
                               "a shell running what a process search printed stops processes "
                               "you did not start"};
            return;
        }
        if (c.name == "pgrep" || c.name == "pidof" || c.name == "ps" || c.name == "lsof" ||
            (c.name == "jobs" && std::any_of(c.words.begin(), c.words.end(), [](const Word& w) {
                 return w.text.starts_with("-") && w.text.find('p') != std::string_view::npos;
             }))) {
            search = true;
            return;
        }
        // echo/printf print known words: a shell after them reads those (the model follows it).
        // Run by xargs or parallel they also print its input, unknown: `cat .temp/pids | xargs
        // -n1 echo kill | sh` prints the word kill into a shell (§7.3).
        if ((c.name == "echo" || c.name == "printf") && !c.fed_by_input) return;
        for (const Word& w : c.words) {
            const std::string_view t = w.text;
            for (std::size_t at = t.find("kill"); at != std::string_view::npos;
                 at = t.find("kill", at + 1)) {
                const auto word_char = [](char ch) {
                    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                           (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
                };
                if ((at == 0 || !word_char(t[at - 1])) &&
                    (at + 4 == t.size() || !word_char(t[at + 4]))) {
                    search = true;
                    return;
                }
            }
        }
    }

    void record(const Command& c, std::string_view why) {
        found = StopByName{std::string(c.name), shell::joined_words(c),
                           shell::describe_path(c.path), why};
    }

    bool holds(const Rule& rule, const Command& c) {
        const std::span<const Word> args = c.args();
        switch (rule.when) {
        case When::always:
            return true;
        case When::search_option:
            return std::any_of(args.begin(), args.end(),
                               [](const Word& w) { return is_search_option(w.text); });
        case When::kill_option:
            return fuser_kills(args);
        case When::powershell_by_name:
            return powershell_stops_by_name(args, c.is("powershell"));
        case When::wmic_process:
            return wmic_stops(args);
        case When::tskill_name:
            return !args.empty() && !integer_value(args[0].text).has_value() &&
                   !args[0].text.starts_with("/");
        case When::pm2_stop:
            return !args.empty() && (args[0].text == "stop" || args[0].text == "delete" ||
                                     args[0].text == "kill" || args[0].text == "del");
        case When::kill_by_search: {
            const KillCall call = read_kill(args);
            if (call.lists || call.checks) return false;
            const std::span<const Word> operands = args.subspan(call.operands);
            // Compared after quote removal, by integer value (§7.2): `"-1"`, `-01`, `$((0))`;
            // a word the command gave a literal is the words bash passes for it, read as kill
            // reads them (§7.3: `p=-1; kill -9 $p` and `a=(-9 -1); kill "${a[@]}"` stop every
            // process; `s=-0; kill $s 4242` only checks, and `p=-1; kill $p` is signal 1 alone).
            // A word written again (`kill $p $p …`) has the same fields: read once, kept once.
            std::map<std::pair<std::string_view, bool>, std::optional<std::vector<std::string>>>
                fields_of;
            std::vector<Word> passed;
            passed.reserve(args.size()); // at least one word each: half a million are 12 MB
            for (const Word& w : args) {
                const std::optional<std::vector<std::string>>* fields = nullptr;
                if (w.expands && c.values) {
                    auto [it, fresh] = fields_of.try_emplace({w.text, w.quoted});
                    if (fresh) it->second = c.values->literal_fields(w);
                    fields = &it->second;
                }
                if (fields == nullptr || !fields->has_value()) {
                    passed.push_back(w);
                    continue;
                }
                for (const std::string& field : **fields) passed.push_back(Word{.text = field});
            }
            const KillCall given = read_kill(passed);
            if (given.lists || given.checks) return false;
            for (const Word& w : std::span<const Word>(passed).subspan(given.operands)) {
                const std::optional<long> value = integer_value(w.text);
                if (value && (*value == -1 || *value == 0)) return true;
            }
            if (c.fed_by_input) return true;
            // `find … -exec kill {} ;`: the PIDs are found paths (§7.2).
            // `fd -x kill` / `fd -X kill`: fd appends the found paths when no `{}` is written
            // (§7.3).
            if (c.via_find && (operands.empty() ||
                               std::any_of(operands.begin(), operands.end(), [](const Word& w) {
                                   return w.text.find("{}") != std::string_view::npos;
                               })))
                return true;
            PendingKill pending;
            std::set<std::string_view> named; // each variable once, however often it is written
            for (const Word& w : operands) {
                if (w.has_substitution) return true;
                shell::for_each_variable(w.text, [&](std::string_view name) {
                    if (named.insert(name).second) pending.variables.emplace_back(name);
                });
            }
            if (!pending.variables.empty()) {
                pending.words = shell::joined_words(c);
                pending.path = shell::describe_path(c.path);
                kills_.push_back(std::move(pending));
            }
            return false;
        }
        }
        return false;
    }
};

} // namespace

std::optional<StopByName> find_stop_by_name(std::string_view command) {
    Finder finder;
    const shell::Summary summary = shell::read_commands(command, finder);
    finder.finish();
    if (finder.found) return finder.found;
    // A part the model could not read: what it runs is unknown (the caps, SPEC §7.1).
    StopByName cap;
    if (summary.reached_depth_cap) {
        cap.why = "the command nests deeper than 32 levels";
        cap.cap = StopByName::Cap::nesting;
    } else if (summary.reached_expansion_cap) {
        cap.why = "the command expands too many variables and aliases to be read";
        cap.cap = StopByName::Cap::expansion;
    } else if (summary.reached_command_cap) {
        cap.why = "the command runs more than 10,000 commands to be read";
        cap.cap = StopByName::Cap::commands;
    } else {
        return std::nullopt;
    }
    return cap;
}

namespace {

std::string reason_for(const StopByName& found) {
    switch (found.cap) {
    case StopByName::Cap::nesting:
        return std::string(nesting_cap_reason);
    case StopByName::Cap::expansion:
        return std::string(expansion_cap_reason);
    case StopByName::Cap::commands:
        return std::string(command_cap_reason);
    case StopByName::Cap::none:
        break;
    }
    std::string reason = "viber guard: this command stops processes by name or by search (`";
    reason += found.command;
    reason += "`): ";
    reason += found.why;
    reason += ", which can stop processes this session did not start. ";
    reason += correction;
    return reason;
}

} // namespace

std::optional<std::string> refusal_reason(std::string_view command) {
    const std::optional<StopByName> found = find_stop_by_name(command);
    if (!found) return std::nullopt;
    return reason_for(*found);
}

Decision decide(const HookInput& in, Trace& trace) {
    if (in.payload == nullptr) return Decision::nothing();
    const std::optional<std::string_view> agent = string_field(*in.payload, "agent_type");
    if (trace.on()) trace.read("agent_type: " + std::string(agent.value_or("(none)")));
    if (!agent || agent->substr(0, 6) != "viber:") return Decision::nothing();
    const std::optional<std::string_view> command = bash_command(*in.payload);
    if (!command) return Decision::nothing();
    if (trace.on()) {
        trace.read("tool_input.command: " + std::to_string(command->size()) + " bytes");
        (void)shell::explain_commands(*command, trace);
    }
    const std::optional<StopByName> found = find_stop_by_name(*command);
    if (!found) return Decision::nothing();
    if (trace.on()) {
        if (found->cap != StopByName::Cap::none)
            trace.step("rule broken: " + std::string(found->why));
        else
            trace.step("rule broken: `" + found->command + "` (" + std::string(found->why) +
                       "); words: " + found->words +
                       (found->path.empty() ? "" : "; through: " + found->path));
    }
    return Decision::deny(reason_for(*found));
}

} // namespace viber::kill_guard
