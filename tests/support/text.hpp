// text.hpp: building large test inputs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace viber::testing {

// `piece` written `times` times in a row: the hostile and huge inputs the tests feed the hooks.
inline std::string repeat(std::string_view piece, std::size_t times) {
    std::string out;
    out.reserve(piece.size() * times);
    for (std::size_t i = 0; i < times; ++i) out += piece;
    return out;
}

} // namespace viber::testing
