// plugin_paths.hpp: the one rule every binary uses to find a file of the plugin tree
// (docs/contract.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace viber {

// Plugin-relative names the suite reads.
inline constexpr std::string_view manifest_file = "hooks/content/manifest.md";
inline constexpr std::string_view plan_hints_file = "hooks/content/plan-hints.md";
inline constexpr std::string_view config_script = "scripts/config.sh";
inline constexpr std::string_view viber_yml_template = "skills/setup/templates/viber.yml";

// `$CLAUDE_PLUGIN_ROOT/rel` when that variable is set, non-empty and the path is a regular
// file; else `<dir>/../../rel`, `<dir>` being the directory of the running executable's real
// path (/proc/self/exe, else argv[0]). The result is a path to try; it may not exist.
std::string plugin_file(std::string_view rel);

// The same rule with the inputs given, for tests.
std::string plugin_file(std::string_view rel, const char* plugin_root_env,
                        const std::string& exe_dir);

// The plugin root: CLAUDE_PLUGIN_ROOT when set and non-empty (trailing slashes dropped), else
// <dir>/../.. of the running executable, normalized. For naming plugin directories such as
// `references/` in messages.
std::string plugin_root();

// Directory of the running executable (set once by hook_main from argv[0] as the fallback).
std::string executable_dir();
void set_argv0(const char* argv0);

} // namespace viber
