// fuzz_transcript.cpp: libFuzzer target for the transcript scanner (docs/transcript.md) over
// arbitrary bytes, for both signal sets, plus the timestamp and plan-path parsers it relies on.
#include "common/transcript/transcript.hpp"
#include "plan-gate/pairing_window.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace tr = viber::transcript;

// Both pairing rules, so the fuzzer reaches the kept-dispatch bookkeeping.
constexpr tr::PairedAgent fuzzed_agents[] = {
    {.name = "planner-review",
     .tag =
         viber::plan_gate::pairing::tag_of(viber::plan_gate::pairing::PairRule::single_reviewer)},
    {.name = "planner-task-review",
     .tag = viber::plan_gate::pairing::tag_of(viber::plan_gate::pairing::PairRule::review_set)},
};

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (const tr::Signals signals : {tr::Signals::planner, tr::Signals::planner_chain}) {
        const tr::Scan scan =
            tr::scan_bytes(bytes, tr::Request{.signals = signals,
                                              .plan_writes = true,
                                              .paired_agents = fuzzed_agents,
                                              .pairing = viber::plan_gate::pairing_window});
        // Line numbers the scan reports lie inside what it read.
        if (scan.episode_start > scan.lines || scan.last_signal > scan.lines) std::abort();
        for (const auto& verdict : scan.verdicts)
            for (std::size_t index : verdict.named_dispatches)
                if (index >= scan.dispatches.size()) std::abort();
        (void)tr::signal_owns_episode(scan);
    }
    // Pairing settled late through a window that overflows every few candidates: the lists stay
    // in line order and name only dispatches they hold.
    tr::Scan late =
        tr::detail::scan_bytes_with_window(bytes,
                                           tr::Request{.signals = tr::Signals::planner,
                                                       .plan_writes = true,
                                                       .paired_agents = fuzzed_agents,
                                                       .settle_later = true,
                                                       .pairing = viber::plan_gate::pairing_window},
                                           4);
    if (late.readable && !tr::settle_pairing(late, fuzzed_agents)) std::abort();
    for (std::size_t i = 1; i < late.dispatches.size(); ++i)
        if (late.dispatches[i].line < late.dispatches[i - 1].line) std::abort();
    for (std::size_t i = 0; i < late.verdicts.size(); ++i) {
        if (i > 0 && late.verdicts[i].line <= late.verdicts[i - 1].line) std::abort();
        for (std::size_t index : late.verdicts[i].named_dispatches)
            if (index >= late.dispatches.size()) std::abort();
    }
    (void)tr::parse_timestamp(bytes);
    (void)tr::is_plan_path(bytes);
    return 0;
}
