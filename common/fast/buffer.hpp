// fast/buffer.hpp: buffers that are about to be written, sized and announced so that the OS can
// back them with few page faults: a buffer of a mebibyte or more is sized to whole 2 MiB huge
// pages and advised onto them where Linux has them, and the bytes about to be written are taken
// in one call instead of a fault for each 4 KiB (common/os: huge_page_capacity, expect_writes).
// Elsewhere these are plain reserves. Rule code sizes its buffers through these names only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace viber::fast {

// The capacity to reserve for a buffer that will hold `bytes`: `bytes`, or more so that the
// allocation is a whole number of huge pages where that pays.
std::size_t buffer_capacity(std::size_t bytes);

// The first `written` bytes of the fresh buffer at `data` (of `room` bytes) are about to be
// written.
void expect_writes(char* data, std::size_t written, std::size_t room);

// Room for at least `count` elements in `v`, the ones it holds moved into a fresh allocation sized
// by buffer_capacity and announced to expect_writes before they land. Nothing when `v` has the
// room.
template <class T> void reserve_for_writes(std::vector<T>& v, std::size_t count) {
    if (v.capacity() >= count || count > v.max_size()) return;
    std::vector<T> next;
    next.reserve(std::max(count, buffer_capacity(count * sizeof(T)) / sizeof(T)));
    expect_writes(reinterpret_cast<char*>(next.data()), v.size() * sizeof(T),
                  next.capacity() * sizeof(T));
    next.insert(next.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
    v.swap(next);
}

// Room for `bytes` in the empty string `text`, all about to be written.
inline void reserve_for_writes(std::string& text, std::size_t bytes) {
    text.reserve(buffer_capacity(bytes));
    expect_writes(text.data(), bytes, text.capacity());
}

// v.push_back(x), the vector doubling through reserve_for_writes once it holds 512 KiB.
template <class T> void push_back_growing(std::vector<T>& v, T x) {
    if (v.size() == v.capacity() && v.size() >= (std::size_t{512} << 10) / sizeof(T))
        reserve_for_writes(v, 2 * v.size());
    v.push_back(std::move(x));
}

} // namespace viber::fast
