// lines.hpp: text read line by line, as the hooks read plans, prompts, config output and messages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace viber::text {

// Calls visit(line) for each part of `text` between `\n`s (the `\n` removed, a CR kept), in order,
// the empty part after a final `\n` included; stops after a visit that returns false.
template <class Visit> void for_each_line(std::string_view text, Visit visit) {
    for (std::size_t start = 0;;) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        if (!visit(text.substr(start, end - start)) || end == text.size()) return;
        start = end + 1;
    }
}

} // namespace viber::text
