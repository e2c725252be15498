// hook_decision.hpp: a hook's decision on payload bytes, in process: the same prefilter, parse and
// decision hook mode runs, without a binary or a pipe.
#pragma once

#include "common/hook/hook_main.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace viber::testing {

// The decision hook mode reaches on `bytes` (nullopt: the bounded read failed).
inline Decision hook_decision(const HookInfo& info, std::optional<std::string_view> bytes) {
    Trace off;
    return decide_stdin(info, bytes ? std::optional<std::string>(*bytes) : std::nullopt, off);
}

// What hook mode prints for `bytes`, as a JSON value; nullopt when it prints nothing.
inline std::optional<boost::json::value> hook_answer(const HookInfo& info,
                                                     std::optional<std::string_view> bytes) {
    return hook_decision(info, bytes).answer;
}

} // namespace viber::testing
