// git.cpp: the git top level of a directory, found without starting a process.
#include "common/os/git.hpp"

#include "common/os/os.hpp"

#include <boost/filesystem/path.hpp>

namespace viber {

namespace fs = boost::filesystem;

std::optional<std::string> git_top_level(const std::string& dir) {
    if (dir.empty()) return std::nullopt;
    // `/repo/` and `/repo` are one directory: without this, normalizing `/repo/` leaves `/repo/.`
    // and the top level would be spelled with that dot.
    std::string trimmed = dir;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    fs::path at(trimmed);
    if (!at.is_absolute()) {
        // Claude Code sends an absolute cwd; a relative one is taken against the process's.
        const std::optional<std::string> here = os::current_directory();
        if (!here) return std::nullopt;
        const fs::path base(*here);
        if (at.has_root_name()) return std::nullopt; // `C:src`: that drive's own current directory
        at = at.has_root_directory() ? base.root_name() / at : base / at; // `\src`: this drive's
    }
    at = at.lexically_normal();
    while (at.filename() == "." && at.has_parent_path()) at = at.parent_path();
    for (;;) {
        if (os::is_directory_or_file_entry((at / ".git").string())) {
            std::string top = at.generic_string(); // forward slashes on Windows too
            while (top.size() > 1 && top.back() == '/') top.pop_back();
            return top;
        }
        if (!at.has_parent_path() || at.parent_path() == at) return std::nullopt;
        at = at.parent_path();
    }
}

} // namespace viber
