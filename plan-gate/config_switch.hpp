// config_switch.hpp: the plain plan review switch, read from what the plugin's scripts/config.sh
// prints in the project directory (docs/plan-gate.md, step 2).
#pragma once

#include "common/os/os.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace viber::plan_gate {

inline constexpr std::string_view plain_review_key = "planning.plain-plan-review: ";
inline constexpr std::string_view plain_review_on_line = "planning.plain-plan-review: true";

// How long config.sh may run and how much of its stdout is kept: the hook itself must answer
// inside Claude Code's 10 s timeout (docs/contract.md, "One deadline": config.sh gets at most 5 s
// and never more than what is left of 8.5 s after the hook started, so the hook has printed and
// exited within 9 s), and a runaway script must not grow it without bound.
inline constexpr std::chrono::milliseconds config_time_limit{5000};
inline constexpr std::chrono::milliseconds config_deadline{8500};
inline constexpr std::size_t config_output_limit = std::size_t{1} << 20;

// True when exactly one line of `config_output` (lines end at `\n`) starts with
// `planning.plain-plan-review: ` and that line is exactly `planning.plain-plan-review: true`:
// a CR or a trailing space is a different value, and two such lines are a conflict, not a yes.
bool switch_is_on(std::string_view config_output);

// Runs `bash <script>` with `cwd` as its working directory, stdin /dev/null and stderr discarded.
// Returns its stdout when it exits within `limit` with at most `max_output` bytes of it; nullopt
// when it could not start, overran the output bound, or ran past `limit`. Whatever happened, the
// script and everything it started (background jobs, setsid grandchildren) are ended before this
// returns (os::start_captured). Its exit status is ignored. Neither `script` nor `cwd` ever passes
// through a shell command line, so no character in them is special.
std::optional<std::string> run_bash_script(const std::string& script, const std::string& cwd,
                                           std::chrono::milliseconds limit = config_time_limit,
                                           std::size_t max_output = config_output_limit);

// What config.sh may have now: min(config_time_limit, what is left of config_deadline since the
// process started).
std::chrono::milliseconds config_time_left();

// The switch for a project: scripts/config.sh found by the plugin file rule (docs/contract.md), run
// in `cwd`. Asked in two steps so the hook can work while bash starts: the constructor starts the
// script (its time limit, config_time_left(), counts from then) and on() waits for its answer.
// on() is false when the script is not a regular file, fails to answer in time, or says anything
// but the one exact line. A query destroyed unasked ends the script and everything it started.
class SwitchQuery {
public:
    explicit SwitchQuery(const std::string& cwd);
    bool on();

private:
    os::CapturedRun run_;
    os::Clock::time_point deadline_{};
};

} // namespace viber::plan_gate
