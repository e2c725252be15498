// kill_guard.cpp: kill-guard's rules (SPEC §7), kept as a table, and the decision around them.
//
// Why: a viber agent that stops processes by name (`pkill node`, `killall python`, `taskkill /IM
// node.exe`, `pgrep x | xargs kill`, `kill $(pgrep x)`) also stops processes it never started:
// the user's editor, another session's dev server, Claude Code itself. The agent knows the PIDs it
// started (`$!`, the output of its own launches); stopping those, one by one, and confirming each
// is gone, is always enough. So a name-based stop is refused with that correction, and everything
// else (a PID, `kill -0`, `kill $!`, `kill %1`, `taskkill //PID`) passes silently: the guard never
// answers allow, so the next hook and the user's own permission rules still apply.
#include "kill-guard/kill_guard.hpp"

#include "common/output.hpp"
#include "common/payload.hpp"

#include <array>
#include <boost/json/object.hpp>
#include <cctype>

namespace viber::kill_guard {

namespace {

enum class When {
    always,                // the command stops by name whatever its arguments
    image_name_argument,   // taskkill with /IM (any case, one or two slashes)
    run_by_xargs,          // kill fed by xargs: the PIDs come from some search
    substitution_argument, // kill $(pgrep x), kill `pidof x`: the PIDs come from a search
};

struct Rule {
    std::string_view command; // lower case, without `.exe`
    When when;
    std::string_view why;
};

constexpr std::array rules{
    Rule{"killall", When::always, "killall stops every process with that name"},
    Rule{"pkill", When::always, "pkill stops every process whose name or command line matches"},
    Rule{"taskkill", When::image_name_argument,
         "taskkill /IM stops every process with that image name"},
    Rule{"kill", When::run_by_xargs,
         "xargs kill stops PIDs read from a search, not PIDs you started"},
    Rule{"kill", When::substitution_argument,
         "kill with a command substitution stops PIDs found by a search, not PIDs you started"},
};

// "TaskKill.EXE" -> "taskkill": Windows and macOS find commands case-insensitively.
std::string rule_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    constexpr std::string_view exe = ".exe";
    if (lower.size() > exe.size() && lower.compare(lower.size() - exe.size(), exe.size(), exe) == 0)
        lower.resize(lower.size() - exe.size());
    return lower;
}

// `/IM`, `//IM` (Git Bash turns `/IM` into a path unless doubled), any case.
bool is_image_name_option(std::string_view arg) {
    std::size_t slashes = 0;
    while (slashes < arg.size() && slashes < 2 && arg[slashes] == '/') ++slashes;
    if (slashes == 0) return false;
    arg.remove_prefix(slashes);
    return arg.size() == 2 && (arg[0] == 'i' || arg[0] == 'I') && (arg[1] == 'm' || arg[1] == 'M');
}

bool holds(const Rule& rule, const shell::Invocation& invocation) {
    switch (rule.when) {
    case When::always:
        return true;
    case When::image_name_argument:
        for (const shell::Word& arg : invocation.args)
            if (is_image_name_option(arg.text)) return true;
        return false;
    case When::run_by_xargs:
        return invocation.via_xargs;
    case When::substitution_argument:
        for (const shell::Word& arg : invocation.args)
            if (arg.has_substitution) return true;
        return false;
    }
    return false;
}

constexpr std::string_view correction =
    "Stop only the PIDs you started yourself, one at a time, with `kill <PID>`, and confirm each "
    "is gone "
    "with `kill -0 <PID>` (it fails once the process has exited).";

} // namespace

std::optional<StopByName> find_stop_by_name(const shell::Analysis& analysis) {
    if (!analysis.complete) return std::nullopt;
    for (const shell::Invocation& invocation : analysis.invocations) {
        if (invocation.is_wrapper) continue;
        const std::string name = rule_name(invocation.name);
        for (const Rule& rule : rules)
            if (rule.command == name && holds(rule, invocation))
                return StopByName{invocation.name, rule.why};
    }
    return std::nullopt;
}

std::optional<std::string> refusal_reason(std::string_view command) {
    const std::optional<StopByName> found = find_stop_by_name(shell::analyze(command));
    if (!found) return std::nullopt;
    std::string reason = "viber guard: this command stops processes by name (`";
    reason += found->command;
    reason += "`): ";
    reason += found->why;
    reason += ", which can stop processes this session did not start. ";
    reason += correction;
    return reason;
}

Decision decide(const HookInput& in, Trace&) {
    if (in.payload == nullptr) return Decision::nothing();
    const std::optional<std::string_view> agent = string_field(*in.payload, "agent_type");
    if (!agent || agent->substr(0, 6) != "viber:") return Decision::nothing();
    const std::optional<std::string_view> command = bash_command(*in.payload);
    if (!command) return Decision::nothing();
    std::optional<std::string> reason = refusal_reason(*command);
    if (!reason) return Decision::nothing();
    return Decision::deny(std::move(*reason));
}

} // namespace viber::kill_guard
