// lines.hpp: text read line by line, as the hooks read plans, prompts, config output and messages.
#pragma once

#include <cstddef>
#include <string_view>

namespace viber::text {

// Each physical line of `text` (split at '\n'), the '\n' removed.
template <class Visit> void for_each_line(std::string_view text, Visit visit) {
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            if (start < text.size()) visit(text.substr(start));
            return;
        }
        if (!visit(text.substr(start, end - start))) return;
        start = end + 1;
    }
}

} // namespace viber::text
