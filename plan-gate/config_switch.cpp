// config_switch.cpp: runs the plugin's scripts/config.sh to read the plain plan review switch.
#include "plan-gate/config_switch.hpp"

#include "common/files.hpp"
#include "common/plugin_paths.hpp"

#include <cerrno>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace viber::plan_gate {

bool switch_is_on(std::string_view config_output) {
    std::size_t key_lines = 0;
    bool exact = false;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = config_output.find('\n', start);
        const std::string_view line = config_output.substr(
            start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (line.starts_with(plain_review_key)) {
            ++key_lines;
            exact = line == plain_review_on_line;
        }
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return key_lines == 1 && exact;
}

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

// The script and everything it started share one process group, so one kill reaches a
// background child that still holds the pipe as well.
void kill_group_and_reap(pid_t pid) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

// Waits for `pid` to exit until `deadline`; true when it did (and was reaped).
bool reaped_before(pid_t pid, Clock::time_point deadline) {
    for (;;) {
        int status = 0;
        const pid_t got = ::waitpid(pid, &status, WNOHANG);
        if (got == pid) return true;
        if (got < 0 && errno != EINTR) return true; // nothing left to wait for
        if (Clock::now() >= deadline) return false;
        const timespec pause{0, 2'000'000};
        ::nanosleep(&pause, nullptr);
    }
}

} // namespace

std::optional<std::string> run_bash_script(const std::string& script, const std::string& cwd,
                                           std::chrono::milliseconds limit,
                                           std::size_t max_output) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
    // Everything the child needs is built before fork: the child only calls async-signal-safe
    // functions.
    std::string bash = "bash";
    std::string script_arg = script;
    char* argv[] = {bash.data(), script_arg.data(), nullptr};
    const char* dir = cwd.c_str();

    const auto deadline = Clock::now() + limit;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(out[0]);
        ::close(out[1]);
        return std::nullopt;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        // hook_main ignores SIGPIPE; an ignored signal stays ignored across exec, and the script
        // should see the ordinary default.
        ::signal(SIGPIPE, SIG_DFL);
        const int devnull = ::open("/dev/null", O_RDWR);
        if (devnull < 0 || ::chdir(dir) != 0) ::_exit(127);
        ::dup2(devnull, STDIN_FILENO);
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(devnull, STDERR_FILENO);
        ::execvp(argv[0], argv);
        ::_exit(127);
    }
    // Set in both processes so the group exists before either side relies on it.
    ::setpgid(pid, pid);
    ::close(out[1]);

    std::string output;
    char buffer[16 * 1024];
    bool finished_output = false;
    while (!finished_output) {
        pollfd pfd{out[0], POLLIN, 0};
        const int ready = ::poll(&pfd, 1, remaining_ms(deadline));
        if (ready < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (ready == 0) break; // past the time bound
        const ssize_t got = ::read(out[0], buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            break;
        }
        if (got == 0) {
            finished_output = true;
            break;
        }
        if (output.size() + static_cast<std::size_t>(got) > max_output) break;
        output.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(out[0]);
    if (!finished_output || !reaped_before(pid, deadline)) {
        kill_group_and_reap(pid);
        return std::nullopt;
    }
    return output;
}

bool plain_plan_review_on(const std::string& cwd) {
    const std::string script = plugin_file(config_script);
    if (!is_regular_file(script)) return false;
    const std::optional<std::string> output = run_bash_script(script, cwd);
    return output && switch_is_on(*output);
}

} // namespace viber::plan_gate
