// file_limit.cpp: the plain plan file limit (docs/plan-gate.md, step 3).
//
// A plain plan is reviewed by one plain-plan-review pass; past 8 files that review cannot hold
// the whole change, so the gate refuses before any review and points to the viber planner, whose
// review set is built for large plans. The count is lexical (a token that looks like a path) with
// one fallback to the file system (a bare name such as `Makefile` that exists under the root).
#include "plan-gate/file_limit.hpp"

#include "common/fast/name_listing.hpp"
#include "common/fast/token_text.hpp"
#include "common/fast/tokens.hpp"
#include "common/fast/view_set.hpp"
#include "common/io/files.hpp"
#include "common/os/os.hpp"
#include "common/os/paths.hpp"
#include "common/text/ascii.hpp"
#include "plan-gate/reasons.hpp"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_set>
#include <vector>

namespace viber::plan_gate {

namespace {

// ... and at most this many characters of them: a path can be as long as a token.
constexpr std::size_t listed_characters = 6000;

// The bytes between tokens: whitespace (ascii::is_space).
constexpr fast::ByteSet separators = fast::ByteSet::of(ascii::is_space, false);

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

// A name byte: either separator, a `:` (a drive, a URL, a Windows stream), a `~` (a Windows short
// name) or any non-ASCII byte (a name that case folding or Unicode normalization may match in
// another spelling). A token without one is a bare name.
constexpr bool is_name_byte(char c) {
    return c == '/' || c == '\\' || c == ':' || c == '~' || static_cast<unsigned char>(c) >= 0x80;
}
constexpr fast::ByteSet name_bytes = fast::ByteSet::of(is_name_byte, true);

bool has_name_byte(std::string_view token) {
    return std::any_of(token.begin(), token.end(), is_name_byte);
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
          counted_(std::numeric_limits<std::size_t>::max(), plan_bytes / 400, &counted_paths_) {
        // Room for the files expected, taken only as they come: growing the list would copy it
        // into fresh pages at each doubling.
        files_.reserve(plan_bytes / 400);
    }

    // A token of the plan (one filter() picks): counted
    // when it names a repository file not counted yet. Words and paths repeat throughout a plan:
    // each spelling is judged once, and each bare word is looked up on disk once. A bare name
    // (a token with no name byte once its wrapping is stripped) that the root's listing
    // excludes names no file, and takes no hash and no lookup. Past the bound a spelling not
    // yet held is judged again each time it comes (a cost per byte, still linear) instead of
    // growing the set.
    void take(std::string_view token) {
        token = strip_wrapping(token);
        if (token.empty()) return;
        if (settle_by_listing_ && !has_name_byte(token) && root_names_.excludes(token)) return;
        // A path such as `src/a.ts`, path-shaped and already in its one spelling, counts whatever
        // the disk holds, and it is the key of its own file in the counted set: that set is its
        // memo too, so it takes one probe and no copy until it counts.
        if (plain_paths_count_ && token.size() <= memo_bytes && is_plain_relative(token) &&
            is_path_shaped(token)) {
            if (token != own_below_root_) add_file(token);
            return;
        }
        // A spelling past memo_bytes is judged each time it comes, not copied into the memo: a
        // cost per byte, still linear, and a plan of huge tokens is not held twice.
        if (token.size() > memo_bytes || !judged_.seen(token)) judge(token);
    }

    // Judges every token, bare names the listing excludes included (the test oracle).
    void judge_every_token() { settle_by_listing_ = false; }

    // The tokens take() may count (fast/tokens.hpp), split at whitespace: every token, unless
    // the listing settles bare names; then those holding a name byte, opening with wrapping, or
    // opening with a byte an entry of the root may open with and ending with wrapping or a byte
    // an entry may end with. Any other token is a bare name once its wrapping is stripped, one
    // that opens as it did (or is empty), and no entry has its key: take() would pass it over.
    fast::TokenFilter filter() const {
        fast::TokenFilter filter;
        filter.separators = separators;
        if (!settle_by_listing_ || !root_names_.usable()) {
            filter.first = fast::ByteSet::of([](char c) { return !ascii::is_space(c); }, true);
            return filter;
        }
        filter.anywhere = name_bytes;
        filter.first = fast::ByteSet::of(is_opener, false);
        filter.pair_first = root_names_.may_open();
        filter.pair_last = root_names_.may_close();
        filter.pair_last |= fast::ByteSet::of(is_closer, false);
        return filter;
    }

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
        if (counted_.holds(below_root)) return;
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
        add_file(below_root);
    }

    // path_ = the root and a plain relative `token` joined; false when that is the plan itself.
    bool join_to_root(std::string_view token) {
        path_.assign(root_);
        path_ += '/';
        path_ += token;
        return path_ != own_path_;
    }

    // Counts the file at `below_root` (a canonical path's part under the root) unless it is
    // counted already. Only that part is copied: the root before it is the same for every file.
    void add_file(std::string_view below_root) {
        if (const std::optional<std::string_view> kept = counted_.add_new(below_root))
            files_.push_back(*kept);
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

    const fast::NameListing root_names_;
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
    fast::ViewArena judged_spellings_;
    fast::BoundedViewSet judged_;
    std::unordered_set<std::string> looked_up_;
    std::string path_;
    // The files counted, in first-seen order, as views of their copies in the arena.
    fast::ViewArena counted_paths_;
    std::vector<std::string_view> files_;
    fast::BoundedViewSet counted_;
};

} // namespace

namespace detail {

namespace {

// Counts into `count` the files `text` names; false when its file cannot be read whole.
bool scan_into(FileCount& count, Tokens tokens, fast::TokenText& text) {
    if (tokens == Tokens::every_token) count.judge_every_token();
    return text.scan(
        count.filter(), [&count](std::string_view token) { count.take(token); }, plan_read_limit);
}

// The plan file at `plan_path`, opened for a count: nullopt when it is not a regular file or is
// already past the read bound (nothing is read then); `size` is its length now.
std::optional<fast::TokenText> open_plan(const std::string& plan_path, std::size_t& size) {
    os::File file = os::File::open_regular(plan_path);
    if (!file) return std::nullopt;
    const std::uint64_t bytes = file.size().value_or(0);
    if (bytes > plan_read_limit) return std::nullopt;
    size = static_cast<std::size_t>(bytes);
    return fast::TokenText(std::move(file), bytes);
}

} // namespace

std::vector<std::string> plan_files_with(Tokens tokens, std::string_view plan_text,
                                         const std::string& root, const std::string& plan_path) {
    fast::TokenText text(plan_text);
    FileCount count(root, plan_path, plan_text.size());
    scan_into(count, tokens, text); // a text held whole is always read whole
    return count.files();
}

std::optional<std::vector<std::string>>
plan_file_files_with(Tokens tokens, const std::string& plan_path, const std::string& root) {
    std::size_t size = 0;
    std::optional<fast::TokenText> text = open_plan(plan_path, size);
    if (!text) return std::nullopt;
    FileCount count(root, plan_path, size);
    if (!scan_into(count, tokens, *text)) return std::nullopt;
    return count.files();
}

} // namespace detail

std::vector<std::string> plan_files(std::string_view plan_text, const std::string& root,
                                    const std::string& plan_path) {
    return detail::plan_files_with(detail::Tokens::settled_by_listing, plan_text, root, plan_path);
}

std::optional<std::vector<std::string>> plan_file_files(const std::string& plan_path,
                                                        const std::string& root) {
    return detail::plan_file_files_with(detail::Tokens::settled_by_listing, plan_path, root);
}

FileTally plan_tally(std::string_view plan_text, const std::string& root,
                     const std::string& plan_path) {
    fast::TokenText text(plan_text);
    FileCount count(root, plan_path, plan_text.size());
    detail::scan_into(count, detail::Tokens::settled_by_listing, text);
    return count.tally();
}

std::optional<FileTally> plan_file_tally(const std::string& plan_path, const std::string& root) {
    std::size_t size = 0;
    std::optional<fast::TokenText> text = detail::open_plan(plan_path, size);
    if (!text) return std::nullopt;
    FileCount count(root, plan_path, size);
    if (!detail::scan_into(count, detail::Tokens::settled_by_listing, *text)) return std::nullopt;
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
