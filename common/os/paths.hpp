// paths.hpp: path spellings as the hooks compare them: both separators, the last segment, the
// Git Bash spelling of a Windows path, the lexical normal form, the `.temp` scratch segment, and
// the slack on file times.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// `path` as Git Bash spells it: every backslash read as `/`, and a drive `C:` that stands alone or
// before a separator as `/c` (the letter lowercased, nothing else), so `C:\r\x`, `C:/r/x`, `c:/r/x`
// and `/c/r/x` are one spelling. A drive-relative `C:x` keeps its colon: it names no absolute path.
// The file limit (docs/plan-gate.md, step 3) and shell-guard's R4 place paths in this spelling.
std::string git_bash_spelling(std::string_view path);

// The segments of `path` split at `/`, lexically resolved (no file is looked at): empty and `.`
// segments dropped, each `..` removing the segment before it. `path` is read from a root, opening
// `/` or not: a `..` with nothing left to remove is dropped (`..` above `/` is `/`). The views
// point into `path`. Backslashes are not separators here: git_bash_spelling folds them.
std::vector<std::string_view> rooted_segments(std::string_view path);

// `path` resolved as rooted_segments does and joined: `/` and the segments for an absolute path
// (`/` itself when none); for a relative one the segments alone (`.` when none), a `..` with
// nothing left to remove kept (`../x` stays `../x`). Runs of `/` folded, no trailing `/`.
std::string lexically_normal(std::string_view path);

// True when some segment of `path` (split at either separator) is exactly `.temp`: the scratch
// area no plan counts and no reviewer sees.
bool has_temp_segment(std::string_view path) noexcept;

} // namespace viber::paths
