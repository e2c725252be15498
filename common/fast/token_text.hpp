// fast/token_text.hpp: the tokens of a text held whole or read from a file a piece at a time,
// through the token scan (fast/tokens.hpp): a file of any size is split in a bounded buffer.
#pragma once

#include "common/fast/tokens.hpp"
#include "common/os/os.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace viber::fast {

// A text to split into tokens: a view of it whole, or a file read a piece at a time into one
// buffer that keeps only the token still open at the end of a piece. A text of any size is then
// scanned in a buffer about the size of two pieces (more only for a longer token). A piece is
// what os::read_size_for gives for the file's size, as the transcript reader sizes its reads.
class TokenText {
public:
    explicit TokenText(std::string_view whole) : whole_(whole) {}
    TokenText(os::File file, std::uint64_t size)
        : file_(std::move(file)), piece_(os::read_size_for(size)) {}

    // Calls `visit(token)`, in order, for every token of the whole text that `filter` picks
    // (its separators end tokens); false when the file could not be read or
    // held more than `max_bytes` (what was visited before then is to be dropped).
    template <class Visit>
    bool scan(const TokenFilter& filter, Visit&& visit, std::size_t max_bytes) {
        const TokenScan tokens(filter);
        if (!file_) {
            tokens.each(whole_, visit);
            return true;
        }
        const std::size_t piece = piece_;
        std::string buffer(2 * piece, '\0');
        std::size_t filled = 0; // bytes of the buffer that hold text
        std::uint64_t total = 0;
        for (;;) {
            // A token longer than the buffer doubles it, never past what the read bound can
            // fill: a plan of one 64 MiB token is held once, as a whole read would hold it.
            if (buffer.size() - filled < piece)
                buffer.resize(std::min(2 * buffer.size(), max_bytes + 2 * piece));
            const long got = file_.read_some(buffer.data() + filled, buffer.size() - filled);
            if (got < 0) return false;
            total += static_cast<std::uint64_t>(got);
            if (total > max_bytes) return false;
            filled += static_cast<std::size_t>(got);
            // The tokens whose end has been read: all of them at the end of the file, else those
            // before the last separator (none in the bytes kept from before: they are the
            // open token).
            std::size_t complete = filled;
            if (got != 0) {
                const std::size_t kept = filled - static_cast<std::size_t>(got);
                while (complete > kept && !filter.separators.contains(buffer[complete - 1]))
                    --complete;
                if (complete == kept) complete = 0;
            }
            tokens.each(std::string_view(buffer.data(), complete), visit);
            if (got == 0) return true;
            // Keep only the token still open.
            std::memmove(buffer.data(), buffer.data() + complete, filled - complete);
            filled -= complete;
        }
    }

private:
    std::string_view whole_;
    os::File file_;
    std::size_t piece_ = 0;
};

} // namespace viber::fast
