// session_start.cpp: the SessionStart decision (SPEC §6).
#include "session-start/session_start.hpp"

#include "common/files.hpp"
#include "common/git.hpp"
#include "common/output.hpp"
#include "common/payload.hpp"
#include "common/plugin_paths.hpp"

#include <algorithm>
#include <boost/filesystem/operations.hpp>
#include <cstdlib>

namespace viber::session_start_hook {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Length of the valid UTF-8 sequence starting at `at`, or 0 when the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF are invalid, as in Unicode Table 3-7).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (text.size() - at < length) return 0;
    if (byte(at + 1) < low || byte(at + 1) > high) return 0;
    for (std::size_t i = 2; i < length; ++i)
        if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
    return length;
}

// The answer as a decision: its kind is context, and the banner is the text the log keeps.
Decision as_decision(boost::json::value answer) {
    Decision decision;
    decision.kind = DecisionKind::context;
    if (const auto* message = answer.as_object().if_contains("systemMessage");
        message != nullptr && message->is_string())
        decision.reason = std::string(message->get_string());
    decision.answer = std::move(answer);
    return decision;
}

} // namespace

std::optional<std::string_view> manifest_context(std::string_view manifest) {
    // `$(cat)` in the original cut trailing LFs; a manifest saved with CRLF loses its CRLFs too.
    manifest = cut_trailing_newlines(manifest);
    for (const char c : manifest)
        if (!is_space(c)) return manifest;
    return std::nullopt;
}

std::string plugin_version(std::optional<std::string_view> plugin_root) {
    if (!plugin_root) return "dev";
    std::string_view root = *plugin_root;
    // A Windows-style root (C:\plugins\viber\1.2.0\) names its version the same way.
    while (!root.empty() && (root.back() == '/' || root.back() == '\\')) root.remove_suffix(1);
    const std::size_t cut = root.find_last_of("/\\");
    const std::string_view last = cut == std::string_view::npos ? root : root.substr(cut + 1);
    return last.empty() ? "dev" : std::string(last);
}

Schema schema_of(std::string_view yml) {
    constexpr std::string_view key = "schema:";
    std::size_t at = 0;
    while (at <= yml.size()) {
        const std::size_t end = std::min(yml.find('\n', at), yml.size());
        const std::string_view line = yml.substr(at, end - at);
        if (line.starts_with(key)) {
            std::string value;
            for (const char c : line.substr(key.size())) {
                if (c == '#') break;
                if (!is_space(c)) value.push_back(c); // CRs included: they are whitespace here
            }
            Schema schema;
            if (value.empty()) return schema;
            for (const char c : value)
                if (!is_digit(c)) return schema;
            const std::size_t first = value.find_first_not_of('0');
            if (first != std::string::npos) schema.digits = value.substr(first);
            return schema;
        }
        if (end == yml.size()) break;
        at = end + 1;
    }
    return Schema{};
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

std::size_t code_points(std::string_view text) {
    std::size_t count = 0;
    for (std::size_t at = 0; at < text.size(); ++count) {
        const std::size_t length = utf8_sequence_length(text, at);
        at += length == 0 ? 1 : length;
    }
    return count;
}

std::string banner(const Inputs& inputs) {
    std::string text =
        "viber loaded " + plugin_version(inputs.plugin_root
                                             ? std::optional<std::string_view>(*inputs.plugin_root)
                                             : std::nullopt);
    text += schema_note(inputs.project_yml, inputs.template_yml);
    if (inputs.manifest) {
        // Counted on what is injected, so the number matches what Claude Code truncates.
        if (const auto context = manifest_context(*inputs.manifest)) {
            const std::size_t characters = code_points(*context);
            if (characters > context_cap)
                text += " - manifest.md has " + std::to_string(characters) +
                        " characters, over the " + std::to_string(context_cap) +
                        " Claude Code keeps";
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
        boost::system::error_code ec;
        if (boost::filesystem::exists(at_top, ec)) return at_top;
    }
    return cwd + std::string(rel);
}

Inputs gather(const std::optional<std::string>& cwd) {
    Inputs inputs;
    inputs.manifest = read_regular_file(plugin_file(manifest_file));
    if (const char* root = std::getenv("CLAUDE_PLUGIN_ROOT"); root != nullptr && *root != '\0')
        inputs.plugin_root = root;
    // Without a project file there is no note, so the template is read only when it matters.
    if (cwd) {
        inputs.project_yml = read_regular_file(project_config_path(*cwd));
        if (inputs.project_yml)
            inputs.template_yml = read_regular_file(plugin_file(viber_yml_template));
    }
    return inputs;
}

Decision decide(const HookInput& in, Trace&) {
    // Only `cwd` is used; a bad payload means no cwd, and the banner and manifest still go out.
    std::optional<std::string> cwd;
    if (in.payload != nullptr) {
        if (const auto field = string_field(*in.payload, "cwd"); field && !field->empty())
            cwd = std::string(*field);
    }
    return as_decision(decide(gather(cwd)));
}

Decision fail_open() {
    try {
        Trace off;
        return decide(HookInput{}, off);
    } catch (...) {
    }
    const char* root = std::getenv("CLAUDE_PLUGIN_ROOT");
    std::optional<std::string_view> plugin_root;
    if (root != nullptr && *root != '\0') plugin_root = root;
    return as_decision(session_start(std::nullopt, "viber loaded " + plugin_version(plugin_root)));
}

} // namespace viber::session_start_hook
