// input_budget.hpp: a fuzz input that is slow or fat is a finding like a crash.
//
// The guard targets run each input's whole decision inside an InputBudget: past 50 ms of the
// thread's CPU time per started KiB of text the command model lexes (CPU time, so a busy machine
// that deschedules the fuzzer does not make a finding), or with the resident set grown by more
// than 64 MB over the call, the target aborts, so libFuzzer saves the input as a crash
// (docs/command-model.md, "Caps and cost": every decision is linear in the command plus the
// expansion allowance). The text lexed is the command and the values, eval strings and typed lines
// its reading expanded (`shell::Summary::expanded_bytes`): a 50-byte `eval` of a variable whose
// value names itself lexes the whole 64 KiB allowance, linearly. The allowance grows with the text
// because the fuzz build's coverage and sanitizer instrumentation slow each byte 20-50 times (a
// 5 KB line of 1,000 `nice` takes 0.5 ms in release and about 25 ms here): a linear decision stays
// far inside it, a quadratic one leaves it within a few KiB. The release binary's own figures are
// bench/'s.
//
// A run over the budget is run again, three runs in all, and only an input over it on every run
// is a finding: a decision that is slow or fat for its input is so each time, while the
// allocator's housekeeping lands on whichever run is current. On a VM whose page faults cost
// 12 us each, a 15-byte decision took 80 to 110 ms of CPU time now and then (5,660 page faults in
// one such run, with the resident set grown by 52 KB), and a few ms when run again.
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"
#include "common/shell/shell_lexer.hpp"

#include <algorithm>
#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <unistd.h>

namespace viber::fuzzing {

class InputBudget {
public:
    explicit InputBudget(std::size_t lexed_bytes)
        : max_ms_(ms_per_kib * static_cast<long long>(1 + lexed_bytes / 1024)) {}

    // Runs `run` (the same work each time), again while a run is over the budget, at most `runs`
    // times in all; aborts when every run was over it.
    template <class Run> void enforce(Run&& run) const {
        Cost least;
        for (int attempt = 0; attempt < runs; ++attempt) {
            const Cost cost = cost_of(run);
            if (cost.ms <= max_ms_ && cost.grown <= max_growth) return;
            least.ms = attempt == 0 ? cost.ms : std::min(least.ms, cost.ms);
            least.grown = attempt == 0 ? cost.grown : std::min(least.grown, cost.grown);
        }
        if (least.ms > max_ms_) {
            std::fprintf(stderr,
                         "input budget: the decision took %lld ms or more in %d runs "
                         "(limit %lld)\n",
                         least.ms, runs, max_ms_);
            std::abort();
        }
        if (least.grown > max_growth) {
            std::fprintf(stderr,
                         "input budget: the resident set grew by %lld bytes or more in "
                         "%d runs\n",
                         least.grown, runs);
            std::abort();
        }
        // Else each run was over one bound and within the other: no bound was over every time.
    }

private:
    static constexpr long long ms_per_kib = 50;
    static constexpr long long max_growth = 64LL << 20;
    static constexpr int runs = 3;

    // What one run cost: this thread's CPU time, and how much the resident set grew.
    struct Cost {
        long long ms = 0;
        long long grown = 0;
    };

    template <class Run> static Cost cost_of(Run& run) {
        const long long rss = resident_bytes();
        const long long start_ns = cpu_ns();
        run();
        return {(cpu_ns() - start_ns) / 1000000, resident_bytes() - rss};
    }

    // The resident set now (Linux: /proc/self/statm; elsewhere the check is off).
    static long long resident_bytes() {
        std::FILE* statm = std::fopen("/proc/self/statm", "r");
        if (statm == nullptr) return 0;
        long long size = 0, resident = 0;
        const int read = std::fscanf(statm, "%lld %lld", &size, &resident);
        std::fclose(statm);
        return read == 2 ? resident * ::sysconf(_SC_PAGESIZE) : 0;
    }

    // This thread's CPU time.
    static long long cpu_ns() {
        timespec now{};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
    }

    long long max_ms_;
};

// The bytes the command model lexes reading `command`: the command and what its reading expanded.
inline std::size_t lexed_bytes(std::string_view command) {
    struct Ignore final : shell::CommandSink {
        void command(const shell::Command&) override {}
    } ignore;
    return command.size() + shell::read_commands(command, ignore).expanded_bytes;
}

// A guard's whole decision on `command` as the Bash call of viber:task-coder (with `cwd` when it
// is not empty), in hook mode and again with --explain's trace on, each inside an InputBudget of
// the bytes the model lexes reading `command`. A deny whose reason does not open with
// `reason_prefix` aborts too.
inline void decide_guard_within_budget(std::string_view command, std::string_view cwd,
                                       Decision (*decide)(const HookInput&, Trace&),
                                       std::string_view reason_prefix) {
    boost::json::object payload{{"agent_type", "viber:task-coder"},
                                {"tool_name", "Bash"},
                                {"tool_input", boost::json::object{{"command", command}}}};
    if (!cwd.empty()) payload["cwd"] = cwd;
    const HookInput in{&payload, command};
    const InputBudget budget(lexed_bytes(command));
    for (const bool explaining : {false, true}) {
        budget.enforce([&] {
            Trace trace = explaining ? Trace::explaining() : Trace();
            const Decision decision = decide(in, trace);
            if (decision.kind == DecisionKind::deny && !decision.reason.starts_with(reason_prefix))
                std::abort();
        });
    }
}

} // namespace viber::fuzzing
