// git.cpp: the git top level of a directory, found without starting a process.
#include "common/git.hpp"

#include "common/os.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/filesystem/path.hpp>

namespace viber {

namespace fs = boost::filesystem;

std::optional<std::string> git_top_level(const std::string& dir) {
    if (dir.empty()) return std::nullopt;
    // `/repo/` and `/repo` are one directory: without this, normalizing `/repo/` leaves `/repo/.`
    // and the top level would be spelled with that dot.
    std::string trimmed = dir;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    boost::system::error_code ec;
    fs::path at = fs::absolute(fs::path(trimmed), ec);
    if (ec) return std::nullopt;
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
