// main.cpp: the plan-gate executable; the hook itself is in plan_gate.cpp.
#include "common/hook_main.hpp"
#include "plan-gate/plan_gate.hpp"

int main(int argc, char** argv) {
    return viber::hook_main(argc, argv, viber::plan_gate::hook_info());
}
