// paths.hpp: path spellings as the hooks compare them: both separators, the last segment, the
// lexical normal form, the `.temp` scratch segment, and the slack on file times.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace viber::paths {

// A plan's mtime later than a verdict's timestamp by more than this many whole seconds voids the
// verdict (docs/plan-gate.md, step 4): file systems and clocks round differently.
inline constexpr std::int64_t mtime_slack_seconds = 2;

// `/`, and `\` as Windows and Git Bash spell paths.
constexpr bool is_separator(char c) noexcept {
    return c == '/' || c == '\\';
}

// The part after the last separator (the whole path when there is none).
std::string_view last_segment(std::string_view path) noexcept;

// `path` with `.` and `..` resolved and runs of `/` folded, lexically (no file is looked at),
// through boost::filesystem::path::lexically_normal; no trailing `/` (but `/` itself); `..` above
// the root stays at the root. Backslashes are not separators here: callers fold them first.
std::string lexically_normal(std::string_view path);

// True when some segment of `path` (split at either separator) is exactly `.temp`: the scratch
// area no plan counts and no reviewer sees.
bool has_temp_segment(std::string_view path) noexcept;

} // namespace viber::paths
