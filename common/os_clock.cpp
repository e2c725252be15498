// os_clock.cpp: the process-start clock of the operating-system layer, the same on every platform.
#include "common/os.hpp"

#include <algorithm>

namespace viber::os {

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
