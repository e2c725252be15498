// os.hpp: every operating-system call the hooks make, behind one small interface (os_posix.cpp for
// Linux and macOS, os_windows.cpp for Windows; CMake compiles the one that applies).
//
// Why one layer: the hooks run wherever Claude Code runs (docs/contract.md, "Platforms"). Code
// above this header never names a file descriptor, a HANDLE, fork or CreateProcess; it reads
// stdin within bounds, opens regular files without blocking, runs config.sh within a deadline and
// asks for its own executable's path. Paths are UTF-8 strings everywhere (wide on Windows inside
// this layer only).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::os {

// The monotonic clock every bound is kept on: std::chrono::steady_clock's, read on Linux through
// the clock_gettime system call itself. The C library's faster read goes through the vDSO, whose
// two pages a process maps on its first read: on a virtual machine that costs a hook more (about
// 30 us) than all the reads it makes cost through the system call (about 1.5 us each).
struct Clock {
    using duration = std::chrono::nanoseconds;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<Clock>;
    static constexpr bool is_steady = true;
    static time_point now() noexcept;
};

// The moment this process started running hook code (taken during static initialisation, before
// main): the one deadline every hook keeps counts from here (docs/contract.md, "One deadline").
Clock::time_point process_start();

// Milliseconds left until `process_start() + budget`; zero once it has passed.
std::chrono::milliseconds left_of(std::chrono::milliseconds budget);

// The UTC calendar time of `seconds` since the epoch (gmtime_r / gmtime_s); nullopt when it has
// none.
std::optional<std::tm> utc_calendar(std::time_t seconds);

// True when `needle` occurs in `haystack`: memmem where the C library has it (glibc's is
// vectorised), a plain search elsewhere.
bool contains_bytes(std::string_view haystack, std::string_view needle);

// ---------------------------------------------------------------------------------------------
// Standard streams

// Bounds on reading stdin: a hook must answer inside Claude Code's 10 s timeout even when the
// writer holds the pipe open, and must not grow without limit on a runaway payload.
struct StdinLimits {
    std::size_t max_bytes = std::size_t{64} << 20;
    std::chrono::milliseconds idle{2000};
    std::chrono::milliseconds total{8000};
};

// A readable stream the layer did not open (stdin, or a pipe end in a test): a descriptor on
// POSIX, a HANDLE on Windows.
#ifdef _WIN32
using Stream = void*;
#else
using Stream = int;
#endif
Stream standard_input();

// True when `stream` is a terminal (a person typing, not a pipe or a file): --explain then says
// how to give it a payload instead of waiting.
bool is_terminal(Stream stream);

// Reads `stream` to its end within `limits`. nullopt when the byte cap or a time bound was hit
// (idle: no byte for that long; total: counted from the call) or the read failed.
std::optional<std::string> read_stream(Stream stream, const StdinLimits& limits);

// Puts stdin, stdout and stderr in binary mode (Windows: no CRLF translation; the hooks print
// JSON lines and one-line errors ending in `\n` only) and stops a vanished reader from killing the
// process (SIGPIPE on POSIX).
void prepare_standard_streams();

// Writes all of `bytes` to stdout; false when the write failed.
bool write_stdout(std::string_view bytes);

// ---------------------------------------------------------------------------------------------
// Files

enum class FileKind { missing, regular, directory, other };

// What `path` names, symlinks followed (a dangling link is missing).
FileKind file_kind(const std::string& path);

// True when `path` itself (not followed) is a directory or a regular file: a `.git` marker.
bool is_directory_or_file_entry(const std::string& path);

// The names of the entries directly under the directory `path` (`.` and `..` left out), in the
// order the file system lists them, UTF-8 (Windows: from UTF-16). nullopt when the directory
// cannot be listed or holds more than `limit` entries (the listing stops there).
std::optional<std::vector<std::string>> directory_names(const std::string& path, std::size_t limit);

// Modification time of a regular file, in whole seconds since the epoch.
std::optional<std::time_t> mtime_seconds(const std::string& path);

// Appends `bytes` to `path` in one append write (O_APPEND; Windows: FILE_APPEND_DATA), so two
// hooks logging at once never interleave within a line, when it is a regular file or absent (then
// created): a FIFO or device is never opened, and one swapped in before the open is closed
// unwritten. The open never blocks. False when nothing or not all was written: this is for the
// troubleshooting log, which never changes what a hook does, so its caller only reports it.
bool append_to_regular_file(const char* path, std::string_view bytes);

// True when this process may write to `path` (a file or a directory) as its permissions stand;
// nothing is opened or written.
bool is_writable(const std::string& path);

// A file opened for reading only when it is a regular file: the open never blocks (a FIFO or a
// device swapped in is refused after opening without waiting for a writer), and the type is
// checked on the opened object, not on the name. Move-only; closes itself.
class File {
public:
    File() = default;
    static File open_regular(const std::string& path);
    File(File&& other) noexcept;
    File& operator=(File&& other) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File();

    explicit operator bool() const { return handle_ != invalid; }
    // Bytes read at the current position, 0 at the end, -1 on error.
    long read_some(char* into, std::size_t size);
    // Reads exactly `size` bytes at `offset` without moving the position; false on error or end.
    bool read_exact_at(char* into, std::size_t size, std::uint64_t offset);
    // The file's size now, in bytes; nullopt when it cannot be told. A hint for sizing a
    // buffer only: the file may grow or shrink before it is read.
    std::optional<std::uint64_t> size() const;

private:
    static constexpr std::intptr_t invalid = -1;
    explicit File(std::intptr_t handle) : handle_(handle) {}
    std::intptr_t handle_ = invalid;
#ifdef _WIN32
    // Windows reads every byte at an explicit offset (an offset read moves the handle's own
    // position there, unlike pread), so the sequential position is kept here.
    std::uint64_t position_ = 0;
#endif
};

// How many bytes to read at a time from a file of `file_bytes` (nullopt: unknown) that is read
// piece by piece into one buffer: 16 KiB up to 2 MiB, else 64 KiB. Each page of the buffer is a
// page fault the first time a read fills it, which on a short call costs more than the extra
// reads: on a virtual machine where a fresh page costs 11 us and a read call 1.3 us, 16 KiB saves
// 0.14 ms on a 1 MB file (twelve pages fewer for three more reads a 64 KiB) and breaks even at
// about 2.3 MB. The transcript scan and plan-gate's file count both read by it.
constexpr std::size_t read_size_for(std::optional<std::uint64_t> file_bytes) {
    return file_bytes && *file_bytes <= (std::uint64_t{2} << 20) ? std::size_t{16} << 10
                                                                 : std::size_t{64} << 10;
}

// The capacity to reserve for a std::string that will hold `bytes`: `bytes` itself, except on
// Linux with glibc from 1 MiB on, where it is rounded up so the allocation is a whole number of
// 2 MiB huge pages. glibc serves such a request with an mmap of exactly that length (a request of
// k * 2 MiB - 32 bytes: 16 bytes of chunk header, the string's terminating NUL and malloc's
// 16-byte rounding), and Linux places a mapping that is a multiple of 2 MiB on a 2 MiB boundary,
// so every byte of the buffer can be a huge page (expect_writes) instead of only the huge pages
// that happen to fit inside it.
std::size_t huge_page_capacity(std::size_t bytes);

// A fresh buffer of `room` bytes whose first `written` are about to be written. On Linux the
// kernel may back a buffer of 2 MiB or more with huge pages (all of it when its allocation starts
// on a 2 MiB boundary, see huge_page_capacity), and the first `written` bytes, from 256 KiB on,
// are taken in one call instead of one page fault for each 4 KiB, which is most of the cost of
// reading a file or payload of that size. Elsewhere, and below those sizes, nothing.
void expect_writes(char* data, std::size_t written, std::size_t room);

// ---------------------------------------------------------------------------------------------
// This executable

// The running executable's real path (Linux: /proc/self/exe; macOS: _NSGetExecutablePath then
// realpath; Windows: GetModuleFileNameW), else `argv0` made absolute; empty when none works.
std::string executable_path(const char* argv0);

// The process's current directory (getcwd; Windows: GetCurrentDirectoryW), nullopt when it
// cannot be told (removed, say). Here rather than Boost.Filesystem's current_path: linking its
// operations adds start-up work to every call (a uname and an sscanf of the kernel version).
std::optional<std::string> current_directory();

// ---------------------------------------------------------------------------------------------
// Child processes

// How a captured run ended.
enum class RunEnd {
    exited,        // the child exited; `output` is what it wrote before
    timed_out,     // the deadline passed first
    output_capped, // it wrote more than the cap
    not_started,   // it could not be started (no such program, a bad cwd)
};

struct RunResult {
    RunEnd end = RunEnd::not_started;
    std::string output;
};

// A child started by start_captured whose output is collected later by finish(): the caller can
// work while the child runs, on one thread (no second thread is ever running when the hook starts
// a child). Destroying it unfinished ends the child and everything it started, as finish() does.
class CapturedRun {
public:
    struct State; // per platform: the child, its output pipe (and on Windows its job)

    CapturedRun(); // nothing started: finish() reports not_started
    explicit CapturedRun(std::unique_ptr<State> state);
    CapturedRun(CapturedRun&&) noexcept;
    CapturedRun& operator=(CapturedRun&&) noexcept;
    ~CapturedRun();

    // Captures stdout up to `max_output` bytes until the child exits (a background descendant
    // still holding stdout does not extend the run), the deadline passes or the output passes the
    // cap; then ends the child and everything it started. A deadline already past still looks
    // once: a child that exited while the caller worked counts as exited. Once only.
    RunResult finish(Clock::time_point deadline, std::size_t max_output);

private:
    std::unique_ptr<State> state_;
};

// Starts `argv` (argv[0] looked up on PATH) with `cwd` as its working directory, stdin from the
// null device, stderr discarded and stdout to a pipe only the returned run reads. The child and
// everything it starts are ended when the run is finished or destroyed (POSIX: its process
// group, and on Linux every other descendant, the hook being their subreaper; Windows: a job
// object), and die with the hook (Linux: PR_SET_PDEATHSIG; Windows: the job closes with the
// hook). No argument passes through a shell. A child that cannot be started (no such program, a
// bad cwd) finishes as not_started or, when only exec failed, as an exit with no output. On Linux
// the call returns once the child has exec'd or failed to, having shared the caller's memory
// until then (docs/contract.md, "One deadline").
CapturedRun start_captured(const std::vector<std::string>& argv, const std::string& cwd);

} // namespace viber::os
