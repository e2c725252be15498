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
#include <cstdint>
#include <cstring>
#include <deque>
#include <iterator>
#include <limits>
#include <unordered_set>
#include <vector>

namespace viber::plan_gate {

namespace {

// The refusal lists at most this many files: past it the plan is far over the limit and the
// list would only bury the next step.
constexpr std::size_t listed_files = 40;
// ... and at most this many characters of them: a path can be as long as a token.
constexpr std::size_t listed_characters = 6000;

// The plan splits into tokens at whitespace (ascii::is_space) 64 bytes at a time: a mask of the
// block's whitespace bytes, built 8 bytes at a time (ascii::space_bytes), gives every token edge by
// counting zeros. A branch on each byte would mispredict at every edge, two or three times a word.

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

// Bit i set when byte i of the 64 at `block` is whitespace.
std::uint64_t whitespace_mask(const char* block) {
    std::uint64_t mask = 0;
    for (int word = 0; word < 8; ++word)
        mask |= gathered(ascii::space_bytes(first_byte_low(block + 8 * word))) << (8 * word);
    return mask;
}

// Calls `visit` with each maximal run of non-whitespace bytes of `text`, in order.
template <class Visit> void for_each_token(std::string_view text, Visit&& visit) {
    const std::size_t size = text.size();
    bool inside = false; // in a token: the byte before the current one is not whitespace
    std::size_t start = 0;
    for (std::size_t block = 0; block < size; block += 64) {
        std::uint64_t spaces;
        if (block + 64 <= size) {
            spaces = whitespace_mask(text.data() + block);
        } else {
            char tail[64]; // past the end reads as whitespace, which ends the last token
            std::memset(tail, ' ', sizeof tail);
            std::memcpy(tail, text.data() + block, size - block);
            spaces = whitespace_mask(tail);
        }
        // An edge is a byte whose class (whitespace or not) differs from the one before it: a
        // token's first byte or the whitespace byte just past its end, alternately.
        std::uint64_t edges = spaces ^ ((spaces << 1) | (inside ? 0u : 1u));
        while (edges != 0) {
            const std::size_t at = block + static_cast<std::size_t>(std::countr_zero(edges));
            edges &= edges - 1;
            if (inside)
                visit(text.substr(start, at - start));
            else
                start = at;
            inside = !inside;
        }
    }
    if (inside) visit(text.substr(start));
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

// The files a plan names, judged one distinct spelling at a time.
class FileCount {
public:
    FileCount(const std::string& root, const std::string& plan_path)
        // The root is absolute (the git top level or cwd); canonical() gives it the tokens'
        // spelling.
        : root_(canonical(paths::git_bash_spelling(root), std::string())),
          own_path_(canonical(paths::git_bash_spelling(plan_path), root_)) {}

    // A token of the plan: counted when it names a repository file not counted yet. Words and
    // paths repeat throughout a plan: each spelling is judged once, and each bare word is looked
    // up on disk once. Past the bound a spelling not yet held is judged again each time it comes
    // (a cost per byte, still linear) instead of growing the set.
    void take(std::string_view token) {
        token = strip_wrapping(token);
        if (!token.empty() && !judged_.seen(token)) judge(token);
    }

    std::vector<std::string> files() && {
        return {std::make_move_iterator(files_.begin()), std::make_move_iterator(files_.end())};
    }

private:
    void judge(std::string_view token) {
        if (is_url(token)) return;
        const std::string spelling = paths::git_bash_spelling(token);
        const bool path_shaped = is_path_shaped(spelling);
        std::string path = canonical(spelling, root_);
        if (!is_under(path, root_) || paths::has_temp_segment(path) || path == own_path_) return;
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

    const std::string root_;
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
    for_each_token(plan_text, [&count](std::string_view token) { count.take(token); });
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
