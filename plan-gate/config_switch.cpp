// config_switch.cpp: runs the plugin's scripts/config.sh to read the plain plan review switch.
#include "plan-gate/config_switch.hpp"

#include "common/io/files.hpp"
#include "common/io/plugin_paths.hpp"
#include "common/os/os.hpp"
#include "common/text/lines.hpp"

#include <algorithm>

namespace viber::plan_gate {

bool switch_is_on(std::string_view config_output) {
    std::size_t key_lines = 0;
    bool exact = false;
    text::for_each_line(config_output, [&](std::string_view line) {
        if (line.starts_with(plain_review_key)) {
            ++key_lines;
            exact = line == plain_review_on_line;
        }
        return true;
    });
    return key_lines == 1 && exact;
}

std::optional<std::string> run_bash_script(const std::string& script, const std::string& cwd,
                                           std::chrono::milliseconds limit,
                                           std::size_t max_output) {
    const os::Clock::time_point deadline = os::Clock::now() + limit; // counted before the start
    const os::RunResult run =
        os::start_captured({"bash", script}, cwd).finish(deadline, max_output);
    if (run.end != os::RunEnd::exited) return std::nullopt;
    return run.output;
}

std::chrono::milliseconds config_time_left() {
    return std::min(config_time_limit, os::left_of(config_deadline));
}

SwitchQuery::SwitchQuery(const std::string& cwd) {
    const std::string script = plugin_file(config_script);
    if (!is_regular_file(script)) return;
    const std::chrono::milliseconds limit = config_time_left();
    if (limit.count() == 0) return; // the hook's own deadline is already spent
    deadline_ = os::Clock::now() + limit;
    run_ = os::start_captured({"bash", script}, cwd);
}

bool SwitchQuery::on() {
    const os::RunResult run = run_.finish(deadline_, config_output_limit);
    return run.end == os::RunEnd::exited && switch_is_on(run.output);
}

} // namespace viber::plan_gate
