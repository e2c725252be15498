// fast/json_string.hpp: decoding a JSON string body, a vector at a time where there are vectors,
// behind one call (decode_string), with its plain reference beside it (decode_string_reference, a
// byte at a time) and each kernel reachable for the differential test
// (tests/unit/fast/fast_json_string_test.cpp).
#pragma once

#include "common/fast/kernel.hpp"

#include <cstddef>
#include <string_view>

namespace viber::fast {

// One decoded string body: where its closing quote is, how long the decoded text is, whether the
// body held an escape, and whether one of those was a lone surrogate.
struct DecodedString {
    std::size_t close = std::string_view::npos; // npos: Boost.JSON rejects the body
    std::size_t size = 0;
    bool escaped = false;
    bool lone_surrogate = false;

    bool operator==(const DecodedString&) const = default;
};

// Decodes the string body that starts at `at` (just after its opening quote) into `out`, which
// has room for every byte left in `bytes` (a decoded body is never longer than its spelling) and
// may be `bytes.data() + at` itself (decoding in place), as Boost.JSON does with invalid UTF-8
// allowed and after replace_lone_surrogates (common/io/payload.hpp): any byte from 0x20 but `"` and
// `\` as it is, the nine escapes, `\uXXXX` with surrogates in pairs and a lone one as U+FFFD.
// `close` is npos when the body holds what Boost.JSON rejects or never ends. Bytes of `out` past
// the decoded text may be written.
DecodedString decode_string(std::string_view bytes, std::size_t at, char* out);

// The same, a byte at a time: the reference every kernel is held to.
DecodedString decode_string_reference(std::string_view bytes, std::size_t at, char* out);

// The kernels (fast/kernel.hpp: string_kernels): `portable` (8 bytes at a time in a general
// register: what an aarch64 CPU runs), `sse2`, `avx2` (for bodies of 4 KiB or more); `best` is
// what decode_string runs.
DecodedString decode_string_with(Kernel kernel, std::string_view bytes, std::size_t at, char* out);

// The code unit of a `\uXXXX` escape whose backslash is at `at`; -1 when it is not one.
long escaped_unit(const char* bytes, std::size_t size, std::size_t at);
inline bool is_high_surrogate(long unit) {
    return unit >= 0xD800 && unit <= 0xDBFF;
}
inline bool is_low_surrogate(long unit) {
    return unit >= 0xDC00 && unit <= 0xDFFF;
}

} // namespace viber::fast
