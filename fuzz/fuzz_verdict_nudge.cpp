// fuzz_verdict_nudge.cpp: libFuzzer target for verdict-nudge's whole decision from raw stdin
// (docs/verdict-nudge.md), and its line matcher on the bytes taken as a final message.
#include "common/hook/hook_main.hpp"
#include "verdict-nudge/verdict_nudge.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const viber::HookInfo verdict_nudge{.name = "verdict-nudge",
                                        .decide = viber::verdict_nudge::decide,
                                        .prefilter = viber::Prefilter::viber_agent};
    viber::Trace off;
    (void)viber::decide_stdin(verdict_nudge, std::optional<std::string>(bytes), off);
    (void)viber::verdict_nudge::has_verdict_line(bytes);
    (void)viber::verdict_nudge::owes_verdict_line(bytes);
    return 0;
}
