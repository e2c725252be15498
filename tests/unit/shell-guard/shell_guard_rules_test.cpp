// shell_guard_rules_test.cpp: each shell-guard rule table, command by command, and R4's placing of
// targets against the payload's cwd and work tree.
#define BOOST_TEST_MODULE shell_guard_rules
#include "shell-guard/shell_guard.hpp"
#include "support/hook_decision.hpp"
#include "support/scratch.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace viber::shell_guard;

namespace {
// Hook mode's answer on stdin bytes (nullopt: the bounded read failed).
std::optional<boost::json::value> run(const std::optional<std::string>& bytes) {
    const viber::HookInfo shell_guard{.name = "shell-guard",
                                      .decide = viber::shell_guard::decide,
                                      .prefilter = viber::Prefilter::viber_agent};
    return viber::testing::hook_answer(shell_guard, bytes);
}
} // namespace

namespace {

const RuleSet coder = rules_binding("viber:task-coder");

using Cases = std::vector<std::pair<const char*, const char*>>;

void check(const Cases& cases, Place place = {}) {
    for (const auto& [command, expected] : cases) {
        BOOST_TEST_CONTEXT(command) {
            BOOST_TEST(broken_rules(command, coder, place).to_string() == expected);
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(coder_is_bound_by_all_five_reviewers_by_r2_alone) {
    BOOST_TEST(coder.to_string() == "R1,R2,R3,R4,R5");
    BOOST_TEST(rules_binding("viber:task-reviewer").to_string() == "R2");
    BOOST_TEST(rules_binding("viber:final-reviewer").to_string() == "R2");
    for (const char* agent : {"", "task-coder", "viber:scout", "viber:Task-Coder",
                              "viber:task-coder ", "general-purpose"})
        BOOST_TEST(rules_binding(agent).empty(), agent);
}

BOOST_AUTO_TEST_CASE(r1_chains_at_every_level_and_what_is_no_chain) {
    check({{"make && make test", "R1"},
           {"a; b", "R1"},
           {"a || b", "R1"},
           {"echo \"$(date; id)\"", "R1"},
           {"ssh h 'cd x && ls'", "R1"},
           {"eval 'a; b'", "R1"},
           {"for f in *; do echo $f; done", "R1"},
           {"a &\\\n& b", "R1"},
           {"a\nb", "allow"},
           {"a | b", "allow"},
           {"a & b", "allow"},
           {"[[ -f a && -f b ]]", "allow"},
           {"case $x in a) echo a;; b) echo b;; esac", "allow"},
           {"for ((i=0; i<3; i++))\ndo echo $i\ndone", "allow"},
           {"echo 'a; b' \"c && d\"", "allow"}});
}

BOOST_AUTO_TEST_CASE(r2_git_writes_after_global_options) {
    check({{"git stash", "R2"},
           {"git -C sub checkout x", "R2"},
           {"git --git-dir=.git --work-tree=. restore .", "R2"},
           {"git clean -fd", "R2"},
           {"git switch main", "R2"},
           {"git reset --hard HEAD", "R2"},
           {"git reset --merge", "R2"},
           {"git reset --keep HEAD~1", "R2"},
           {"git checkout-index -a -f", "R2"},
           {"git read-tree -u -m HEAD", "R2"},
           {"git -c alias.st=stash st", "R2"},
           {"git -c help.autocorrect=1 stsh", "R2"},
           {"GIT status", "allow"},
           {"git reset", "allow"},
           {"git reset --soft HEAD~1", "allow"},
           {"git read-tree HEAD", "allow"},
           {"git rm -r -q -- old.c", "allow"},
           {"git update-index --chmod=+x -- run.sh", "allow"},
           {"git -c user.name=x log", "allow"},
           {"git --version stash", "allow"}});
}

BOOST_AUTO_TEST_CASE(r3_removals_through_every_runner) {
    check({{"rm x", "R3"},
           {"RM x", "R3"},
           {"\\rm x", "R3"},
           {"unlink x", "R3"},
           {"shred -u x", "R3"},
           {"shred -zu x", "R3"},
           {"shred --remove x", "R3"},
           {"find . -name '*.o' -delete", "R3"},
           {"ls | xargs rm", "R3"},
           {"parallel rm ::: a b", "R3"},
           {"find . -exec env rm {} \\;", "R3"},
           {"sudo -u x nice -n 5 rm y", "R3"},
           {"/bin/r? x", "R3"},
           {"{rm,-f,x}", "R3"},
           {"shred x", "R4"}, // no removal; it overwrites x in place (SPEC §7.3)
           {"rmdir x", "allow"},
           {"git rm x", "allow"},
           {"find . -name -delete", "allow"},
           {"git commit -m 'rm old helper'", "allow"},
           {"grep 'rm -rf' x", "allow"}});
}

BOOST_AUTO_TEST_CASE(r4_writers_without_cwd_follow_the_seed_rule) {
    check({{"echo x > out", "R4"},
           {"echo x > .temp/out", "allow"},
           {"echo x > /tmp/out", "allow"},
           {"echo x > ../out", "R4"},
           {"echo x > .temp/../out", "R4"},
           {"echo x >&2", "allow"},
           {"echo x 2>&1", "allow"},
           {"echo x 2> >(grep y >&2)", "allow"},
           {"echo x | tee out", "R4"},
           {"echo x | tee -a .temp/out", "allow"},
           {"sed -i s/a/b/ f.c", "R4"},
           {"sed --in-pl=.bak s/a/b/ f.c", "R4"},
           {"sed --expr=s/a/b/ f.c", "allow"},
           {"perl -pi -e s/a/b/ f.c", "R4,R5"},
           {"cp a b", "R4"},
           {"cp a .temp/", "allow"},
           {"cp -t .temp a", "allow"},
           {"mv .temp/a b", "R4"},
           {"mv a .temp/b", "R4"},
           {"dd if=a of=b", "R4"},
           {"truncate -s 0 f", "R4"},
           {"curl -fsSLo f https://x", "R4"},
           {"curl -o - https://x", "allow"},
           {"curl -O https://x/f", "R4"},
           {"wget -qO- https://x", "allow"},
           {"wget https://x/f", "R4"},
           {"wget --spider https://x/f", "allow"},
           {"git apply p.diff", "R4"},
           {"git apply --check p.diff", "allow"},
           {"patch -p1 < p.diff", "R4"},
           {"patch --dry-run -p1 < p.diff", "allow"},
           {"echo x > $TMPDIR/out", "allow"},
           {"echo x > $PWD/out", "R4"}});
}

BOOST_AUTO_TEST_CASE(r4_places_targets_against_cwd_and_the_work_tree) {
    const viber::testing::ScratchDir scratch;
    scratch.mkdir("tree/.git");
    scratch.mkdir("tree/src");
    scratch.mkdir("plain");
    const std::string tree = scratch / "tree";
    Place in_src{.cwd = tree + "/src", .home = "/home/me", .work_tree = std::nullopt};
    check({{"echo x > out", "R4"},
           {"echo x > ../out", "R4"},          // still inside the work tree
           {"echo x > ../../out", "allow"},    // above the work tree
           {"echo x > ../.temp/out", "allow"}, // a .temp segment below the tree
           {"echo x > .temp/out", "allow"}},
          in_src);
    const std::string absolute_inside = "echo x > " + tree + "/src/a.c";
    const std::string absolute_temp = "echo x > " + tree + "/.temp/a";
    BOOST_TEST(broken_rules(absolute_inside, coder, in_src).to_string() == "R4");
    BOOST_TEST(broken_rules(absolute_temp, coder, in_src).to_string() == "allow");
    BOOST_TEST(
        broken_rules("echo x > $(git rev-parse --show-toplevel)/a", coder, in_src).to_string() ==
        "R4");
    BOOST_TEST(broken_rules("echo x > ~/a", coder, in_src).to_string() == "allow");
    Place plain{.cwd = scratch / "plain", .home = tree, .work_tree = std::nullopt};
    BOOST_TEST(broken_rules("echo x > out", coder, plain).to_string() == "R4"); // cwd is the tree
    BOOST_TEST(broken_rules("echo x > ~/src/a", coder, plain).to_string() == "allow");
}

BOOST_AUTO_TEST_CASE(r5_interpreters_inline_stdin_and_temp_code) {
    check({{"python3 -c 1", "R5"},
           {"python3.11 -Bc 1", "R5"},
           {"node -e 1", "R5"},
           {"node -pe 1", "R5"},
           {"perl -E 1", "R5"},
           {"ruby -e 1", "R5"},
           {"php -r 1", "R5"},
           {"bash -c ls", "R5"},
           {"deno eval 1", "R5"},
           {"bun --eval 1", "R5"},
           {"lua -e 1", "R5"},
           {"Rscript -e 1", "R5"},
           {"tsx -e 1", "R5"},
           {"pwsh -Command ls", "R5"},
           {"awk 'BEGIN{system(\"ls\")}'", "R5"},
           {"awk '{print | \"sort\"}' f", "R5"},
           {"awk 'a || b' f", "allow"},
           {"echo 1 | python3", "R5"},
           {"python3 - < x.py", "allow"}, // reads x.py as python3 < x.py does (SPEC §7.3)
           {"python3 - < .temp/x.py", "R5"},
           {"python3 <<EOF\nprint(1)\nEOF", "R5"},
           {"python3 <(cat x)", "R5"},
           {"python3 .temp/x.py", "R5"},
           {"./.temp/x.sh", "R5"},
           {"node -r ./.temp/hook.js app.js", "R5"},
           {"bash --rcfile .temp/rc", "R5"},
           {"BASH_ENV=.temp/env bash x.sh", "R5"},
           {"NODE_OPTIONS='--require ./.temp/x.js' node app.js", "R5"},
           {"uv run python -c 1", "R5"},
           {"echo x | python3 --version", "allow"},
           {"python3 -m pytest", "allow"},
           {"python3 tools/check.py", "allow"},
           {"node app.js", "allow"}});
}

BOOST_AUTO_TEST_CASE(kill_checks_and_conditions_are_no_false_positive) {
    check({{"kill -0 $(cat .temp/app.pid)", "allow"},
           {"[[ -f a && -f b ]]", "allow"},
           {"case x in a) echo;; esac", "allow"},
           {"echo x | python3 --version", "allow"}});
}

BOOST_AUTO_TEST_CASE(judge_reports_where_each_rule_was_broken) {
    const Judgement j = judge("sudo bash -c 'rm -f x'", coder);
    BOOST_TEST(j.broken.to_string() == "R3,R5");
    bool found_rm = false;
    for (const Finding& f : j.findings) {
        if (f.rule != Rule::remove) continue;
        found_rm = true;
        BOOST_TEST(f.command == "rm");
        BOOST_TEST(f.words == "rm -f x");
        BOOST_TEST(f.path == "sudo > bash -c");
    }
    BOOST_TEST(found_rm);
}

BOOST_AUTO_TEST_CASE(reason_opens_with_the_marker_and_names_each_rule_in_order_once) {
    const std::string reason = refusal_reason(RuleSet().add(Rule::file_write).add(Rule::chain));
    BOOST_TEST(reason.rfind("viber guard: this command breaks R1,R4;", 0) == 0u);
    BOOST_TEST(reason.find("R1 (") < reason.find("R4 ("));
    BOOST_TEST(reason.find("R2 (") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(decide_answers_a_deny_or_nothing) {
    BOOST_TEST(!decide("viber:task-coder", "ls").answer.has_value());
    BOOST_TEST(!decide("viber:scout", "rm x").answer.has_value());
    BOOST_TEST(!decide("viber:task-reviewer", "rm x").answer.has_value());
    const auto answer = decide("viber:task-reviewer", "git stash").answer;
    BOOST_TEST_REQUIRE(answer.has_value());
    BOOST_TEST(answer->at("hookSpecificOutput").at("permissionDecision").as_string() == "deny");
}

BOOST_AUTO_TEST_CASE(run_reads_the_top_level_keys_only) {
    BOOST_TEST(
        !run(std::string(
                 R"({"x":"\"agent_type\":\"viber:task-coder\"","tool_input":{"command":"rm x"}})"))
             .has_value());
    BOOST_TEST(
        run(std::string(R"({"agent_type":"viber:task-coder","tool_input":{"command":"rm x"}})"))
            .has_value());
    BOOST_TEST(!run(std::nullopt).has_value());
}
