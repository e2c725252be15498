// line_reader.hpp: one JSONL file read line by line, for the tool modes that read a log or a
// session (--explain --log, --replay): a reused read buffer, one line held at a time, and a line
// longer than the cap passed over unread, so memory stays bounded whatever the file holds.
#pragma once

#include "common/os/os.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace viber {

class LineReader {
public:
    // Opens `path` only when it is a regular file (a FIFO or a device is never opened).
    explicit LineReader(const std::string& path, std::size_t line_cap = std::size_t{64} << 20);

    bool is_open() const noexcept { return static_cast<bool>(file_); }

    // The next physical line (its `\n` and a trailing `\r` removed) into `line`; false at the end.
    // A line past the cap comes back empty with `too_long()` true.
    bool next(std::string& line);
    bool too_long() const noexcept { return too_long_; }
    // The 1-based number of the line `next` returned last.
    std::size_t number() const noexcept { return number_; }
    // The byte offset just past the line `next` returned last (its `\n` included); the offset of
    // its first byte is the value before that call.
    std::uint64_t end_offset() const noexcept { return read_before_ + at_; }

private:
    bool fill();
    os::File file_;
    std::size_t cap_;
    std::string buffer_;
    std::size_t at_ = 0;
    std::size_t end_ = 0;
    bool eof_ = false;
    bool too_long_ = false;
    std::size_t number_ = 0;
    std::uint64_t read_before_ = 0; // bytes read before the buffer's contents
};

} // namespace viber
