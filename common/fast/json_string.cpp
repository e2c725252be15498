// fast/json_string.cpp: the JSON string body decoder (fast/json_string.hpp).
#include "common/fast/json_string.hpp"

#include "common/fast/arch/aarch64/neon.hpp"
#include "common/fast/arch/x86_64/avx2.hpp"
#include "common/fast/arch/x86_64/sse2.hpp"
#include "common/fast/cpu.hpp"
#include "common/text/ascii.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

namespace viber::fast {

long escaped_unit(const char* bytes, std::size_t size, std::size_t at) {
    if (size - at < 6 || bytes[at] != '\\' || bytes[at + 1] != 'u') return -1;
    long unit = 0;
    for (std::size_t i = at + 2; i < at + 6; ++i) {
        const int digit = ascii::hex_value(bytes[i]);
        if (digit < 0) return -1;
        unit = unit * 16 + digit;
    }
    return unit;
}

namespace {

// Writes `cp` as UTF-8 at `out`; returns the bytes written (at most 4, never more than the 6 of
// the escape it came from).
std::size_t put_utf8(char* out, unsigned cp) {
    if (cp < 0x80) {
        out[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xC0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
}

bool is_special_byte(char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
}

// Copies the plain run of string body bytes from `at` (up to the first `"`, `\` or control byte,
// or `size`) to `out`, and returns where the run ends. `out` is a buffer of its own or lies at or
// before `data + at` (decoding in place): every byte is read before anything is written over it.
// A vector at a time with a vector `V` (the run's bytes copied as they are scanned; `V` gives the
// width, a load, a store and the compares of special_bytes), eight bytes a step with WordRun
// (WordRun::holds_special_byte), a byte at a time with ByteRun (the reference); the last few
// bytes one at a time.
// The vector types pass only between functions flattened into one (decode_string_avx2), so
// their calling convention never matters.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// The mask of a vector's special bytes: `"`, `\` and the control bytes (at most 0x1F).
template <class V> inline std::uint64_t special_bytes(typename V::Bytes bytes) {
    return V::bits(V::either(V::either(V::eq(bytes, V::splat('"')), V::eq(bytes, V::splat('\\'))),
                             V::at_most(bytes, 0x1F)));
}

template <class V>
inline std::size_t copy_plain_run(const char* data, std::size_t size, std::size_t at, char* out) {
    const std::size_t start = at;
    if constexpr (V::width > 0) {
        // In place, `out` trails the input by the bytes the escapes so far saved: from a vector's
        // width on, a whole vector stored at `out` ends before the first byte not yet read. A
        // buffer of its own has room for every byte left, so a whole vector always fits.
        const std::uintptr_t trail =
            reinterpret_cast<std::uintptr_t>(data + at) - reinterpret_cast<std::uintptr_t>(out);
        const bool far_behind = trail >= V::width;
        for (; at + V::width <= size; at += V::width) {
            const auto bytes = V::load(data + at);
            if (const std::uint64_t mask = special_bytes<V>(bytes); mask != 0) {
                const auto plain = static_cast<std::size_t>(std::countr_zero(mask));
                // The whole vector when that writes over nothing unread (the bytes past the run
                // are written again by what follows it), else only the run.
                if (far_behind)
                    V::store(out + (at - start), bytes);
                else
                    std::memmove(out + (at - start), data + at, plain);
                return at + plain;
            }
            // Before the trail reaches a vector's width, a store could reach bytes not read yet.
            if (far_behind)
                V::store(out + (at - start), bytes);
            else
                std::memmove(out + (at - start), data + at, V::width);
        }
    } else if constexpr (V::words) {
        for (std::uint64_t word = 0; at + 8 <= size; at += 8) {
            std::memcpy(&word, data + at, 8);
            if (V::holds_special_byte(word)) break;
        }
        std::memmove(out, data + start, at - start);
    }
    for (; at < size && !is_special_byte(data[at]); ++at) out[at - start] = data[at];
    return at;
}

// The runs of copy_plain_run that are no vector: eight bytes at a time, and one at a time.
struct WordRun {
    static constexpr std::size_t width = 0;
    static constexpr bool words = true;
    // True when one of the 8 bytes in `word` is `"`, `\` or a control byte (below 0x20): the
    // bytes a string body cannot hold as they are.
    static bool holds_special_byte(std::uint64_t word) {
        constexpr std::uint64_t ones = 0x0101010101010101ull;
        constexpr std::uint64_t highs = 0x8080808080808080ull;
        const auto has_zero = [](std::uint64_t v) { return ((v - ones) & ~v & highs) != 0; };
        return has_zero(word ^ (ones * '"')) || has_zero(word ^ (ones * '\\')) ||
               ((word - ones * 0x20) & ~word & highs) != 0;
    }
};
struct ByteRun {
    static constexpr std::size_t width = 0;
    static constexpr bool words = false;
};

// decode_string with the run copy `Run`.
template <class Run>
inline DecodedString decode_string_with(std::string_view bytes, std::size_t at, char* out) {
    DecodedString body;
    const char* const data = bytes.data();
    const std::size_t size = bytes.size();
    std::size_t put = 0;
    for (;;) {
        const std::size_t run = copy_plain_run<Run>(data, size, at, out + put);
        put += run - at;
        at = run;
        if (at == size) return body;
        if (data[at] == '"') {
            body.close = at;
            body.size = put;
            return body;
        }
        if (data[at] != '\\' || at + 1 == size) return body; // a control byte
        body.escaped = true;
        const char kind = data[at + 1];
        at += 2;
        switch (kind) {
        case '"':
        case '\\':
        case '/':
            out[put++] = kind;
            break;
        case 'b':
            out[put++] = '\b';
            break;
        case 'f':
            out[put++] = '\f';
            break;
        case 'n':
            out[put++] = '\n';
            break;
        case 'r':
            out[put++] = '\r';
            break;
        case 't':
            out[put++] = '\t';
            break;
        case 'u': {
            const long unit = escaped_unit(data, size, at - 2);
            if (unit < 0) return body;
            at += 4;
            const long low = is_high_surrogate(unit) ? escaped_unit(data, size, at) : -1;
            if (is_low_surrogate(low)) {
                at += 6;
                put +=
                    put_utf8(out + put, 0x10000 + ((static_cast<unsigned>(unit) - 0xD800) << 10) +
                                            (static_cast<unsigned>(low) - 0xDC00));
            } else if (is_high_surrogate(unit) || is_low_surrogate(unit)) {
                // The escape after a lone high one is read on its own, as replace_lone_surrogates
                // leaves it.
                body.lone_surrogate = true;
                put += put_utf8(out + put, 0xFFFD);
            } else {
                put += put_utf8(out + put, static_cast<unsigned>(unit));
            }
            break;
        }
        default:
            return body;
        }
    }
}

#if VIBER_SIMD_X86
DecodedString decode_string_sse2(std::string_view bytes, std::size_t at, char* out) {
    return decode_string_with<simd::Sse2>(bytes, at, out);
}
#endif
#if VIBER_SIMD_WIDE
__attribute__((target("avx2"), flatten)) DecodedString
decode_string_avx2(std::string_view bytes, std::size_t at, char* out) {
    return decode_string_with<simd::Avx2>(bytes, at, out);
}
#endif

#pragma GCC diagnostic pop

} // namespace

DecodedString decode_string(std::string_view bytes, std::size_t at, char* out) {
#if VIBER_SIMD_WIDE
    // Long bodies only: a short one is done before the wider loop pays for itself.
    if (bytes.size() - at >= 4096 && cpu::has_avx2()) return decode_string_avx2(bytes, at, out);
#endif
#if VIBER_SIMD_X86
    return decode_string_sse2(bytes, at, out);
#else
    return decode_string_with<WordRun>(bytes, at, out);
#endif
}

DecodedString decode_string_reference(std::string_view bytes, std::size_t at, char* out) {
    return decode_string_with<ByteRun>(bytes, at, out);
}

DecodedString decode_string_with(Kernel kernel, std::string_view bytes, std::size_t at, char* out) {
    if (!supported(kernel, string_kernels)) kernel = Kernel::best;
    switch (kernel) {
    case Kernel::portable:
        return decode_string_with<WordRun>(bytes, at, out);
#if VIBER_SIMD_X86
    case Kernel::sse2:
        return decode_string_sse2(bytes, at, out);
#endif
#if VIBER_SIMD_WIDE
    case Kernel::avx2:
        return decode_string_avx2(bytes, at, out);
#endif
    default:
        return decode_string(bytes, at, out);
    }
}

} // namespace viber::fast
