// file_limit.cpp: the plain plan file limit (SPEC §4.3).
//
// A plain plan is reviewed by one plain-plan-review pass; past 8 files that review cannot hold
// the whole change, so the gate refuses before any review and points to the viber planner, whose
// review set is built for large plans. The count is lexical (a token that looks like a path) with
// one fallback to the file system (a bare name such as `Makefile` that exists under the root).
#include "plan-gate/file_limit.hpp"

#include "common/files.hpp"
#include "plan-gate/reasons.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <unordered_set>

namespace viber::plan_gate {

namespace {

// The refusal lists at most this many files: past it the plan is far over the limit and the
// list would only bury the next step.
constexpr std::size_t listed_files = 40;
// ... and at most this many characters of them: a path can be as long as a token.
constexpr std::size_t listed_characters = 6000;

// The whitespace that splits a plan into tokens, as a table: the split looks at every byte.
constexpr std::array<bool, 256> space_bytes = [] {
    std::array<bool, 256> table{};
    for (const unsigned char c : {' ', '\t', '\n', '\r', '\f', '\v'}) table[c] = true;
    return table;
}();
bool is_space(char c) {
    return space_bytes[static_cast<unsigned char>(c)];
}

// The spellings judged last, by a cheap hash of their length and first and last bytes: prose
// repeats its words, and most tokens are found here before any full hash of the judged set.
class RecentTokens {
public:
    bool holds(std::string_view token) const { return slots_[slot(token)] == token; }
    void remember(std::string_view token) { slots_[slot(token)] = token; }

private:
    static std::size_t slot(std::string_view token) {
        std::uint64_t head = 0, tail = 0;
        std::memcpy(&head, token.data(), std::min<std::size_t>(token.size(), 8));
        if (token.size() > 8) std::memcpy(&tail, token.data() + token.size() - 8, 8);
        const std::uint64_t mixed =
            (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ token.size()) * 0xFF51AFD7ED558CCDull;
        return static_cast<std::size_t>(mixed >> (64 - 10));
    }
    std::array<std::string_view, 1024> slots_{};
};
bool is_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

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
    if (!is_letter(token[0])) return false;
    for (std::size_t i = 1; i < at; ++i) {
        const char c = token[i];
        if (!(is_letter(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))
            return false;
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

// Backslashes read as `/`, and a drive spelling `C:/…` as Git Bash's `/c/…`, so the Windows,
// Git Bash and POSIX spellings of one absolute path compare equal.
std::string slashed(std::string_view path) {
    std::string text(path);
    for (char& c : text) {
        if (c == '\\') c = '/';
    }
    if (text.size() >= 2 && is_letter(text[0]) && text[1] == ':' &&
        (text.size() == 2 || text[2] == '/')) {
        const char drive = static_cast<char>(text[0] | 0x20);
        text = "/" + std::string(1, drive) + text.substr(2);
    }
    return text;
}

// `.` and `..` resolved lexically, runs of `/` folded, no trailing `/`. `..` above `/` stays at `/`
// (the result is then outside any root but `/` itself, as it should be).
std::string lexically_normal(std::string_view absolute) {
    std::vector<std::string_view> segments;
    std::size_t start = 0;
    while (start <= absolute.size()) {
        std::size_t end = absolute.find('/', start);
        if (end == std::string_view::npos) end = absolute.size();
        const std::string_view segment = absolute.substr(start, end - start);
        if (segment == "..") {
            if (!segments.empty()) segments.pop_back();
        } else if (!segment.empty() && segment != ".") {
            segments.push_back(segment);
        }
        start = end + 1;
    }
    std::string normal;
    for (const std::string_view segment : segments) {
        normal += '/';
        normal += segment;
    }
    return normal.empty() ? "/" : normal;
}

// The one canonical spelling: absolute (a relative path is taken against `root`, itself
// canonical), forward slashes, drive as `/c`, lexically normalized.
std::string canonical(std::string_view path, const std::string& root) {
    std::string text = slashed(path);
    if (text.empty() || text[0] != '/') text = root + "/" + text;
    return lexically_normal(text);
}

bool has_temp_segment(std::string_view canonical_path) {
    std::size_t start = 0;
    while (start < canonical_path.size()) {
        std::size_t end = canonical_path.find('/', start);
        if (end == std::string_view::npos) end = canonical_path.size();
        if (canonical_path.substr(start, end - start) == ".temp") return true;
        start = end + 1;
    }
    return false;
}

// Strictly below the root: the root itself is a directory, never a file the plan names.
bool is_under(std::string_view canonical_path, std::string_view root) {
    if (root == "/") return canonical_path.size() > 1;
    return canonical_path.size() > root.size() + 1 &&
           canonical_path.substr(0, root.size()) == root && canonical_path[root.size()] == '/';
}

} // namespace

std::vector<std::string> plan_files(std::string_view plan_text, const std::string& root,
                                    const std::string& plan_path) {
    std::vector<std::string> files;
    // The root is absolute (the git top level or cwd); canonical() gives it the tokens' spelling.
    const std::string canonical_root = canonical(root, std::string());
    const std::string own_path = canonical(plan_path, canonical_root);
    std::unordered_set<std::string> counted;
    // Words and paths repeat throughout a plan: each spelling is judged once (the views point
    // into `plan_text`, which outlives the set), and each bare word is looked up on disk once.
    std::unordered_set<std::string_view> judged;
    std::unordered_set<std::string> looked_up;

    RecentTokens recent;
    std::size_t at = 0;
    while (at < plan_text.size()) {
        while (at < plan_text.size() && is_space(plan_text[at])) ++at;
        const std::size_t start = at;
        while (at < plan_text.size() && !is_space(plan_text[at])) ++at;
        if (at == start) break;
        const std::string_view token = strip_wrapping(plan_text.substr(start, at - start));
        if (token.empty() || recent.holds(token)) continue;
        // Past the bound, a repeated spelling is judged again (a cost per byte, still linear)
        // instead of growing the set.
        if (judged.size() < disk_lookup_limit) {
            const bool fresh = judged.insert(token).second;
            recent.remember(token);
            if (!fresh) continue;
        } else if (judged.count(token) != 0) {
            recent.remember(token);
            continue;
        }
        if (is_url(token)) continue;

        const bool path_shaped = is_path_shaped(slashed(token));
        std::string path = canonical(token, canonical_root);
        if (!is_under(path, canonical_root) || has_temp_segment(path) || path == own_path) continue;
        if (counted.count(path) != 0) continue;
        if (!path_shaped) {
            // Only a stat tells a bare `Makefile` from an ordinary word; a plan of millions of
            // words gets a bounded number of them (docs/plan-gate.md, "File limit").
            if (looked_up.size() >= disk_lookup_limit) continue;
            if (!looked_up.insert(path).second || path.find('\0') != std::string::npos) continue;
            if (!is_regular_file(path)) continue;
        }
        counted.insert(path);
        files.push_back(std::move(path));
    }
    return files;
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
