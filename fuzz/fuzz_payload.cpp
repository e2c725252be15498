// fuzz_payload.cpp: libFuzzer target for the payload surface: BOM strip, parse_object (and hook
// mode's parse_object_in_place, which must read every string alike) and top-level key access on
// arbitrary stdin bytes.
#include "common/payload.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto payload = viber::parse_object(viber::strip_bom(bytes));
    if (payload) {
        for (std::string_view key :
             {"agent_type", "cwd", "transcript_path", "last_assistant_message"})
            (void)viber::string_field(*payload, key);
        (void)viber::is_true(*payload, "stop_hook_active");
    }
    std::string buffer(viber::strip_bom(bytes));
    const auto in_place = viber::parse_object_in_place(buffer);
    if (in_place.has_value() != payload.has_value()) std::abort();
    if (payload) {
        for (const auto& member : *payload)
            if (viber::string_text(member.value()) != viber::string_field(*in_place, member.key()))
                std::abort();
    }
    (void)viber::contains(bytes, "viber:");
    return 0;
}
