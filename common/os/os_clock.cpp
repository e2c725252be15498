// os_clock.cpp: the operating-system layer's clock (os::Clock: the system call on Linux,
// steady_clock elsewhere) and the process-start time every deadline counts from.
#include "common/os/os.hpp"

#include <algorithm>

#ifdef __linux__
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

namespace viber::os {

Clock::time_point Clock::now() noexcept {
#ifdef __linux__
    timespec ts{};
    if (::syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) == 0)
        return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
#endif
    return time_point(
        std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch()));
}

namespace {
// Taken during static initialisation, before main: as close to the exec as portable code gets.
const Clock::time_point started_at = Clock::now();
} // namespace

Clock::time_point process_start() {
    return started_at;
}

std::chrono::milliseconds left_of(std::chrono::milliseconds budget) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(started_at + budget - Clock::now());
    return std::max(left, std::chrono::milliseconds{0});
}

} // namespace viber::os
