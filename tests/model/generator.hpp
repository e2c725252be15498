// generator.hpp: random sessions in every shape SPEC §3 lists, for the differential tests that
// hold plan-gate and plan-hints to the plain model (model.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace viber::model {

// A small seeded generator whose sequence is the same on every platform (no std distribution).
class Rng {
public:
    explicit Rng(std::uint64_t seed)
        : state_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}
    std::uint64_t next();
    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
    bool chance(double p) { return static_cast<double>(next() % 1000000) < p * 1000000.0; }
    template <class T> const T& pick(const std::vector<T>& items) {
        return items[below(items.size())];
    }

private:
    std::uint64_t state_;
};

// One generated session: the files to write and the payload fields. Paths inside are absolute,
// under `project` (the payload's cwd), which the case writes from scratch.
struct Case {
    std::uint64_t seed = 0;
    std::string transcript;         // the transcript's bytes
    bool transcript_present = true; // false: the payload names a missing file
    std::string plan_path;          // where the plan file is written (absolute; empty: none)
    std::string plan_text;
    long long plan_mtime = 0;
    std::string config_output; // what the stub scripts/config.sh prints
    bool cwd_present = true;
    std::string hints_mode;          // plan-hints' payload permission_mode
    std::vector<std::string> shapes; // what the case holds, for a person reading a difference
};

// The files every case's project holds besides its plan: extension-less files a plan may name
// (counted only because they exist) and path-shaped ones.
const std::vector<std::pair<std::string, std::string>>& project_files();

// A moment near which the case's timestamps and plan mtimes lie: 2026-10-01T10:00:00Z.
inline constexpr long long base_epoch = 1790848800;

Case generate_case(std::uint64_t seed, const std::string& project);

// A plan's text: frontmatter or none, `<!-- TASK -->` lines, and file names in every spelling the
// plain plan file limit reads (SPEC §4 step 3).
std::string generate_plan_text(Rng& rng, const std::string& project, const std::string& plan_path,
                               std::vector<std::string>& shapes);

} // namespace viber::model
