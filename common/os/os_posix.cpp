// os_posix.cpp: the operating-system layer on Linux and macOS (anything Linux-only sits under
// #ifdef __linux__, anything macOS-only under #ifdef __APPLE__).
#include "common/os/os.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <sched.h>
#include <sys/prctl.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14's value; older C library headers lack the name
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 // Linux 6.1's value
#endif
#endif
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

namespace viber::os {

namespace {

int poll_ms(Clock::time_point deadline, int cap_ms) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, cap_ms));
}

bool open_pipe(int fds[2]) {
#ifdef __linux__
    return ::pipe2(fds, O_CLOEXEC) == 0;
#else
    if (::pipe(fds) != 0) return false;
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return true;
#endif
}

} // namespace

std::optional<std::tm> utc_calendar(std::time_t seconds) {
    std::tm tm{};
    if (::gmtime_r(&seconds, &tm) == nullptr) return std::nullopt;
    return tm;
}

bool contains_bytes(std::string_view haystack, std::string_view needle) {
    if (needle.empty()) return true;
    // An empty haystack may have a null data(): memmem must not see it.
    if (haystack.size() < needle.size()) return false;
    return ::memmem(haystack.data(), haystack.size(), needle.data(), needle.size()) != nullptr;
}

// ---------------------------------------------------------------------------------------------
// Standard streams

Stream standard_input() {
    return STDIN_FILENO;
}

bool is_terminal(Stream stream) {
    return ::isatty(stream) == 1;
}

void prepare_standard_streams() {
    // A reader that goes away must not kill the hook with SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
}

namespace {

#ifdef __linux__
constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;
#if defined(__GLIBC__)
// What glibc adds to an mmap-served request, std::string's terminating NUL included: the
// allocation's mapping starts this far before the string's first byte, less the NUL.
constexpr std::size_t glibc_chunk_overhead = 32;
constexpr std::size_t glibc_chunk_header = 16;
#endif
#endif

#ifdef __linux__
// False when the administrator switched transparent huge pages off ("[never]"), or the setting
// cannot be read: MADV_COLLAPSE would make one anyway. Read once, and only by a call with a
// buffer of a mebibyte or more.
bool huge_pages_allowed() {
    static const bool allowed = [] {
        File setting = File::open_regular("/sys/kernel/mm/transparent_hugepage/enabled");
        if (!setting) return false;
        char mode[128] = {};
        const long got = setting.read_some(mode, sizeof mode - 1);
        return got > 0 && std::strstr(mode, "[never]") == nullptr;
    }();
    return allowed;
}
#endif

} // namespace

std::size_t huge_page_capacity(std::size_t bytes) {
#if defined(__linux__) && defined(__GLIBC__)
    // From half a huge page on: the zeroing of a huge page's unused part costs less than faulting
    // in what is used 4 KiB at a time.
    if (bytes < huge_page / 2 || bytes > std::numeric_limits<std::size_t>::max() / 2) return bytes;
    const std::size_t whole = (bytes + glibc_chunk_overhead + huge_page - 1) & ~(huge_page - 1);
    return whole - glibc_chunk_overhead;
#else
    return bytes;
#endif
}

void expect_writes(char* data, std::size_t written, std::size_t room) {
#ifdef __linux__
    constexpr std::uintptr_t page = 4096;
    constexpr std::size_t worth_a_call = std::size_t{256} << 10;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    if (room >= huge_page / 2) {
        // Only whole huge pages inside the buffer, or, for a buffer that starts just past a huge
        // page boundary (glibc's chunk header, see huge_page_capacity), inside its mapping from
        // that boundary on. Neither hint changes a byte of memory.
        std::uintptr_t first = (begin + huge_page - 1) & ~(huge_page - 1);
        std::uintptr_t end = begin + room;
#if defined(__GLIBC__)
        if ((begin & (huge_page - 1)) == glibc_chunk_header) {
            // The mapping goes on to the page boundary at or after the header and the room.
            first = begin - glibc_chunk_header;
            end = (begin + room + page - 1) & ~(page - 1);
        }
#endif
        const std::uintptr_t last = end & ~(huge_page - 1);
        if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#if defined(__GLIBC__)
        // glibc wrote the chunk header before the hint, so that first huge page is in 4 KiB pages
        // already; when it is about to be written anyway, it is made one huge page now (Linux 6.1;
        // an older kernel refuses and it stays as it is). MADV_HUGEPAGE honours the system's
        // setting by itself; MADV_COLLAPSE does not, so it is asked first.
        if (last > first && first + glibc_chunk_header == begin && written > 0 &&
            huge_pages_allowed())
            ::madvise(reinterpret_cast<void*>(first), huge_page, MADV_COLLAPSE);
#endif
    }
    if (written < worth_a_call) return;
    // Linux 5.14; an older kernel refuses it and the pages fault as they are written.
    const std::uintptr_t page_first = (begin + page - 1) & ~(page - 1);
    const std::uintptr_t page_last = (begin + written) & ~(page - 1);
    if (page_last > page_first)
        ::madvise(reinterpret_cast<void*>(page_first), page_last - page_first, MADV_POPULATE_WRITE);
#else
    (void)data;
    (void)written;
    (void)room;
#endif
}

namespace {

// The bytes a regular file still holds from the descriptor's position on; nullopt for a pipe, a
// terminal or anything else whose size is not known ahead.
std::optional<std::size_t> regular_file_bytes_left(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    const off_t position = ::lseek(fd, 0, SEEK_CUR);
    if (position < 0 || position > st.st_size) return std::size_t{0};
    return static_cast<std::size_t>(st.st_size - position);
}

} // namespace

std::optional<std::string> read_stream(Stream fd, const StdinLimits& limits) {
    const auto total_deadline = Clock::now() + limits.total;
    // Bytes go straight into the result. A regular file's buffer is sized once (one byte more than
    // it holds, so the read that finds its end needs no growth) and read whole; a pipe's grows
    // geometrically from 64 KiB (twice as large each time, four times from 1 MiB on, where a
    // buffer is on huge pages and each copy is the larger cost), its size (std::string zeroes
    // what it adds) a pipe's read at a time. Never more than one byte past the cap, the byte that
    // shows the cap was passed.
    constexpr std::size_t pipe_read = 64 * 1024;
    const std::size_t bound = std::max(limits.max_bytes, limits.max_bytes + 1);
    const std::optional<std::size_t> file_bytes = regular_file_bytes_left(fd);
    std::string bytes;
    std::size_t used = 0;
    // A new buffer of `room` bytes holding the `used` read so far. Built beside the old one, not
    // by reserve(), so the copy already lands on the pages taken in one call.
    const auto move_to_buffer_of = [&](std::size_t room) {
        std::string next;
        next.reserve(huge_page_capacity(room));
        expect_writes(next.data(), file_bytes ? std::min(next.capacity(), *file_bytes + 1) : used,
                      next.capacity());
        next.append(bytes, 0, used);
        bytes.swap(next);
    };
    move_to_buffer_of(std::min(bound, file_bytes ? *file_bytes + 1 : pipe_read));
    for (;;) {
        if (used == bytes.size()) {
            if (used >= bound) return std::nullopt;
            if (used == bytes.capacity())
                move_to_buffer_of(
                    std::min(bound, used >= (std::size_t{1} << 20) ? used * 4 : used * 2));
            bytes.resize(std::min(
                {bytes.capacity(), bound,
                 file_bytes ? std::max(*file_bytes + 1, used + pipe_read) : used + pipe_read}));
        }
        // A regular file always has its bytes ready: only a pipe or a terminal is waited on.
        if (!file_bytes) {
            pollfd pfd{fd, POLLIN, 0};
            const int ready =
                ::poll(&pfd, 1, poll_ms(total_deadline, static_cast<int>(limits.idle.count())));
            if (ready < 0) {
                if (errno == EINTR) continue;
                return std::nullopt;
            }
            if (ready == 0) return std::nullopt; // idle or total bound passed with no data
        }
        const ssize_t got = ::read(fd, bytes.data() + used, bytes.size() - used);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return std::nullopt;
        }
        if (got == 0) {
            bytes.resize(used);
            return bytes;
        }
        used += static_cast<std::size_t>(got);
        if (used > limits.max_bytes) return std::nullopt;
        if (Clock::now() >= total_deadline) return std::nullopt;
    }
}

bool write_stdout(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t put = ::write(STDOUT_FILENO, bytes.data(), bytes.size());
        if (put < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(put));
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// Files

FileKind file_kind(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return FileKind::missing;
    if (S_ISREG(st.st_mode)) return FileKind::regular;
    if (S_ISDIR(st.st_mode)) return FileKind::directory;
    return FileKind::other;
}

bool is_directory_or_file_entry(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
}

std::optional<std::vector<std::string>> directory_names(const std::string& path,
                                                        std::size_t limit) {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return std::nullopt;
    std::vector<std::string> names;
    bool complete = false;
    for (;;) {
        errno = 0;
        const dirent* entry = ::readdir(dir);
        if (entry == nullptr) {
            complete = errno == 0;
            break;
        }
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..") continue;
        if (names.size() == limit) break;
        names.emplace_back(name);
    }
    ::closedir(dir);
    if (!complete) return std::nullopt;
    return names;
}

bool append_to_regular_file(const char* path, std::string_view bytes) {
    // Checked before the open (an existing FIFO or device is never opened at all) and again on
    // the descriptor (a FIFO swapped in between is closed unwritten).
    struct stat before {};
    if (::stat(path, &before) == 0 && !S_ISREG(before.st_mode)) return false;
    const int fd =
        ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    bool written = false;
    struct stat opened {};
    if (::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode)) {
        ssize_t put;
        do {
            put = ::write(fd, bytes.data(), bytes.size());
        } while (put < 0 && errno == EINTR);
        written = put >= 0 && static_cast<std::size_t>(put) == bytes.size();
    }
    ::close(fd);
    return written;
}

bool is_writable(const std::string& path) {
    return !path.empty() && ::access(path.c_str(), W_OK) == 0;
}

std::optional<std::time_t> mtime_seconds(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
#ifdef __APPLE__
    return st.st_mtimespec.tv_sec;
#else
    return st.st_mtim.tv_sec;
#endif
}

File File::open_regular(const std::string& path) {
    if (path.empty()) return File{};
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return File{};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return File{};
    }
    // Regular files never block; clear the flag so reads behave plainly.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return File{fd};
}

File::File(File&& other) noexcept : handle_(other.handle_) {
    other.handle_ = invalid;
}

File& File::operator=(File&& other) noexcept {
    if (this != &other) {
        if (handle_ != invalid) ::close(static_cast<int>(handle_));
        handle_ = other.handle_;
        other.handle_ = invalid;
    }
    return *this;
}

File::~File() {
    if (handle_ != invalid) ::close(static_cast<int>(handle_));
}

long File::read_some(char* into, std::size_t size) {
    for (;;) {
        const ssize_t got = ::read(static_cast<int>(handle_), into, size);
        if (got < 0 && errno == EINTR) continue;
        return static_cast<long>(got);
    }
}

std::optional<std::uint64_t> File::size() const {
    struct stat st {};
    if (::fstat(static_cast<int>(handle_), &st) != 0 || st.st_size < 0) return std::nullopt;
    return static_cast<std::uint64_t>(st.st_size);
}

bool File::read_exact_at(char* into, std::size_t size, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t got = ::pread(static_cast<int>(handle_), into + done, size - done,
                                    static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += static_cast<std::size_t>(got);
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// This executable

std::string executable_path(const char* argv0) {
    char buffer[PATH_MAX + 1];
#ifdef __linux__
    const ssize_t n = ::readlink("/proc/self/exe", buffer, PATH_MAX);
    if (n > 0) return std::string(buffer, static_cast<std::size_t>(n));
#endif
#ifdef __APPLE__
    uint32_t size = sizeof buffer;
    if (::_NSGetExecutablePath(buffer, &size) == 0) {
        char real[PATH_MAX + 1];
        if (::realpath(buffer, real) != nullptr) return real;
        return buffer;
    }
#endif
    if (argv0 == nullptr || *argv0 == '\0') return {};
    if (::realpath(argv0, buffer) != nullptr) return buffer;
    if (argv0[0] == '/') return argv0;
    const std::optional<std::string> here = current_directory();
    if (!here) return {};
    return *here + "/" + argv0;
}

std::optional<std::string> current_directory() {
    std::string buffer(PATH_MAX, '\0');
    for (;;) {
        if (::getcwd(buffer.data(), buffer.size()) != nullptr) {
            buffer.resize(std::strlen(buffer.c_str()));
            return buffer;
        }
        if (errno != ERANGE || buffer.size() >= (std::size_t{1} << 20)) return std::nullopt;
        buffer.resize(buffer.size() * 2);
    }
}

// ---------------------------------------------------------------------------------------------
// Child processes

namespace {

#ifdef __linux__
// The live children of this process, read from /proc (zombies included: they still need
// reaping). Descendants that left config.sh's process group with setsid reach this list once
// their parent dies, because the hook is their subreaper.
std::vector<pid_t> children_of_this_process() {
    std::vector<pid_t> children;
    const pid_t self = ::getpid();
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return children;
    while (const dirent* entry = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        char path[64];
        std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        char stat[512];
        const ssize_t n = ::read(fd, stat, sizeof stat - 1);
        ::close(fd);
        if (n <= 0) continue;
        stat[n] = '\0';
        // "pid (comm) S ppid ...": comm may hold spaces and parentheses, so parse after the last
        // ')'.
        const char* close = std::strrchr(stat, ')');
        if (close == nullptr) continue;
        long ppid = 0;
        char state = 0;
        if (std::sscanf(close + 1, " %c %ld", &state, &ppid) == 2 && ppid == self)
            children.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(proc);
    return children;
}
#endif

// Ends the child, its process group and (Linux) every descendant that escaped the group, and
// reaps them. `child_reaped` says the child itself was already waited for.
void end_process_tree(pid_t child, bool child_reaped) {
    ::kill(-child, SIGKILL); // the group: config.sh and every job it started in the background
    if (!child_reaped) {
        ::kill(child, SIGKILL);
        while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
#ifdef __linux__
    // A setsid grandchild is in no group we know; as subreaper the hook adopts every orphaned
    // descendant, so killing and reaping its own children until none is left ends all of them.
    // Each round's victims hand their own children to us as they die; SIGKILLed processes start
    // no more, so the rounds end.
    for (int round = 0; round < 64; ++round) {
        // No child at all (the usual end: config.sh left nothing behind) needs no look at /proc,
        // which costs a read of every process's stat file. Every live descendant has an ancestor
        // chain that ends at a child of ours: its orphaned top was handed to us, the subreaper.
        siginfo_t any{};
        if (::waitid(P_ALL, 0, &any, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD) break;
        const std::vector<pid_t> children = children_of_this_process();
        if (children.empty()) break;
        for (const pid_t pid : children) ::kill(pid, SIGKILL);
        for (const pid_t pid : children)
            while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
            }
    }
#endif
    // macOS has no subreaper: a descendant that left the process group (setsid) is not found
    // here and outlives the hook (docs/contract.md, "One deadline").
}

// What the child of start_captured needs between its start and exec, all built beforehand: it
// only makes system calls with it.
struct ChildSetup {
    char* const* argv;
    const char* dir;
    int out;                   // the write end of the pipe that becomes its stdout
    pid_t parent;              // the hook
    const sigset_t* exec_mask; // the signal mask to exec with (the hook's own)
};

// The child's side: its own process group, death with the hook (Linux), stdin and stderr on
// /dev/null, stdout into the pipe, `dir` as its working directory, the hook's signal mask, then
// exec. It never returns: when any step fails the child exits with status 127.
[[noreturn]] void run_child(const ChildSetup& setup) {
    ::setpgid(0, 0);
#ifdef __linux__
    // Dies with the hook even when the hook is killed outright; the parent may already be gone
    // by the time the request is made, hence the check after it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != setup.parent) ::_exit(127);
#endif
    // The hook ignores SIGPIPE; an ignored signal stays ignored across exec, and the script
    // should see the ordinary default.
    ::signal(SIGPIPE, SIG_DFL);
    const int devnull = ::open("/dev/null", O_RDWR);
    if (devnull < 0 || ::chdir(setup.dir) != 0) ::_exit(127);
    ::dup2(devnull, STDIN_FILENO);
    ::dup2(setup.out, STDOUT_FILENO);
    ::dup2(devnull, STDERR_FILENO);
    ::sigprocmask(SIG_SETMASK, setup.exec_mask, nullptr);
    ::execvp(setup.argv[0], setup.argv);
    ::_exit(127);
}

#ifdef __linux__
int run_child_on_own_stack(void* setup) {
    run_child(*static_cast<const ChildSetup*>(setup));
}
#endif

// Starts the child. On Linux it shares the hook's memory until it execs (clone with CLONE_VM and
// CLONE_VFORK, as posix_spawn does, on a stack of its own): no page table is copied, and the
// hook, suspended until that exec, takes no copy-on-write fault on the pages it writes afterwards
// (fork() left plan-gate with about ninety on a 2 MB plan, each several microseconds on a virtual
// machine). posix_spawn itself cannot ask for PR_SET_PDEATHSIG. The caller blocks every signal
// meanwhile, so no handler can run on the shared memory; the child execs with the mask it is
// given. Elsewhere fork().
pid_t start_child(const ChildSetup& setup) {
#ifdef __linux__
    // The child runs on this array, in this frame, while the hook waits below it in clone():
    // execvp needs a few KiB for its PATH search, a sanitizer build more; only the pages the
    // child reaches are ever touched.
    alignas(64) char stack[64 * 1024];
    return ::clone(run_child_on_own_stack, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD,
                   const_cast<ChildSetup*>(&setup));
#else
    const pid_t pid = ::fork();
    if (pid == 0) run_child(setup);
    return pid;
#endif
}

} // namespace

struct CapturedRun::State {
    pid_t pid = -1;
    int out = -1; // the read end of the child's stdout
    bool finished = false;

    ~State() {
        if (finished) return;
        if (out >= 0) ::close(out);
        end_process_tree(pid, false);
    }
};

CapturedRun::CapturedRun() = default;
CapturedRun::CapturedRun(std::unique_ptr<State> state) : state_(std::move(state)) {}
CapturedRun::CapturedRun(CapturedRun&&) noexcept = default;
CapturedRun& CapturedRun::operator=(CapturedRun&&) noexcept = default;
CapturedRun::~CapturedRun() = default;

CapturedRun start_captured(const std::vector<std::string>& argv, const std::string& cwd) {
    if (argv.empty()) return {};
    // Everything the child needs is built before it starts: until exec it only calls
    // async-signal-safe functions and plain system calls.
    std::vector<std::string> args = argv;
    std::vector<char*> arg_pointers;
    for (std::string& arg : args) arg_pointers.push_back(arg.data());
    arg_pointers.push_back(nullptr);

    int out[2];
    if (!open_pipe(out)) return {};
#ifdef __linux__
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
    sigset_t all;
    sigset_t own;
    ::sigfillset(&all);
    ::sigprocmask(SIG_SETMASK, &all, &own);
    const ChildSetup setup{arg_pointers.data(), cwd.c_str(), out[1], ::getpid(), &own};
    const pid_t pid = start_child(setup);
    ::sigprocmask(SIG_SETMASK, &own, nullptr);
    if (pid < 0) {
        ::close(out[0]);
        ::close(out[1]);
        return {};
    }
#ifndef __linux__
    // Set in both processes so the group exists before either side relies on it (on Linux the
    // child has set it before clone returns).
    ::setpgid(pid, pid);
#endif
    ::close(out[1]);
    auto state = std::make_unique<CapturedRun::State>();
    state->pid = pid;
    state->out = out[0];
    return CapturedRun(std::move(state));
}

RunResult CapturedRun::finish(Clock::time_point deadline, std::size_t max_output) {
    RunResult result;
    if (!state_ || state_->finished) return result;
    const pid_t pid = state_->pid;
    const int out = state_->out;
    result.end = RunEnd::timed_out;

    // Read until the output ends or the child exits, whichever is first: a background job that
    // keeps stdout open must not hold the hook. On Linux a pidfd wakes the wait at the exit
    // itself; elsewhere (or on a kernel before 5.3) short poll slices notice it.
#if defined(__linux__) && defined(SYS_pidfd_open)
    const int exited = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
    const int exited = -1;
#endif
    bool reaped = false;
    bool output_ended = false;
    char buffer[16 * 1024];
    const auto take = [&](ssize_t got) {
        if (result.output.size() + static_cast<std::size_t>(got) > max_output) {
            result.end = RunEnd::output_capped;
            return false;
        }
        result.output.append(buffer, static_cast<std::size_t>(got));
        return true;
    };
    for (bool first = true;; first = false) {
        // The first look happens even past the deadline: the caller may have worked until then.
        if (!first && Clock::now() >= deadline) break;
        // Once the output has ended poll only waits (a negative descriptor is ignored).
        pollfd watched[2] = {{output_ended ? -1 : out, POLLIN, 0}, {exited, POLLIN, 0}};
        const int slice = exited >= 0 ? 1000 : output_ended ? 2 : 20;
        const int ready = ::poll(watched, 2, poll_ms(deadline, slice));
        if (ready < 0 && errno != EINTR) break;
        if (ready > 0 && !output_ended && watched[0].revents != 0) {
            const ssize_t got = ::read(out, buffer, sizeof buffer);
            if (got == 0)
                output_ended = true;
            else if (got > 0 && !take(got))
                break;
            else if (got < 0 && errno != EINTR && errno != EAGAIN)
                output_ended = true;
        }
        const pid_t waited = ::waitpid(pid, nullptr, WNOHANG);
        if (waited == pid || (waited < 0 && errno == ECHILD)) {
            reaped = true;
            // What it wrote before exiting is still in the pipe; a descendant may hold the pipe
            // open, so drain without waiting.
            ::fcntl(out, F_SETFL, ::fcntl(out, F_GETFL) | O_NONBLOCK);
            bool within_cap = true;
            while (!output_ended && within_cap) {
                const ssize_t got = ::read(out, buffer, sizeof buffer);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) break;
                within_cap = take(got);
            }
            if (within_cap) result.end = RunEnd::exited;
            break;
        }
    }
    state_->finished = true;
    if (exited >= 0) ::close(exited);
    ::close(out);
    end_process_tree(pid, reaped);
    return result;
}

} // namespace viber::os
