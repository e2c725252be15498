// fuzz_session_start.cpp: libFuzzer target for session-start's file parsing
// (docs/session-start.md): the schema line of a viber.yml, the schema note against a fixed
// template, the manifest trim, the version from CLAUDE_PLUGIN_ROOT and the code-point count, all on
// arbitrary bytes.
#include "common/text/utf8.hpp"
#include "session-start/session_start.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace ss = viber::session_start_hook;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const ss::Schema schema = ss::schema_of(bytes);
    // A schema is its digits without leading zeros.
    if (schema.digits.empty() || (schema.digits.size() > 1 && schema.digits[0] == '0'))
        std::abort();
    if (ss::compare(schema, schema) != 0) std::abort();
    (void)ss::schema_note(bytes, std::string("schema: 3\n"));
    (void)ss::schema_note(std::string("schema: 3\n"), bytes);
    (void)ss::manifest_context(bytes);
    (void)ss::plugin_version(std::string_view(bytes));
    if (viber::utf8::code_points(bytes) > bytes.size()) std::abort();
    (void)ss::decide(ss::Inputs{bytes, bytes, bytes, std::string("schema: 1\n")});
    return 0;
}
