// process.cpp: runs a built hook binary as a real process, for the integration tests.
#include "support/process.hpp"

#include "support/emulator.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace viber::testing {

std::string hook_binary(std::string_view name) { return std::string(VIBER_BIN_DIR) + "/" + std::string(name); }
std::string source_path(std::string_view rel) { return std::string(VIBER_SOURCE_DIR) + "/" + std::string(rel); }

RunResult run_process(const std::string& exe, const RunOptions& options) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
        ::pipe2(err_pipe, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe failed");

    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string entry = *e;
        const std::string key = entry.substr(0, entry.find('='));
        if (options.env.count(key) == 0) env_strings.push_back(entry);
    }
    for (const auto& [key, value] : options.env)
        if (value) env_strings.push_back(key + "=" + *value);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_strings = emulated_command(exe);
    argv_strings.insert(argv_strings.end(), options.args.begin(), options.args.end());
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);

    const auto started = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::dup2(in_pipe[0], 0);
        ::dup2(out_pipe[1], 1);
        ::dup2(err_pipe[1], 2);
        if (options.cwd && ::chdir(options.cwd->c_str()) != 0) ::_exit(126);
        ::execve(argv_strings.front().c_str(), argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    ::fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);

    RunResult result;
    std::string_view pending = options.stdin_bytes;
    int in_fd = in_pipe[1];
    if (pending.empty() && options.stdin_mode == StdinMode::bytes) {
        ::close(in_fd);
        in_fd = -1;
    }
    bool out_open = true, err_open = true;
    const auto deadline = started + options.timeout;
    while (out_open || err_open) {
        pollfd fds[3];
        int n = 0;
        int out_i = -1, err_i = -1, in_i = -1;
        if (out_open) { fds[n] = {out_pipe[0], POLLIN, 0}; out_i = n++; }
        if (err_open) { fds[n] = {err_pipe[0], POLLIN, 0}; err_i = n++; }
        if (in_fd >= 0 && !pending.empty()) { fds[n] = {in_fd, POLLOUT, 0}; in_i = n++; }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        const int ready = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(std::min<long long>(left.count(), 100)));
        if (ready < 0 && errno != EINTR) break;
        char buffer[65536];
        auto drain = [&](int idx, int fd, std::string& into, bool& open) {
            if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
            const ssize_t got = ::read(fd, buffer, sizeof buffer);
            if (got <= 0) open = false;
            else into.append(buffer, static_cast<std::size_t>(got));
        };
        drain(out_i, out_pipe[0], result.out, out_open);
        drain(err_i, err_pipe[0], result.err, err_open);
        if (in_i >= 0 && (fds[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
            const ssize_t put = ::write(in_fd, pending.data(), pending.size());
            if (put > 0) pending.remove_prefix(static_cast<std::size_t>(put));
            else if (put < 0 && errno != EAGAIN && errno != EINTR) pending = {};
            if (pending.empty() && options.stdin_mode == StdinMode::bytes) {
                ::close(in_fd);
                in_fd = -1;
            }
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (in_fd >= 0) ::close(in_fd);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
}

} // namespace viber::testing
