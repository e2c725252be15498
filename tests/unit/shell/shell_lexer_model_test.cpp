// shell_lexer_model_test.cpp: what the command model yields for each form of
// docs/command-model.md: the commands that run, each as `name@path` (the wrapper path through
// which it was reached), in the order found.
#define BOOST_TEST_MODULE shell_lexer_model
#include "common/shell/shell_lexer.hpp"
#include "support/shell_analysis.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using viber::shell::analyze;

namespace {

using Found = std::vector<std::string>;

// Every command that is not a wrapper, as `name@path`.
Found found(std::string_view command) {
    Found out;
    for (const auto& inv : analyze(command).invocations)
        if (!inv.is_wrapper && !inv.query) out.push_back(inv.name + "@" + inv.path);
    return out;
}

void check(std::string_view command, const Found& expected) {
    BOOST_TEST_CONTEXT(command) {
        BOOST_TEST(found(command) == expected);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(names_are_normalised_once) {
    check("/usr/bin/PKILL x", {"pkill@"});
    check("TaskKill.EXE /IM x", {"taskkill@"});
    check("\"rm\" x", {"rm@"});
    check("\\rm x", {"rm@"});
    check("npx -y kill-port@2 3000", {"kill-port@npx"});
}

BOOST_AUTO_TEST_CASE(wrappers_are_one_table_walked_without_recursion) {
    check("sudo -u root nice -n5 timeout -s KILL 5 env -i X=1 pkill x",
          {"pkill@sudo > nice > timeout > env"});
    check("doas -u r setsid stdbuf -oL ionice -c 3 chrt -f 10 taskset -c 0 pkill x",
          {"pkill@doas > setsid > stdbuf > ionice > chrt > taskset"});
    check("flock -w 5 /tmp/l pkill x", {"pkill@flock"});
    check("flock /tmp/l -c 'pkill x'", {"pkill@flock -c"});
    check("chroot --userspec=u / pkill x", {"pkill@chroot"});
    check("su - root -c 'pkill x'", {"pkill@su -c"});
    check("runuser -u bob -- pkill x", {"pkill@runuser"});
    check("script -q -c 'pkill x' /dev/null", {"pkill@script -c"});
    check("watch -n 1 pkill x", {"pkill@watch …"});
    check("watch -x pkill x", {"pkill@watch"});
    check("strace -f -e trace=kill -o t pkill x", {"pkill@strace"});
    check("busybox pkill x", {"pkill@busybox"});
    check("ssh -p 22 host pkill x", {"pkill@ssh …"});
    check("docker exec -it -u root box pkill x", {"pkill@docker exec"});
    check("uv run --with x python -c 1", {"python@uv run"});
    check("cmd //c taskkill //IM x", {"taskkill@cmd …"});
    check("command -v pkill", {});
    check("xargs -I{} -n 1 kill {}", {"kill@xargs"});
    check("parallel -j4 kill ::: 1 2", {"kill@parallel"});
    check("parallel ::: 'pkill a' 'ls'", {"pkill@parallel :::", "ls@parallel :::"});
    check("find . -name x -exec sudo rm {} \\; -execdir pkill y +",
          {"rm@find -exec > sudo", "pkill@find -exec"});
}

BOOST_AUTO_TEST_CASE(runner_flags) {
    const auto a = analyze("pgrep x | xargs kill; find . -exec rm {} +");
    BOOST_TEST_REQUIRE(a.invocations.size() == 5u);
    BOOST_TEST(a.invocations[2].fed_by_input);
    BOOST_TEST(a.invocations[2].stdin_from_pipe);
    BOOST_TEST(a.invocations[4].via_find);
}

BOOST_AUTO_TEST_CASE(shell_strings) {
    check("bash -Oextglob -c 'pkill x'", {"pkill@bash -c"});
    check("bash -O extglob -o errexit +O x -e -- -c 'pkill x'", {"bash@"});
    check("bash -e -c 'pkill x'", {"pkill@bash -c"});
    check("sh -lc 'pkill x'", {"pkill@sh -c"});
    check("bash -c '\"$@\"' _ pkill x", {"pkill@bash -c"});
    check("bash -c '$1' _ 'pkill x'", {"pkill@bash -c"});
    check("$SHELL -c 'pkill x'", {"pkill@sh -c"});
    check("eval -- 'pkill x'", {"pkill@eval"});
    check("env -S 'pkill x'", {"pkill@env -S > env"});
    check("sudo bash -c 'echo $(pkill x)'", {"pkill@sudo > bash -c > $(…)", "echo@sudo > bash -c"});
}

BOOST_AUTO_TEST_CASE(stdin_scripts) {
    check("bash <<'EOF'\npkill x\nEOF", {"bash@", "pkill@bash <<"});
    check("bash <<< 'pkill x'", {"bash@", "pkill@bash <<<"});
    check("echo pkill x | sh", {"echo@", "sh@", "pkill@sh |"});
    check("printf 'pkill x' | bash -s", {"printf@", "bash@", "pkill@bash |"});
    check("source /dev/stdin <<< 'pkill x'", {"source@", "pkill@source <<<"});
    check("source <(echo pkill x)", {"echo@<(…)", "source@", "pkill@source <(…)"});
    // A shell's script operand follows its options and their values
    // (common/shell/shell_options.hpp).
    check("bash <(echo pkill x)", {"echo@<(…)", "bash@", "pkill@bash <(…)"});
    check("bash -o pipefail <(echo pkill x)", {"echo@<(…)", "bash@", "pkill@bash <(…)"});
    check("bash -O extglob -x <(echo pkill x)", {"echo@<(…)", "bash@", "pkill@bash <(…)"});
    check("bash -c \"$(cat <<'EOF'\npkill x\nEOF\n)\"", {"cat@$(…)", "pkill@bash -c"});
    check("cat <<'EOF' | python3\npkill x\nEOF", {"cat@", "python3@"});
}

BOOST_AUTO_TEST_CASE(heredoc_rules) {
    check("cat <<EOF\n$(pkill x)\nEOF", {"cat@", "pkill@$(…)"});
    check("cat <<EOF\n'$(pkill x)'\nEOF", {"cat@", "pkill@$(…)"});
    check("cat <<'EOF'\n$(pkill x)\nEOF", {"cat@"});
    check("cat <<E\"O\"F\n$(pkill x)\nEOF", {"cat@"});
    check("cat <<$'\\u0045OF'\n$(pkill x)\nEOF\nls", {"cat@", "ls@"});
    check("cat <<EOF\nEOF\r\npkill x\nEOF\nls", {"cat@", "ls@"});
    check("cat <<-EOF\n\tpkill x\n\tEOF\nls", {"cat@", "ls@"});
    check("echo \"$(cat <<EOF\nbody\nEOF)\"; pkill x", {"cat@$(…)", "echo@", "pkill@"});
}

BOOST_AUTO_TEST_CASE(command_words_built_by_expansion) {
    check("$(true) pkill node", {"true@$(…)", "pkill@"});
    check("${EMPTY} pkill node", {"pkill@"});
    check("$(:)pkill node", {":@$(…)", "pkill@"});
    check("pkill${IFS}node", {"pkill@"});
    check("{pkill,node}", {"pkill@"});
    check("{rm,-rf,x}", {"rm@"});
    check("{1..999999999}", {"{1..999999999}@"});
    const auto glob = analyze("/bin/pk?ll x");
    BOOST_TEST_REQUIRE(glob.invocations.size() == 1u);
    BOOST_TEST(viber::shell::glob_matches(glob.invocations[0].name, "pkill"));
    BOOST_TEST(viber::shell::glob_matches("pk[!x]ll", "pkill"));
    BOOST_TEST(viber::shell::glob_matches("*", "rm"));
    BOOST_TEST(!viber::shell::glob_matches("r?", "rmdir"));
    BOOST_TEST(!viber::shell::glob_matches(std::string(100000, '*') + "x", "rm"));
}

BOOST_AUTO_TEST_CASE(data_is_not_commands) {
    check("[[ -f a && $(pkill x) ]]", {"pkill@$(…)"});
    check("case pkill in pkill) ls;; esac", {"ls@"});
    check("((x = $(pkill y) + 1))", {"pkill@$(…)"});
    check("for ((i=0; i<3; i++)); do ls; done", {"ls@"});
    check("echo $[1<<2]\npkill x", {"echo@", "pkill@"});
    check("a[1<<2]=x\npkill x", {"pkill@"});
    check("X=($(pkill x) y) ls", {"pkill@$(…)", "ls@"});
    check("((pkill x) )", {"pkill@( ) > ( )"});
    check("echo $((pkill x) )", {"pkill@$(…) > ( )", "echo@"});
    check("# note \\\npkill x", {"pkill@"});
    check("X=1 case a", {"case@"});
    check(">/dev/null [[ a", {"[[@"});
    check("coproc pkill x", {"pkill@"});
    check("time -p -- pkill x", {"pkill@"});
}

BOOST_AUTO_TEST_CASE(quoting_and_escapes) {
    check("pk\\\nill x", {"pkill@"});
    check("a &\\\n& pkill x", {"a@", "pkill@"});
    check("$\\\n(pkill x)", {"pkill@$(…)"});
    check("$'\\x70kill' x", {"pkill@"});
    check("$'\\u0070kill' x", {"pkill@"});
    check("$'\\U00000070kill' x", {"pkill@"});
    check("$'\\160kill' x", {"pkill@"});
    check("echo \"`pkill \\\"q\\\"`\"", {"pkill@`…`", "echo@"});
    const auto a = analyze("echo \"`echo \\\"q\\\"`\"");
    BOOST_TEST(a.invocations.front().args.at(0).text == "q");
}

BOOST_AUTO_TEST_CASE(loop_variables_and_depth_flag) {
    const auto a = analyze("for p in $(pgrep x); do kill $p; done");
    BOOST_TEST_REQUIRE(a.loop_variables.size() == 1u);
    BOOST_TEST(a.loop_variables[0].first == "p");
    BOOST_TEST(a.loop_variables[0].second);
    BOOST_TEST(!analyze("echo $(echo $(ls))").reached_depth_cap);
    std::string deep = "echo ";
    for (int i = 0; i < 33; ++i) deep += "$(";
    BOOST_TEST(analyze(deep).reached_depth_cap);
}
