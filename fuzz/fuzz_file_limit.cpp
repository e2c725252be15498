// fuzz_file_limit.cpp: libFuzzer target for plan-gate's plain plan file counter (docs/plan-gate.md,
// step 3) on arbitrary plan text, against a fixed root that holds no files (so only the token rules
// run).
#include "plan-gate/file_limit.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

namespace pg = viber::plan_gate;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string root = "/nonexistent/viber-fuzz-root";
    const std::string plan = root + "/.claude/plans/p.md";
    const auto files = pg::count_plan_files(text, plan, root, pg::every_file).value().first;
    // Counted files are distinct; the hook's tally counts them all and keeps the first.
    if (std::set<std::string>(files.begin(), files.end()).size() != files.size()) std::abort();
    const pg::FileTally tally = pg::count_plan_files(text, plan, root).value();
    if (tally.count != files.size() ||
        tally.first.size() != std::min(files.size(), pg::listed_files))
        std::abort();
    const auto refusal = pg::file_limit_refusal(tally, "p.md");
    if (refusal.has_value() != (files.size() > pg::plain_plan_file_limit)) std::abort();
    return 0;
}
