// process.cpp: runs a built hook binary as a real process, for the integration tests.
// POSIX: fork/exec with poll over the three pipes. Windows: CreateProcessW with a thread per pipe.
#include "support/process.hpp"

#include "support/emulator.hpp"
#include "support/platform.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include "common/os/os_windows_text.hpp"

#include <thread>
#include <windows.h>
#else
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;
#endif

namespace viber::testing {

std::string hook_binary(std::string_view name) {
    return std::string(VIBER_BIN_DIR) + "/" + std::string(name) + VIBER_EXE_SUFFIX;
}
std::string source_path(std::string_view rel) {
    return std::string(VIBER_SOURCE_DIR) + "/" + std::string(rel);
}

bool bash_on_path() {
#ifdef _WIN32
    wchar_t found[MAX_PATH];
    return ::SearchPathW(nullptr, L"bash.exe", nullptr, MAX_PATH, found, nullptr) > 0;
#else
    return true; // POSIX systems have it; a missing bash fails the test, as it should
#endif
}

#ifndef _WIN32
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
        if (out_open) {
            fds[n] = {out_pipe[0], POLLIN, 0};
            out_i = n++;
        }
        if (err_open) {
            fds[n] = {err_pipe[0], POLLIN, 0};
            err_i = n++;
        }
        if (in_fd >= 0 && !pending.empty()) {
            fds[n] = {in_fd, POLLOUT, 0};
            in_i = n++;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        const int ready = ::poll(fds, static_cast<nfds_t>(n),
                                 static_cast<int>(std::min<long long>(left.count(), 100)));
        if (ready < 0 && errno != EINTR) break;
        char buffer[65536];
        auto drain = [&](int idx, int fd, std::string& into, bool& open) {
            if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
            const ssize_t got = ::read(fd, buffer, sizeof buffer);
            if (got <= 0)
                open = false;
            else
                into.append(buffer, static_cast<std::size_t>(got));
        };
        drain(out_i, out_pipe[0], result.out, out_open);
        drain(err_i, err_pipe[0], result.err, err_open);
        if (in_i >= 0 && (fds[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
            const ssize_t put = ::write(in_fd, pending.data(), pending.size());
            if (put > 0)
                pending.remove_prefix(static_cast<std::size_t>(put));
            else if (put < 0 && errno != EAGAIN && errno != EINTR)
                pending = {};
            if (pending.empty() && options.stdin_mode == StdinMode::bytes) {
                ::close(in_fd);
                in_fd = -1;
            }
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (in_fd >= 0) ::close(in_fd);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
}
#else
using os::append_quoted;
using os::widen;

namespace {

// The parent's environment with `changes` applied, as a sorted-enough UTF-16 block.
std::wstring environment_block(const std::map<std::string, std::optional<std::string>>& changes) {
    std::map<std::wstring, std::wstring> vars;
    wchar_t* block = ::GetEnvironmentStringsW();
    for (const wchar_t* entry = block; *entry != L'\0'; entry += std::wcslen(entry) + 1) {
        const std::wstring text = entry;
        const std::size_t eq = text.find(L'=', 1); // "=C:=C:\\x" entries start with '='
        if (eq == std::wstring::npos) continue;
        vars[text.substr(0, eq)] = text.substr(eq + 1);
    }
    ::FreeEnvironmentStringsW(block);
    for (const auto& [key, value] : changes) {
        const std::wstring wkey = widen(key);
        // Windows environment names are case-insensitive.
        for (auto it = vars.begin(); it != vars.end();) {
            if (::_wcsicmp(it->first.c_str(), wkey.c_str()) == 0)
                it = vars.erase(it);
            else
                ++it;
        }
        if (value) vars[wkey] = widen(*value);
    }
    std::wstring out;
    for (const auto& [key, value] : vars) out += key + L"=" + value + L'\0';
    out.push_back(L'\0');
    return out;
}

void drain(HANDLE from, std::string& into) {
    char buffer[65536];
    DWORD got = 0;
    while (::ReadFile(from, buffer, sizeof buffer, &got, nullptr) && got > 0)
        into.append(buffer, got);
}

} // namespace

RunResult run_process(const std::string& exe, const RunOptions& options) {
    SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE in_read, in_write, out_read, out_write, err_read, err_write;
    if (!::CreatePipe(&in_read, &in_write, &inherit, 0) ||
        !::CreatePipe(&out_read, &out_write, &inherit, 0) ||
        !::CreatePipe(&err_read, &err_write, &inherit, 0))
        throw std::runtime_error("CreatePipe failed");
    ::SetHandleInformation(in_write, HANDLE_FLAG_INHERIT, 0);
    ::SetHandleInformation(out_read, HANDLE_FLAG_INHERIT, 0);
    ::SetHandleInformation(err_read, HANDLE_FLAG_INHERIT, 0);

    std::wstring command_line;
    append_quoted(command_line, widen(exe));
    for (const std::string& arg : options.args) append_quoted(command_line, widen(arg));
    std::wstring env = environment_block(options.env);
    const std::wstring cwd = options.cwd ? widen(*options.cwd) : std::wstring();

    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = in_read;
    startup.hStdOutput = out_write;
    startup.hStdError = err_write;
    PROCESS_INFORMATION process{};
    const auto started = std::chrono::steady_clock::now();
    // Under wine on a loaded machine CreateProcessW has been seen to fail once and work at once
    // after: a few tries, a moment apart, before the test is told. A real refusal fails each time
    // and is reported with its error code.
    BOOL created = FALSE;
    DWORD error = 0;
    for (int attempt = 0; attempt < 4 && !created; ++attempt) {
        if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
        created = ::CreateProcessW(widen(exe).c_str(), command_line.data(), nullptr, nullptr, TRUE,
                                   CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW, env.data(),
                                   cwd.empty() ? nullptr : cwd.c_str(), &startup, &process);
        if (!created) error = ::GetLastError();
    }
    ::CloseHandle(in_read);
    ::CloseHandle(out_write);
    ::CloseHandle(err_write);
    if (!created) {
        ::CloseHandle(in_write);
        ::CloseHandle(out_read);
        ::CloseHandle(err_read);
        throw std::runtime_error("CreateProcessW failed for " + exe + " (error " +
                                 std::to_string(error) + ")");
    }
    ::CloseHandle(process.hThread);

    RunResult result;
    std::thread out_reader([&] { drain(out_read, result.out); });
    std::thread err_reader([&] { drain(err_read, result.err); });
    // The writer may block on a full pipe: it has its own thread, ended by the child's exit (a
    // broken pipe) at the latest.
    std::thread writer([&] {
        std::string_view pending = options.stdin_bytes;
        while (!pending.empty()) {
            DWORD put = 0;
            const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(pending.size(), 1u << 20));
            if (!::WriteFile(in_write, pending.data(), chunk, &put, nullptr) || put == 0) break;
            pending.remove_prefix(put);
        }
        if (options.stdin_mode == StdinMode::bytes) {
            ::CloseHandle(in_write);
            in_write = nullptr;
        }
    });
    const DWORD wait_ms = static_cast<DWORD>(options.timeout.count());
    if (::WaitForSingleObject(process.hProcess, wait_ms) == WAIT_TIMEOUT) {
        result.timed_out = true;
        ::TerminateProcess(process.hProcess, 1);
        ::WaitForSingleObject(process.hProcess, INFINITE);
    }
    // With the child gone a write to its stdin fails at once, so the writer ends.
    writer.join();
    if (in_write != nullptr) ::CloseHandle(in_write);
    out_reader.join();
    err_reader.join();
    ::CloseHandle(out_read);
    ::CloseHandle(err_read);
    DWORD code = 0;
    ::GetExitCodeProcess(process.hProcess, &code);
    ::CloseHandle(process.hProcess);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    result.exit_code = result.timed_out ? -1 : static_cast<int>(code);
    return result;
}
#endif

} // namespace viber::testing
