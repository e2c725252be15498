// file_limit.cpp: the plain plan file limit (docs/plan-gate.md, step 3).
//
// One plain-plan-review pass cannot hold a change past 8 files: the gate refuses before any review
// and points to the viber planner. The count is lexical (a token that looks like a path) with one
// fallback to the file system (a bare name such as `Makefile` that exists under the root).
#include "plan-gate/file_limit.hpp"

#include "common/fast/name_listing.hpp"
#include "common/fast/token_text.hpp"
#include "common/fast/view_set.hpp"
#include "common/io/files.hpp"
#include "common/os/os.hpp"
#include "common/os/paths.hpp"
#include "common/text/ascii.hpp"
#include "plan-gate/reasons.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_set>

namespace viber::plan_gate {

namespace {

// Wrapping a plan puts around a path: backticks, quotes, parentheses and brackets (round, square,
// curly and the angle brackets of a markdown autolink). Pipes are never stripped, so a table cell
// `|src/a.ts|` stays one token, as the original counter read it.
constexpr bool is_opener(char c) {
    return std::string_view("`\"'([{<").find(c) != std::string_view::npos;
}
constexpr bool is_closer(char c) {
    return std::string_view("`\"')]}>.,;:").find(c) != std::string_view::npos;
}

std::string_view strip_wrapping(std::string_view token) {
    while (!token.empty() && is_opener(token.front())) token.remove_prefix(1);
    while (!token.empty() && is_closer(token.back())) token.remove_suffix(1);
    return token;
}

// `scheme://…`: a link, never a repository file.
bool is_url(std::string_view token) {
    const std::size_t at = token.find("://");
    if (at == std::string_view::npos || at == 0 || !ascii::is_alpha(token[0])) return false;
    return std::all_of(
        token.begin() + 1, token.begin() + static_cast<std::ptrdiff_t>(at),
        [](char c) { return ascii::is_alnum(c) || c == '+' || c == '-' || c == '.'; });
}

// A `/`, and after the last one a `.` followed by 1 to 10 characters to the end (the last dot
// leaves the shortest extension).
bool is_path_shaped(std::string_view token) {
    const std::size_t slash = token.rfind('/');
    if (slash == std::string_view::npos) return false;
    const std::size_t dot = token.rfind('.');
    if (dot == std::string_view::npos || dot < slash) return false;
    const std::size_t extension = token.size() - dot - 1;
    return extension >= 1 && extension <= 10;
}

// A name byte: either separator, a `:` (a drive, a URL, a Windows stream), a `~` (a Windows short
// name) or any non-ASCII byte (a name that case folding or Unicode normalization may match in
// another spelling). A token without one is a bare name.
constexpr bool is_name_byte(char c) {
    return c == '/' || c == '\\' || c == ':' || c == '~' || static_cast<unsigned char>(c) >= 0x80;
}

// A relative path already in its one spelling: no backslash, no colon (so no drive and no URL),
// and every `/`-separated segment neither empty, `.`, `..` nor `.temp`.
bool is_plain_relative(std::string_view token) {
    if (token.empty() || token.front() == '/' || token.find_first_of("\\:") != token.npos)
        return false;
    for (std::size_t start = 0, end = 0; start <= token.size(); start = end + 1) {
        end = std::min(token.find('/', start), token.size());
        const std::string_view part = token.substr(start, end - start);
        if (part.empty() || part == "." || part == ".." || part == ".temp") return false;
    }
    return true;
}

// The one canonical spelling of a token in Git Bash's spelling: absolute (a relative path is
// taken against `root`, itself canonical), lexically normal.
std::string canonical(std::string_view spelling, std::string_view root) {
    return paths::lexically_normal(spelling.starts_with('/')
                                       ? std::string(spelling)
                                       : std::string(root) + "/" + std::string(spelling));
}

// Strictly below the root: the root itself is a directory, never a file the plan names.
bool is_under(std::string_view path, std::string_view root) {
    if (root == "/") return path.size() > 1;
    return path.size() > root.size() + 1 && path.starts_with(root) && path[root.size()] == '/';
}

// The files a plan names, judged one token at a time.
class FileCount {
public:
    // `plan_bytes` sizes the sets: a plan naming a path a line names one in about 400 bytes.
    FileCount(const std::string& root, const std::string& plan_path, std::size_t plan_bytes,
              bool every_token)
        : names_(root), every_token_(every_token),
          root_(canonical(paths::git_bash_spelling(root), std::string())),
          own_path_(canonical(paths::git_bash_spelling(plan_path), root_)),
          judged_(disk_lookup_limit, plan_bytes / 4000, &judged_spellings_),
          counted_(std::numeric_limits<std::size_t>::max(), plan_bytes / 400, &counted_paths_) {
        files_.reserve(plan_bytes / 400);
    }

    // The tokens take() may count, split at whitespace: all, unless the root's listing settles
    // bare names; then those with a name byte or that may be an entry's name once unwrapped.
    fast::TokenFilter filter() const {
        const fast::ByteSet space = fast::ByteSet::of(ascii::is_space, false);
        const fast::ByteSet judged = every_token_
                                         ? fast::ByteSet::of(std::not_fn(ascii::is_space), true)
                                         : fast::ByteSet::of(is_name_byte, true);
        return names_.filter(space, judged, fast::ByteSet::of(is_opener, false),
                             fast::ByteSet::of(is_closer, false));
    }

    // A token of the plan: counted when it names a repository file not counted yet. A bare name
    // the root's listing excludes names no file. A plain relative path-shaped token counts, as
    // the key of its file in the counted set. Any other spelling is judged once (past
    // disk_lookup_limit spellings, or past memo_bytes, each time: a cost per byte, still linear).
    void take(std::string_view token) {
        token = strip_wrapping(token);
        // Nothing under a `.temp` root is a repository file.
        if (token.empty() || root_has_temp_) return;
        if (!every_token_ && std::none_of(token.begin(), token.end(), is_name_byte) &&
            names_.excludes(token))
            return;
        if (root_ != "/" && is_plain_relative(token) && is_path_shaped(token)) {
            if (token != own_below_root_) add_file(token);
            return;
        }
        if (token.size() > memo_bytes || !judged_.seen(token)) judge(token);
    }

    // The count, and the first files kept as `keep` says.
    FileTally tally(const CountOptions& keep) const {
        FileTally tally{files_.size(), {}};
        const std::string_view root = root_ == "/" ? std::string_view() : root_;
        for (std::size_t i = 0; i < std::min(files_.size(), keep.files); ++i)
            tally.first.push_back(
                (std::string(root) + '/').append(files_[i]).substr(0, keep.characters));
        return tally;
    }

private:
    void judge(std::string_view token) {
        std::string_view below_root; // the part of the canonical path below the root
        bool path_shaped;
        if (root_ != "/" && is_plain_relative(token)) {
            if (token == own_below_root_) return;
            path_.assign(root_).append(1, '/').append(token);
            below_root = token;
            path_shaped = is_path_shaped(token);
        } else {
            if (is_url(token)) return;
            const std::string spelling = paths::git_bash_spelling(token);
            path_shaped = is_path_shaped(spelling);
            path_ = canonical(spelling, root_);
            if (!is_under(path_, root_) || paths::has_temp_segment(path_) || path_ == own_path_)
                return;
            below_root = std::string_view(path_).substr(under_root_);
        }
        if (counted_.holds(below_root)) return;
        // Only a stat tells a bare `Makefile` from an ordinary word; a plan of millions of words
        // gets a bounded number of them (docs/plan-gate.md, "File limit"). No file system names
        // a file with a longer path than longest_path, or with a NUL in it.
        if (!path_shaped && (looked_up_.size() >= disk_lookup_limit ||
                             path_.size() > longest_path || !looked_up_.insert(path_).second ||
                             path_.find('\0') != std::string::npos || !is_regular_file(path_)))
            return;
        add_file(below_root);
    }

    // Counts the file at `below_root` unless it is counted already; only that part is copied.
    void add_file(std::string_view below_root) {
        if (const std::optional<std::string_view> kept = counted_.add_new(below_root))
            files_.push_back(*kept);
    }

    static constexpr std::size_t memo_bytes = 4096;
    static constexpr std::size_t longest_path = 32767 * 3; // UTF-16 units as UTF-8 bytes, at most

    const fast::NameListing names_;
    const bool every_token_;
    const std::string root_;
    const bool root_has_temp_ = paths::has_temp_segment(root_);
    const std::string own_path_;
    const std::size_t under_root_ = root_ == "/" ? 1 : root_.size() + 1;
    // The plan's own path below the root; empty (no token) when it is not under the root.
    const std::string own_below_root_ =
        is_under(own_path_, root_) ? own_path_.substr(under_root_) : std::string();
    fast::ViewArena judged_spellings_; // copies: a plan read a piece at a time keeps no text
    fast::BoundedViewSet judged_;
    std::unordered_set<std::string> looked_up_;
    std::string path_; // one buffer for every judged token
    fast::ViewArena counted_paths_;
    std::vector<std::string_view> files_; // first-seen order, views of counted_paths_
    fast::BoundedViewSet counted_;
};

} // namespace

std::optional<FileTally> count_plan_files(std::optional<std::string_view> text,
                                          const std::string& plan_path, const std::string& root,
                                          const CountOptions& keep) {
    std::uint64_t bytes = text ? text->size() : 0;
    os::File file;
    if (!text) {
        file = os::File::open_regular(plan_path);
        if (!file || (bytes = file.size().value_or(0)) > plan_read_limit) return std::nullopt;
    }
    fast::TokenText tokens =
        text ? fast::TokenText(*text) : fast::TokenText(std::move(file), bytes);
    FileCount count(root, plan_path, static_cast<std::size_t>(bytes), keep.every_token);
    // A text held whole is always read whole.
    if (!tokens.scan(
            count.filter(), [&count](std::string_view token) { count.take(token); },
            plan_read_limit))
        return std::nullopt;
    return count.tally(keep);
}

std::optional<std::string> file_limit_refusal(const FileTally& files, std::string_view plan_name) {
    if (files.count <= plain_plan_file_limit) return std::nullopt;
    std::string reason =
        "Next step: narrow the plan. The plain plan " + std::string(plan_name) + " names " +
        std::to_string(files.count) + " repository files; the limit for a plain plan is " +
        std::to_string(plain_plan_file_limit) + ". Files counted (absolute paths):";
    std::size_t listed = 0;
    std::size_t characters = 0;
    for (; listed < std::min(files.first.size(), listed_files) && characters < listed_characters;
         ++listed) {
        reason += "\n- " + files.first[listed].substr(0, listed_characters);
        characters += std::min(files.first[listed].size(), listed_characters);
    }
    if (files.count > listed) reason += "\n(and " + std::to_string(files.count - listed) + " more)";
    reason += "\nTo go on, cut the plan to at most " + std::to_string(plain_plan_file_limit) +
              " files (split the rest into a later plan), or plan it with the viber planner, "
              "whose review set is built for large plans. No review PASS overrides this limit, "
              "a plain-plan-review PASS included. " +
              std::string(plain_gate_trailer);
    return reason;
}

} // namespace viber::plan_gate
