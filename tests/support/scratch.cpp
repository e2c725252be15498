// scratch.cpp: temporary directories and plugin trees that a test controls entirely.
#include "support/scratch.hpp"

#include "support/process.hpp"

#include <boost/filesystem/operations.hpp>
#include <boost/filesystem/path.hpp>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <stdexcept>
#ifndef _WIN32
#include <sys/stat.h>
#include <sys/time.h>
#endif

namespace viber::testing {

namespace fs = boost::filesystem;

ScratchDir::ScratchDir() {
#ifdef _WIN32
    // %TEMP%; the name is unique per process and object (no mkdtemp on Windows).
    const fs::path dir = fs::temp_directory_path() / fs::unique_path("viber-test-%%%%-%%%%-%%%%");
    fs::create_directories(dir);
    path_ = fs::canonical(dir).generic_string();
#else
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/viber-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = fs::canonical(pattern).string();
#endif
}

ScratchDir::~ScratchDir() {
    boost::system::error_code ec;
    // Make everything removable again (tests chmod files to 000).
    for (fs::recursive_directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
        fs::permissions(it->path(), fs::owner_all, ec);
    }
    fs::remove_all(path_, ec);
}

std::string ScratchDir::write(std::string_view rel, std::string_view contents) const {
    const fs::path full = fs::path(path_) / std::string(rel);
    fs::create_directories(full.parent_path());
    std::ofstream out(full.string(), std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!out) throw std::runtime_error("cannot write " + full.string());
    return full.generic_string();
}

std::string ScratchDir::mkdir(std::string_view rel) const {
    const fs::path full = fs::path(path_) / std::string(rel);
    fs::create_directories(full);
    return full.generic_string();
}

PluginTree::PluginTree(std::string_view binary) {
    const fs::path bin_dir = fs::path(path()) / "hooks" / "bin";
    fs::create_directories(bin_dir);
    binary_ = (bin_dir / (std::string(binary) + VIBER_EXE_SUFFIX)).generic_string();
    fs::copy_file(hook_binary(binary), binary_, fs::copy_options::overwrite_existing);
    fs::permissions(binary_, fs::owner_all | fs::group_read | fs::group_exe | fs::others_read |
                                 fs::others_exe);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return text;
}

void set_mtime(const std::string& path, long long seconds) {
#ifdef _WIN32
    boost::system::error_code ec;
    fs::last_write_time(path, static_cast<std::time_t>(seconds), ec);
    if (ec) throw std::runtime_error("cannot set the mtime of " + path);
#else
    timeval times[2];
    times[0].tv_sec = static_cast<time_t>(seconds);
    times[0].tv_usec = 0;
    times[1] = times[0];
    if (::utimes(path.c_str(), times) != 0) throw std::runtime_error("utimes failed on " + path);
#endif
}

} // namespace viber::testing
