// files.hpp: reading files a hook does not control without ever blocking on them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace viber {

// True when `path` names a regular file (symlinks followed). FIFOs, directories, devices and
// dangling links are not.
bool is_regular_file(const std::string& path);

// True when `path` names a directory (symlinks followed).
bool is_directory(const std::string& path);

// Opens `path` only when it is a regular file (checked on the opened descriptor, opened
// non-blocking so a FIFO swapped in never blocks) and returns its bytes; nullopt when it is not a
// regular file, cannot be read, or holds more than `max_bytes`.
std::optional<std::string> read_regular_file(const std::string& path,
                                             std::size_t max_bytes = std::size_t{64} << 20);

// `text` with its trailing newlines (LF or CRLF) cut, as the shell's $(cat) did: how the plugin's
// text files (manifest, plan hints) are injected.
std::string_view cut_trailing_newlines(std::string_view text);

} // namespace viber
