// fast/name_listing.hpp: a directory's names as a filter that rules out, with no stat, the
// spellings none of them can be (plan-gate's file limit: the bare words of a plan).
#pragma once

#include "common/fast/tokens.hpp"
#include "common/os/os.hpp"

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::fast {

// The names directly under a directory, kept as a filter: a name whose key is not held names no
// entry of the directory on any file system that matches ASCII names exactly or
// case-insensitively. One listing replaces a stat for nearly every distinct word of a text. The
// filter stands aside (holds everything) when the directory cannot be listed, holds more than
// `max_names` entries, or holds a name with a non-ASCII character, which Unicode case folding
// could match from an ASCII spelling.
class NameListing {
public:
    explicit NameListing(const std::string& directory) {
        const std::optional<std::vector<std::string>> names =
            os::directory_names(directory, max_names);
        if (!names) return;
        for (const std::string& name : *names) {
            if (name.empty()) return;
            for (const char c : name)
                if (static_cast<unsigned char>(c) >= 0x80) return; // UTF-8: not ASCII
            keys_[key(name)] = true;
            opens_ |= std::uint64_t{1} << folded(name.front());
            closes_ |= std::uint64_t{1} << folded(name.back());
        }
        usable_ = true;
    }

    // True when no entry of the directory can be `name` (never empty).
    bool excludes(std::string_view name) const { return usable_ && !keys_[key(name)]; }

    // The filter that picks, from a text split at `separators`, every token that holds a byte of
    // `other` (a token the caller judges another way), and every token that may still be an
    // entry's name once the bytes of `openers` are stripped from its front and those of `closers`
    // from its back. Any token it passes over opens with a byte no entry opens with, or ends with
    // one no entry ends with, once stripped (or is empty then). Every token when the listing
    // cannot settle names.
    TokenFilter filter(ByteSet separators, ByteSet other, ByteSet openers, ByteSet closers) const {
        TokenFilter filter;
        filter.separators = separators;
        if (!usable_) {
            filter.anywhere = ByteSet::of([&](char c) { return !separators.contains(c); },
                                          !separators.contains('\x80'));
            return filter;
        }
        filter.anywhere = other;
        filter.first = openers;
        // The bytes a name it does not exclude can open or end with (every byte whose fold is that
        // of an entry's first or last byte).
        filter.pair_first = bytes_folding_to(opens_);
        filter.pair_last = bytes_folding_to(closes_);
        filter.pair_last |= closers;
        return filter;
    }

private:
    static constexpr std::size_t max_names = 4096;

    // A byte with ASCII case folded and then cut to 6 bits: bytes that one file system may match
    // fold alike.
    static std::size_t folded(char c) {
        return static_cast<std::size_t>((static_cast<unsigned char>(c) | 0x20) & 0x3f);
    }

    // The length (modulo 16) and the first and last bytes folded: spellings that one file system
    // may match share a key.
    static std::size_t key(std::string_view name) {
        return ((name.size() & 15) << 12) | (folded(name.front()) << 6) | folded(name.back());
    }

    // The ASCII bytes whose fold is in `folds` (bit f: fold f), and every non-ASCII byte.
    static ByteSet bytes_folding_to(std::uint64_t folds) {
        return ByteSet::of([folds](char c) { return ((folds >> folded(c)) & 1u) != 0; }, true);
    }

    std::bitset<std::size_t{1} << 16> keys_;
    std::uint64_t opens_ = 0;  // bit f: an entry's first byte folds to f
    std::uint64_t closes_ = 0; // ... its last byte
    bool usable_ = false;
};

} // namespace viber::fast
