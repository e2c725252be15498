// shell_lexer_wrappers_test.cpp: wrappers, shells with -c, eval and xargs in the shell lexer.
#define BOOST_TEST_MODULE shell_lexer_wrappers
#include "common/shell/shell_lexer.hpp"
#include "support/shell_analysis.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using viber::shell::Analysis;
using viber::shell::analyze;
using viber::shell::Invocation;

namespace {

using Names = std::vector<std::string>;

Names names(const Analysis& a) {
    Names out;
    for (const Invocation& inv : a.invocations) out.push_back(inv.name);
    return out;
}

Names arg_texts(const Invocation& inv) {
    Names out;
    for (const auto& w : inv.args) out.push_back(w.text);
    return out;
}

const Invocation* find(const Analysis& a, std::string_view name) {
    for (const Invocation& inv : a.invocations)
        if (inv.name == name) return &inv;
    return nullptr;
}

// The wrapped command of `command` is `expected`, with `args`.
void check_operand(std::string_view command, const Names& expected_names, const Names& last_args) {
    const Analysis a = analyze(command);
    BOOST_TEST_CONTEXT(command) {
        BOOST_TEST(names(a) == expected_names);
        BOOST_TEST_REQUIRE(!a.invocations.empty());
        BOOST_TEST(arg_texts(a.invocations.back()) == last_args);
        for (std::size_t i = 0; i + 1 < a.invocations.size(); ++i)
            BOOST_TEST(a.invocations[i].is_wrapper);
        BOOST_TEST(!a.invocations.back().is_wrapper);
        BOOST_TEST(a.reached_depth_cap == false);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(sudo_options) {
    check_operand("sudo pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo -u root pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo -uroot -E pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo -g g -h h -p p -C 3 -D d -r r -t t -U u -T 5 pkill x", {"sudo", "pkill"},
                  {"x"});
    check_operand("sudo -n -E -- pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo --user=root pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo --user root pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo X=1 pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo -Eu root pkill x", {"sudo", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(env_options_and_assignments) {
    check_operand("env pkill x", {"env", "pkill"}, {"x"});
    check_operand("env A=1 B=2 pkill x", {"env", "pkill"}, {"x"});
    check_operand("env -i -0 - -u HOME -C /tmp A=1 pkill x", {"env", "pkill"}, {"x"});
    check_operand("env --unset=HOME --chdir /tmp pkill x", {"env", "pkill"}, {"x"});
    check_operand("env -- pkill x", {"env", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(env_split_string_is_a_command_line) {
    // The -S words are read again as env's own words: options, assignments, then the command.
    const Analysis a = analyze("env -S 'pkill -f x' y");
    BOOST_TEST(names(a) == (Names{"env", "env", "pkill"}));
    BOOST_TEST(arg_texts(a.invocations[2]) == (Names{"-f", "x", "y"}));
    BOOST_TEST(a.invocations[0].is_wrapper);
    BOOST_TEST(a.invocations[2].path == "env -S > env");
    BOOST_TEST(names(analyze("env -S'pkill x'")) == (Names{"env", "env", "pkill"}));
    BOOST_TEST(names(analyze("env --split-string='pkill x'")) == (Names{"env", "env", "pkill"}));
    BOOST_TEST(names(analyze("env -S '-i X=1 pkill x'")) == (Names{"env", "env", "pkill"}));
}

BOOST_AUTO_TEST_CASE(command_builtin_exec) {
    check_operand("command pkill x", {"command", "pkill"}, {"x"});
    check_operand("command -p pkill x", {"command", "pkill"}, {"x"});
    check_operand("builtin kill 1", {"builtin", "kill"}, {"1"});
    check_operand("exec pkill x", {"exec", "pkill"}, {"x"});
    check_operand("exec -a name pkill x", {"exec", "pkill"}, {"x"});
    check_operand("exec -c -l pkill x", {"exec", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(command_query_runs_nothing) {
    for (const char* command : {"command -v pkill", "command -V pkill", "command -pv pkill"}) {
        const Analysis a = analyze(command);
        BOOST_TEST_CONTEXT(command) {
            BOOST_TEST(names(a) == Names{"command"});
            BOOST_TEST(!a.invocations[0].is_wrapper);
            BOOST_TEST(arg_texts(a.invocations[0]).back() == "pkill");
        }
    }
}

BOOST_AUTO_TEST_CASE(nohup_and_time_and_usr_bin_time) {
    check_operand("nohup pkill x", {"nohup", "pkill"}, {"x"});
    check_operand("/usr/bin/time -f %e -o out pkill x", {"time", "pkill"}, {"x"});
    check_operand("/usr/bin/time --format=%e -v pkill x", {"time", "pkill"}, {"x"});
    check_operand("\"time\" pkill x", {"time", "pkill"}, {"x"});
    check_operand("nohup time -p pkill x", {"nohup", "time", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(nice_options) {
    check_operand("nice pkill x", {"nice", "pkill"}, {"x"});
    check_operand("nice -n 5 pkill x", {"nice", "pkill"}, {"x"});
    check_operand("nice -n5 pkill x", {"nice", "pkill"}, {"x"});
    check_operand("nice -10 pkill x", {"nice", "pkill"}, {"x"});
    check_operand("nice --adjustment=3 pkill x", {"nice", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(timeout_duration_then_command) {
    check_operand("timeout 5 pkill x", {"timeout", "pkill"}, {"x"});
    check_operand("timeout -s KILL 5s pkill x", {"timeout", "pkill"}, {"x"});
    check_operand("timeout -k 1 -sTERM 5 pkill x", {"timeout", "pkill"}, {"x"});
    check_operand("timeout --signal=KILL --preserve-status 5 pkill x", {"timeout", "pkill"}, {"x"});
    check_operand("timeout --kill-after 2 5 pkill x", {"timeout", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(stdbuf_options) {
    check_operand("stdbuf -oL pkill x", {"stdbuf", "pkill"}, {"x"});
    check_operand("stdbuf -o L -e 0 -i0 pkill x", {"stdbuf", "pkill"}, {"x"});
    check_operand("stdbuf --output=L pkill x", {"stdbuf", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(wrappers_chain) {
    check_operand("sudo -u r nice -n 5 timeout 3 env A=1 stdbuf -oL nohup /bin/pkill x",
                  {"sudo", "nice", "timeout", "env", "stdbuf", "nohup", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(wrapper_without_operand) {
    const Analysis a = analyze("sudo -u root");
    BOOST_TEST(names(a) == Names{"sudo"});
    BOOST_TEST(a.invocations[0].is_wrapper);
    BOOST_TEST(names(analyze("exec >log 2>&1")) == Names{"exec"});
}

BOOST_AUTO_TEST_CASE(wrapper_invocations_share_the_simple_command_context) {
    const Analysis a = analyze("echo x | sudo pkill y > out");
    const Invocation* sudo = find(a, "sudo");
    const Invocation* pkill = find(a, "pkill");
    BOOST_TEST_REQUIRE(sudo != nullptr);
    BOOST_TEST_REQUIRE(pkill != nullptr);
    BOOST_TEST(sudo->stdin_from_pipe);
    BOOST_TEST(pkill->stdin_from_pipe);
    BOOST_TEST(pkill->redirects.size() == 1u);
    BOOST_TEST(arg_texts(*sudo).empty()); // a wrapper holds its own words only: no copies
}

BOOST_AUTO_TEST_CASE(xargs_marks_its_command) {
    const Analysis a = analyze("pgrep x | xargs kill");
    BOOST_TEST(names(a) == (Names{"pgrep", "xargs", "kill"}));
    BOOST_TEST(!find(a, "xargs")->fed_by_input);
    BOOST_TEST(find(a, "xargs")->is_wrapper);
    BOOST_TEST(find(a, "kill")->fed_by_input);
    BOOST_TEST(!find(a, "pgrep")->fed_by_input);
}

BOOST_AUTO_TEST_CASE(xargs_options) {
    for (const char* command :
         {"xargs -n 1 kill", "xargs -n1 -P 4 kill", "xargs -I {} kill {}", "xargs -I{} kill {}",
          "xargs -L 1 -s 100 -d , -E END -a file kill", "xargs -0 -r -t kill", "xargs -i kill {}",
          "xargs -i{} kill {}", "xargs -e -l kill", "xargs -eEND -l2 kill",
          "xargs --max-args=1 kill", "xargs --max-args 1 kill", "xargs -- kill"}) {
        const Analysis a = analyze(command);
        BOOST_TEST_CONTEXT(command) {
            BOOST_TEST(names(a) == (Names{"xargs", "kill"}));
            BOOST_TEST(a.invocations[1].fed_by_input);
        }
    }
}

BOOST_AUTO_TEST_CASE(xargs_through_wrappers_and_into_shell_strings) {
    const Analysis a = analyze("xargs sudo -u r timeout 5 kill");
    BOOST_TEST(names(a) == (Names{"xargs", "sudo", "timeout", "kill"}));
    BOOST_TEST(find(a, "sudo")->fed_by_input);
    BOOST_TEST(find(a, "kill")->fed_by_input);

    const Analysis b = analyze("pgrep x | xargs -I{} sh -c 'echo {}; kill {}'");
    BOOST_TEST(names(b) == (Names{"pgrep", "xargs", "sh", "echo", "kill"}));
    BOOST_TEST(find(b, "kill")->fed_by_input);
    BOOST_TEST(find(b, "kill")->depth == 1u);

    const Analysis c = analyze("sudo xargs kill");
    BOOST_TEST(!find(c, "sudo")->fed_by_input);
    BOOST_TEST(find(c, "kill")->fed_by_input);
}

BOOST_AUTO_TEST_CASE(xargs_does_not_mark_substitutions_or_later_commands) {
    const Analysis a = analyze("xargs echo $(kill 1); kill 2");
    BOOST_TEST(names(a) == (Names{"kill", "xargs", "echo", "kill"}));
    BOOST_TEST(!a.invocations[0].fed_by_input);
    BOOST_TEST(a.invocations[2].fed_by_input);
    BOOST_TEST(!a.invocations[3].fed_by_input);
}

BOOST_AUTO_TEST_CASE(shell_dash_c_runs_its_string) {
    for (const char* command :
         {"bash -c 'pkill x'", "sh -c \"pkill x\"", "zsh -c 'pkill x'", "dash -c 'pkill x'",
          "ksh -c 'pkill x'", "bash -lc 'pkill x'", "bash -xc 'pkill x'", "bash -e -c 'pkill x'",
          "/bin/bash -c 'pkill x' name arg", "bash -o pipefail -c 'pkill x'",
          "bash --norc -c 'pkill x'", "bash -c -- 'pkill x'"}) {
        const Analysis a = analyze(command);
        BOOST_TEST_CONTEXT(command) {
            BOOST_TEST_REQUIRE(a.invocations.size() == 2u);
            BOOST_TEST(a.invocations[0].is_wrapper);
            BOOST_TEST(a.invocations[1].name == "pkill");
            BOOST_TEST(a.invocations[1].depth == 1u);
            BOOST_TEST(arg_texts(a.invocations[1]) == Names{"x"});
        }
    }
}

BOOST_AUTO_TEST_CASE(shell_keeps_its_arguments) {
    const Analysis a = analyze("bash -c 'pkill x' zero one");
    BOOST_TEST(a.invocations[0].name == "bash");
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"-c", "pkill x", "zero", "one"}));
}

BOOST_AUTO_TEST_CASE(shell_without_dash_c_runs_no_string) {
    const Analysis a = analyze("bash script.sh 'pkill x'");
    BOOST_TEST(names(a) == Names{"bash"});
    BOOST_TEST(!a.invocations[0].is_wrapper);
    BOOST_TEST(names(analyze("bash +c 'pkill x'")) == Names{"bash"});
}

BOOST_AUTO_TEST_CASE(nested_shell_strings) {
    const Analysis a = analyze(R"(bash -c "sh -c 'pkill x'")");
    BOOST_TEST(names(a) == (Names{"bash", "sh", "pkill"}));
    BOOST_TEST(a.invocations[2].depth == 2u);
}

BOOST_AUTO_TEST_CASE(shell_through_wrappers) {
    BOOST_TEST(names(analyze("sudo bash -c 'pkill x'")) == (Names{"sudo", "bash", "pkill"}));
    BOOST_TEST(names(analyze("timeout 5 sh -c 'a && pkill x'")) ==
               (Names{"timeout", "sh", "a", "pkill"}));
}

BOOST_AUTO_TEST_CASE(eval_joins_its_arguments) {
    const Analysis a = analyze("eval pkill '-f x'");
    BOOST_TEST(names(a) == (Names{"eval", "pkill"}));
    BOOST_TEST(a.invocations[0].is_wrapper);
    BOOST_TEST(arg_texts(a.invocations[1]) == (Names{"-f", "x"}));
    BOOST_TEST(a.invocations[1].depth == 1u);
    BOOST_TEST(names(analyze("eval 'a; pkill x'")) == (Names{"eval", "a", "pkill"}));
    BOOST_TEST(analyze("eval 'a; pkill x'").chain_operators == 1u);
}

BOOST_AUTO_TEST_CASE(quoted_wrapper_word_is_still_the_wrapper) {
    BOOST_TEST(names(analyze("\"sudo\" pkill x")) == (Names{"sudo", "pkill"}));
    BOOST_TEST(names(analyze("\\eval pkill x")) == (Names{"eval", "pkill"}));
}

BOOST_AUTO_TEST_CASE(long_options_by_gnu_prefix) {
    // getopt_long reads the shortest prefix no other option of the tool shares.
    check_operand("sudo --u root --chd /tmp pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("sudo --pro p pkill x", {"sudo", "pkill"}, {"x"});
    check_operand("timeout --s KILL --k 1 5 pkill x", {"timeout", "pkill"}, {"x"});
    check_operand("nice --adj 5 pkill x", {"nice", "pkill"}, {"x"});
    check_operand("stdbuf --o L --e 0 pkill x", {"stdbuf", "pkill"}, {"x"});
    check_operand("chroot --u root --g g / pkill x", {"chroot", "pkill"}, {"x"});
    check_operand("env --ch /tmp --u HOME pkill x", {"env", "pkill"}, {"x"});
    // A prefix that is not the tool's takes no value: the next word is the command.
    check_operand("nice --x pkill x", {"nice", "pkill"}, {"x"});
}

BOOST_AUTO_TEST_CASE(xargs_optional_values_are_attached_only) {
    // --replace, --eof and --max-lines take only `=VALUE`: the next word is the command.
    check_operand("xargs --replace kill {}", {"xargs", "kill"}, {"{}"});
    check_operand("xargs --max-lines kill", {"xargs", "kill"}, {});
    check_operand("xargs --replace=@ kill @", {"xargs", "kill"}, {"@"});
    check_operand("xargs --max-a 1 kill", {"xargs", "kill"}, {});
}

BOOST_AUTO_TEST_CASE(script_and_su_strings_wherever_getopt_finds_them) {
    // script permutes: options after its operand still run their string.
    for (const char* command :
         {"script /dev/null -qc 'pkill x'", "script --c 'pkill x' /dev/null",
          "script --comm='pkill x' /dev/null", "script --log-o out.log --com 'pkill x'",
          "script -q --o 100 -c 'pkill x' /dev/null", "su root -lc 'pkill x'",
          "su root --se 'pkill x'", "su --c 'pkill x'", "runuser root --comm='pkill x'"}) {
        const Analysis a = analyze(command);
        BOOST_TEST_CONTEXT(command) {
            const Invocation* pkill = find(a, "pkill");
            BOOST_TEST_REQUIRE(pkill != nullptr);
            BOOST_TEST(arg_texts(*pkill) == Names{"x"});
        }
    }
    // The log's name is a value, never the command.
    BOOST_TEST(find(analyze("script --log-o pkill -c ls"), "pkill") == nullptr);
}

// `git submodule foreach STRING` runs STRING (§7.2), after git's global options and submodule's
// own --quiet too; a global option that prints and exits runs nothing.
BOOST_AUTO_TEST_CASE(git_submodule_foreach_after_git_global_options) {
    check_operand("git submodule foreach 'pkill x'", {"git", "pkill"}, {"x"});
    check_operand("git -C sub submodule foreach 'pkill x'", {"git", "pkill"}, {"x"});
    check_operand("git -c a.b=c --git-dir=.git --work-tree w submodule foreach 'pkill x'",
                  {"git", "pkill"}, {"x"});
    check_operand("git --no-pager -P submodule foreach --recursive 'pkill x'", {"git", "pkill"},
                  {"x"});
    check_operand("git submodule --quiet foreach 'pkill x'", {"git", "pkill"}, {"x"});
    check_operand("git -C a submodule -q foreach --recursive 'pkill x'", {"git", "pkill"}, {"x"});
    // Not a foreach: git's words only.
    for (const char* command :
         {"git --exec-path submodule foreach 'pkill x'",
          "git --version submodule foreach 'pkill x'", "git -- submodule foreach 'pkill x'",
          "git -C foreach submodule status 'pkill x'",
          "git submodule --recursive foreach 'pkill x'"}) {
        const Analysis a = analyze(command);
        BOOST_TEST_CONTEXT(command) {
            BOOST_TEST(names(a) == Names{"git"});
            BOOST_TEST_REQUIRE(!a.invocations.empty());
            BOOST_TEST(!a.invocations[0].is_wrapper);
        }
    }
}
