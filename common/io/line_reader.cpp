// line_reader.cpp: a bounded JSONL line reader for the tool modes.
#include "common/io/line_reader.hpp"

#include <cstring>

namespace viber {

namespace {
constexpr std::size_t chunk = std::size_t{64} * 1024;
} // namespace

LineReader::LineReader(const std::string& path, std::size_t line_cap) : cap_(line_cap) {
    file_ = os::File::open_regular(path);
    if (file_) buffer_.resize(chunk);
}

bool LineReader::fill() {
    if (eof_ || !file_) return false;
    const long got = file_.read_some(buffer_.data(), buffer_.size());
    read_before_ += end_;
    at_ = 0;
    end_ = got > 0 ? static_cast<std::size_t>(got) : 0;
    if (end_ == 0) eof_ = true;
    return end_ > 0;
}

bool LineReader::next(std::string& line) {
    line.clear();
    too_long_ = false;
    bool any = false;
    for (;;) {
        if (at_ == end_ && !fill()) break;
        any = true;
        const char* start = buffer_.data() + at_;
        const void* newline = std::memchr(start, '\n', end_ - at_);
        const std::size_t length =
            newline != nullptr ? static_cast<std::size_t>(static_cast<const char*>(newline) - start)
                               : end_ - at_;
        if (!too_long_) {
            if (line.size() + length > cap_) {
                too_long_ = true;
                line.clear();
                line.shrink_to_fit();
            } else {
                line.append(start, length);
            }
        }
        at_ += length;
        if (newline != nullptr) {
            ++at_;
            break;
        }
    }
    if (!any) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++number_;
    return true;
}

} // namespace viber
