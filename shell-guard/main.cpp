// main.cpp: the shell-guard executable (its Contract opens shell_guard.cpp).
#include "common/hook_main.hpp"
#include "shell-guard/shell_guard.hpp"

int main(int argc, char** argv) {
    return viber::hook_main(
        argc, argv,
        {"shell-guard",
         "PreToolUse Bash hook. For viber:task-coder refuses R1 chains, R2 git stash/checkout/"
         "restore/clean, R3 rm,\nR4 file writes outside .temp/, R5 inline or .temp/ interpreter "
         "code; for viber:task-reviewer and viber:final-reviewer R2 only.\nA refusal is a deny "
         "whose reason opens `viber guard:`; anything else prints nothing. Exit 0 always.",
         viber::shell_guard::run, nullptr});
}
