// input_budget.hpp: a fuzz input that is slow or fat is a finding like a crash.
//
// The guard targets run each input's whole decision inside an InputBudget: past 50 ms of wall
// time, or with the resident set grown by more than 64 MB over the call, the target aborts, so
// libFuzzer saves the input as a crash (docs/command-model.md, "Caps and cost": every decision is
// linear in the command). Sanitizers slow every byte several times over; 50 ms still leaves a
// 64 KiB input a wide margin.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace viber::fuzzing {

class InputBudget {
public:
    InputBudget() : start_(std::chrono::steady_clock::now()), rss_(resident_bytes()) {}
    InputBudget(const InputBudget&) = delete;
    InputBudget& operator=(const InputBudget&) = delete;

    ~InputBudget() {
        const auto took = std::chrono::steady_clock::now() - start_;
        const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
        const long long grown = resident_bytes() - rss_;
        if (ms > max_ms) {
            std::fprintf(stderr, "input budget: the decision took %lld ms (limit %lld)\n", ms,
                         max_ms);
            std::abort();
        }
        if (grown > max_growth) {
            std::fprintf(stderr, "input budget: the resident set grew by %lld bytes\n", grown);
            std::abort();
        }
    }

private:
    static constexpr long long max_ms = 50;
    static constexpr long long max_growth = 64LL << 20;

    // The resident set now (Linux: /proc/self/statm; elsewhere the check is off).
    static long long resident_bytes() {
        std::FILE* statm = std::fopen("/proc/self/statm", "r");
        if (statm == nullptr) return 0;
        long long size = 0, resident = 0;
        const int read = std::fscanf(statm, "%lld %lld", &size, &resident);
        std::fclose(statm);
        return read == 2 ? resident * ::sysconf(_SC_PAGESIZE) : 0;
    }

    std::chrono::steady_clock::time_point start_;
    long long rss_;
};

} // namespace viber::fuzzing
