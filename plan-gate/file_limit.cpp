// file_limit.cpp: the plain plan file limit (docs/plan-gate.md, step 3).
//
// A plain plan is reviewed by one plain-plan-review pass; past 8 files that review cannot hold
// the whole change, so the gate refuses before any review and points to the viber planner, whose
// review set is built for large plans. The count is lexical (a token that looks like a path) with
// one fallback to the file system (a bare name such as `Makefile` that exists under the root).
#include "plan-gate/file_limit.hpp"

#include "common/ascii.hpp"
#include "common/files.hpp"
#include "common/paths.hpp"
#include "plan-gate/reasons.hpp"

#include <bit>
#include <bitset>
#include <boost/filesystem/directory.hpp>
#include <boost/filesystem/path.hpp>
#include <cstdint>
#include <cstring>
#include <deque>
#include <iterator>
#include <limits>
#include <type_traits>
#include <unordered_set>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace viber::plan_gate {

namespace {

// The refusal lists at most this many files: past it the plan is far over the limit and the
// list would only bury the next step.
constexpr std::size_t listed_files = 40;
// ... and at most this many characters of them: a path can be as long as a token.
constexpr std::size_t listed_characters = 6000;

// The plan splits into tokens at whitespace (ascii::is_space) 64 bytes at a time: a mask of the
// block's whitespace bytes (SSE2 compares on x86-64, else 8 bytes at a time with
// ascii::space_bytes) gives every token edge by counting zeros. A branch on each byte would
// mispredict at every edge, two or three times a word. A second mask marks the bytes after which a
// token may be a path or an unusual name (below, "name bytes"), so that most prose words are
// settled with no look at their bytes at all.

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

// Calls `visit(token, has_name_byte)` with each maximal run of non-whitespace bytes of `text`, in
// order; `has_name_byte` says whether the token holds a name byte.
template <class Visit> void for_each_token(std::string_view text, Visit&& visit) {
    const std::size_t size = text.size();
    bool inside = false; // in a token: the byte before the current one is not whitespace
    std::size_t start = 0;
    std::size_t name_end = 0; // one past the last name byte of the blocks before this one, or 0
    for (std::size_t block = 0; block < size; block += 64) {
        BlockMasks masks;
        if (block + 64 <= size) {
            masks = masks_of(text.data() + block);
        } else {
            char tail[64]; // past the end reads as whitespace, which ends the last token
            std::memset(tail, ' ', sizeof tail);
            std::memcpy(tail, text.data() + block, size - block);
            masks = masks_of(tail);
        }
        // An edge is a byte whose class (whitespace or not) differs from the one before it: a
        // token's first byte or the whitespace byte just past its end, alternately.
        std::uint64_t edges = masks.spaces ^ ((masks.spaces << 1) | (inside ? 0u : 1u));
        while (edges != 0) {
            const unsigned bit = static_cast<unsigned>(std::countr_zero(edges));
            const std::size_t at = block + bit;
            edges &= edges - 1;
            if (inside) {
                // The last name byte before the token's end, in this block or an earlier one.
                const std::uint64_t before = masks.names & ((std::uint64_t{1} << bit) - 1);
                const std::size_t last_end =
                    before != 0 ? block + 64 - static_cast<std::size_t>(std::countl_zero(before))
                                : name_end;
                visit(text.substr(start, at - start), last_end > start);
            } else {
                start = at;
            }
            inside = !inside;
        }
        if (masks.names != 0)
            name_end = block + 64 - static_cast<std::size_t>(std::countl_zero(masks.names));
    }
    if (inside) visit(text.substr(start), name_end > start);
}

// A set of spellings, as views into text that outlives it: open addressing, each slot keeping its
// spelling's hash so that a probe compares bytes only on a full hash match, and no allocation per
// spelling. Prose repeats its words, so nearly every token of a long plan ends here after one hash
// and one probe.
class SpellingSet {
public:
    // Holds at most `bound` spellings.
    explicit SpellingSet(std::size_t bound) : bound_(bound), slots_(std::size_t{1} << bits_) {}

    // True when `spelling` (never empty) is held; else adds it, while fewer than the bound are
    // held, and returns false.
    bool seen(std::string_view spelling) {
        const std::uint64_t hash = hash_of(spelling);
        for (std::size_t i = hash >> (64 - bits_);; i = (i + 1) & mask_) {
            Slot& slot = slots_[i];
            if (slot.text.empty()) {
                if (held_ >= bound_) return false;
                slot = Slot{spelling, hash};
                if (++held_ * 2 > mask_) grow();
                return false;
            }
            if (slot.hash == hash && equal(slot.text, spelling)) return true;
        }
    }

    // Adds `spelling` (never empty) while fewer than the bound are held.
    void add(std::string_view spelling) { static_cast<void>(seen(spelling)); }

    bool holds(std::string_view spelling) const {
        const std::uint64_t hash = hash_of(spelling);
        for (std::size_t i = hash >> (64 - bits_);; i = (i + 1) & mask_) {
            const Slot& slot = slots_[i];
            if (slot.text.empty()) return false;
            if (slot.hash == hash && equal(slot.text, spelling)) return true;
        }
    }

private:
    struct Slot {
        std::string_view text;
        std::uint64_t hash = 0;
    };

    // For two spellings of one hash. Up to 8 bytes the hash is one-to-one for a given length:
    // equal lengths are equal spellings, with no byte compare.
    static bool equal(std::string_view held, std::string_view spelling) {
        return held.size() == spelling.size() && (spelling.size() <= 8 || held == spelling);
    }

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
    // Up to 8 bytes the one mixed word holds every byte of the spelling and every step after is
    // invertible, so two spellings of one length up to 8 share a hash only when they are equal.
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
        std::vector<Slot> old(std::size_t{1} << ++bits_);
        old.swap(slots_);
        mask_ = slots_.size() - 1;
        for (const Slot& slot : old) {
            if (slot.text.empty()) continue;
            std::size_t i = slot.hash >> (64 - bits_);
            while (!slots_[i].text.empty()) i = (i + 1) & mask_;
            slots_[i] = slot;
        }
    }

    std::size_t bound_;
    std::size_t held_ = 0;
    unsigned bits_ = 10;
    std::vector<Slot> slots_;
    std::size_t mask_ = slots_.size() - 1;
};

// Wrapping a plan puts around a path: backticks, quotes, parentheses and brackets (round, square,
// curly and the angle brackets of a markdown autolink). Pipes are never stripped, so a table cell
// `|src/a.ts|` stays one token, as the original counter read it.
bool is_opener(char c) {
    return c == '`' || c == '"' || c == '\'' || c == '(' || c == '[' || c == '{' || c == '<';
}
bool is_closer(char c) {
    return c == '`' || c == '"' || c == '\'' || c == ')' || c == ']' || c == '}' || c == '>' ||
           c == '.' || c == ',' || c == ';' || c == ':';
}

std::string_view strip_wrapping(std::string_view token) {
    while (!token.empty() && is_opener(token.front())) token.remove_prefix(1);
    while (!token.empty() && is_closer(token.back())) token.remove_suffix(1);
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

// The names directly under the root, kept as a filter: a plain name (a token with no name byte
// and no wrapping) whose key is not held names no file under the root on any file system that
// matches ASCII names exactly or case-insensitively. One listing of the root replaces a stat for
// nearly every distinct word of the plan. The filter stands aside (holds everything) when the
// root cannot be listed, holds more than `max_names` entries, or holds a name with a non-ASCII
// character, which Unicode case folding could match from an ASCII spelling.
class RootNames {
public:
    explicit RootNames(const std::string& root) {
        namespace fs = boost::filesystem;
        boost::system::error_code error;
        fs::directory_iterator entry(fs::path(root), error);
        std::size_t listed = 0;
        for (; !error && entry != fs::directory_iterator(); entry.increment(error)) {
            const fs::path filename = entry->path().filename();
            const fs::path::string_type& name = filename.native();
            if (name.empty() || ++listed > max_names) return;
            std::string ascii;
            for (const auto unit : name) {
                if (static_cast<std::make_unsigned_t<fs::path::value_type>>(unit) >= 0x80) return;
                ascii += static_cast<char>(unit);
            }
            keys_[key(ascii)] = true;
        }
        usable_ = !error;
    }

    // True when no entry of the root can be `name` (never empty).
    bool excludes(std::string_view name) const { return usable_ && !keys_[key(name)]; }

private:
    static constexpr std::size_t max_names = 4096;

    // The length (modulo 16) and the first and last bytes with ASCII case folded (and then cut
    // to 6 bits): spellings that one file system may match share a key.
    static std::size_t key(std::string_view name) {
        const auto folded = [](char c) {
            return static_cast<std::size_t>((static_cast<unsigned char>(c) | 0x20) & 0x3f);
        };
        return ((name.size() & 15) << 12) | (folded(name.front()) << 6) | folded(name.back());
    }

    std::bitset<std::size_t{1} << 16> keys_;
    bool usable_ = false;
};

// The files a plan names, judged one distinct spelling at a time.
class FileCount {
public:
    FileCount(const std::string& root, const std::string& plan_path)
        // The root is absolute (the git top level or cwd); canonical() gives it the tokens'
        // spelling.
        : root_names_(root), root_(canonical(paths::git_bash_spelling(root), std::string())),
          own_path_(canonical(paths::git_bash_spelling(plan_path), root_)) {}

    // A token of the plan: counted when it names a repository file not counted yet. Words and
    // paths repeat throughout a plan: each spelling is judged once, and each bare word is looked
    // up on disk once. Past the bound a spelling not yet held is judged again each time it comes
    // (a cost per byte, still linear) instead of growing the set.
    // True for a plain name (a token with no name byte and no wrapping: most words of any plan)
    // that no entry of the root can be: it names no file, with no hash and no lookup.
    bool plainly_absent(std::string_view token, bool has_name_byte) const {
        return !has_name_byte && !is_opener(token.front()) && !is_closer(token.back()) &&
               root_names_.excludes(token);
    }

    void take(std::string_view token) {
        token = strip_wrapping(token);
        if (!token.empty() && !judged_.seen(token)) judge(token);
    }

    std::vector<std::string> files() && {
        return {std::make_move_iterator(files_.begin()), std::make_move_iterator(files_.end())};
    }

private:
    void judge(std::string_view token) {
        bool path_shaped;
        std::string path;
        if (is_plain_relative(token) && root_ != "/") {
            // The common case, a path such as `src/a.ts` already in its one spelling: the
            // canonical form is the root and the token joined, below the root by construction.
            if (root_has_temp_) return;
            path_shaped = is_path_shaped(token);
            path.reserve(root_.size() + 1 + token.size());
            path += root_;
            path += '/';
            path += token;
            if (path == own_path_) return;
        } else {
            if (is_url(token)) return;
            const std::string spelling = paths::git_bash_spelling(token);
            path_shaped = is_path_shaped(spelling);
            path = canonical(spelling, root_);
            if (!is_under(path, root_) || paths::has_temp_segment(path) || path == own_path_)
                return;
        }
        if (counted_.holds(path)) return;
        if (!path_shaped) {
            // Only a stat tells a bare `Makefile` from an ordinary word; a plan of millions of
            // words gets a bounded number of them (docs/plan-gate.md, "File limit").
            if (looked_up_.size() >= disk_lookup_limit) return;
            if (!looked_up_.insert(path).second || path.find('\0') != std::string::npos) return;
            if (!is_regular_file(path)) return;
        }
        counted_.add(files_.emplace_back(std::move(path)));
    }

    const RootNames root_names_;
    const std::string root_;
    const bool root_has_temp_ = paths::has_temp_segment(root_);
    const std::string own_path_;
    SpellingSet judged_{disk_lookup_limit};
    std::unordered_set<std::string> looked_up_;
    // The files counted, in first-seen order; a deque, so the set's views into them stay put.
    std::deque<std::string> files_;
    SpellingSet counted_{std::numeric_limits<std::size_t>::max()};
};

} // namespace

std::vector<std::string> plan_files(std::string_view plan_text, const std::string& root,
                                    const std::string& plan_path) {
    FileCount count(root, plan_path);
    for_each_token(plan_text, [&count](std::string_view token, bool has_name_byte) {
        if (!count.plainly_absent(token, has_name_byte)) count.take(token);
    });
    return std::move(count).files();
}

std::optional<std::string> file_limit_refusal(const std::vector<std::string>& files,
                                              std::string_view plan_name) {
    if (files.size() <= plain_plan_file_limit) return std::nullopt;
    std::string reason =
        "Next step: narrow the plan. The plain plan " + std::string(plan_name) + " names " +
        std::to_string(files.size()) + " repository files; the limit for a plain plan is " +
        std::to_string(plain_plan_file_limit) + ". Files counted (absolute paths):";
    std::size_t listed = 0;
    std::size_t characters = 0;
    for (; listed < files.size() && listed < listed_files && characters < listed_characters;
         ++listed) {
        const std::string_view file = std::string_view(files[listed]).substr(0, listed_characters);
        reason += "\n- ";
        reason += file;
        characters += file.size();
    }
    if (files.size() > listed) {
        reason += "\n(and " + std::to_string(files.size() - listed) + " more)";
    }
    reason += "\nTo go on, cut the plan to at most " + std::to_string(plain_plan_file_limit) +
              " files (split the rest into a later plan), or plan it with the viber planner, "
              "whose review set is built for large plans. No review PASS overrides this limit, "
              "a plain-plan-review PASS included. " +
              std::string(plain_gate_trailer);
    return reason;
}

} // namespace viber::plan_gate
