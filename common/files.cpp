// files.cpp: reading files a hook does not control without ever blocking on them.
#include "common/files.hpp"

#include "common/os.hpp"

namespace viber {

bool is_regular_file(const std::string& path) {
    return os::file_kind(path) == os::FileKind::regular;
}

bool is_directory(const std::string& path) {
    return os::file_kind(path) == os::FileKind::directory;
}

std::optional<std::string> read_regular_file(const std::string& path, std::size_t max_bytes) {
    os::File file = os::File::open_regular(path);
    if (!file) return std::nullopt;
    std::string bytes;
    char buffer[64 * 1024];
    for (;;) {
        const long got = file.read_some(buffer, sizeof buffer);
        if (got < 0) return std::nullopt;
        if (got == 0) return bytes;
        if (bytes.size() + static_cast<std::size_t>(got) > max_bytes) return std::nullopt;
        bytes.append(buffer, static_cast<std::size_t>(got));
    }
}
std::string_view cut_trailing_newlines(std::string_view text) {
    for (;;) {
        if (text.ends_with("\r\n"))
            text.remove_suffix(2);
        else if (text.ends_with('\n'))
            text.remove_suffix(1);
        else
            return text;
    }
}

std::optional<std::time_t> mtime_seconds(const std::string& path) {
    return os::mtime_seconds(path);
}

} // namespace viber
