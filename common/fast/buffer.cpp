// fast/buffer.cpp: the buffer hints (fast/buffer.hpp), through the OS layer.
#include "common/fast/buffer.hpp"

#include "common/os/os.hpp"

namespace viber::fast {

std::size_t buffer_capacity(std::size_t bytes) {
    return os::huge_page_capacity(bytes);
}

void expect_writes(char* data, std::size_t written, std::size_t room) {
    os::expect_writes(data, written, room);
}

} // namespace viber::fast
