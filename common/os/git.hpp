// git.hpp: the git top level of a directory, found without starting a process.
#pragma once

#include <optional>
#include <string>

namespace viber {

// Walks up from `dir` to the first directory holding a `.git` entry (a directory, or a file as
// in worktrees and submodules). `dir` is made absolute first; GIT_DIR and friends are ignored.
std::optional<std::string> git_top_level(const std::string& dir);

} // namespace viber
