// fuzz_payload.cpp: libFuzzer target for the payload surface: BOM strip, parse_object (whose own
// decoder of long strings must read every string as Boost.JSON does, lone surrogates rewritten
// first) and top-level key access on arbitrary stdin bytes.
#include "common/io/payload.hpp"
#include "common/os/os.hpp"

#include <boost/json/parse.hpp>
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
    std::string plain(viber::strip_bom(bytes));
    viber::replace_lone_surrogates(plain.data(), plain.size());
    boost::json::parse_options options;
    options.max_depth = 1024;
    options.allow_invalid_utf8 = true;
    boost::system::error_code ec;
    const boost::json::value reference = boost::json::parse(plain, ec, {}, options);
    const bool reference_object = !ec && reference.is_object();
    if (reference_object != payload.has_value()) std::abort();
    if (payload && boost::json::value(*payload) != reference) std::abort();
    (void)viber::os::contains_bytes(bytes, "viber:");
    return 0;
}
