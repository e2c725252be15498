// os_windows.cpp: the operating-system layer on Windows (wide-character paths, a reader thread for
// stdin's time bounds, a job object for config.sh).
#include "common/os/os.hpp"
#include "common/os/os_windows_text.hpp"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <algorithm>
#include <condition_variable>
#include <fcntl.h>
#include <io.h>
#include <memory>
#include <mutex>
#include <utility>
#include <windows.h>

namespace viber::os {

namespace {

std::string narrow(std::wstring_view wide) {
    if (wide.empty()) return {};
    const int n = ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()),
                                        nullptr, 0, nullptr, nullptr);
    std::string utf8(static_cast<std::size_t>(n), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), utf8.data(), n,
                          nullptr, nullptr);
    return utf8;
}

// A path for the Win32 API: Git Bash's drive spelling `/c/x` (what hooks see in payloads and
// what plan-gate's canonical file form uses) is `C:/x`; everything else as it is.
std::wstring widen_path(std::string_view path) {
    const bool letter = path.size() >= 2 &&
                        ((path[1] >= 'a' && path[1] <= 'z') || (path[1] >= 'A' && path[1] <= 'Z'));
    if (path.size() >= 2 && path[0] == '/' && letter && (path.size() == 2 || path[2] == '/')) {
        std::string drive(1, static_cast<char>(path[1] & ~0x20));
        drive += ':';
        drive += path.substr(2);
        return widen(path.size() == 2 ? drive + "/" : drive);
    }
    return widen(path);
}

HANDLE as_handle(std::intptr_t h) {
    return reinterpret_cast<HANDLE>(h);
}

// Opens `path` for reading attributes or data (directories too: FILE_FLAG_BACKUP_SEMANTICS),
// following symlinks, sharing everything so a writer is never disturbed.
HANDLE open_path(const std::string& path, DWORD access) {
    if (path.empty()) return INVALID_HANDLE_VALUE;
    return ::CreateFileW(widen_path(path).c_str(), access,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                         OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
}

// A regular file: a disk file that is not a directory (devices, pipes and consoles are not).
bool is_regular(HANDLE h, BY_HANDLE_FILE_INFORMATION* info) {
    BY_HANDLE_FILE_INFORMATION local{};
    if (info == nullptr) info = &local;
    return ::GetFileType(h) == FILE_TYPE_DISK && ::GetFileInformationByHandle(h, info) &&
           (info->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

} // namespace

std::size_t huge_page_capacity(std::size_t bytes) {
    return bytes;
}

void expect_writes(char*, std::size_t, std::size_t) {}

std::optional<std::tm> utc_calendar(std::time_t seconds) {
    std::tm tm{};
    if (::gmtime_s(&tm, &seconds) != 0) return std::nullopt;
    return tm;
}

bool contains_bytes(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

// ---------------------------------------------------------------------------------------------
// Standard streams

Stream standard_input() {
    return ::GetStdHandle(STD_INPUT_HANDLE);
}

bool is_terminal(Stream stream) {
    // A console handle answers GetConsoleMode; a pipe or a file does not.
    DWORD mode = 0;
    return ::GetFileType(stream) == FILE_TYPE_CHAR && ::GetConsoleMode(stream, &mode) != 0;
}

void prepare_standard_streams() {
    // The C runtime would turn "\n" into "\r\n" on the way out and eat "\r" on the way in. The
    // one-line usage errors and log notes on stderr end in "\n" as on every other platform.
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
}

namespace {

// What the stdin reader thread hands over. Shared so a reader still blocked in ReadFile after the
// hook gave up on it keeps a live object until the process exits.
struct StdinBuffer {
    std::mutex lock;
    std::condition_variable changed;
    std::string bytes;
    bool ended = false;
    bool failed = false;
};

struct StdinReader {
    std::shared_ptr<StdinBuffer> shared;
    HANDLE stream;
    std::size_t cap;
};

DWORD WINAPI read_stdin_thread(LPVOID parameter) {
    const std::unique_ptr<StdinReader> reader(static_cast<StdinReader*>(parameter));
    StdinBuffer& shared = *reader->shared;
    std::string chunk(64 * 1024, '\0');
    for (;;) {
        DWORD got = 0;
        const BOOL ok = ::ReadFile(reader->stream, chunk.data(), static_cast<DWORD>(chunk.size()),
                                   &got, nullptr);
        // Taken before the lock: taking a contended mutex calls Win32 and resets it.
        const DWORD error = ok ? ERROR_SUCCESS : ::GetLastError();
        std::lock_guard guard(shared.lock);
        if (!ok) {
            // A closed pipe is the end of the input, not a failure (which of these errors says so
            // depends on when the writer closed; wine gives each of them).
            if (error == ERROR_BROKEN_PIPE || error == ERROR_HANDLE_EOF ||
                error == ERROR_PIPE_NOT_CONNECTED || error == ERROR_NO_DATA)
                shared.ended = true;
            else
                shared.failed = true;
        } else if (got == 0) {
            shared.ended = true;
        } else {
            shared.bytes.append(chunk.data(), got);
            if (shared.bytes.size() > reader->cap) shared.failed = true;
        }
        shared.changed.notify_one();
        if (shared.ended || shared.failed) return 0;
    }
}

} // namespace

std::optional<std::string> read_stream(Stream stream, const StdinLimits& limits) {
    if (stream == nullptr || stream == INVALID_HANDLE_VALUE) return std::nullopt;
    // ReadFile on an anonymous pipe or a console cannot time out, so a thread does the reading
    // and this one keeps the clock. A reader left blocked past a bound dies with the process.
    // The thread is a Win32 one whose handle is closed here, once: a detached std::thread
    // (winpthreads) was seen closing a handle value it no longer owned when it ended, which
    // another thread had been given meanwhile (payload_test under wine: a later join failed
    // with "No such process").
    auto shared = std::make_shared<StdinBuffer>();
    auto reader = std::make_unique<StdinReader>(StdinReader{shared, stream, limits.max_bytes});
    const HANDLE thread = ::CreateThread(nullptr, 0, &read_stdin_thread, reader.get(), 0, nullptr);
    if (thread == nullptr) return std::nullopt; // no reader, no payload: the hook fails open
    reader.release();                           // the thread owns it now
    ::CloseHandle(thread);

    const auto total_deadline = Clock::now() + limits.total;
    std::unique_lock guard(shared->lock);
    for (;;) {
        if (shared->failed) return std::nullopt;
        if (shared->ended) return std::move(shared->bytes);
        const std::size_t seen = shared->bytes.size();
        const auto idle_deadline = std::min(total_deadline, Clock::now() + limits.idle);
        const bool moved = shared->changed.wait_until(guard, idle_deadline, [&] {
            return shared->failed || shared->ended || shared->bytes.size() != seen;
        });
        if (!moved) return std::nullopt; // idle or total bound passed with no data
        if (Clock::now() >= total_deadline && !shared->ended) return std::nullopt;
    }
}

bool write_stdout(std::string_view bytes) {
    const HANDLE out = ::GetStdHandle(STD_OUTPUT_HANDLE);
    while (!bytes.empty()) {
        DWORD put = 0;
        const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(bytes.size(), 1u << 30));
        if (!::WriteFile(out, bytes.data(), chunk, &put, nullptr) || put == 0) return false;
        bytes.remove_prefix(put);
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// Files

FileKind file_kind(const std::string& path) {
    const HANDLE h = open_path(path, FILE_READ_ATTRIBUTES);
    if (h == INVALID_HANDLE_VALUE) return FileKind::missing;
    BY_HANDLE_FILE_INFORMATION info{};
    FileKind kind = FileKind::other;
    if (is_regular(h, &info))
        kind = FileKind::regular;
    else if (::GetFileInformationByHandle(h, &info) &&
             (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0)
        kind = FileKind::directory;
    ::CloseHandle(h);
    return kind;
}

bool is_directory_or_file_entry(const std::string& path) {
    // The entry itself, links not followed: a `.git` marker is a directory or a file.
    const DWORD attributes = ::GetFileAttributesW(widen_path(path).c_str());
    return attributes != INVALID_FILE_ATTRIBUTES;
}

std::optional<std::vector<std::string>> directory_names(const std::string& path,
                                                        std::size_t limit) {
    std::wstring pattern = widen_path(path);
    if (!pattern.empty() && pattern.back() != L'\\' && pattern.back() != L'/') pattern += L'\\';
    pattern += L'*';
    WIN32_FIND_DATAW found{};
    const HANDLE find =
        ::FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &found, FindExSearchNameMatch, nullptr,
                           FIND_FIRST_EX_LARGE_FETCH);
    if (find == INVALID_HANDLE_VALUE) return std::nullopt;
    std::vector<std::string> names;
    bool complete = false;
    for (;;) {
        const std::wstring_view name = found.cFileName;
        if (name != L"." && name != L"..") {
            if (names.size() == limit) break;
            names.push_back(narrow(name));
        }
        if (!::FindNextFileW(find, &found)) {
            complete = ::GetLastError() == ERROR_NO_MORE_FILES;
            break;
        }
    }
    ::FindClose(find);
    if (!complete) return std::nullopt;
    return names;
}

bool append_to_regular_file(const char* path, std::string_view bytes) {
    // A named pipe or device is never opened; FILE_APPEND_DATA alone makes every write land at
    // the end, as O_APPEND does, so two hooks writing at once never overwrite each other.
    const std::string name = path;
    const FileKind kind = file_kind(name);
    if (kind != FileKind::regular && kind != FileKind::missing) return false;
    const HANDLE h = ::CreateFileW(widen_path(name).c_str(), FILE_APPEND_DATA,
                                   FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                   OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return false;
    bool written = false;
    if (is_regular(h, nullptr)) {
        DWORD put = 0;
        written = ::WriteFile(h, bytes.data(), static_cast<DWORD>(bytes.size()), &put, nullptr) &&
                  put == bytes.size();
    }
    ::CloseHandle(h);
    return written;
}

bool is_writable(const std::string& path) {
    // Windows keeps no write bit a process can test cheaply: a read-only file is the one case
    // said here (a directory's read-only attribute does not stop files being created in it).
    const DWORD attributes = ::GetFileAttributesW(widen_path(path).c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES) return false;
    return (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0 ||
           (attributes & FILE_ATTRIBUTE_READONLY) == 0;
}

std::optional<std::time_t> mtime_seconds(const std::string& path) {
    const HANDLE h = open_path(path, FILE_READ_ATTRIBUTES);
    if (h == INVALID_HANDLE_VALUE) return std::nullopt;
    BY_HANDLE_FILE_INFORMATION info{};
    const bool regular = is_regular(h, &info);
    ::CloseHandle(h);
    if (!regular) return std::nullopt;
    // FILETIME counts 100 ns ticks since 1601-01-01.
    const std::uint64_t ticks = (std::uint64_t{info.ftLastWriteTime.dwHighDateTime} << 32) |
                                info.ftLastWriteTime.dwLowDateTime;
    constexpr std::uint64_t epoch_offset = 116444736000000000ULL;
    if (ticks < epoch_offset) return std::nullopt;
    return static_cast<std::time_t>((ticks - epoch_offset) / 10000000ULL);
}

File File::open_regular(const std::string& path) {
    // Opening never blocks on Windows (a named pipe refuses or connects at once); the type check
    // happens on the opened handle.
    const HANDLE h = open_path(path, GENERIC_READ);
    if (h == INVALID_HANDLE_VALUE) return File{};
    if (!is_regular(h, nullptr)) {
        ::CloseHandle(h);
        return File{};
    }
    return File{reinterpret_cast<std::intptr_t>(h)};
}

File::File(File&& other) noexcept : handle_(other.handle_), position_(other.position_) {
    other.handle_ = invalid;
}

File& File::operator=(File&& other) noexcept {
    if (this != &other) {
        if (handle_ != invalid) ::CloseHandle(as_handle(handle_));
        handle_ = other.handle_;
        position_ = other.position_;
        other.handle_ = invalid;
    }
    return *this;
}

File::~File() {
    if (handle_ != invalid) ::CloseHandle(as_handle(handle_));
}

namespace {

// One ReadFile at `offset` (an OVERLAPPED offset on a synchronous handle); bytes read, 0 at the
// end, -1 on error.
long read_at(HANDLE h, char* into, std::size_t size, std::uint64_t offset) {
    OVERLAPPED at{};
    at.Offset = static_cast<DWORD>(offset & 0xFFFFFFFFu);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    DWORD got = 0;
    const DWORD want = static_cast<DWORD>(std::min<std::size_t>(size, 1u << 30));
    if (!::ReadFile(h, into, want, &got, &at)) return ::GetLastError() == ERROR_HANDLE_EOF ? 0 : -1;
    return static_cast<long>(got);
}

} // namespace

long File::read_some(char* into, std::size_t size) {
    const long got = read_at(as_handle(handle_), into, size, position_);
    if (got > 0) position_ += static_cast<std::uint64_t>(got);
    return got;
}

std::optional<std::uint64_t> File::size() const {
    LARGE_INTEGER bytes{};
    if (!::GetFileSizeEx(as_handle(handle_), &bytes) || bytes.QuadPart < 0) return std::nullopt;
    return static_cast<std::uint64_t>(bytes.QuadPart);
}

bool File::read_exact_at(char* into, std::size_t size, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < size) {
        const long got = read_at(as_handle(handle_), into + done, size - done, offset + done);
        if (got <= 0) return false;
        done += static_cast<std::size_t>(got);
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// This executable

std::string executable_path(const char* argv0) {
    std::wstring buffer(MAX_PATH, L'\0');
    for (;;) {
        const DWORD n =
            ::GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
        if (n == 0) break;
        if (n < buffer.size()) {
            buffer.resize(n);
            // Resolve links the way realpath does on POSIX.
            const HANDLE h =
                ::CreateFileW(buffer.c_str(), FILE_READ_ATTRIBUTES,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                              OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
            if (h != INVALID_HANDLE_VALUE) {
                std::wstring real(32768, L'\0');
                const DWORD m = ::GetFinalPathNameByHandleW(
                    h, real.data(), static_cast<DWORD>(real.size()), FILE_NAME_NORMALIZED);
                ::CloseHandle(h);
                if (m > 0 && m < real.size()) {
                    real.resize(m);
                    // Drop the \\?\ prefix (and \\?\UNC\ back to \\) for an ordinary spelling.
                    if (real.starts_with(L"\\\\?\\UNC\\"))
                        real = L"\\\\" + real.substr(8);
                    else if (real.starts_with(L"\\\\?\\"))
                        real = real.substr(4);
                    return narrow(real);
                }
            }
            return narrow(buffer);
        }
        buffer.resize(buffer.size() * 2);
    }
    if (argv0 == nullptr || *argv0 == '\0') return {};
    std::wstring full(32768, L'\0');
    const DWORD n = ::GetFullPathNameW(widen(argv0).c_str(), static_cast<DWORD>(full.size()),
                                       full.data(), nullptr);
    if (n == 0 || n >= full.size()) return argv0;
    full.resize(n);
    return narrow(full);
}

std::optional<std::string> current_directory() {
    // The length asked first includes the terminating NUL; the copy's does not. The directory can
    // change between the two calls, so a copy that does not fit asks again.
    for (int attempt = 0; attempt < 4; ++attempt) {
        const DWORD needed = ::GetCurrentDirectoryW(0, nullptr);
        if (needed == 0) return std::nullopt;
        std::wstring buffer(needed, L'\0');
        const DWORD n = ::GetCurrentDirectoryW(needed, buffer.data());
        if (n == 0) return std::nullopt;
        if (n < needed) {
            buffer.resize(n);
            return narrow(buffer);
        }
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Child processes

namespace {

struct Handle {
    HANDLE h = nullptr;
    Handle() = default;
    explicit Handle(HANDLE value) : h(value) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& other) noexcept : h(std::exchange(other.h, nullptr)) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            h = std::exchange(other.h, nullptr);
        }
        return *this;
    }
    ~Handle() { reset(); }
    void reset() {
        if (h != nullptr && h != INVALID_HANDLE_VALUE) ::CloseHandle(h);
        h = nullptr;
    }
};

DWORD wait_ms(Clock::time_point deadline, long long cap) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<DWORD>(std::clamp<long long>(left, 0, cap));
}

} // namespace

struct CapturedRun::State {
    Handle job; // closing it ends the child and everything it started
    Handle child;
    Handle out_read; // the read end of the child's stdout
    bool finished = false;

    ~State() {
        if (!finished && job.h != nullptr) ::TerminateJobObject(job.h, 1);
    }
};

CapturedRun::CapturedRun() = default;
CapturedRun::CapturedRun(std::unique_ptr<State> state) : state_(std::move(state)) {}
CapturedRun::CapturedRun(CapturedRun&&) noexcept = default;
CapturedRun& CapturedRun::operator=(CapturedRun&&) noexcept = default;
CapturedRun::~CapturedRun() = default;

CapturedRun start_captured(const std::vector<std::string>& argv, const std::string& cwd) {
    if (argv.empty()) return {};

    // The job ends the child and every process it starts, also when the hook itself dies: the
    // last handle to the job closes with the hook (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE).
    Handle job(::CreateJobObjectW(nullptr, nullptr));
    if (job.h == nullptr) return {};
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    ::SetInformationJobObject(job.h, JobObjectExtendedLimitInformation, &limits, sizeof limits);

    SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE read_raw = nullptr, write_raw = nullptr;
    if (!::CreatePipe(&read_raw, &write_raw, &inherit, 0)) return {};
    Handle out_read(read_raw), out_write(write_raw);
    ::SetHandleInformation(out_read.h, HANDLE_FLAG_INHERIT, 0);
    Handle null_device(::CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE,
                                     FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0,
                                     nullptr));
    if (null_device.h == INVALID_HANDLE_VALUE) return {};

    std::wstring command_line;
    for (const std::string& arg : argv) append_quoted(command_line, widen(arg));
    const std::wstring dir = widen_path(cwd);

    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = null_device.h;
    startup.hStdOutput = out_write.h;
    startup.hStdError = null_device.h;
    PROCESS_INFORMATION process{};
    // Suspended until it is in the job, so nothing it starts escapes.
    if (!::CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, TRUE,
                          CREATE_SUSPENDED | CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT, nullptr,
                          dir.empty() ? nullptr : dir.c_str(), &startup, &process))
        return {};
    Handle child(process.hProcess), thread(process.hThread);
    if (!::AssignProcessToJobObject(job.h, child.h)) {
        ::TerminateProcess(child.h, 1);
        return {};
    }
    ::ResumeThread(thread.h);
    auto state = std::make_unique<CapturedRun::State>();
    state->job = std::move(job);
    state->child = std::move(child);
    state->out_read = std::move(out_read);
    return CapturedRun(std::move(state));
}

RunResult CapturedRun::finish(Clock::time_point deadline, std::size_t max_output) {
    RunResult result;
    if (!state_ || state_->finished) return result;
    state_->finished = true;
    const HANDLE out_read = state_->out_read.h;
    result.end = RunEnd::timed_out;

    // Anonymous pipes have no overlapped reads: peek for what is there, read only that (never
    // blocking), and wait on the process in short slices, so a descendant holding the pipe
    // cannot hold the hook.
    std::string buffer(16 * 1024, '\0');
    bool output_ended = false;
    const auto drain = [&]() {
        for (;;) {
            DWORD available = 0;
            if (!::PeekNamedPipe(out_read, nullptr, 0, nullptr, &available, nullptr)) {
                output_ended = true;
                return true;
            }
            if (available == 0) return true;
            DWORD got = 0;
            const DWORD want = std::min<DWORD>(available, static_cast<DWORD>(buffer.size()));
            if (!::ReadFile(out_read, buffer.data(), want, &got, nullptr) || got == 0) {
                output_ended = true;
                return true;
            }
            if (result.output.size() + got > max_output) {
                result.end = RunEnd::output_capped;
                return false;
            }
            result.output.append(buffer.data(), got);
        }
    };
    // The first look happens even past the deadline: the caller may have worked until then.
    for (;;) {
        if (!output_ended && !drain()) break;
        const DWORD waited = ::WaitForSingleObject(state_->child.h, wait_ms(deadline, 10));
        if (waited == WAIT_OBJECT_0) {
            if (output_ended || drain()) result.end = RunEnd::exited;
            break;
        }
        if (Clock::now() >= deadline) break;
    }
    // Ends the child and everything it started, whatever state they are in.
    ::TerminateJobObject(state_->job.h, 1);
    return result;
}

} // namespace viber::os
