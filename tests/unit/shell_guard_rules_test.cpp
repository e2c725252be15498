// shell_guard_rules_test.cpp: each shell-guard rule matcher on lexer values built by hand.
#define BOOST_TEST_MODULE shell_guard_rules
#include <boost/test/unit_test.hpp>

#include "shell-guard/shell_guard.hpp"
#include "support/hook_decision.hpp"

#include <boost/json.hpp>
#include <initializer_list>
#include <string>

using namespace viber::shell_guard;
using viber::shell::Analysis;
using viber::shell::Invocation;
using viber::shell::Redirect;
using viber::shell::RedirectKind;
using viber::shell::Word;

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

Word word(std::string text, bool quoted = false) {
    Word w;
    w.text = std::move(text);
    w.quoted = quoted;
    return w;
}

Invocation command(std::string name, std::initializer_list<const char*> args) {
    Invocation inv;
    inv.command_word = word(name);
    inv.name = std::move(name);
    for (const char* arg : args) inv.args.push_back(word(arg));
    return inv;
}

Redirect redirect(RedirectKind kind, std::string target, int fd = -1) {
    Redirect r;
    r.kind = kind;
    r.fd = fd;
    r.target = word(std::move(target));
    return r;
}

Analysis analysis_of(std::initializer_list<Invocation> invocations, std::size_t chains = 0) {
    Analysis a;
    a.invocations = invocations;
    a.chain_operators = chains;
    return a;
}

RuleSet rules(std::initializer_list<Rule> list) {
    RuleSet set;
    for (Rule r : list) set.add(r);
    return set;
}

const RuleSet coder = rules_binding("viber:task-coder");

} // namespace

BOOST_AUTO_TEST_SUITE(binding)

BOOST_AUTO_TEST_CASE(coder_is_bound_by_all_five_reviewers_by_r2_alone) {
    BOOST_TEST(coder.to_string() == "R1,R2,R3,R4,R5");
    BOOST_TEST(rules_binding("viber:task-reviewer").to_string() == "R2");
    BOOST_TEST(rules_binding("viber:final-reviewer").to_string() == "R2");
}

BOOST_AUTO_TEST_CASE(every_other_caller_is_bound_by_nothing) {
    for (const char* agent :
         {"", "task-coder", "viber:scout", "viber:implementor", "viber:task-coder ",
          "viber:Task-Coder", "xyz:task-coder", "viber:task-coder-2", "general-purpose"}) {
        BOOST_TEST(rules_binding(agent).empty(), agent);
    }
}

BOOST_AUTO_TEST_CASE(rule_set_prints_in_rule_order) {
    BOOST_TEST(RuleSet().to_string() == "allow");
    BOOST_TEST(rules({Rule::inline_code, Rule::chain, Rule::file_write}).to_string() == "R1,R4,R5");
    BOOST_TEST(rules({Rule::remove, Rule::remove}).to_string() == "R3");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(paths)

BOOST_AUTO_TEST_CASE(relative_paths_outside_temp) {
    for (const char* path : {"x",        "out.txt",          "src/a.c",    "./x",
                             "../x",     "../../x",          ".temp/../x", ".temp",
                             ".temp/",   "./.temp/../src/a", "x/../../y",  "temp/x",
                             ".tempx/y", "a/.temp/x",        "$PWD/x",     "${PWD}/src/a",
                             "$(pwd)/x", "`pwd`/x",          "*.log",      "{}"}) {
        BOOST_TEST((place_of(path) == PathPlace::outside_temp), path);
    }
}

BOOST_AUTO_TEST_CASE(relative_paths_under_temp) {
    for (const char* path : {".temp/x", "./.temp/x", ".temp/viber/T1/out.log", ".//.temp//x",
                             "src/../.temp/x", ".temp/a/../b", "$PWD/.temp/x", ".temp/$id/log"}) {
        BOOST_TEST((place_of(path) == PathPlace::under_temp), path);
    }
}

BOOST_AUTO_TEST_CASE(absolute_home_expanded_and_standard_streams_are_elsewhere) {
    for (const char* path :
         {"", "-", "/dev/null", "/tmp/x", "/work/repo/src/a.c", "~/x", "~", "~user/x", "$HOME/x",
          "${TMPDIR}/x", "$OUT", "$(mktemp)", "C:/x", "c:\\x", ">(gzip)", "$PWDX/y"}) {
        BOOST_TEST((place_of(path) == PathPlace::elsewhere), path);
    }
}

BOOST_AUTO_TEST_CASE(inside_temp_reads_relative_and_absolute_temp_directories) {
    for (const char* path :
         {".temp/x.py", "./.temp/a/b.sh", "/repo/.temp/x.py", "$PWD/.temp/x.py", "$OUT/.temp/x"}) {
        BOOST_TEST(inside_temp(path), path);
    }
    for (const char* path :
         {"x.py", "tools/x.py", "/tmp/x.py", "/repo/.temp", ".temp/../x.py", "/a/.tempx/y", "-"}) {
        BOOST_TEST(!inside_temp(path), path);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(r1_chain)

BOOST_AUTO_TEST_CASE(any_chain_operator_is_a_chain) {
    BOOST_TEST(!is_chain(analysis_of({command("ls", {})}, 0)));
    BOOST_TEST(is_chain(analysis_of({command("ls", {})}, 1)));
    BOOST_TEST(is_chain(analysis_of({command("ls", {})}, 7)));
    BOOST_TEST(broken_rules(analysis_of({command("ls", {})}, 1), coder).to_string() == "R1");
    BOOST_TEST(
        broken_rules(analysis_of({command("ls", {})}, 1), rules_binding("viber:task-reviewer"))
            .empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(r2_git)

BOOST_AUTO_TEST_CASE(subcommand_after_global_options) {
    BOOST_TEST(*git_subcommand(command("git", {"status"})) == "status");
    BOOST_TEST(*git_subcommand(command("git", {"-C", "sub", "stash"})) == "stash");
    BOOST_TEST(*git_subcommand(command(
                   "git", {"-c", "user.name=x", "-c", "a=b", "checkout", "x"})) == "checkout");
    BOOST_TEST(*git_subcommand(command(
                   "git", {"--git-dir=.git", "--work-tree=.", "restore", "."})) == "restore");
    BOOST_TEST(*git_subcommand(command(
                   "git", {"--git-dir", ".git", "--work-tree", ".", "clean", "-fd"})) == "clean");
    BOOST_TEST(*git_subcommand(command(
                   "git", {"--no-pager", "-p", "--paginate", "--bare", "stash"})) == "stash");
    BOOST_TEST(*git_subcommand(command("git", {"--namespace", "ns", "--exec-path=/x",
                                               "--literal-pathspecs", "stash"})) == "stash");
    BOOST_TEST(*git_subcommand(command("git", {"--exec-path", "--no-optional-locks", "log"})) ==
               "log");
    BOOST_TEST(*git_subcommand(command("git", {"--config-env", "a=B", "clean"})) == "clean");
    BOOST_TEST(!git_subcommand(command("git", {})));
    BOOST_TEST(!git_subcommand(command("git", {"--version"})));
    BOOST_TEST(!git_subcommand(command("git", {"--help", "stash"})));
    BOOST_TEST(!git_subcommand(command("git", {"-C"})));
}

BOOST_AUTO_TEST_CASE(the_four_subcommands_whatever_follows) {
    for (const char* sub : {"stash", "checkout", "restore", "clean"}) {
        BOOST_TEST(runs_git_write(command("git", {sub})), sub);
        BOOST_TEST(runs_git_write(command("git", {"-C", "/repo", sub, "--", "x"})), sub);
        BOOST_TEST(runs_git_write(command("git.exe", {sub})), sub);
    }
    BOOST_TEST(runs_git_write(command("git", {"stash", "list"})));
    BOOST_TEST(runs_git_write(command("git", {"checkout", "-b", "topic"})));
}

BOOST_AUTO_TEST_CASE(other_git_commands_and_other_programs_are_allowed) {
    BOOST_TEST(!runs_git_write(command("git", {"rm", "-r", "-q", "--", "old.c"})));
    BOOST_TEST(!runs_git_write(command("git", {"update-index", "--chmod=+x", "--", "run.sh"})));
    BOOST_TEST(!runs_git_write(command("git", {"status"})));
    BOOST_TEST(!runs_git_write(command("git", {"log", "--", "stash"})));
    BOOST_TEST(!runs_git_write(command("git", {"-C", "stash", "status"})));
    BOOST_TEST(!runs_git_write(command("git", {"-c", "checkout", "diff"})));
    BOOST_TEST(!runs_git_write(command("git", {"help", "stash"})));
    BOOST_TEST(!runs_git_write(command("echo", {"git", "stash"})));
    BOOST_TEST(!runs_git_write(command("gitk", {"stash"})));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(r3_rm)

BOOST_AUTO_TEST_CASE(rm_is_rm_whatever_its_spelling_or_caller) {
    BOOST_TEST(runs_rm(command("rm", {"-rf", "x"})));
    BOOST_TEST(runs_rm(command("rm", {})));
    BOOST_TEST(runs_rm(command("rm.exe", {"x"})));
    Invocation through_xargs = command("rm", {"-f"});
    through_xargs.via_xargs = true;
    through_xargs.depth = 0;
    BOOST_TEST(runs_rm(through_xargs));
    Invocation quoted = command("rm", {"x"});
    quoted.command_word = word("rm", true);
    BOOST_TEST(runs_rm(quoted));
}

BOOST_AUTO_TEST_CASE(rmdir_git_rm_and_rm_as_an_argument_are_not_rm) {
    BOOST_TEST(!runs_rm(command("rmdir", {"x"})));
    BOOST_TEST(!runs_rm(command("git", {"rm", "x"})));
    BOOST_TEST(!runs_rm(command("grep", {"rm -rf", "x"})));
    BOOST_TEST(!runs_rm(command("echo", {"rm"})));
    BOOST_TEST(!runs_rm(command("rmx", {})));
}

BOOST_AUTO_TEST_CASE(find_exec_runs_its_command) {
    BOOST_TEST(
        broken_rules(
            analysis_of({command("find", {".", "-name", "*.o", "-exec", "rm", "{}", "+"})}), coder)
            .to_string() == "R3");
    BOOST_TEST(
        broken_rules(analysis_of({command("find", {".", "-execdir", "/bin/rm", "-f", "{}", ";"})}),
                     coder)
            .to_string() == "R3");
    BOOST_TEST(
        broken_rules(analysis_of({command("find", {".", "-exec", "grep", "-l", "rm", "{}", ";"})}),
                     coder)
            .empty());
    BOOST_TEST(broken_rules(analysis_of({command("find", {".", "-name", "rm"})}), coder).empty());
    // The files find hands over lie under its starting points.
    BOOST_TEST(broken_rules(analysis_of({command("find", {".", "-name", "*.c", "-exec", "sed", "-i",
                                                          "s/a/b/", "{}", "+"})}),
                            coder)
                   .to_string() == "R4");
    BOOST_TEST(
        broken_rules(analysis_of({command("find", {"-exec", "sed", "-i", "s/a/b/", "{}", "+"})}),
                     coder)
            .to_string() == "R4");
    BOOST_TEST(broken_rules(analysis_of({command("find", {"-L", ".temp", "/tmp", "-exec", "sed",
                                                          "-i", "s/a/b/", "{}", ";"})}),
                            coder)
                   .empty());
    BOOST_TEST(broken_rules(analysis_of({command("find", {".temp", "src", "-exec", "sed", "-i",
                                                          "s/a/b/", "{}", ";"})}),
                            coder)
                   .to_string() == "R4");
    // find hands a `sh -c` string to no lexer: the guard lexes it.
    BOOST_TEST(broken_rules(analysis_of({command(
                                "find", {".", "-exec", "sh", "-c", "rm \"$1\"", "_", "{}", ";"})}),
                            coder)
                   .to_string() == "R3,R5");
    BOOST_TEST(broken_rules(analysis_of({command(
                                "find", {".", "-exec", "bash", "-ec", "ls && ls > out", ";"})}),
                            coder)
                   .to_string() == "R1,R4,R5");
    BOOST_TEST(
        broken_rules(analysis_of({command("find", {".", "-exec", "git", "checkout", "{}", ";"})}),
                     rules_binding("viber:final-reviewer"))
            .to_string() == "R2");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(r4_write)

BOOST_AUTO_TEST_CASE(output_redirects_onto_relative_paths_outside_temp) {
    for (RedirectKind kind : {RedirectKind::output, RedirectKind::append, RedirectKind::clobber,
                              RedirectKind::output_and_error, RedirectKind::append_output_and_error,
                              RedirectKind::read_write}) {
        BOOST_TEST(writes_outside_temp(redirect(kind, "out.txt")));
        BOOST_TEST(writes_outside_temp(redirect(kind, "../x", 2)));
        BOOST_TEST(writes_outside_temp(redirect(kind, ".temp/../x", 1)));
        BOOST_TEST(!writes_outside_temp(redirect(kind, ".temp/out.txt")));
        BOOST_TEST(!writes_outside_temp(redirect(kind, "./.temp/x", 2)));
        BOOST_TEST(!writes_outside_temp(redirect(kind, "/dev/null")));
        BOOST_TEST(!writes_outside_temp(redirect(kind, "/tmp/x")));
        BOOST_TEST(!writes_outside_temp(redirect(kind, "~/x")));
        BOOST_TEST(!writes_outside_temp(redirect(kind, "$HOME/x")));
    }
}

BOOST_AUTO_TEST_CASE(duplications_inputs_and_heredocs_are_not_writes) {
    BOOST_TEST(!writes_outside_temp(redirect(RedirectKind::duplicate_output, "2")));
    BOOST_TEST(!writes_outside_temp(redirect(RedirectKind::duplicate_output, "-")));
    BOOST_TEST(!writes_outside_temp(redirect(RedirectKind::duplicate_output, "1", 2)));
    BOOST_TEST(!writes_outside_temp(redirect(RedirectKind::input, "x")));
    BOOST_TEST(!writes_outside_temp(redirect(RedirectKind::duplicate_input, "3")));
    BOOST_TEST(!writes_outside_temp(redirect(RedirectKind::heredoc, "EOF")));
    BOOST_TEST(!writes_outside_temp(redirect(RedirectKind::herestring, "x")));
}

BOOST_AUTO_TEST_CASE(redirects_in_the_analysis_break_r4_for_the_coder_only) {
    Analysis a = analysis_of({command("echo", {"x"})});
    a.redirects.push_back(redirect(RedirectKind::output_and_error, "log.txt", 2));
    BOOST_TEST(broken_rules(a, coder).to_string() == "R4");
    BOOST_TEST(broken_rules(a, rules_binding("viber:task-reviewer")).empty());
}

BOOST_AUTO_TEST_CASE(tee_writes_every_file_operand) {
    BOOST_TEST(command_writes_outside_temp(command("tee", {"out.txt"})));
    BOOST_TEST(command_writes_outside_temp(command("tee", {"-a", "out.txt"})));
    BOOST_TEST(command_writes_outside_temp(command("tee", {".temp/a", "b"})));
    BOOST_TEST(command_writes_outside_temp(command("tee", {"--", "-a"})));
    BOOST_TEST(!command_writes_outside_temp(command("tee", {"-a", ".temp/log", "/dev/stderr"})));
    BOOST_TEST(!command_writes_outside_temp(command("tee", {})));
    BOOST_TEST(!command_writes_outside_temp(command("tee", {"-"})));
    BOOST_TEST(!command_writes_outside_temp(command("tee", {"--output-error=warn", "/tmp/x"})));
}

BOOST_AUTO_TEST_CASE(sed_in_place_onto_a_file_operand) {
    BOOST_TEST(command_writes_outside_temp(command("sed", {"-i", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("sed", {"-i.bak", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("sed", {"--in-place", "s/a/b/", "x.c"})));
    BOOST_TEST(
        command_writes_outside_temp(command("sed", {"--in-place=.orig", "-e", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("sed", {"-ni", "s/a/b/p", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("sed", {"-ie", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("sed", {"s/a/b/", "-i", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(
        command("sed", {"-i", "-e", "s/a/b/", "-e", "s/c/d/", "a", "/tmp/b"})));
    BOOST_TEST(
        command_writes_outside_temp(command("sed", {"-E", "-i", "-f", "script.sed", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("gsed", {"-i", "s/a/b/", "x.c"})));
    // Not a write: no -i, no file, only .temp/ or absolute files.
    BOOST_TEST(!command_writes_outside_temp(command("sed", {"s/a/b/", "x.c"})));
    BOOST_TEST(!command_writes_outside_temp(command("sed", {"-n", "1,5p", "x.c"})));
    BOOST_TEST(!command_writes_outside_temp(command("sed", {"-i", "s/a/b/"})));
    BOOST_TEST(!command_writes_outside_temp(command("sed", {"-i", "s/a/b/", ".temp/x"})));
    BOOST_TEST(!command_writes_outside_temp(command("sed", {"-i", "-e", "s/a/b/", "/tmp/x"})));
    BOOST_TEST(!command_writes_outside_temp(command("sed", {"-e", "s/a/b/", "-l", "5", "x.c"})));
}

BOOST_AUTO_TEST_CASE(perl_in_place_onto_a_file_operand) {
    BOOST_TEST(command_writes_outside_temp(command("perl", {"-pi", "-e", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("perl", {"-i", "-pe", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("perl", {"-pi.bak", "-e", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("perl", {"-pie", "s/a/b/", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("perl", {"-i", "script.pl", "x.c"})));
    BOOST_TEST(command_writes_outside_temp(command("perl5.36", {"-pi", "-e", "s/a/b/", "x.c"})));
    BOOST_TEST(!command_writes_outside_temp(command("perl", {"-pe", "s/a/b/", "x.c"})));
    BOOST_TEST(!command_writes_outside_temp(command("perl", {"-pi", "-e", "s/a/b/", ".temp/x"})));
    BOOST_TEST(!command_writes_outside_temp(command("perl", {"-pie", "s/a/b/"})));
    BOOST_TEST(!command_writes_outside_temp(command("perl", {"-i", "script.pl"})));
    BOOST_TEST(!command_writes_outside_temp(command("perl", {"-ne", "print if /i/", "x.c"})));
}

BOOST_AUTO_TEST_CASE(other_programs_write_nothing_by_themselves) {
    BOOST_TEST(!command_writes_outside_temp(command("cat", {"x.c"})));
    BOOST_TEST(!command_writes_outside_temp(command("grep", {"-i", "tee", "x.c"})));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(r5_inline_code)

BOOST_AUTO_TEST_CASE(inline_flags_per_interpreter) {
    const std::initializer_list<Invocation> inline_calls = {
        command("python", {"-c", "print(1)"}),
        command("python3", {"-c", "print(1)"}),
        command("python3.11", {"-Bc", "print(1)"}),
        command("python3", {"-W", "ignore", "-c", "x"}),
        command("node", {"-e", "1"}),
        command("node", {"--eval", "1"}),
        command("node", {"--eval=1"}),
        command("node", {"-p", "1"}),
        command("node", {"--print", "1"}),
        command("node", {"-pe", "1"}),
        command("node", {"-r", "ts-node/register", "-e", "1"}),
        command("perl", {"-e", "print 1"}),
        command("perl", {"-E", "say 1"}),
        command("perl", {"-lne", "print"}),
        command("perl", {"-Mstrict", "-e", "1"}),
        command("ruby", {"-e", "puts 1"}),
        command("ruby", {"-rjson", "-ne", "p 1"}),
        command("php", {"-r", "echo 1;"}),
        command("php", {"-R", "echo $argn;"}),
        command("bash", {"-c", "make"}),
        command("sh", {"-c", "make"}),
        command("zsh", {"-c", "make"}),
        command("bash", {"-lc", "make"}),
        command("bash", {"-e", "-o", "pipefail", "-c", "make"}),
        command("deno", {"eval", "console.log(1)"}),
        command("bun", {"-e", "1"}),
        command("bun", {"--eval", "1"}),
        command("python3", {"-"}),
        command("node", {"-"}),
        command("python3.exe", {"-c", "1"}),
    };
    for (const Invocation& call : inline_calls) BOOST_TEST(runs_inline_code(call), call.name);
}

BOOST_AUTO_TEST_CASE(temp_scripts_per_interpreter) {
    const std::initializer_list<Invocation> temp_calls = {
        command("python3", {".temp/x.py"}),
        command("python3", {"-u", "./.temp/viber/T1/probe.py", "--flag"}),
        command("python", {"--", ".temp/x.py"}),
        command("node", {".temp/x.js"}),
        command("perl", {"-w", ".temp/x.pl"}),
        command("ruby", {".temp/x.rb"}),
        command("php", {".temp/x.php"}),
        command("php", {"-f", ".temp/x.php"}),
        command("bash", {".temp/x.sh"}),
        command("sh", {"-e", ".temp/x.sh"}),
        command("source", {".temp/env.sh"}),
        command(".", {".temp/env.sh"}),
        command("deno", {"run", "--allow-read", ".temp/x.ts"}),
        command("bun", {"run", ".temp/x.ts"}),
        command("bun", {".temp/x.ts"}),
        command("python3", {"/repo/.temp/x.py"}),
    };
    for (const Invocation& call : temp_calls) BOOST_TEST(runs_inline_code(call), call.name);
}

BOOST_AUTO_TEST_CASE(temp_scripts_run_by_their_path) {
    Invocation direct = command("x.sh", {"--flag"});
    direct.command_word = word("./.temp/x.sh");
    BOOST_TEST(runs_inline_code(direct));
    direct.command_word = word(".temp/viber/T1/probe.py");
    BOOST_TEST(runs_inline_code(direct));
    direct.command_word = word("scripts/x.sh");
    BOOST_TEST(!runs_inline_code(direct));
    Invocation plain = command(".temp", {});
    BOOST_TEST(!runs_inline_code(plain));
}

BOOST_AUTO_TEST_CASE(scripts_modules_and_queries_are_allowed) {
    const std::initializer_list<Invocation> allowed_calls = {
        command("python3", {"script.py"}),
        command("python3", {"tools/check.py", "-c", "x"}),
        command("python3", {"-m", "pytest", "-q"}),
        command("python3", {"-mpytest"}),
        command("python3", {"--version"}),
        command("python3", {}),
        command("node", {"build.js", "-e"}),
        command("node", {"--test"}),
        command("perl", {"script.pl", "-e"}),
        command("ruby", {"script.rb"}),
        command("php", {"artisan", "test"}),
        command("bash", {"scripts/build.sh"}),
        command("bash", {"-x", "scripts/build.sh", "-c"}),
        command("sh", {"-o", "errexit", "run.sh"}),
        command("deno", {"test"}),
        command("deno", {"run", "main.ts"}),
        command("bun", {"test"}),
        command("bun", {"run", "build"}),
        command("source", {"env.sh"}),
        command("pythonista", {"-c", "1"}),
        command("make", {"-e"}),
    };
    for (const Invocation& call : allowed_calls) BOOST_TEST(!runs_inline_code(call), call.name);
}

BOOST_AUTO_TEST_CASE(script_on_stdin) {
    Invocation piped = command("python3", {});
    piped.stdin_from_pipe = true;
    BOOST_TEST(runs_inline_code(piped));
    Invocation heredoc = command("node", {});
    heredoc.stdin_from_heredoc = true;
    BOOST_TEST(runs_inline_code(heredoc));
    Invocation shell_heredoc = command("bash", {"-s"});
    shell_heredoc.stdin_from_heredoc = true;
    BOOST_TEST(runs_inline_code(shell_heredoc));
    // A script operand is the program: stdin is its data.
    Invocation piped_script = command("python3", {"filter.py"});
    piped_script.stdin_from_pipe = true;
    BOOST_TEST(!runs_inline_code(piped_script));
    // Under xargs the interpreter's stdin is not the pipeline's.
    Invocation under_xargs = command("python3", {});
    under_xargs.stdin_from_pipe = true;
    under_xargs.via_xargs = true;
    BOOST_TEST(!runs_inline_code(under_xargs));
}

BOOST_AUTO_TEST_CASE(script_fed_through_input_redirect) {
    Invocation from_temp = command("python3", {});
    from_temp.redirects.push_back(redirect(RedirectKind::input, ".temp/x.py"));
    BOOST_TEST(runs_inline_code(from_temp));
    Invocation from_file = command("bash", {});
    from_file.redirects.push_back(redirect(RedirectKind::input, "scripts/x.sh"));
    BOOST_TEST(!runs_inline_code(from_file));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(decision)

BOOST_AUTO_TEST_CASE(incomplete_analysis_breaks_nothing) {
    Analysis a = analysis_of({command("rm", {"x"})}, 3);
    a.complete = false;
    BOOST_TEST(broken_rules(a, coder).empty());
}

BOOST_AUTO_TEST_CASE(every_broken_rule_is_found_once) {
    Analysis a = analysis_of({command("git", {"stash"}), command("rm", {"x"}), command("rm", {"y"}),
                              command("python3", {"-c", "1"}), command("tee", {"out"})},
                             2);
    BOOST_TEST(broken_rules(a, coder).to_string() == "R1,R2,R3,R4,R5");
    BOOST_TEST(broken_rules(a, rules_binding("viber:task-reviewer")).to_string() == "R2");
    BOOST_TEST(broken_rules(a, rules_binding("viber:scout")).empty());
}

BOOST_AUTO_TEST_CASE(reason_opens_with_the_marker_and_names_each_rule_in_order_once) {
    const std::string reason =
        refusal_reason(rules({Rule::inline_code, Rule::chain, Rule::remove}));
    BOOST_TEST(reason.rfind("viber guard: ", 0) == 0u);
    const auto r1 = reason.find("R1 (");
    const auto r3 = reason.find("R3 (");
    const auto r5 = reason.find("R5 (");
    BOOST_TEST(r1 != std::string::npos);
    BOOST_TEST(r3 != std::string::npos);
    BOOST_TEST(r5 != std::string::npos);
    BOOST_TEST((r1 < r3 && r3 < r5));
    BOOST_TEST(reason.find("R1 (", r1 + 1) == std::string::npos);
    BOOST_TEST(reason.find("R2 (") == std::string::npos);
    BOOST_TEST(reason.find("R4 (") == std::string::npos);
    BOOST_TEST(reason.find("one command per Bash call") != std::string::npos);
    BOOST_TEST(reason.find("git rm") != std::string::npos);
    BOOST_TEST(reason.find("SCRATCH:") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(each_rule_carries_its_correction) {
    BOOST_TEST(refusal_reason(rules({Rule::chain})).find("run one command per Bash call") !=
               std::string::npos);
    BOOST_TEST(refusal_reason(rules({Rule::git_write}))
                   .find("keep git read-only (status, diff, log, show)") != std::string::npos);
    BOOST_TEST(refusal_reason(rules({Rule::remove})).find("leave files in place") !=
               std::string::npos);
    BOOST_TEST(refusal_reason(rules({Rule::file_write})).find("Write or Edit tool") !=
               std::string::npos);
    BOOST_TEST(refusal_reason(rules({Rule::inline_code}))
                   .find("put the code in a file with the Write tool outside .temp/") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(decide_answers_a_deny_or_nothing) {
    BOOST_TEST(!decide("viber:scout", "rm -rf x").answer.has_value());
    BOOST_TEST(!decide("", "rm -rf x").answer.has_value());
    BOOST_TEST(!decide("viber:task-coder", "ls -la").answer.has_value());
    const auto deny = decide("viber:task-coder", "rm -rf x").answer;
    BOOST_REQUIRE(deny);
    const auto& out = deny->as_object().at("hookSpecificOutput").as_object();
    BOOST_TEST(out.at("hookEventName").as_string() == "PreToolUse");
    BOOST_TEST(out.at("permissionDecision").as_string() == "deny");
    BOOST_TEST(std::string(out.at("permissionDecisionReason").as_string()) ==
               refusal_reason(rules({Rule::remove})));
}

BOOST_AUTO_TEST_CASE(run_reads_the_top_level_keys_only) {
    const auto payload = [](const std::string& body) { return std::optional<std::string>(body); };
    BOOST_TEST(!run(std::nullopt).has_value());
    BOOST_TEST(!run(payload("")).has_value());
    BOOST_TEST(!run(payload(R"({"agent_type":"task-coder","tool_input":{"command":"rm x"}})"))
                    .has_value());
    BOOST_TEST(!run(payload(R"({"agent_type":"viber:scout","tool_input":{"command":"rm x"}})"))
                    .has_value());
    BOOST_TEST(!run(payload(R"({"tool_input":{"command":"rm x","agent_type":"viber:task-coder"}})"))
                    .has_value());
    BOOST_TEST(
        !run(payload(R"({"agent_type":"viber:task-coder","tool_input":{"command":["rm x"]}})"))
             .has_value());
    BOOST_TEST(
        !run(payload(R"({"agent_type":"viber:task-coder","tool_input":"rm x"})")).has_value());
    BOOST_TEST(!run(payload(R"({"agent_type":"viber:task-coder","command":"rm x"})")).has_value());
    BOOST_TEST(
        !run(payload(R"([{"agent_type":"viber:task-coder","tool_input":{"command":"rm x"}}])"))
             .has_value());
    BOOST_TEST(!run(payload(R"({"agent_type":"viber:task-coder","tool_input":{"command":"rm x"})"))
                    .has_value());
    BOOST_TEST(
        !run(payload(
                 R"({"agent_type":"x","tool_input":{"command":"echo '\"agent_type\":\"viber:task-coder\"'; rm x"}})"))
             .has_value());
    BOOST_TEST(run(payload(R"({"agent_type":"viber:task-coder","tool_input":{"command":"rm x"}})"))
                   .has_value());
    BOOST_TEST(
        run(payload(
                R"({"session_id":"s","agent_type":"viber:final-reviewer","tool_name":"Bash","tool_input":{"command":"git stash"}})"))
            .has_value());
}

BOOST_AUTO_TEST_SUITE_END()
