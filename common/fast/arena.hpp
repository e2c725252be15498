// fast/arena.hpp: an arena of text: strings stored one after another in chunks of 16 KiB or more
// (whole huge pages from a mebibyte on, fast/buffer.hpp), released back to a mark all at once.
// The shell lexer keeps word text that is not a slice of the command in one (quotes removed from
// the middle, escapes decoded, strings joined), released after each simple command, so its memory
// follows the largest simple command, not the whole line.
#pragma once

#include "common/fast/buffer.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace viber::fast {

class Arena {
public:
    struct Mark {
        std::size_t chunk = 0;
        std::size_t used = 0;
    };

    // Where the next string goes: release(mark()) frees what is stored after this call.
    Mark mark() const { return {chunks_.size(), chunks_.empty() ? 0 : chunks_.back().used}; }

    // Frees what was stored since `m` (one empty chunk is kept for reuse).
    void release(Mark m) {
        if (m.chunk == 0) {
            if (!chunks_.empty()) {
                chunks_.resize(1);
                chunks_[0].used = 0;
            }
            return;
        }
        if (chunks_.size() > m.chunk) chunks_.resize(m.chunk);
        if (chunks_.size() == m.chunk) chunks_.back().used = m.used;
    }

    // A copy of `text`, valid until a release to a mark taken before this call.
    std::string_view store(std::string_view text) {
        if (text.empty()) return {};
        if (chunks_.empty() || chunks_.back().size - chunks_.back().used < text.size()) {
            const std::size_t size = buffer_capacity(std::max<std::size_t>(text.size(), 16384));
            chunks_.push_back({std::unique_ptr<char[]>(new char[size]), size, 0}); // not zeroed
            expect_writes(chunks_.back().bytes.get(), text.size(), size);
        }
        Chunk& chunk = chunks_.back();
        char* at = chunk.bytes.get() + chunk.used;
        std::copy(text.begin(), text.end(), at);
        chunk.used += text.size();
        return {at, text.size()};
    }

private:
    struct Chunk {
        std::unique_ptr<char[]> bytes;
        std::size_t size = 0;
        std::size_t used = 0;
    };
    std::vector<Chunk> chunks_;
};

} // namespace viber::fast
