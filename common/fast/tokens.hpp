// fast/tokens.hpp: splitting text into tokens at separator bytes and handing on only the tokens a
// filter picks (one holding a byte of one set, opening with a byte of another, ending with a byte
// of a third, or both opening and ending with bytes of a pair of sets), 64 bytes at a time: a
// kernel gives masks of a block's byte classes, and the token edges and picks come from arithmetic
// on the masks, with no branch on a byte (one would mispredict at every edge of prose, two or three
// times a word). A token not picked is passed over with no look at its bytes.
// for_each_token_reference, beside it, is the plain reference (a byte at a time);
// tests/unit/fast/fast_tokens_test.cpp holds each kernel to it.
#pragma once

#include "common/fast/kernel.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace viber::fast {

// A set of bytes: any ASCII bytes, and either every non-ASCII byte or none (a vector kernel then
// classifies a byte by its two nibbles).
class ByteSet {
public:
    constexpr ByteSet() = default;

    // The ASCII bytes `c` for which in(c) holds, and every non-ASCII byte when `non_ascii`.
    template <class In> static constexpr ByteSet of(In in, bool non_ascii) {
        ByteSet set;
        for (unsigned c = 0; c < 0x80; ++c)
            if (in(static_cast<char>(c))) set.add(static_cast<char>(c));
        set.non_ascii_ = non_ascii;
        return set;
    }

    // Adds an ASCII byte; a non-ASCII one adds them all.
    constexpr void add(char c) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x80)
            non_ascii_ = true;
        else
            ascii_[byte / 64] |= std::uint64_t{1} << (byte % 64);
    }
    constexpr ByteSet& operator|=(const ByteSet& other) {
        ascii_[0] |= other.ascii_[0];
        ascii_[1] |= other.ascii_[1];
        non_ascii_ = non_ascii_ || other.non_ascii_;
        return *this;
    }
    constexpr bool contains(char c) const {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x80) return non_ascii_;
        return ((ascii_[byte / 64] >> (byte % 64)) & 1u) != 0;
    }
    constexpr bool empty() const { return ascii_[0] == 0 && ascii_[1] == 0 && !non_ascii_; }

private:
    std::uint64_t ascii_[2] = {0, 0};
    bool non_ascii_ = false;
};

// Which tokens a scan hands on. Separators are never part of a token; a token is a maximal run of
// other bytes, and it is handed on when it holds a byte of `anywhere`, opens with a byte of
// `first`, ends with a byte of `last`, or opens with a byte of `pair_first` and ends with a byte of
// `pair_last`.
struct TokenFilter {
    ByteSet separators;
    ByteSet anywhere;
    ByteSet first;
    ByteSet last;
    ByteSet pair_first;
    ByteSet pair_last;
};

// The kernels (fast/kernel.hpp: token_kernels): `portable` (8 bytes at a time in a general
// register, table lookups) and `avx2` (nibble lookups). Other CPUs (aarch64 included) run
// `portable`.

// The plain reference: calls visit(token) for each token of `text` the filter picks, in order.
template <class Visit>
void for_each_token_reference(std::string_view text, const TokenFilter& filter, Visit&& visit) {
    std::size_t at = 0;
    while (at < text.size()) {
        if (filter.separators.contains(text[at])) {
            ++at;
            continue;
        }
        const std::size_t start = at;
        bool picked = false;
        while (at < text.size() && !filter.separators.contains(text[at])) {
            picked = picked || filter.anywhere.contains(text[at]);
            ++at;
        }
        const char opens = text[start];
        const char ends = text[at - 1];
        picked = picked || filter.first.contains(opens) || filter.last.contains(ends) ||
                 (filter.pair_first.contains(opens) && filter.pair_last.contains(ends));
        if (picked) visit(text.substr(start, at - start));
    }
}

namespace tokens_detail {

// The classes, in this order, as masks of a 64-byte block (bit i: byte i).
enum Class : unsigned { separator, anywhere, first, last, pair_first, pair_last, class_count };
struct BlockMasks {
    std::uint64_t of[class_count];
};

// The filter as the kernels read it: a class byte per byte value (bit k: class k) for the
// portable kernel; for the nibble lookups, per class a table from a byte's low nibble to the set
// of high nibbles 0-7 in the class (bit h), and a table from the high nibble to its bit (none for
// 8-15: non_ascii says which classes hold every non-ASCII byte). Each nibble table is stored
// twice, once per 128-bit lane of an AVX2 vector.
struct ClassTables {
    std::array<std::uint8_t, 256> classes{};
    alignas(32) std::uint8_t low[class_count][32] = {};
    alignas(32) std::uint8_t high[32] = {};
    std::uint8_t non_ascii = 0;
    std::uint8_t used = 0; // bit k: class k holds a byte (an empty class's mask is 0 unclassified)
    char pad = ' ';        // a separator: fills the last partial block
};
ClassTables prepare(const TokenFilter& filter);

// Masks of `blocks` whole 64-byte blocks from `data`, into `out`, with a resolved kernel.
void classify_blocks(Kernel kernel, const ClassTables& tables, const char* data, std::size_t blocks,
                     BlockMasks* out);

// x + y + carry_in as 64-bit words; returns the carry out.
inline unsigned add_with_carry(std::uint64_t x, std::uint64_t y, unsigned carry_in,
                               std::uint64_t& sum) {
    const std::uint64_t partial = x + y;
    sum = partial + carry_in;
    return static_cast<unsigned>(partial < x) | static_cast<unsigned>(sum < partial);
}

// What one block hands the next.
struct Carries {
    std::uint64_t in_token = 0;  // 1 when the byte before the block is in a token
    std::uint64_t last = 0;      // 1 when that byte is in `last`
    std::uint64_t pair_last = 0; // ... in `pair_last`
    unsigned anywhere = 0;       // the carries out of the three additions below
    unsigned first = 0;
    unsigned pair_first = 0;
    std::size_t open_start = 0; // where the token that runs into the block starts
};

// Hands on the picked tokens that end in the block at `block` of `text` (a token ends at the
// separator after it). Adding a mask of a block's token bytes and a mark inside (or at the start
// of) a token carries out of the token into the separator after it: one addition a block carries
// every token's marks to its end, and across block edges through the carry.
template <class Visit>
void tokens_of_block(std::string_view text, std::size_t block, const BlockMasks& masks,
                     Carries& carries, Visit& visit) {
    const std::uint64_t in_token = ~masks.of[separator];
    const std::uint64_t after_token = (in_token << 1) | carries.in_token;
    const std::uint64_t starts = in_token & ~after_token;
    const std::uint64_t ends = ~in_token & after_token;
    std::uint64_t held;
    std::uint64_t opened;
    std::uint64_t pair_opened;
    carries.anywhere =
        add_with_carry(in_token, masks.of[anywhere] & in_token, carries.anywhere, held);
    carries.first = add_with_carry(in_token, masks.of[first] & starts, carries.first, opened);
    carries.pair_first =
        add_with_carry(in_token, masks.of[pair_first] & starts, carries.pair_first, pair_opened);
    // Bit i: byte i - 1 (the last of a token ending at i) is in `last`, in `pair_last`.
    const std::uint64_t closed = (masks.of[last] << 1) | carries.last;
    const std::uint64_t pair_closed = (masks.of[pair_last] << 1) | carries.pair_last;
    const std::uint64_t picked = held | opened | closed | (pair_opened & pair_closed);
    for (std::uint64_t left = ends & picked; left != 0; left &= left - 1) {
        const auto end = static_cast<unsigned>(std::countr_zero(left));
        const std::uint64_t starts_before = starts & ((std::uint64_t{1} << end) - 1);
        const std::size_t start =
            starts_before != 0
                ? block + 63 - static_cast<std::size_t>(std::countl_zero(starts_before))
                : carries.open_start;
        visit(text.substr(start, block + end - start));
    }
    if (starts != 0)
        carries.open_start = block + 63 - static_cast<std::size_t>(std::countl_zero(starts));
    carries.in_token = in_token >> 63;
    carries.last = masks.of[last] >> 63;
    carries.pair_last = masks.of[pair_last] >> 63;
}

} // namespace tokens_detail

// A scan for the tokens one filter picks, with `kernel` (resolved: see resolve); the filter's
// tables are made once, for every text scanned. `filter.separators` must not be empty.
class TokenScan {
public:
    explicit TokenScan(const TokenFilter& filter, Kernel kernel = Kernel::best)
        : tables_(tokens_detail::prepare(filter)), kernel_(resolve(kernel, token_kernels)) {}

    // Calls visit(token) for each token of `text` the filter picks, in order, as the reference
    // does.
    template <class Visit> void each(std::string_view text, Visit&& visit) const {
        using namespace tokens_detail;
        Carries carries;
        constexpr std::size_t batch = 16; // blocks classified a call
        BlockMasks masks[batch];
        const std::size_t whole = text.size() / 64;
        for (std::size_t first_block = 0; first_block < whole; first_block += batch) {
            const std::size_t count = whole - first_block < batch ? whole - first_block : batch;
            classify_blocks(kernel_, tables_, text.data() + 64 * first_block, count, masks);
            for (std::size_t b = 0; b < count; ++b)
                tokens_of_block(text, 64 * (first_block + b), masks[b], carries, visit);
        }
        const std::size_t rest = text.size() - 64 * whole;
        if (rest != 0) {
            // The last bytes, then separators: the token they end in ends inside this block.
            char tail[64];
            std::memset(tail, tables_.pad, sizeof tail);
            std::memcpy(tail, text.data() + 64 * whole, rest);
            classify_blocks(kernel_, tables_, tail, 1, masks);
            tokens_of_block(text, 64 * whole, masks[0], carries, visit);
        } else if (carries.in_token != 0 &&
                   (carries.anywhere != 0 || carries.first != 0 || carries.last != 0 ||
                    (carries.pair_first != 0 && carries.pair_last != 0))) {
            // A token running to the end of whole blocks.
            visit(text.substr(carries.open_start));
        }
    }

private:
    tokens_detail::ClassTables tables_;
    Kernel kernel_;
};

} // namespace viber::fast
