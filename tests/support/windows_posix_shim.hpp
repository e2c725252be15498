// windows_posix_shim.hpp: the few POSIX names the tests use for set-up, mapped to their Windows
// equivalents; force-included into every test on Windows only (tests/CMakeLists.txt). Facilities
// Windows lacks (FIFOs, symlinks made by unprivileged users) fail here with ENOSYS; the test cases
// that need them are skipped with posix_only() before they run.
#pragma once
#ifdef _WIN32

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <io.h>
#include <process.h>

#ifndef SIGPIPE
#define SIGPIPE 13 // signal() refuses it (SIG_ERR); Windows has no SIGPIPE to ignore
#endif
#ifndef SIGKILL
#define SIGKILL 9
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif

inline int setenv(const char* name, const char* value, int overwrite) {
    if (!overwrite && std::getenv(name) != nullptr) return 0;
    return ::_putenv_s(name, value);
}
inline int unsetenv(const char* name) {
    return ::_putenv_s(name, "");
}
inline std::tm* gmtime_r(const std::time_t* t, std::tm* out) {
    return ::gmtime_s(out, t) == 0 ? out : nullptr;
}
inline unsigned geteuid() {
    return 1; // never root
}
inline unsigned alarm(unsigned) {
    return 0; // no hang guard: ctest's TIMEOUT is the guard here
}
inline int pipe(int fds[2]) {
    return ::_pipe(fds, 1 << 16, _O_BINARY);
}
inline int mkfifo(const char*, int) {
    errno = ENOSYS;
    return -1;
}
inline int symlink(const char*, const char*) {
    errno = ENOSYS;
    return -1;
}

#endif
