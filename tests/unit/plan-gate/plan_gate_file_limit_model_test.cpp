// plan_gate_file_limit_model_test.cpp: the plain plan file limit's count (plan-gate/file_limit)
// against the model's plain counter (tests/model/), on generated plans naming files in every
// spelling SPEC §4 step 3 lists. VIBER_DIFF_CASES sets how many plans (default 2000).
#define BOOST_TEST_MODULE plan_gate_file_limit_model
#include "model/generator.hpp"
#include "model/model.hpp"
#include "plan-gate/file_limit.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>

namespace {

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return fallback;
    return std::strtoull(value, nullptr, 10);
}

} // namespace

// The plain counter looks a token up on disk by its canonical `/c/...` spelling, which only a
// POSIX file system resolves (under wine it finds nothing the file limit finds).
BOOST_AUTO_TEST_CASE(the_file_count_is_the_plain_counters,
                     *viber::testing::posix_only("the plain counter's /c/... disk lookup")) {
    viber::testing::ScratchDir scratch;
    const std::string project = scratch.mkdir("project");
    for (const auto& [rel, text] : viber::model::project_files())
        scratch.write("project/" + rel, text);
    const std::uint64_t cases = env_number("VIBER_DIFF_CASES", 2000);
    const std::uint64_t first = env_number("VIBER_DIFF_SEED", 1);
    std::size_t differences = 0;
    std::size_t over_limit = 0;
    for (std::uint64_t seed = first; seed < first + cases; ++seed) {
        viber::model::Rng rng(seed);
        const std::string plan_path =
            project + (rng.chance(0.5) ? "/.claude/plans/p.md" : "/src/plans/p.md");
        std::vector<std::string> shapes;
        const std::string text = viber::model::generate_plan_text(rng, project, plan_path, shapes);
        scratch.write(plan_path.substr(scratch.path().size() + 1), text);
        const auto counted = viber::plan_gate::count_plan_files(std::nullopt, plan_path, project,
                                                                viber::plan_gate::every_file);
        const std::set<std::string> model = viber::model::plan_files(text, project, plan_path);
        BOOST_REQUIRE(counted.has_value());
        const std::set<std::string> hook(counted->first.begin(), counted->first.end());
        const auto tally = viber::plan_gate::count_plan_files(std::nullopt, plan_path, project);
        BOOST_REQUIRE(tally.has_value());
        if (model.size() > viber::plan_gate::plain_plan_file_limit) ++over_limit;
        if (hook == model && counted->first.size() == model.size() && tally->count == model.size())
            continue;
        if (++differences > 5) continue;
        std::cout << "DIFFERENCE seed " << seed << ": file limit counts " << counted->first.size()
                  << " (tally " << tally->count << "), the model " << model.size()
                  << "\n  plan text:\n"
                  << text << "\n  only the file limit:";
        for (const std::string& f : hook)
            if (!model.contains(f)) std::cout << " " << f;
        std::cout << "\n  only the model:";
        for (const std::string& f : model)
            if (!hook.contains(f)) std::cout << " " << f;
        std::cout << std::endl;
    }
    std::cout << cases << " plans: " << differences << " differ, " << over_limit
              << " over the limit" << std::endl;
    BOOST_TEST(differences == 0u);
    BOOST_TEST(over_limit > 0u);
    BOOST_TEST(over_limit < cases);
}
