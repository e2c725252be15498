// session_start.cpp: the SessionStart decision (docs/session-start.md).
#include "session-start/session_start.hpp"

#include "common/io/files.hpp"
#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/io/plugin_paths.hpp"
#include "common/os/git.hpp"
#include "common/os/os.hpp"
#include "common/os/paths.hpp"
#include "common/text/ascii.hpp"
#include "common/text/lines.hpp"
#include "common/text/utf8.hpp"

#include <algorithm>
#include <cstdlib>

namespace viber::session_start_hook {

namespace {

// The answer as a decision: its kind is context, and the banner is the text the log keeps.
Decision as_decision(boost::json::value answer) {
    Decision decision;
    decision.kind = DecisionKind::context;
    decision.reason = string_field(answer.as_object(), "systemMessage").value_or("");
    decision.answer = std::move(answer);
    return decision;
}

} // namespace

std::optional<std::string_view> manifest_context(std::string_view manifest) {
    // `$(cat)` in the original cut trailing LFs; a manifest saved with CRLF loses its CRLFs too.
    manifest = cut_trailing_newlines(manifest);
    if (std::ranges::all_of(manifest, ascii::is_space)) return std::nullopt;
    return manifest;
}

std::string plugin_version(std::optional<std::string_view> plugin_root) {
    if (!plugin_root) return "dev";
    std::string_view root = *plugin_root;
    // A Windows-style root (C:\plugins\viber\1.2.0\) names its version the same way.
    while (!root.empty() && paths::is_separator(root.back())) root.remove_suffix(1);
    const std::string_view last = paths::last_segment(root);
    return last.empty() || last == "." || last == ".." ? "dev" : std::string(last);
}

Schema schema_of(std::string_view yml) {
    constexpr std::string_view key = "schema:";
    Schema schema;
    text::for_each_line(yml, [&](std::string_view line) {
        if (!line.starts_with(key)) return true;
        std::string value;
        for (const char c : line.substr(key.size())) {
            if (c == '#') break;
            if (!ascii::is_space(c)) value.push_back(c); // CRs included: they are whitespace here
        }
        const std::size_t first = value.find_first_not_of('0');
        if (!value.empty() && std::ranges::all_of(value, ascii::is_digit) &&
            first != std::string::npos)
            schema.digits = value.substr(first);
        return false;
    });
    return schema;
}

int compare(const Schema& a, const Schema& b) {
    // Both are digit strings without leading zeros: the longer is larger, equal lengths compare
    // as text.
    if (a.digits.size() != b.digits.size()) return a.digits.size() < b.digits.size() ? -1 : 1;
    const int order = a.digits.compare(b.digits);
    return order < 0 ? -1 : (order > 0 ? 1 : 0);
}

std::string schema_note(const std::optional<std::string>& project_yml,
                        const std::optional<std::string>& template_yml) {
    if (!project_yml || !template_yml) return {};
    const Schema project = schema_of(*project_yml);
    const Schema expected = schema_of(*template_yml);
    // Other tools match these two sentences: keep them exactly.
    switch (compare(project, expected)) {
    case -1:
        return " - .claude/viber.yml is at schema " + project.digits + ", this version expects " +
               expected.digits + ": run /viber:setup";
    case 1:
        return " - .claude/viber.yml is at schema " + project.digits +
               ", newer than this version's " + expected.digits + ": update the viber plugin";
    default:
        return {};
    }
}

std::string banner(const Inputs& inputs) {
    std::string text = "viber loaded " + plugin_version(inputs.plugin_root);
    text += schema_note(inputs.project_yml, inputs.template_yml);
    if (inputs.manifest) {
        // Counted on what is injected, so the number matches what Claude Code truncates.
        if (const auto context = manifest_context(*inputs.manifest)) {
            const std::size_t characters = utf8::code_points(*context);
            if (characters > text_cap)
                text += " - manifest.md has " + std::to_string(characters) +
                        " characters, over the " + std::to_string(text_cap) + " Claude Code keeps";
        }
    }
    return text;
}

boost::json::value decide(const Inputs& inputs) {
    std::optional<std::string_view> context;
    if (inputs.manifest) context = manifest_context(*inputs.manifest);
    return viber::session_start(context, banner(inputs));
}

std::string project_config_path(const std::string& cwd) {
    constexpr std::string_view rel = "/.claude/viber.yml";
    if (const auto top = git_top_level(cwd)) {
        const std::string at_top = *top + std::string(rel);
        if (os::file_kind(at_top) != os::FileKind::missing) return at_top;
    }
    return cwd + std::string(rel);
}

namespace {

// The plugin directory the banner names, found as every plugin file is (SPEC §1, "Finding
// files"): run by hand from an install, the banner names that install, not `dev`.
std::optional<std::string> plugin_directory() {
    try {
        std::string root = plugin_root();
        if (!root.empty()) return root;
    } catch (...) {
    }
    return std::nullopt;
}

} // namespace

Inputs gather(const std::optional<std::string>& cwd, Trace& trace) {
    Inputs inputs;
    const std::string manifest_path = plugin_file(manifest_file);
    inputs.manifest = read_regular_file(manifest_path);
    trace.read_file("manifest", manifest_path, inputs.manifest);
    inputs.plugin_root = plugin_directory();
    if (trace.on()) {
        const char* env = std::getenv("CLAUDE_PLUGIN_ROOT");
        const bool from_env = env != nullptr && *env != '\0';
        trace.read("plugin directory: " + inputs.plugin_root.value_or("(none)") +
                   (from_env ? " (CLAUDE_PLUGIN_ROOT)"
                             : " (CLAUDE_PLUGIN_ROOT unset or empty: the executable's ../..)"));
    }
    // Without a project file there is no note, so the template is read only when it matters.
    if (cwd) {
        const std::string project_path = project_config_path(*cwd);
        inputs.project_yml = read_regular_file(project_path);
        trace.read_file("project config", project_path, inputs.project_yml);
        if (inputs.project_yml) {
            const std::string template_path = plugin_file(viber_yml_template);
            inputs.template_yml = read_regular_file(template_path);
            trace.read_file("setup template", template_path, inputs.template_yml);
        }
    }
    return inputs;
}

namespace {

// The steps behind the answer, for --explain.
void explain_steps(const Inputs& inputs, const std::optional<std::string>& cwd, Trace& trace) {
    trace.step("version " + plugin_version(inputs.plugin_root) +
               " (the last segment of the plugin directory; dev when there is none)");
    if (!cwd)
        trace.step("no cwd in the payload: no project config, so no schema note");
    else if (!inputs.project_yml)
        trace.step("no readable project config: no schema note");
    else if (!inputs.template_yml)
        trace.step("no readable setup template: no schema note");
    else
        trace.step("schema: the project's " + schema_of(*inputs.project_yml).digits +
                   ", the template's " + schema_of(*inputs.template_yml).digits +
                   (schema_note(inputs.project_yml, inputs.template_yml).empty()
                        ? std::string(": equal, no note")
                        : std::string(": they differ, the banner says so")));
    const std::optional<std::string_view> context =
        inputs.manifest ? manifest_context(*inputs.manifest) : std::nullopt;
    if (!context) {
        trace.step("no manifest text (missing, unreadable, empty or whitespace only): no "
                   "additionalContext key");
        return;
    }
    const std::size_t characters = utf8::code_points(*context);
    trace.step("manifest: " + std::to_string(characters) +
               " characters after its trailing newlines are cut, injected as additionalContext");
    if (characters > text_cap)
        trace.step("over the " + std::to_string(text_cap) +
                   " characters Claude Code keeps: the banner says so and the context is cut at "
                   "a line end");
}

} // namespace

Decision decide(const HookInput& in, Trace& trace) {
    // Only `cwd` is used; a bad payload means no cwd, and the banner and manifest still go out.
    std::optional<std::string> cwd;
    if (in.payload != nullptr) {
        if (const auto field = string_field(*in.payload, "cwd"); field && !field->empty())
            cwd = std::string(*field);
    }
    const Inputs inputs = gather(cwd, trace);
    if (trace.on()) explain_steps(inputs, cwd, trace);
    return as_decision(decide(inputs));
}

Decision fail_open() {
    try {
        Trace off;
        return decide(HookInput{}, off);
    } catch (...) {
    }
    return as_decision(
        session_start(std::nullopt, "viber loaded " + plugin_version(plugin_directory())));
}

} // namespace viber::session_start_hook
