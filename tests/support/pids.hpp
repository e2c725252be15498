// pids.hpp: whether a process a test started (by the pid it wrote) still runs.
#pragma once

#include "support/emulator.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

namespace viber::testing {

// True while `pid` runs, read from /proc/<pid>/stat; a zombie counts as gone (PID 1 in a
// container may never reap it). Linux only: false where there is no /proc.
inline bool process_running(long pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string content;
    if (!std::getline(stat, content)) return false;
    const std::size_t close = content.rfind(')');
    return close != std::string::npos && close + 2 < content.size() && content[close + 2] != 'Z';
}

// True when `pid` no longer exists or runs. Natively the hook kills and reaps what config.sh left
// before it returns, so a process that still exists, even as a zombie, is a failure. Under
// qemu-user the emulated hook's orphans go to PID 1 instead of to the hook (observed: a killed
// job shows as a zombie of PID 1), so there the check is that it stopped running, within 2 s.
inline bool process_ended(long pid) {
#ifndef _WIN32
    if (test_emulator().empty()) return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
#endif
    for (int i = 0; i < 100 && process_running(pid); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return !process_running(pid);
}

} // namespace viber::testing
