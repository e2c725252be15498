// scratch.cpp: temporary directories and plugin trees that a test controls entirely.
#include "support/scratch.hpp"

#include "support/process.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/filesystem/path.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/time.h>

namespace viber::testing {

namespace fs = boost::filesystem;

ScratchDir::ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/viber-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = fs::canonical(pattern).string();
}

ScratchDir::~ScratchDir() {
    boost::system::error_code ec;
    // Make everything removable again (tests chmod files to 000).
    for (fs::recursive_directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
        ::chmod(it->path().c_str(), 0700);
    }
    fs::remove_all(path_, ec);
}

std::string ScratchDir::write(std::string_view rel, std::string_view contents) const {
    const fs::path full = fs::path(path_) / std::string(rel);
    fs::create_directories(full.parent_path());
    std::ofstream out(full.string(), std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!out) throw std::runtime_error("cannot write " + full.string());
    return full.string();
}

std::string ScratchDir::mkdir(std::string_view rel) const {
    const fs::path full = fs::path(path_) / std::string(rel);
    fs::create_directories(full);
    return full.string();
}

PluginTree::PluginTree(std::string_view binary) {
    const fs::path bin_dir = fs::path(path()) / "hooks" / "bin";
    fs::create_directories(bin_dir);
    binary_ = (bin_dir / std::string(binary)).string();
    fs::copy_file(hook_binary(binary), binary_, fs::copy_options::overwrite_existing);
    ::chmod(binary_.c_str(), 0755);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return text;
}

void set_mtime(const std::string& path, long long seconds) {
    timeval times[2];
    times[0].tv_sec = static_cast<time_t>(seconds);
    times[0].tv_usec = 0;
    times[1] = times[0];
    if (::utimes(path.c_str(), times) != 0) throw std::runtime_error("utimes failed on " + path);
}

} // namespace viber::testing
