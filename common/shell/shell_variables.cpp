// shell_variables.cpp: which variables a command fills from a command's output
// (shell_variables.hpp).
#include "common/shell/shell_variables.hpp"

#include <algorithm>
#include <span>

namespace viber::shell {

namespace {

std::string_view assigned_name(std::string_view assignment) {
    std::size_t end = 0;
    while (end < assignment.size() && assignment[end] != '=' && assignment[end] != '[' &&
           assignment[end] != '+')
        ++end;
    return assignment.substr(0, end);
}

} // namespace

void OutputVariables::command(const Command& c) {
    for (const Word& a : c.assignments)
        if (a.has_substitution) filled_.insert(std::string(assigned_name(a.text)));
    for (const Redirect& r : c.redirects)
        if (r.kind == RedirectKind::input && r.target_is_process_substitution)
            fed_reads_all_ = true;
    if (c.words.empty() || c.query) return;
    if (c.is_wrapper && !c.is("powershell") && !c.is("pwsh")) return;
    if (c.name == "local" || c.name == "declare" || c.name == "typeset" || c.name == "export" ||
        c.name == "readonly") {
        for (const Word& a : c.args())
            if (a.has_substitution) filled_.insert(std::string(assigned_name(a.text)));
        return;
    }
    if (c.name == "read" || c.name == "mapfile" || c.name == "readarray") {
        note_read(c);
        return;
    }
    const std::span<const Word> args = c.args();
    const bool substituted =
        std::any_of(args.begin(), args.end(), [](const Word& w) { return w.has_substitution; });
    if (c.name == "printf" && substituted) { // printf -v p … "$(…)"
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i].text == "-v" && i + 1 < args.size())
                filled_.insert(std::string(args[i + 1].text));
            else if (args[i].text.starts_with("-v") && args[i].text.size() > 2)
                filled_.insert(std::string(args[i].text.substr(2)));
        }
    }
    if ((c.name == "set" && substituted) ||
        (substituted && functions_.count(std::string(c.name)) != 0))
        for (const char* positional : {"@", "*", "1", "2", "3", "4", "5", "6", "7", "8", "9"})
            filled_.insert(positional);
}

void OutputVariables::loop_variable(std::string_view name, bool from_substitution) {
    if (from_substitution) filled_.insert(std::string(name));
}

void OutputVariables::function_defined(std::string_view name) {
    if (functions_.size() < 4096) functions_.insert(std::string(name));
}

void OutputVariables::finish() {
    for (const std::string& name : read_names_fed_) filled_.insert(name);
    if (fed_reads_all_)
        for (const std::string& name : read_names_) filled_.insert(name);
}

bool OutputVariables::filled(std::string_view name) const {
    return filled_.count(std::string(name)) != 0;
}

void OutputVariables::note_read(const Command& c) {
    bool fed = c.stdin_from_pipe || c.stdin_from_process_substitution;
    for (const Redirect& r : c.redirects) // read p <<< "$(pgrep x)"
        if (r.kind == RedirectKind::herestring && r.target.has_substitution) fed = true;
    const std::string_view with_value = c.name == "read" ? "dnNptui" : "dnOsuCc";
    std::vector<std::string>& into = fed ? read_names_fed_ : read_names_;
    const std::span<const Word> args = c.args();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w.size() > 1 && w[0] == '-') {
            const char letter = w.back();
            if (c.name == "read" && letter == 'a' && i + 1 < args.size()) {
                into.emplace_back(args[++i].text);
                continue;
            }
            if (with_value.find(letter) != std::string_view::npos && w.size() == 2) ++i;
            continue;
        }
        into.emplace_back(w);
    }
    if (c.name != "read" && (args.empty() || args.back().text.starts_with("-")))
        into.emplace_back("MAPFILE");
    if (c.name == "read" && args.empty()) into.emplace_back("REPLY");
}

} // namespace viber::shell
