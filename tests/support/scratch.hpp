// scratch.hpp: temporary directories and plugin trees that a test controls entirely.
#pragma once

#include <string>
#include <string_view>

namespace viber::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class ScratchDir {
public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::string& path() const { return path_; }
    // Writes `contents` to path()/rel, creating parent directories; returns the full path.
    std::string write(std::string_view rel, std::string_view contents) const;
    // Creates path()/rel as a directory (and its parents); returns the full path.
    std::string mkdir(std::string_view rel) const;
    std::string operator/(std::string_view rel) const { return path_ + "/" + std::string(rel); }

private:
    std::string path_;
};

// A scratch plugin tree X with X/hooks/bin/<binary> copied from the build. With
// CLAUDE_PLUGIN_ROOT unset, every plugin file the binary reads is X/<rel>, which the test writes.
class PluginTree : public ScratchDir {
public:
    explicit PluginTree(std::string_view binary);
    // The copied binary, to run.
    const std::string& binary() const { return binary_; }

private:
    std::string binary_;
};

// Sets a file's modification time to `seconds` since the epoch.
void set_mtime(const std::string& path, long long seconds);

// The whole content of the file at `path` (empty when it cannot be read).
std::string read_file(const std::string& path);

} // namespace viber::testing
