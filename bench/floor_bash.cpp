// floor_bash.cpp: the bound of the plain plan's benchmark: a static C++ main that reads stdin to
// EOF, then runs `/bin/bash SCRIPT` with its stdout in a pipe read to the end, waits for it and
// exits with its status.
// A gate that must run config.sh (docs/plan-gate.md, step 2) cannot cost less: bash can start
// only once the hook has. The floor itself stays floor.cpp, untouched by this.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
    static char buffer[1 << 16];
    while (::read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
    }
    if (argc != 2) return 2;
    int out[2];
    if (::pipe(out) != 0) return 1;
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_addclose(&actions, out[0]);
    ::posix_spawn_file_actions_addclose(&actions, out[1]);
    char bash[] = "bash";
    char* const args[] = {bash, argv[1], nullptr};
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, "/bin/bash", &actions, nullptr, args, environ);
    ::close(out[1]);
    if (spawned != 0) return 1;
    while (::read(out[0], buffer, sizeof buffer) > 0) {
    }
    // Its status is bash's: 0 only when bash ran the script and exited 0, so the benchmark's
    // check that the case took its path (status 0) also says bash really ran.
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 1;
    return WEXITSTATUS(status);
}
