// paths.cpp: path spellings as the hooks compare them.
#include "common/paths.hpp"

#include <boost/filesystem/path.hpp>

namespace viber::paths {

std::string_view last_segment(std::string_view path) noexcept {
    const std::size_t last = path.find_last_of("/\\");
    return last == std::string_view::npos ? path : path.substr(last + 1);
}

std::string lexically_normal(std::string_view path) {
    std::string normal =
        boost::filesystem::path(std::string(path)).lexically_normal().generic_string();
    // Boost keeps a trailing separator as "/." (v3) or "/" (v4); the hooks compare without it.
    if (normal.size() > 2 && normal.ends_with("/.")) normal.resize(normal.size() - 2);
    while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    if (normal == ".") return path.starts_with('/') ? "/" : ".";
    // `..` above the root of an absolute path stays at the root.
    while (normal.starts_with("/..") && (normal.size() == 3 || normal[3] == '/'))
        normal.erase(0, 3);
    if (normal.empty()) normal = "/";
    return normal;
}

bool has_temp_segment(std::string_view path) noexcept {
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find_first_of("/\\", start);
        if (end == std::string_view::npos) end = path.size();
        if (path.substr(start, end - start) == ".temp") return true;
        start = end + 1;
    }
    return false;
}

} // namespace viber::paths
