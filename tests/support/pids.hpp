// pids.hpp: whether a process a test started (by the pid it wrote) still runs.
#pragma once

#include <fstream>
#include <string>

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

} // namespace viber::testing
