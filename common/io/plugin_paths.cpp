// plugin_paths.cpp: the one rule every binary uses to find a file of the plugin tree
// (docs/contract.md).
#include "common/io/plugin_paths.hpp"

#include "common/io/files.hpp"
#include "common/os/os.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/filesystem/path.hpp>
#include <cstdlib>

namespace viber {

namespace fs = boost::filesystem;

namespace {
// argv[0] of this process, recorded by hook_main; the fallback when /proc/self/exe fails.
const char* g_argv0 = nullptr;
} // namespace

void set_argv0(const char* argv0) {
    g_argv0 = argv0;
}

std::string executable_dir() {
    const std::string exe = os::executable_path(g_argv0);
    if (exe.empty()) return ".";
    return fs::path(exe).parent_path().generic_string(); // forward slashes on Windows too
}

std::string plugin_file(std::string_view rel, const char* plugin_root_env,
                        const std::string& exe_dir) {
    if (plugin_root_env != nullptr && *plugin_root_env != '\0') {
        std::string candidate = std::string(plugin_root_env) + "/" + std::string(rel);
        if (is_regular_file(candidate)) return candidate;
    }
    return exe_dir + "/../../" + std::string(rel);
}

std::string plugin_root() {
    const char* env = std::getenv("CLAUDE_PLUGIN_ROOT");
    if (env != nullptr && *env != '\0') {
        std::string root = env;
        while (root.size() > 1 && root.back() == '/') root.pop_back();
        return root;
    }
    return (fs::path(executable_dir()) / ".." / "..").lexically_normal().generic_string();
}

std::string plugin_file(std::string_view rel) {
    return plugin_file(rel, std::getenv("CLAUDE_PLUGIN_ROOT"), executable_dir());
}

} // namespace viber
