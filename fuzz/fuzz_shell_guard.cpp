// fuzz_shell_guard.cpp: libFuzzer target for shell-guard's whole decision: the bytes as the Bash
// command of viber:task-coder's payload with a cwd (so R4 places targets against a work tree),
// decided in hook mode and again with --explain's trace on, each inside a budget of 50 ms per KiB
// and 64 MB.
#include "fuzz/input_budget.hpp"
#include "shell-guard/shell_guard.hpp"

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view command(reinterpret_cast<const char*>(data), size);
    boost::json::object payload{{"agent_type", "viber:task-coder"},
                                {"cwd", "/nonexistent/work/tree/src"},
                                {"tool_name", "Bash"},
                                {"tool_input", boost::json::object{{"command", command}}}};
    const viber::HookInput in{&payload, command};
    for (const bool explaining : {false, true}) {
        viber::Trace trace = explaining ? viber::Trace::explaining() : viber::Trace();
        const viber::fuzzing::InputBudget budget(size);
        const viber::Decision decision = viber::shell_guard::decide(in, trace);
        if (decision.kind == viber::DecisionKind::deny &&
            decision.reason.rfind("viber guard: this command breaks R", 0) != 0)
            std::abort();
    }
    return 0;
}
