// paths.cpp: path spellings as the hooks compare them.
#include "common/os/paths.hpp"

#include "common/text/ascii.hpp"

namespace viber::paths {

std::string_view last_segment(std::string_view path) noexcept {
    const std::size_t last = path.find_last_of("/\\");
    return last == std::string_view::npos ? path : path.substr(last + 1);
}

std::string git_bash_spelling(std::string_view path) {
    std::string text;
    const bool drive = path.size() >= 2 && ascii::is_alpha(path[0]) && path[1] == ':' &&
                       (path.size() == 2 || is_separator(path[2]));
    if (drive) {
        text.reserve(path.size());
        text += '/';
        text += ascii::to_lower(path[0]);
        path.remove_prefix(2);
    }
    text += path;
    for (char& c : text) {
        if (c == '\\') c = '/';
    }
    return text;
}

namespace {

// The one lexical walk: `.` and empty segments dropped, `..` removing the segment before it, and
// a `..` with nothing left to remove kept only when `keep_parents_above` says so.
std::vector<std::string_view> resolved_segments(std::string_view path, bool keep_parents_above) {
    std::vector<std::string_view> segments;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        const std::string_view segment = path.substr(start, end - start);
        if (segment == "..") {
            if (!segments.empty() && segments.back() != "..")
                segments.pop_back();
            else if (keep_parents_above)
                segments.push_back(segment);
        } else if (!segment.empty() && segment != ".") {
            segments.push_back(segment);
        }
        start = end + 1;
    }
    return segments;
}

// True when lexically_normal(path) is `path` itself: no empty, `.` or `..` segment (an absolute
// path's opening `/` aside) and no trailing `/`. Most paths a hook compares are already normal,
// and this one scan spares them the walk.
bool is_lexically_normal(std::string_view path) {
    if (path.empty()) return false;
    std::size_t start = path[0] == '/' ? 1 : 0;
    if (start == path.size()) return true; // `/`
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        const std::string_view segment = path.substr(start, end - start);
        if (segment.empty() || segment == "." || segment == "..") return false;
        start = end + 1;
    }
    return true;
}

} // namespace

std::vector<std::string_view> rooted_segments(std::string_view path) {
    return resolved_segments(path, false);
}

std::string lexically_normal(std::string_view path) {
    if (is_lexically_normal(path)) return std::string(path);
    const bool absolute = path.starts_with('/');
    std::string normal;
    normal.reserve(path.size() + 1);
    for (const std::string_view segment : resolved_segments(path, !absolute)) {
        if (absolute || !normal.empty()) normal += '/';
        normal += segment;
    }
    if (normal.empty()) normal = absolute ? "/" : ".";
    return normal;
}

bool has_temp_segment(std::string_view path) noexcept {
    // One pass over the bytes: a search for either separator from each position would look at
    // the rest of the path once per byte.
    constexpr std::string_view temp = ".temp";
    std::size_t start = 0;
    for (std::size_t at = 0; at <= path.size(); ++at) {
        if (at < path.size() && !is_separator(path[at])) continue;
        if (path.substr(start, at - start) == temp) return true;
        start = at + 1;
    }
    return false;
}

} // namespace viber::paths
