// fast/line_scan.hpp: scanning lines of bytes for needles. A kernel reports, in position order,
// every newline and every start of a wanted needle; the caller (the transcript scanner) decides
// what a line is. One template over the vector width (fast/vector.hpp), with the portable kernel
// as the plain reference beside it; tests/unit/fast/fast_line_scan_test.cpp holds each kernel to
// it.
//
// The needles are the caller's: a constexpr array of LineNeedle, each found by two of its bytes
// (its probe bytes, chosen to be rare where it is looked for) compared a whole vector of
// positions at a time; a memcmp then confirms the match. A vector kernel looks for the first
// probe byte at each position itself, so every needle shares that one load (with the newline
// compare), and for the second `second - first` bytes on: adjacent probe bytes share the second
// load too.
//
// The buffer contract: positions [from, to) of `data` are scanned; the bytes from
// data - look_behind_of(Needles) and up to data + to + line_scan_padding(Needles) are readable
// (zero where no data is; no needle holds a zero byte).
#pragma once

#include "common/fast/arch/aarch64/neon.hpp"
#include "common/fast/arch/x86_64/avx2.hpp"
#include "common/fast/arch/x86_64/sse2.hpp"
#include "common/fast/kernel.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace viber::fast {

struct LineNeedle {
    std::string_view text;
    unsigned first;  // offset of the first probe byte
    unsigned second; // offset of the second probe byte, after the first
};

// At most this many needles (a mask of them is 32 bits; the event blocks hold one mask each).
inline constexpr std::size_t max_needles = 16;

// A vector kernel confirms a needle this many bytes before the position it found.
template <std::size_t N> constexpr std::size_t look_behind_of(const std::array<LineNeedle, N>& n) {
    std::size_t most = 0;
    for (const auto& needle : n) most = needle.first > most ? needle.first : most;
    return most;
}
// Bytes past `to` a kernel may read: the widest probe offset plus one 32-byte vector, and a full
// needle for the confirming memcmp.
template <std::size_t N>
constexpr std::size_t line_scan_padding(const std::array<LineNeedle, N>& n) {
    std::size_t longest = 0;
    for (const auto& needle : n)
        longest = needle.text.size() > longest ? needle.text.size() : longest;
    return 16 + 32 + longest;
}

namespace line_scan_detail {

template <const auto& Needles> inline bool confirm(const char* at, std::size_t needle) {
    const auto& text = Needles[needle].text;
    return std::memcmp(at, text.data(), text.size()) == 0;
}

// Scans positions [from, to) of `data` (readable up to to + buffer_padding) and reports, in
// position order, every newline (sink.newline(i)) and every start of a needle in `Mask`
// (sink.hit(i, needle)). sink.newline returns false when the needles it wants change after that
// line: the kernel then stops and returns the position after the newline, else it returns `to`.
// The portable kernel: a table from a byte to the needles that open with it keeps the per-byte
// work to one lookup on the common path.
template <const auto& Needles, std::uint32_t Mask, class Sink>
std::size_t scan_lines_portable(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    std::array<std::uint32_t, 256> opens{};
    for (std::size_t k = 0; k < Needles.size(); ++k) {
        if ((Mask >> k) & 1u) opens[static_cast<unsigned char>(Needles[k].text[0])] |= 1u << k;
    }
    for (std::size_t i = from; i < to; ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if (c == '\n') {
            if (!sink.newline(i)) return i + 1;
            continue;
        }
        for (std::uint32_t maybe = opens[c]; maybe != 0; maybe &= maybe - 1) {
            const auto k = static_cast<unsigned>(__builtin_ctz(maybe));
            if (confirm<Needles>(data + i, k)) sink.hit(i, k);
        }
    }
    return to;
}

// The vector types of the wider kernels pass only between functions flattened into one, so their
// calling convention never matters.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// A block of positions where the vector kernel found events, as `V::bits` gives them: every event,
// the newlines, and each wanted needle's probe matches.
struct EventBlock {
    std::size_t block;
    std::uint64_t events;
    std::uint64_t newlines;
    std::uint64_t per_needle[max_needles];
};

// The vector kernel hands its event blocks to the sink this many at a time: no vector register
// survives a call, so each call out of the loop saves and reloads every pinned splat, and a
// transcript has an event (a newline at least) in most blocks of a short line.
constexpr std::size_t event_batch = 16;
// handle_events() when every event was handled.
constexpr std::size_t events_handled = static_cast<std::size_t>(-1);

// Hands the events of `count` event blocks to the sink in position order: sink.newline(i) for a
// newline, sink.hit(i, needle) for a needle its memcmp confirms. Returns events_handled, or the
// position after a newline for which sink.newline returned false (the events after it are left).
// Out of line and in general-purpose registers: the vector loop stays small, and calls into the
// sink are made with no vector register live.
template <const auto& Needles, std::uint32_t Mask, unsigned per_byte, class Sink>
[[gnu::noinline]] std::size_t handle_events(const char* data, const EventBlock* blocks,
                                            std::size_t count, Sink& sink) {
    constexpr std::uint64_t lane_ones = (std::uint64_t{1} << per_byte) - 1;
    constexpr auto wanted = [](std::size_t k) { return ((Mask >> k) & 1u) != 0; };
    for (std::size_t b = 0; b < count; ++b) {
        const EventBlock& found = blocks[b];
        std::uint64_t events = found.events;
        while (events != 0) {
            const auto bit = static_cast<unsigned>(__builtin_ctzll(events));
            const unsigned lane = bit / per_byte;
            events &= ~(lane_ones << (lane * per_byte));
            const std::size_t pos = found.block + lane;
            if ((found.newlines >> bit) & 1u) {
                if (!sink.newline(pos)) return pos + 1;
                continue;
            }
            // Unrolled, so each confirming memcmp has a constant size and is inlined.
#pragma GCC unroll 16
            for (std::size_t k = 0; k < Needles.size(); ++k) {
                if (wanted(k) && ((found.per_needle[k] >> bit) & 1u) &&
                    confirm<Needles>(data + pos - Needles[k].first, k))
                    sink.hit(pos - Needles[k].first, static_cast<unsigned>(k));
            }
        }
    }
    return events_handled;
}

// The vector kernel, one template over the vector width `V` (fast/vector.hpp): splats of the probe
// bytes, pinned so that none is rebuilt inside the loop, compared with unaligned loads; `bits`
// turns a compare result into a 64-bit mask of `bits_per_byte` set bits per matching position.
// Only the needles in `Mask` are looked for: a hook never pays for a needle it cannot want.
// Positions are those of the first probe byte: the kernel reads `look_behind` bytes before `from`.
// Blocks with events are gathered and handed on event_batch at a time (handle_events); a sink
// that stops the kernel at a newline leaves the blocks gathered after it to the next call.
template <class V, const auto& Needles, std::uint32_t Mask, class Sink>
inline std::size_t scan_lines_vector(const char* data, std::size_t from, std::size_t to,
                                     Sink& sink) {
    using Bytes = typename V::Bytes;
    using Lanes = typename V::Lanes;
    constexpr std::size_t width = V::width;
    constexpr unsigned per_byte = V::bits_per_byte;
    const Bytes newline = V::pin(V::splat('\n'));
    constexpr auto wanted = [](std::size_t k) { return ((Mask >> k) & 1u) != 0; };
    Bytes first_byte[Needles.size()];
    Bytes second_byte[Needles.size()];
    // Only the needles looked for: a pinned splat is never dropped, and a short call (one line
    // searched for one needle) would pay for them all.
#pragma GCC unroll 16
    for (std::size_t k = 0; k < Needles.size(); ++k) {
        if (!wanted(k)) continue;
        first_byte[k] = V::pin(V::splat(Needles[k].text[Needles[k].first]));
        second_byte[k] = V::pin(V::splat(Needles[k].text[Needles[k].second]));
    }
    EventBlock gathered[event_batch];
    std::size_t count = 0;
    for (std::size_t block = from; block < to; block += width) {
        const char* at = data + block;
        Lanes match[Needles.size()];
        const Bytes head = V::load(at);
        Lanes any = V::eq(head, newline); // newlines count as events too
        const Lanes newline_lanes = any;
        // Unrolled, every probe offset and byte is a constant and shared loads are merged.
#pragma GCC unroll 16
        for (std::size_t k = 0; k < Needles.size(); ++k) {
            if (!wanted(k)) continue;
            match[k] = V::both(
                V::eq(head, first_byte[k]),
                V::eq(V::load(at + (Needles[k].second - Needles[k].first)), second_byte[k]));
            any = V::either(any, match[k]);
        }
        if (V::none(any)) continue;
        EventBlock& found = gathered[count++];
        found.block = block;
        found.events = V::bits(any);
        if (to - block < width) found.events &= (std::uint64_t{1} << ((to - block) * per_byte)) - 1;
        found.newlines = V::bits(newline_lanes);
#pragma GCC unroll 16
        for (std::size_t k = 0; k < Needles.size(); ++k)
            if (wanted(k)) found.per_needle[k] = V::bits(match[k]);
        if (count == event_batch) {
            V::leave();
            const std::size_t stop =
                handle_events<Needles, Mask, per_byte>(data, gathered, count, sink);
            if (stop != events_handled) return stop;
            count = 0;
        }
    }
    V::leave();
    const std::size_t stop = handle_events<Needles, Mask, per_byte>(data, gathered, count, sink);
    return stop != events_handled ? stop : to;
}

#if VIBER_SIMD_X86
// SSE2 is in every x86-64 CPU; AVX2 is chosen at run time. Each kernel entry is flattened so the
// template and the operations are compiled into one function for that target (the sink's end of
// line is kept out of line by the caller).
template <const auto& Needles, std::uint32_t Mask, class Sink>
__attribute__((flatten)) std::size_t scan_lines_sse2(const char* data, std::size_t from,
                                                     std::size_t to, Sink& sink) {
    return scan_lines_vector<simd::Sse2, Needles, Mask>(data, from, to, sink);
}
#if VIBER_SIMD_WIDE
template <const auto& Needles, std::uint32_t Mask, class Sink>
__attribute__((target("avx2"), flatten)) std::size_t
scan_lines_avx2(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    return scan_lines_vector<simd::Avx2, Needles, Mask>(data, from, to, sink);
}
#endif
#endif

#if VIBER_SIMD_NEON
// NEON is in every aarch64 CPU.
template <const auto& Needles, std::uint32_t Mask, class Sink>
__attribute__((flatten)) std::size_t scan_lines_neon(const char* data, std::size_t from,
                                                     std::size_t to, Sink& sink) {
    return scan_lines_vector<simd::Neon, Needles, Mask>(data, from, to, sink);
}
#endif

#pragma GCC diagnostic pop

} // namespace line_scan_detail

// Scans positions [from, to) of `data` with `kernel` (resolved: see resolve) for the needles of
// `Needles` in `Mask`, and calls, in position order, sink.newline(i) for every newline and
// sink.hit(i, needle) for every needle start. sink.newline returns false when the needles the
// caller wants change after that line: the scan then stops and returns the position after the
// newline, else it returns `to`.
template <const auto& Needles, std::uint32_t Mask, class Sink>
std::size_t scan_lines(Kernel kernel, const char* data, std::size_t from, std::size_t to,
                       Sink& sink) {
    static_assert(Needles.size() <= max_needles);
    using namespace line_scan_detail;
    switch (kernel) {
#if VIBER_SIMD_WIDE
    case Kernel::avx2:
        return scan_lines_avx2<Needles, Mask>(data, from, to, sink);
#endif
#if VIBER_SIMD_X86
    case Kernel::sse2:
        return scan_lines_sse2<Needles, Mask>(data, from, to, sink);
#endif
#if VIBER_SIMD_NEON
    case Kernel::neon:
        return scan_lines_neon<Needles, Mask>(data, from, to, sink);
#endif
    default:
        return scan_lines_portable<Needles, Mask>(data, from, to, sink);
    }
}

// The reference: the portable kernel.
template <const auto& Needles, std::uint32_t Mask, class Sink>
std::size_t scan_lines_reference(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    return line_scan_detail::scan_lines_portable<Needles, Mask>(data, from, to, sink);
}

} // namespace viber::fast
