// decide.cpp: shell-guard's decision on one call (a payload, or an agent type and a command),
// with what --explain shows: the rules binding the caller, each broken rule where it was found,
// and why each other rule was not judged or not broken.
#include "common/io/payload.hpp"
#include "common/os/paths.hpp"
#include "common/shell/shell_lexer.hpp"
#include "shell-guard/shell_guard.hpp"

#include <cstdlib>

namespace viber::shell_guard {

Decision decide(std::string_view agent_type, std::string_view command, Place place, Trace* trace) {
    const RuleSet binding = rules_binding(agent_type);
    if (binding.empty()) return Decision::nothing();
    const bool cwd_given = place.cwd.has_value();
    const Judgement judgement = judge(command, binding, std::move(place));
    if (trace != nullptr && trace->on()) {
        trace->step("rules binding " + std::string(agent_type) + ": " + binding.to_string());
        for (const Finding& f : judgement.findings) {
            std::string line = "R" + std::to_string(static_cast<unsigned>(f.rule)) + " broken";
            if (f.command.empty() && f.words.empty())
                line +=
                    f.rule == Rule::chain ? " by a chain operator (; && ||)" : " by a redirection";
            else
                line += " by `" + f.command + "`: " + f.words;
            if (!f.path.empty()) line += "  (through " + f.path + ")";
            trace->step(std::move(line));
        }
        RuleSet unbound, kept;
        for (unsigned r = 1; r <= 5; ++r) {
            const Rule rule = static_cast<Rule>(r);
            if (!binding.has(rule))
                unbound.add(rule);
            else if (!judgement.broken.has(rule))
                kept.add(rule);
        }
        if (!unbound.empty())
            trace->step(unbound.to_string(", ") +
                        " not judged: " + (unbound.has(Rule::chain) ? "they bind" : "it binds") +
                        " viber:task-coder only");
        if (!kept.empty()) {
            std::string line = kept.to_string(", ") + " judged, not broken";
            if (kept.has(Rule::file_write))
                line += cwd_given ? " (R4: no write target inside the work tree outside .temp/)"
                                  : " (R4 without an absolute cwd: only a relative target "
                                    "outside .temp/ counts as a write)";
            trace->step(std::move(line));
        }
    }
    if (!judgement.broken.empty()) return Decision::deny(refusal_reason(judgement.broken));
    // Padding must not hide a command: past the command model's cap nothing is judged, so a
    // command that broke no rule before it is refused (docs/shell-guard.md, "Caps").
    if (judgement.unread) {
        if (trace != nullptr && trace->on())
            trace->step("the command runs more than 10,000 commands: the rest was not judged");
        return Decision::deny(std::string(command_cap_reason));
    }
    return Decision::nothing();
}

Decision decide(const HookInput& in, Trace& trace) {
    if (in.payload == nullptr) return Decision::nothing();
    const std::optional<std::string_view> agent_type = string_field(*in.payload, "agent_type");
    if (trace.on()) trace.read("agent_type: " + std::string(agent_type.value_or("(none)")));
    if (!agent_type || rules_binding(*agent_type).empty()) {
        if (trace.on())
            trace.step("no rule binds " +
                       std::string(agent_type.value_or("a call without agent_type")) +
                       ": R1-R5 bind viber:task-coder, R2 also viber:task-reviewer and "
                       "viber:final-reviewer; nothing judged");
        return Decision::nothing();
    }
    const std::optional<std::string_view> command = bash_command(*in.payload);
    if (!command) {
        if (trace.on()) trace.step("no tool_input.command string: nothing to judge");
        return Decision::nothing();
    }
    Place place;
    std::optional<std::string_view> cwd = string_field(*in.payload, "cwd");
    // A cwd that is not an absolute path (Claude Code always sends one) places nothing: it is
    // read as no cwd, the seed's rule, rather than against the hook's own working directory.
    const bool absolute = cwd && !cwd->empty() && paths::git_bash_spelling(*cwd).starts_with('/');
    if (absolute) place.cwd = std::string(*cwd);
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
        place.home = std::string(home);
    if (trace.on()) {
        if (absolute)
            trace.read("cwd: " + *place.cwd);
        else if (cwd && !cwd->empty())
            trace.read("cwd: " + std::string(*cwd) +
                       " (not an absolute path: R4 reads it as no cwd, so a relative target "
                       "outside .temp/ is a write and an absolute one is not)");
        else
            trace.read("cwd: (none: relative targets outside .temp/ are writes)");
        trace.read("tool_input.command: " + std::to_string(command->size()) + " bytes");
        (void)shell::explain_commands(*command, trace);
    }
    return decide(*agent_type, *command, std::move(place), &trace);
}

} // namespace viber::shell_guard
