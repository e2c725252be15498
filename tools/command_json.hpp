// command_json.hpp: `--commands-json`, the command model's findings as JSON (kill-guard and
// shell-guard tool mode; docs/command-model.md, "What the model found, as JSON").
//
// One object on one line:
//   {"commands":[{"name":"pkill","words":[{"text":"pkill","literal":true},…],
//                 "path":[{"name":"sudo","how":""},…],"depth":0,"wrapper":false,"query":false,
//                 "fed_by_input":false,"via_find":false,"first":true,"simple_words":[…]},…],
//    "chain_operators":0,"depth_cap_reached":false,"expansion_cap_reached":false,
//    "count_cap_reached":false}
// Each simple command the command model hands the guards, in the order found, with a command word
// (redirections alone are left out): `name` is the normalised name the rules compare, `words` the
// command word and its arguments after quote removal (`literal`: the word holds no expansion bash
// replaces and no unquoted glob or brace, so its text is what the command receives), `path` the
// wrapper path outermost first. `first` marks the outermost command of its simple command, which
// alone carries `simple_words`: every word of the simple command as written (`sudo -u x pkill y`
// for the `sudo` that opens it; `pkill y` is the next, not first, command). The model reads at most
// `max_commands` commands (Options::max_commands; redirections alone count too) and
// `count_cap_reached` says it stopped there (Summary::reached_command_cap); `depth_cap_reached` is
// the model's nesting cap (SPEC §7.1), `expansion_cap_reached` its expansion budget (a value the
// command gives a variable or alias was not read: Summary::reached_expansion_cap).
#pragma once

#include "common/hook/hook_main.hpp"
#include "common/shell/shell_lexer.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace viber::shell {

// The JSON text (one line, ending in a newline) of what the model finds in `command`.
std::string commands_json(std::string_view command,
                          std::size_t max_commands = Options{}.max_commands);

// The tool-mode entry: MODE "" reads one PreToolUse payload on stdin (its tool_input.command;
// without one, `"commands":[]` and `"command_found":false`), MODE "text" reads the bare command
// text on stdin, MODE "text0" reads commands separated by NUL bytes and prints one line for each.
// Prints the JSON and returns 0; 1 (usage on stderr) for another MODE or an unread stdin.
int commands_json_tool(std::string_view mode);

// --commands-json as the guards offer it (HookInfo::extra).
inline constexpr ExtraToolOption commands_json_option{
    .name = "commands-json",
    .help = "print the simple commands the command model finds as JSON; "
            "reads a payload on stdin, or the bare command with =text",
    .run = commands_json_tool};

} // namespace viber::shell
