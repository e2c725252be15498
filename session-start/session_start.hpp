// session_start.hpp: the SessionStart decision (docs/session-start.md): the manifest as model
// context, and the user-facing banner with the version, the schema note and the context-cap note.
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"

#include <boost/json/value.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace viber::session_start_hook {

// What the hook read: everything the decision depends on, so the decision is a pure function.
struct Inputs {
    // Bytes of manifest.md; nullopt when missing or unreadable.
    std::optional<std::string> manifest;
    // The plugin directory as every file lookup finds it (common/plugin_paths.hpp):
    // CLAUDE_PLUGIN_ROOT when set and non-empty, else <exe dir>/../..; nullopt when neither
    // gives one.
    std::optional<std::string> plugin_root;
    // Bytes of the project's .claude/viber.yml; nullopt when there is none to read.
    std::optional<std::string> project_yml;
    // Bytes of the setup template viber.yml; nullopt when there is none to read.
    std::optional<std::string> template_yml;
};

// A schema number as its decimal digits, without leading zeros ("0" for zero). Kept as digits
// so any length compares exactly: a 40-digit schema cannot overflow into a wrong note.
struct Schema {
    std::string digits = "0";
};

// The manifest as injected: trailing LF and CRLF newlines cut; nullopt when what is left is
// empty or whitespace only.
std::optional<std::string_view> manifest_context(std::string_view manifest);

// `<version>` of the banner: the last segment of CLAUDE_PLUGIN_ROOT (backslashes read as slashes,
// trailing slashes ignored); `dev` when unset, empty, or all separators.
std::string plugin_version(std::optional<std::string_view> plugin_root);

// The schema of a readable viber.yml: its first line starting `schema:` at column 0, CRs removed,
// `schema:` cut, everything from `#` on cut, all whitespace removed; all digits -> that number,
// anything else (empty included) -> 0; no such line -> 0.
Schema schema_of(std::string_view yml);

// -1, 0, 1 as a is numerically lower, equal, higher than b.
int compare(const Schema& a, const Schema& b);

// The schema note (with its leading " - "), or empty when there is none to give.
std::string schema_note(const std::optional<std::string>& project_yml,
                        const std::optional<std::string>& template_yml);

// The banner: `viber loaded <version>`, then any schema note, then the cap note.
std::string banner(const Inputs& inputs);

// The whole answer.
boost::json::value decide(const Inputs& inputs);

// The project file for `cwd`: `<top>/.claude/viber.yml` when cwd has a git top level and that
// file exists, else `<cwd>/.claude/viber.yml`.
std::string project_config_path(const std::string& cwd);

// Reads every input from disk and the environment, for the payload's `cwd` (nullopt: none).
// Each file is recorded in `trace` with its size.
Inputs gather(const std::optional<std::string>& cwd, Trace& trace);

// hook_main's entry: the answer for the payload's `cwd` (none when there is no payload). Always
// an answer: the banner always goes out.
Decision decide(const HookInput& in, Trace& trace);

// After an exception in `decide`: `decide` once more without a payload (banner and manifest); if
// that throws too, the banner alone, which reads no file.
Decision fail_open();

} // namespace viber::session_start_hook
