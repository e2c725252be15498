// fuzz_verdict_nudge.cpp: libFuzzer target for verdict-nudge's whole decision from raw stdin
// (SPEC §9), and its line matcher on the bytes taken as a final message.
#include "verdict-nudge/verdict_nudge.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    (void)viber::verdict_nudge::run(std::optional<std::string>(bytes));
    (void)viber::verdict_nudge::has_verdict_line(bytes);
    (void)viber::verdict_nudge::owes_verdict_line(bytes);
    return 0;
}
