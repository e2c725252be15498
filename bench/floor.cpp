// floor.cpp: the benchmark floor: a static C++ main that reads stdin to EOF and exits, the least a
// hook can cost (process start plus reading its payload), against which every hook is measured.
#include <unistd.h>

int main() {
    static char buffer[1 << 16];
    while (::read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
    }
    return 0;
}
