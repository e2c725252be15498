// file_limit.cpp: the plain plan file limit (docs/plan-gate.md, step 3).
//
// A plain plan is reviewed by one plain-plan-review pass; past 8 files that review cannot hold
// the whole change, so the gate refuses before any review and points to the viber planner, whose
// review set is built for large plans. The count is lexical (a token that looks like a path) with
// one fallback to the file system (a bare name such as `Makefile` that exists under the root).
#include "plan-gate/file_limit.hpp"

#include "common/ascii.hpp"
#include "common/cpu.hpp"
#include "common/files.hpp"
#include "common/os.hpp"
#include "common/paths.hpp"
#include "common/simd.hpp"
#include "plan-gate/reasons.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <bitset>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <unordered_set>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
// x86-64 CPUs with AVX2 or AVX-512BW (chosen at run time) classify a block's bytes with table
// lookups, in a GCC build (VIBER_SIMD_WIDE, common/simd.hpp): the classifier is one template over
// the vector width, compiled per target through GCC's flatten. A clang build classifies with the
// portable classifier, and the classifier test says so.

namespace viber::plan_gate {

namespace {

// ... and at most this many characters of them: a path can be as long as a token.
constexpr std::size_t listed_characters = 6000;

// The plan splits into tokens at whitespace (ascii::is_space) 64 bytes at a time: a mask of the
// block's whitespace bytes gives every token edge with no branch on a byte, which would
// mispredict at every edge, two or three times a word. Further masks mark the bytes that make a
// token more than a plain word (below, "name bytes") and what a token's first and last bytes say
// (ByteClasses), so that most prose words are passed over with no look at their bytes at all.
// The portable masks (masks_of) are SSE2 compares on x86-64, else 8 bytes at a time with
// ascii::space_bytes.

#if !defined(__SSE2__)
// The 8 high bits of `highs` as the low 8 bits, the first byte's as bit 0.
constexpr std::uint64_t gathered(std::uint64_t highs) {
    return ((highs >> 7) * 0x0102040810204080ull) >> 56;
}

// 8 bytes as a word whose low byte is the first, on any byte order.
std::uint64_t first_byte_low(const char* at) {
    std::uint64_t word = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&word, at, sizeof word);
    } else {
        for (int i = 7; i >= 0; --i) word = (word << 8) | static_cast<unsigned char>(at[i]);
    }
    return word;
}

constexpr std::uint64_t low_bits = 0x0101010101010101ull;
constexpr std::uint64_t high_bits = 0x8080808080808080ull;

// The high bit of each byte of `word` that equals `c` (an ASCII byte), every other bit clear.
constexpr std::uint64_t bytes_equal(std::uint64_t word, char c) {
    const std::uint64_t x = word ^ (static_cast<unsigned char>(c) * low_bits);
    return ~(((x & ~high_bits) + ~high_bits) | x) & high_bits;
}

// The bytes that make a token more than a plain name: either separator, a `:` (a drive, a URL, a
// Windows stream), a `~` (a Windows short name) and every non-ASCII byte (a name that case
// folding or Unicode normalization may match in another spelling).
constexpr std::uint64_t name_bytes(std::uint64_t word) {
    return (word & high_bits) | bytes_equal(word, '/') | bytes_equal(word, '\\') |
           bytes_equal(word, ':') | bytes_equal(word, '~');
}
#endif

struct BlockMasks {
    std::uint64_t spaces = 0; // bit i: byte i of the block is whitespace
    std::uint64_t names = 0;  // bit i: byte i is a name byte
};

#if defined(__SSE2__)
// 16 bytes a step: every x86-64 has SSE2, and the masks are its compares and movemask as is.
BlockMasks masks_of(const char* block) {
    const __m128i blank = _mm_set1_epi8(' ');
    const __m128i tab = _mm_set1_epi8('\t');
    const __m128i four = _mm_set1_epi8(4); // '\t' to '\r' are the 5 bytes from tab
    const __m128i slash = _mm_set1_epi8('/');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i colon = _mm_set1_epi8(':');
    const __m128i tilde = _mm_set1_epi8('~');
    BlockMasks masks;
    for (int part = 0; part < 4; ++part) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * part));
        const __m128i from_tab = _mm_sub_epi8(bytes, tab);
        const __m128i space = _mm_or_si128(_mm_cmpeq_epi8(bytes, blank),
                                           _mm_cmpeq_epi8(_mm_min_epu8(from_tab, four), from_tab));
        const __m128i name = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(bytes, slash), _mm_cmpeq_epi8(bytes, backslash)),
            _mm_or_si128(_mm_cmpeq_epi8(bytes, colon), _mm_cmpeq_epi8(bytes, tilde)));
        const auto bits = [](int movemask) {
            return static_cast<std::uint64_t>(static_cast<std::uint16_t>(movemask));
        };
        masks.spaces |= bits(_mm_movemask_epi8(space)) << (16 * part);
        // movemask of the bytes themselves: their high bits, the non-ASCII bytes.
        masks.names |= bits(_mm_movemask_epi8(name) | _mm_movemask_epi8(bytes)) << (16 * part);
    }
    return masks;
}
#else
// 8 bytes a step in a general register, on any other CPU.
BlockMasks masks_of(const char* block) {
    BlockMasks masks;
    for (int word = 0; word < 8; ++word) {
        const std::uint64_t bytes = first_byte_low(block + 8 * word);
        masks.spaces |= gathered(ascii::space_bytes(bytes)) << (8 * word);
        masks.names |= gathered(name_bytes(bytes)) << (8 * word);
    }
    return masks;
}
#endif

// What a byte tells about a token it opens or closes (bits of ByteClasses): whether it may open or
// close a name of the root's listing (ASCII case folded, see RootNames), and whether it is
// wrapping the token loses before it is judged (is_opener, is_closer).
enum : std::uint8_t {
    may_open_name = 1,
    wraps_start = 2,
    wraps_end = 4,
    may_close_name = 8,
};
using ByteClasses = std::array<std::uint8_t, 256>;

// x + y + carry_in as 64-bit words; returns the carry out.
inline unsigned add_with_carry(std::uint64_t x, std::uint64_t y, unsigned carry_in,
                               std::uint64_t& sum) {
    const std::uint64_t partial = x + y;
    sum = partial + carry_in;
    return static_cast<unsigned>(partial < x) | static_cast<unsigned>(sum < partial);
}

// A block's tokens as its masks tell them (bit i: byte i of the block). A token's first byte is
// a start; the whitespace byte just past it, its end.
struct BlockTokens {
    std::uint64_t starts = 0;
    std::uint64_t visits = 0; // the ends of the tokens to judge
    std::uint64_t marked = 0; // ... of those that may hold a name byte or open with wrapping
};

// What one block hands the next.
struct Carries {
    std::uint64_t word_before = 0; // 1 when the byte before the block is not whitespace
    unsigned first = 0;            // the carries out of the two additions below
    unsigned marked = 0;
    std::uint64_t class_before = 0; // the ByteClasses bits of the byte before the block
    // The block before's masks of wrapping ends, bytes that may close a name and word bytes (the
    // vector classifiers').
    std::uint64_t wraps_end = 0;
    std::uint64_t may_close = 0;
    std::uint64_t word = 0;
};

// The tokens to judge, from a block's masks: `word` (bytes not whitespace), `starts`, `ends`,
// `first_may_open` (starts whose byte may open a name), `marks` (name bytes, and starts that
// open with wrapping), and for each end, the byte before it: `closes_before` (it may close a
// name) and `wraps_before` (it is wrapping); and, where that byte is the token's only trailing
// wrapping (`lone_wrap`: the byte before it is in the token and is no wrapping), whether the byte
// before it may close a name (`closes_before_wrap`). A token is judged when it holds a mark, or
// when its first byte may open a name and its last byte, with one trailing wrapping byte
// stripped, may close one, or when it ends in more wrapping than that; every other token is a
// bare name that RootNames::excludes once its wrapping is stripped.
//
// Adding a token's bits and any bits marked inside it carries out of the token into its end, so
// one addition a block carries a mark at the start or inside each token to the token's end,
// across block edges through the carry.
inline BlockTokens tokens_of(std::uint64_t word, std::uint64_t starts, std::uint64_t ends,
                             std::uint64_t first_may_open, std::uint64_t marks,
                             std::uint64_t closes_before, std::uint64_t wraps_before,
                             std::uint64_t lone_wrap, std::uint64_t closes_before_wrap,
                             Carries& carries) {
    std::uint64_t sum;
    carries.first = add_with_carry(word, first_may_open, carries.first, sum);
    const std::uint64_t opened_ends = sum & ~word;
    carries.marked = add_with_carry(word, marks, carries.marked, sum);
    const std::uint64_t marked_ends = sum & ~word;
    const std::uint64_t may_close =
        (~wraps_before & closes_before) | (lone_wrap & closes_before_wrap);
    const std::uint64_t visits =
        marked_ends | (ends & ((wraps_before & ~lone_wrap) | (may_close & opened_ends)));
    return {starts, visits, marked_ends};
}

// The portable classifier: masks_of, then a table lookup for each token's first and last byte.
struct PortableClassifier {
    const ByteClasses& classes;

    BlockTokens operator()(const char* block, Carries& carries) const {
        const BlockMasks masks = masks_of(block);
        const std::uint64_t word = ~masks.spaces;
        const std::uint64_t after_word = (word << 1) | carries.word_before;
        const std::uint64_t starts = word & ~after_word;
        const std::uint64_t ends = ~word & after_word;
        const auto class_at = [&](unsigned at) -> std::uint64_t {
            return classes[static_cast<unsigned char>(block[at])];
        };
        std::uint64_t first_may_open = 0;
        std::uint64_t marks = masks.names;
        for (std::uint64_t left = starts; left != 0; left &= left - 1) {
            const unsigned bit = static_cast<unsigned>(std::countr_zero(left));
            const std::uint64_t cls = class_at(bit);
            first_may_open |= (cls & may_open_name) << bit;
            marks |= ((cls & wraps_start) >> 1) << bit;
        }
        std::uint64_t closes_before = 0;
        std::uint64_t wraps_before = 0;
        for (std::uint64_t left = ends; left != 0; left &= left - 1) {
            const unsigned bit = static_cast<unsigned>(std::countr_zero(left));
            const std::uint64_t cls = bit == 0 ? carries.class_before : class_at(bit - 1);
            closes_before |= ((cls & may_close_name) >> 3) << bit;
            wraps_before |= ((cls & wraps_end) >> 2) << bit;
        }
        carries.class_before = class_at(63);
        carries.word_before = word >> 63;
        // Every token ending in wrapping is judged: no lone_wrap here.
        return tokens_of(word, starts, ends, first_may_open, marks, closes_before, wraps_before, 0,
                         0, carries);
    }
};

#if VIBER_SIMD_WIDE
bool has_name_byte(std::string_view token);

// The vector classifiers: every byte's classes by table lookups on its two nibbles, a whole
// vector at a time, with no look at single bytes. For an ASCII byte with high nibble h and low
// nibble l, class k holds when bit h of low[k][l] is set (high[h] is 1 << h; 0 for a non-ASCII
// byte, which is a name byte and marks its token anyway). Each table is stored twice over, one
// copy per 128-bit lane of an AVX2 vector.
struct NibbleTables {
    using Table = std::array<std::uint8_t, 32>;
    // may open a name, wraps a start, wraps an end, may close a name, whitespace, name byte
    std::array<Table, 6> low{};
    Table high{};

    explicit NibbleTables(const ByteClasses& classes) {
        for (unsigned h = 0; h < 8; ++h)
            high[h] = high[h + 16] = static_cast<std::uint8_t>(1u << h);
        for (unsigned c = 0; c < 0x80; ++c) {
            const auto bit = static_cast<std::uint8_t>(1u << (c >> 4));
            const std::uint8_t cls = classes[c];
            const char ch = static_cast<char>(c);
            const bool in[6] = {
                (cls & may_open_name) != 0, (cls & wraps_start) != 0,
                (cls & wraps_end) != 0,     (cls & may_close_name) != 0,
                ascii::is_space(ch),        has_name_byte(std::string_view(&ch, 1))};
            for (std::size_t k = 0; k < low.size(); ++k) {
                if (!in[k]) continue;
                low[k][c & 15] |= bit;
                low[k][(c & 15) + 16] |= bit;
            }
        }
    }
};

// A block's BlockTokens from the masks of its bytes' classes, in NibbleTables' order, and of its
// non-ASCII bytes.
inline BlockTokens tokens_of_classes(const std::uint64_t (&masks)[6], std::uint64_t non_ascii,
                                     Carries& carries) {
    const std::uint64_t word = ~masks[4];
    const std::uint64_t after_word = (word << 1) | carries.word_before;
    const std::uint64_t starts = word & ~after_word;
    const std::uint64_t ends = ~word & after_word;
    // Bit i of these: the class of byte i - 1 and of byte i - 2, from the block before too.
    const std::uint64_t wraps1 = (masks[2] << 1) | (carries.wraps_end >> 63);
    const std::uint64_t wraps2 = (masks[2] << 2) | (carries.wraps_end >> 62);
    const std::uint64_t closes1 = (masks[3] << 1) | (carries.may_close >> 63);
    const std::uint64_t closes2 = (masks[3] << 2) | (carries.may_close >> 62);
    const std::uint64_t word2 = (word << 2) | (carries.word >> 62);
    carries.wraps_end = masks[2];
    carries.may_close = masks[3];
    carries.word = word;
    carries.word_before = word >> 63;
    return tokens_of(word, starts, ends, starts & masks[0],
                     masks[5] | non_ascii | (starts & masks[1]), ends & closes1, ends & wraps1,
                     ends & wraps1 & ~wraps2 & word2, ends & closes2, carries);
}

// The vector types pass only between functions flattened into one (see common/simd.hpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// The vector classifier, one template over the vector width.
template <class V>
inline BlockTokens classify_vector(const char* block, const NibbleTables& tables,
                                   Carries& carries) {
    const auto high = V::table(tables.high.data());
    std::uint64_t masks[6] = {};
    std::uint64_t non_ascii = 0;
    for (std::size_t part = 0; part < 64 / V::width; ++part) {
        const auto bytes = V::load(block + part * V::width);
        const auto low_nibbles = V::low_nibbles(bytes);
        const auto high_bits = V::lookup(high, V::high_nibbles(bytes));
        for (std::size_t k = 0; k < 6; ++k)
            masks[k] |= V::meet(V::lookup(V::table(tables.low[k].data()), low_nibbles), high_bits)
                        << (part * V::width);
        non_ascii |= V::high_bits(bytes) << (part * V::width);
    }
    return tokens_of_classes(masks, non_ascii, carries);
}
#pragma GCC diagnostic pop

struct Avx2Classifier {
    const NibbleTables& tables;
    __attribute__((target("avx2"), flatten)) BlockTokens operator()(const char* block,
                                                                    Carries& carries) const {
        return classify_vector<simd::Avx2>(block, tables, carries);
    }
};

struct Avx512Classifier {
    const NibbleTables& tables;
    __attribute__((target("avx512f,avx512bw"), flatten)) BlockTokens
    operator()(const char* block, Carries& carries) const {
        return classify_vector<simd::Avx512>(block, tables, carries);
    }
};
#endif

// Where a scan of the plan stands between two pieces of it.
struct ScanState {
    Carries carries;
    std::size_t open_start = 0; // where the token that runs into the next block starts
    // Whether the byte before the next block is part of a token (which opens at open_start).
    bool inside() const { return carries.word_before != 0; }
};

// Scans `text` from `at` a 64-byte block at a time and calls `visit(token, marked)` with, in
// order, every maximal run of non-whitespace bytes that tokens_of says to judge (`marked`: it may
// hold a name byte or open with wrapping). `classify` turns each block into its BlockTokens.
// With `last`, the text ends here: a last partial block is scanned as if whitespace followed, and
// so is one more block when the text fills whole blocks, so every token has its end. Else only
// whole blocks are scanned and the rest waits for more text. Returns where the scan stopped.
template <class Classify, class Visit>
std::size_t scan_blocks(std::string_view text, std::size_t at, bool last, const Classify& classify,
                        ScanState& state, Visit&& visit) {
    const char* const data = text.data();
    const std::size_t size = text.size();
    std::size_t block = at;
    for (; last ? block <= size : block + 64 <= size; block += 64) {
        BlockTokens tokens;
        if (block + 64 <= size) {
            tokens = classify(data + block, state.carries);
        } else {
            char tail[64]; // past the end reads as whitespace, which ends the last token
            std::memset(tail, ' ', sizeof tail);
            std::memcpy(tail, data + block, size - block);
            tokens = classify(tail, state.carries);
        }
        for (std::uint64_t left = tokens.visits; left != 0; left &= left - 1) {
            const unsigned bit = static_cast<unsigned>(std::countr_zero(left));
            const std::uint64_t starts_before = tokens.starts & ((std::uint64_t{1} << bit) - 1);
            const std::size_t start =
                starts_before != 0
                    ? block + 63 - static_cast<std::size_t>(std::countl_zero(starts_before))
                    : state.open_start;
            visit(text.substr(start, block + bit - start), ((tokens.marked >> bit) & 1) != 0);
        }
        if (tokens.starts != 0)
            state.open_start =
                block + 63 - static_cast<std::size_t>(std::countl_zero(tokens.starts));
    }
    return block;
}

// Where the plan's text comes from: a view of it whole, or its file read a piece at a time into
// one buffer that keeps only the token still open at the end of a piece. A plan of any size is
// then counted in a buffer about the size of two pieces (more only for a longer token), and the
// bytes are classified while the read has left them in the cache. A piece is what
// os::read_size_for gives for the plan's size, as the transcript reader sizes its reads.
class PlanText {
public:
    explicit PlanText(std::string_view whole) : whole_(whole) {}
    PlanText(os::File file, std::uint64_t size)
        : file_(std::move(file)), piece_(os::read_size_for(size)) {}

    // Scans the whole text; false when the file could not be read or held more than `max_bytes`
    // (what was visited before then is to be dropped).
    template <class Classify, class Visit>
    bool scan(const Classify& classify, Visit&& visit, std::size_t max_bytes) {
        ScanState state;
        if (!file_) {
            scan_blocks(whole_, 0, true, classify, state, visit);
            return true;
        }
        const std::size_t piece = piece_;
        // malloc'd, so that growing it is a realloc: a large block grows where it lies (a page
        // remap) instead of being copied beside itself.
        struct Buffer {
            char* data = nullptr;
            std::size_t room = 0;
            ~Buffer() { std::free(data); }
            bool grow_to(std::size_t size) {
                char* const moved = static_cast<char*>(std::realloc(data, size));
                if (moved == nullptr) return false;
                data = moved;
                room = size;
                return true;
            }
        } buffer;
        if (!buffer.grow_to(2 * piece)) return false;
        std::size_t filled = 0; // bytes of the buffer that hold text
        std::size_t at = 0;     // the first of them not scanned yet
        std::uint64_t total = 0;
        for (;;) {
            // A token longer than the buffer doubles it, never past what the read bound can
            // fill: a plan of one 64 MiB token is held once, as a whole read would hold it.
            if (buffer.room - filled < piece &&
                !buffer.grow_to(std::min(2 * buffer.room, max_bytes + 2 * piece)))
                return false;
            const long got = file_.read_some(buffer.data + filled, buffer.room - filled);
            if (got < 0) return false;
            total += static_cast<std::uint64_t>(got);
            if (total > max_bytes) return false;
            filled += static_cast<std::size_t>(got);
            const std::string_view text(buffer.data, filled);
            at = scan_blocks(text, at, got == 0, classify, state, visit);
            if (got == 0) return true;
            // Keep the bytes not scanned yet and the token still open before them.
            const std::size_t keep = state.inside() ? std::min(state.open_start, at) : at;
            std::memmove(buffer.data, buffer.data + keep, filled - keep);
            filled -= keep;
            at -= keep;
            state.open_start -= std::min(state.open_start, keep);
        }
    }

private:
    std::string_view whole_;
    os::File file_;
    std::size_t piece_ = 0;
};

// Copies of spellings, kept in large blocks: one allocation for many short spellings.
class SpellingArena {
public:
    std::string_view keep(std::string_view spelling) {
        if (spelling.size() > left_) {
            const std::size_t size = std::max(block_size, spelling.size());
            blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
            next_ = blocks_.back().get();
            left_ = size;
        }
        std::memcpy(next_, spelling.data(), spelling.size());
        const std::string_view kept(next_, spelling.size());
        next_ += spelling.size();
        left_ -= spelling.size();
        return kept;
    }

private:
    static constexpr std::size_t block_size = std::size_t{64} << 10;
    std::vector<std::unique_ptr<char[]>> blocks_;
    char* next_ = nullptr;
    std::size_t left_ = 0;
};

// A set of spellings: open addressing, each slot keeping its spelling's hash so that a probe
// compares bytes only on a full hash match, and no allocation per spelling. A spelling is held as
// a view, into text that outlives the set or, with an arena, into the arena's copy of it. Prose
// repeats its words, so nearly every token of a long plan ends here after one hash and one probe.
class SpellingSet {
public:
    // Holds at most `bound` spellings; room for about `expected` of them before it first grows.
    // With `arena`, each spelling added is copied there first.
    SpellingSet(std::size_t bound, std::size_t expected, SpellingArena* arena = nullptr)
        : bound_(bound), arena_(arena), bits_(bits_for(std::min(bound, expected))),
          slots_(fresh_slots(std::size_t{1} << bits_)) {}

    // True when `spelling` (never empty) is held; else adds it, while fewer than the bound are
    // held, and returns false.
    bool seen(std::string_view spelling) {
        const Probe probe = find(spelling);
        if (probe.found) return true;
        add_at(probe, spelling);
        return false;
    }

    // Where a spelling is held, or would be added: valid until the next addition.
    struct Probe {
        std::size_t slot;
        std::uint64_t hash;
        bool found;
    };
    Probe find(std::string_view spelling) const {
        const std::uint64_t hash = hash_of(spelling);
        const std::uint32_t high = high_half(hash);
        for (std::size_t i = home_of(high);; i = (i + 1) & mask_) {
            const Slot& slot = slots_[i];
            if (slot.data == nullptr) return {i, hash, false};
            if (slot.hash == high && slot.text() == spelling) return {i, hash, true};
        }
    }

    // Adds `spelling` where find() said it was not held (nothing added since), while fewer than
    // the bound are held. `spelling` may be another copy of the bytes find() was given.
    void add_at(const Probe& probe, std::string_view spelling) {
        if (held_ >= bound_) return;
        const std::string_view kept = arena_ != nullptr ? arena_->keep(spelling) : spelling;
        slots_[probe.slot] =
            Slot{kept.data(), static_cast<std::uint32_t>(kept.size()), high_half(probe.hash)};
        if (++held_ * 4 > 3 * mask_) grow();
    }

private:
    // 16 bytes: a plan's tokens and paths are far shorter than 4 GiB (plan_read_limit), and
    // the hash's high half both places a spelling (the slot index is its top bits) and screens a
    // probe before any byte is compared.
    struct Slot {
        const char* data = nullptr; // null: an empty slot
        std::uint32_t size = 0;
        std::uint32_t hash = 0;

        std::string_view text() const { return {data, size}; }
    };
    static std::uint32_t high_half(std::uint64_t hash) {
        return static_cast<std::uint32_t>(hash >> 32);
    }
    std::size_t home_of(std::uint32_t hash) const { return hash >> (32 - bits_); }

    static std::uint64_t load8(const char* at) {
        std::uint64_t word;
        std::memcpy(&word, at, sizeof word);
        return word;
    }
    static std::uint64_t load4(const char* at) {
        std::uint32_t word;
        std::memcpy(&word, at, sizeof word);
        return word;
    }
    static std::uint64_t mix(std::uint64_t hash, std::uint64_t word) {
        hash = (hash ^ word) * 0x9E3779B97F4A7C15ull;
        return hash ^ (hash >> 32);
    }
    // Fixed-size loads only, the last one overlapping the one before: a copy of a token's length
    // would stall on the store it reads back, and a hash a byte at a time is a multiply per byte.
    static std::uint64_t hash_of(std::string_view token) {
        const char* const at = token.data();
        const std::size_t size = token.size();
        std::uint64_t hash = size;
        if (size >= 8) {
            for (std::size_t i = 0; i + 8 < size; i += 8) hash = mix(hash, load8(at + i));
            hash = mix(hash, load8(at + size - 8));
        } else if (size >= 4) {
            hash = mix(hash, (load4(at) << 32) | load4(at + size - 4));
        } else {
            hash = mix(hash, (std::uint64_t{static_cast<unsigned char>(at[0])} << 16) |
                                 (std::uint64_t{static_cast<unsigned char>(at[size / 2])} << 8) |
                                 static_cast<unsigned char>(at[size - 1]));
        }
        return hash * 0xFF51AFD7ED558CCDull;
    }

    void grow() {
        std::vector<Slot> old = fresh_slots(std::size_t{1} << ++bits_);
        old.swap(slots_);
        mask_ = slots_.size() - 1;
        for (const Slot& slot : old) {
            if (slot.data == nullptr) continue;
            std::size_t i = home_of(slot.hash);
            while (slots_[i].data != nullptr) i = (i + 1) & mask_;
            slots_[i] = slot;
        }
    }

    // `count` empty slots, their memory taken in one call where the OS allows (os::expect_writes)
    // rather than a page fault for each 4 KiB as they are cleared.
    static std::vector<Slot> fresh_slots(std::size_t count) {
        std::vector<Slot> slots;
        slots.reserve(count);
        os::expect_writes(reinterpret_cast<char*>(slots.data()), count * sizeof(Slot),
                          slots.capacity() * sizeof(Slot));
        slots.resize(count);
        return slots;
    }

    // Slots for `spellings` at most three quarters full (as add_at keeps them): 2^10 at least,
    // 2^20 at most (past that it grows). Fuller than half: a table of 5,000 counted files is
    // 128 KiB rather than 256, each page of it a fault on a short call.
    static unsigned bits_for(std::size_t spellings) {
        unsigned bits = 10;
        while (bits < 20 && 3 * (std::size_t{1} << bits) < 4 * spellings) ++bits;
        return bits;
    }

    std::size_t bound_;
    SpellingArena* arena_;
    std::size_t held_ = 0;
    unsigned bits_;
    std::vector<Slot> slots_;
    std::size_t mask_ = slots_.size() - 1;
};

// Wrapping a plan puts around a path: backticks, quotes, parentheses and brackets (round, square,
// curly and the angle brackets of a markdown autolink). Pipes are never stripped, so a table cell
// `|src/a.ts|` stays one token, as the original counter read it.
constexpr bool is_opener(char c) {
    return c == '`' || c == '"' || c == '\'' || c == '(' || c == '[' || c == '{' || c == '<';
}
constexpr bool is_closer(char c) {
    return c == '`' || c == '"' || c == '\'' || c == ')' || c == ']' || c == '}' || c == '>' ||
           c == '.' || c == ',' || c == ';' || c == ':';
}

// Per byte: 1 when it opens wrapping, 2 when it closes it.
constexpr std::array<std::uint8_t, 256> wrapping_bytes = [] {
    std::array<std::uint8_t, 256> table{};
    for (std::size_t byte = 0; byte < table.size(); ++byte) {
        const char c = static_cast<char>(byte);
        table[byte] = static_cast<std::uint8_t>((is_opener(c) ? 1 : 0) | (is_closer(c) ? 2 : 0));
    }
    return table;
}();

std::string_view strip_wrapping(std::string_view token) {
    const auto wraps = [](char c, std::uint8_t side) {
        return (wrapping_bytes[static_cast<unsigned char>(c)] & side) != 0;
    };
    while (!token.empty() && wraps(token.front(), 1)) token.remove_prefix(1);
    while (!token.empty() && wraps(token.back(), 2)) token.remove_suffix(1);
    return token;
}

// `scheme://…`: a link, never a repository file.
bool is_url(std::string_view token) {
    const std::size_t at = token.find("://");
    if (at == std::string_view::npos || at == 0) return false;
    if (!ascii::is_alpha(token[0])) return false;
    for (std::size_t i = 1; i < at; ++i) {
        const char c = token[i];
        if (!(ascii::is_alnum(c) || c == '+' || c == '-' || c == '.')) return false;
    }
    return true;
}

// A `/`, and after the last one a `.` followed by 1 to 10 characters to the end.
bool is_path_shaped(std::string_view token) {
    const std::size_t slash = token.rfind('/');
    if (slash == std::string_view::npos) return false;
    const std::string_view name = token.substr(slash + 1);
    // The last dot leaves the shortest extension, and wrapping stripped no name ends in a dot
    // (an earlier dot only leaves a longer one).
    const std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos) return false;
    const std::size_t extension = name.size() - dot - 1;
    if (extension == 0) return false;
    return extension <= 10;
}

// Whether `token` holds a name byte: either separator, a `:` (a drive, a URL, a Windows stream), a
// `~` (a Windows short name) or any non-ASCII byte (a name that case folding or Unicode
// normalization may match in another spelling). Without one it is a bare name.
bool has_name_byte(std::string_view token) {
    for (const char c : token) {
        if (c == '/' || c == '\\' || c == ':' || c == '~' || static_cast<unsigned char>(c) >= 0x80)
            return true;
    }
    return false;
}

// A relative path that canonical() and the checks after it would leave as it is: no backslash, no
// colon (so no drive and no URL), and every `/`-separated segment neither empty, `.`, `..` nor
// `.temp`.
bool is_plain_relative(std::string_view token) {
    if (token.empty() || token.front() == '/') return false;
    std::size_t segment = 0; // where the current segment starts
    for (std::size_t at = 0; at <= token.size(); ++at) {
        const char c = at < token.size() ? token[at] : '/';
        if (c == '\\' || c == ':') return false;
        if (c != '/') continue;
        const std::string_view part = token.substr(segment, at - segment);
        if (part.empty() || part == "." || part == ".." || part == ".temp") return false;
        segment = at + 1;
    }
    return true;
}

// The one canonical spelling of a token already in Git Bash's spelling: absolute (a relative path
// is taken against `root`, itself canonical), lexically normal.
std::string canonical(std::string_view spelling, std::string_view root) {
    if (spelling.starts_with('/')) return paths::lexically_normal(spelling);
    std::string absolute;
    absolute.reserve(root.size() + 1 + spelling.size());
    absolute += root;
    absolute += '/';
    absolute += spelling;
    return paths::lexically_normal(absolute);
}

// Strictly below the root: the root itself is a directory, never a file the plan names.
bool is_under(std::string_view canonical_path, std::string_view root) {
    if (root == "/") return canonical_path.size() > 1;
    return canonical_path.size() > root.size() + 1 &&
           canonical_path.substr(0, root.size()) == root && canonical_path[root.size()] == '/';
}

} // namespace

namespace {

// The names directly under the root, kept as a filter: a bare name (a token with no name byte
// once its wrapping is stripped) whose key is not held names no file under the root on any file
// system that matches ASCII names exactly or case-insensitively. One listing of the root
// replaces a stat for nearly every distinct word of the plan. The filter stands aside (holds
// everything) when the root cannot be listed, holds more than `max_names` entries, or holds a
// name with a non-ASCII character, which Unicode case folding could match from an ASCII
// spelling.
class RootNames {
public:
    explicit RootNames(const std::string& root) {
        const std::optional<std::vector<std::string>> names = os::directory_names(root, max_names);
        if (!names) return;
        for (const std::string& name : *names) {
            if (name.empty()) return;
            for (const char c : name)
                if (static_cast<unsigned char>(c) >= 0x80) return; // UTF-8: not ASCII
            keys_[key(name)] = true;
            firsts_[folded(name.front())] = true;
            lasts_[folded(name.back())] = true;
        }
        usable_ = true;
    }

    // True when no entry of the root can be `name` (never empty).
    bool excludes(std::string_view name) const { return usable_ && !keys_[key(name)]; }

    // The class of each byte (scan_blocks): whether it wraps a token, and whether an entry's
    // name may open or close with it (every byte may when the filter stands aside).
    ByteClasses classes() const {
        ByteClasses table{};
        for (std::size_t byte = 0; byte < table.size(); ++byte) {
            const char c = static_cast<char>(byte);
            std::uint8_t cls = 0;
            if (!usable_ || firsts_[folded(c)]) cls |= may_open_name;
            if (!usable_ || lasts_[folded(c)]) cls |= may_close_name;
            if (is_opener(c)) cls |= wraps_start;
            if (is_closer(c)) cls |= wraps_end;
            table[byte] = cls;
        }
        return table;
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

    std::bitset<std::size_t{1} << 16> keys_;
    std::bitset<64> firsts_; // the folded first bytes of the entries' names
    std::bitset<64> lasts_;  // ... and their last bytes
    bool usable_ = false;
};

// The tally of `files` (in first-seen order), each spelled by `spell` as a std::string: how many,
// and the first listed_files of them, each cut to listed_characters.
template <class Files, class Spell> FileTally tally_from(const Files& files, Spell spell) {
    FileTally tally{files.size(), {}};
    for (std::size_t i = 0; i < files.size() && i < listed_files; ++i)
        tally.first.push_back(spell(files[i]).substr(0, listed_characters));
    return tally;
}

// The files a plan names, judged one distinct spelling at a time.
class FileCount {
public:
    // `plan_bytes` sizes the sets: a long plan names more distinct files, about one in 400 bytes
    // in prose that names a path a line. The judged set holds only the rest (bare words the
    // listing lets through, spellings other than a plain relative path): far fewer, and it grows.
    FileCount(const std::string& root, const std::string& plan_path, std::size_t plan_bytes)
        // The root is absolute (the git top level or cwd); canonical() gives it the tokens'
        // spelling.
        : root_names_(root), root_(canonical(paths::git_bash_spelling(root), std::string())),
          own_path_(canonical(paths::git_bash_spelling(plan_path), root_)),
          judged_(disk_lookup_limit, plan_bytes / 4000, &judged_spellings_),
          counted_(std::numeric_limits<std::size_t>::max(), plan_bytes / 400) {
        // Room for the files expected, taken only as they come: growing the list would copy it
        // into fresh pages at each doubling.
        files_.reserve(plan_bytes / 400);
    }

    // A token of the plan (scan_blocks; `marked` when it may hold a name byte): counted
    // when it names a repository file not counted yet. Words and paths repeat throughout a plan:
    // each spelling is judged once, and each bare word is looked up on disk once. A bare name
    // (a token with no name byte once its wrapping is stripped) that the root's listing
    // excludes names no file, and takes no hash and no lookup. Past the bound a spelling not
    // yet held is judged again each time it comes (a cost per byte, still linear) instead of
    // growing the set.
    void take(std::string_view token, bool marked) {
        token = strip_wrapping(token);
        if (token.empty()) return;
        if (settle_by_listing_ && !(marked && has_name_byte(token)) && root_names_.excludes(token))
            return;
        // A path such as `src/a.ts`, path-shaped and already in its one spelling, counts whatever
        // the disk holds, and it is the key of its own file in the counted set: that set is its
        // memo too, so it takes one probe and no copy until it counts.
        if (plain_paths_count_ && token.size() <= memo_bytes && is_plain_relative(token) &&
            is_path_shaped(token)) {
            const SpellingSet::Probe probe = counted_.find(token);
            if (probe.found || token == own_below_root_) return;
            add_file(probe, token);
            return;
        }
        // A spelling past memo_bytes is judged each time it comes, not copied into the memo: a
        // cost per byte, still linear, and a plan of huge tokens is not held twice.
        if (token.size() > memo_bytes || !judged_.seen(token)) judge(token);
    }

    ByteClasses byte_classes() const { return root_names_.classes(); }

    // Judges every token, bare names the listing excludes included (the test oracle).
    void judge_every_token() { settle_by_listing_ = false; }

    std::vector<std::string> files() const {
        std::vector<std::string> all;
        all.reserve(files_.size());
        for (const std::string_view file : files_) all.push_back(absolute(file));
        return all;
    }

    // The count, and the first files as the refusal shows them (each cut to listed_characters).
    FileTally tally() const {
        return tally_from(files_, [this](std::string_view file) { return absolute(file); });
    }

private:
    void judge(std::string_view token) {
        bool path_shaped;
        std::string& path = path_; // one buffer for every judged token
        if (is_plain_relative(token) && root_ != "/") {
            // A path such as `src/a.ts` already in its one spelling: the canonical form is the
            // root and the token joined, below the root by construction.
            if (root_has_temp_) return;
            path_shaped = is_path_shaped(token);
            if (!join_to_root(token)) return;
        } else {
            if (is_url(token)) return;
            const std::string spelling = paths::git_bash_spelling(token);
            path_shaped = is_path_shaped(spelling);
            path = canonical(spelling, root_);
            if (!is_under(path, root_) || paths::has_temp_segment(path) || path == own_path_)
                return;
        }
        // Counted files are all under the root: the set holds them by the part after it.
        const std::string_view below_root = std::string_view(path).substr(under_root_);
        const SpellingSet::Probe probe = counted_.find(below_root);
        if (probe.found) return;
        if (!path_shaped) {
            // Only a stat tells a bare `Makefile` from an ordinary word; a plan of millions of
            // words gets a bounded number of them (docs/plan-gate.md, "File limit").
            if (looked_up_.size() >= disk_lookup_limit) return;
            // No file system names a file with a path this long (Windows allows 32,767 UTF-16
            // units, POSIX systems far fewer): it is no file, with no lookup.
            if (path.size() > longest_path) return;
            if (!looked_up_.insert(path).second || path.find('\0') != std::string::npos) return;
            if (!is_regular_file(path)) return;
        }
        add_file(probe, below_root);
    }

    // path_ = the root and a plain relative `token` joined; false when that is the plan itself.
    bool join_to_root(std::string_view token) {
        path_.assign(root_);
        path_ += '/';
        path_ += token;
        return path_ != own_path_;
    }

    // Counts the file at `below_root` (a canonical path's part under the root) that
    // counted_.find said was not counted yet (the probe). Only that part is copied: the root
    // before it is the same for every file.
    void add_file(const SpellingSet::Probe& probe, std::string_view below_root) {
        const std::string_view kept = counted_paths_.keep(below_root);
        files_.push_back(kept);
        counted_.add_at(probe, kept);
    }

    // The absolute path of a counted file.
    std::string absolute(std::string_view below_root) const {
        std::string path(std::string_view(root_).substr(0, under_root_ - 1));
        path += '/';
        path += below_root;
        return path;
    }

    static constexpr std::size_t memo_bytes = 4096;
    static constexpr std::size_t longest_path = 32767 * 3; // UTF-16 units as UTF-8 bytes, at most

    const RootNames root_names_;
    bool settle_by_listing_ = true;
    const std::string root_;
    const bool root_has_temp_ = paths::has_temp_segment(root_);
    // Whether a plain relative path-shaped token counts as the root and itself joined (take).
    const bool plain_paths_count_ = root_ != "/" && !root_has_temp_;
    const std::string own_path_;
    // Where a path under the root starts its part below the root.
    const std::size_t under_root_ = root_ == "/" ? 1 : root_.size() + 1;
    // The plan's own path below the root; empty (no token) when it is not under the root.
    const std::string own_below_root_ =
        is_under(own_path_, root_) ? own_path_.substr(under_root_) : std::string();
    // The tokens judged: copies, since a plan read a piece at a time does not keep its text.
    SpellingArena judged_spellings_;
    SpellingSet judged_;
    std::unordered_set<std::string> looked_up_;
    std::string path_;
    // The files counted, in first-seen order, as views of their copies in the arena.
    SpellingArena counted_paths_;
    std::vector<std::string_view> files_;
    SpellingSet counted_;
};

} // namespace

namespace detail {

bool classifier_supported(Classifier classifier) {
    switch (classifier) {
    case Classifier::portable:
    case Classifier::best:
    case Classifier::every_token:
        return true;
    case Classifier::avx2:
        return VIBER_SIMD_WIDE != 0 && cpu::has_avx2();
    case Classifier::avx512:
        return VIBER_SIMD_WIDE != 0 && cpu::has_avx512bw();
    }
    return false;
}

namespace {

// Counts into `count` the files `text` names, with a chosen classifier; false when its file
// cannot be read whole.
bool scan_into(FileCount& count, Classifier classifier, PlanText& text) {
    ByteClasses classes = count.byte_classes();
    if (classifier == Classifier::every_token) {
        count.judge_every_token();
        for (std::uint8_t& cls : classes) cls |= may_open_name | may_close_name;
    }
    const auto take = [&count](std::string_view token, bool marked) { count.take(token, marked); };
#if VIBER_SIMD_WIDE
    if ((classifier == Classifier::avx512 || classifier == Classifier::best) &&
        classifier_supported(Classifier::avx512)) {
        const NibbleTables tables(classes);
        return text.scan(Avx512Classifier{tables}, take, plan_read_limit);
    }
    if ((classifier == Classifier::avx2 || classifier == Classifier::best ||
         classifier == Classifier::avx512) &&
        classifier_supported(Classifier::avx2)) {
        const NibbleTables tables(classes);
        return text.scan(Avx2Classifier{tables}, take, plan_read_limit);
    }
#endif
    return text.scan(PortableClassifier{classes}, take, plan_read_limit);
}

// The plan file at `plan_path`, opened for a count: nullopt when it is not a regular file or is
// already past the read bound (nothing is read then); `size` is its length now.
std::optional<PlanText> open_plan(const std::string& plan_path, std::size_t& size) {
    os::File file = os::File::open_regular(plan_path);
    if (!file) return std::nullopt;
    const std::uint64_t bytes = file.size().value_or(0);
    if (bytes > plan_read_limit) return std::nullopt;
    size = static_cast<std::size_t>(bytes);
    return PlanText(std::move(file), bytes);
}

} // namespace

std::vector<std::string> plan_files_with(Classifier classifier, std::string_view plan_text,
                                         const std::string& root, const std::string& plan_path) {
    PlanText text(plan_text);
    FileCount count(root, plan_path, plan_text.size());
    scan_into(count, classifier, text); // a text held whole is always read whole
    return count.files();
}

std::optional<std::vector<std::string>>
plan_file_files_with(Classifier classifier, const std::string& plan_path, const std::string& root) {
    std::size_t size = 0;
    std::optional<PlanText> text = open_plan(plan_path, size);
    if (!text) return std::nullopt;
    FileCount count(root, plan_path, size);
    if (!scan_into(count, classifier, *text)) return std::nullopt;
    return count.files();
}

} // namespace detail

std::vector<std::string> plan_files(std::string_view plan_text, const std::string& root,
                                    const std::string& plan_path) {
    return detail::plan_files_with(detail::Classifier::best, plan_text, root, plan_path);
}

std::optional<std::vector<std::string>> plan_file_files(const std::string& plan_path,
                                                        const std::string& root) {
    return detail::plan_file_files_with(detail::Classifier::best, plan_path, root);
}

FileTally plan_tally(std::string_view plan_text, const std::string& root,
                     const std::string& plan_path) {
    PlanText text(plan_text);
    FileCount count(root, plan_path, plan_text.size());
    detail::scan_into(count, detail::Classifier::best, text);
    return count.tally();
}

std::optional<FileTally> plan_file_tally(const std::string& plan_path, const std::string& root) {
    std::size_t size = 0;
    std::optional<PlanText> text = detail::open_plan(plan_path, size);
    if (!text) return std::nullopt;
    FileCount count(root, plan_path, size);
    if (!detail::scan_into(count, detail::Classifier::best, *text)) return std::nullopt;
    return count.tally();
}

FileTally tally_of(const std::vector<std::string>& files) {
    return tally_from(files, [](const std::string& file) { return file; });
}

std::optional<std::string> file_limit_refusal(const std::vector<std::string>& files,
                                              std::string_view plan_name) {
    return file_limit_refusal(tally_of(files), plan_name);
}

std::optional<std::string> file_limit_refusal(const FileTally& files, std::string_view plan_name) {
    if (files.count <= plain_plan_file_limit) return std::nullopt;
    std::string reason =
        "Next step: narrow the plan. The plain plan " + std::string(plan_name) + " names " +
        std::to_string(files.count) + " repository files; the limit for a plain plan is " +
        std::to_string(plain_plan_file_limit) + ". Files counted (absolute paths):";
    std::size_t listed = 0;
    std::size_t characters = 0;
    for (; listed < files.first.size() && listed < listed_files && characters < listed_characters;
         ++listed) {
        const std::string_view file =
            std::string_view(files.first[listed]).substr(0, listed_characters);
        reason += "\n- ";
        reason += file;
        characters += file.size();
    }
    if (files.count > listed) {
        reason += "\n(and " + std::to_string(files.count - listed) + " more)";
    }
    reason += "\nTo go on, cut the plan to at most " + std::to_string(plain_plan_file_limit) +
              " files (split the rest into a later plan), or plan it with the viber planner, "
              "whose review set is built for large plans. No review PASS overrides this limit, "
              "a plain-plan-review PASS included. " +
              std::string(plain_gate_trailer);
    return reason;
}

} // namespace viber::plan_gate
