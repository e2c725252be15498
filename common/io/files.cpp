// files.cpp: reading files a hook does not control without ever blocking on them.
#include "common/io/files.hpp"

#include "common/fast/buffer.hpp"
#include "common/os/os.hpp"

#include <algorithm>
#include <cstdint>

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
    // Read straight into the result, sized once from the file's size (one byte more, so the read
    // that finds the end needs no growth); a file that grows meanwhile doubles the buffer.
    const std::size_t bound = max_bytes < std::string().max_size() ? max_bytes + 1 : max_bytes;
    const std::uint64_t hint = file.size().value_or(0);
    if (hint > max_bytes) return std::nullopt; // already past the bound: nothing to read
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(bound, hint + 1));
    std::string bytes;
    fast::reserve_for_writes(bytes, size); // one call, not a fault a page
    bytes.resize(size);
    std::size_t used = 0;
    for (;;) {
        if (used == bytes.size()) {
            if (used >= bound) return std::nullopt;
            bytes.resize(std::min(bound, std::max<std::size_t>(used * 2, 64 * 1024)));
        }
        const long got = file.read_some(bytes.data() + used, bytes.size() - used);
        if (got < 0) return std::nullopt;
        if (got == 0) break;
        used += static_cast<std::size_t>(got);
        if (used > max_bytes) return std::nullopt;
    }
    bytes.resize(used);
    return bytes;
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

} // namespace viber
