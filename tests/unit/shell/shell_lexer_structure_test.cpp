// shell_lexer_structure_test.cpp: command positions, compound commands, heredocs, redirections.
#define BOOST_TEST_MODULE shell_lexer_structure
#include "common/shell/shell_lexer.hpp"
#include "support/shell_analysis.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using viber::shell::Analysis;
using viber::shell::analyze;
using viber::shell::Invocation;
using viber::shell::Redirect;
using viber::shell::RedirectKind;

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

} // namespace

// ---- command positions ----

BOOST_AUTO_TEST_CASE(separators_start_new_commands) {
    const Analysis a = analyze("a; b && c || d | e |& f & g\nh");
    BOOST_TEST(names(a) == (Names{"a", "b", "c", "d", "e", "f", "g", "h"}));
}

BOOST_AUTO_TEST_CASE(pipeline_members_after_the_first_read_a_pipe) {
    const Analysis a = analyze("a | b |& c; d");
    BOOST_TEST(!a.invocations[0].stdin_from_pipe);
    BOOST_TEST(a.invocations[1].stdin_from_pipe);
    BOOST_TEST(a.invocations[2].stdin_from_pipe);
    BOOST_TEST(!a.invocations[3].stdin_from_pipe);
}

BOOST_AUTO_TEST_CASE(subshell_and_group) {
    BOOST_TEST(names(analyze("(pkill x)")) == Names{"pkill"});
    BOOST_TEST(names(analyze("{ pkill x; }")) == Names{"pkill"});
    BOOST_TEST(names(analyze("( (a) ; b ) && { c; { d; }; }")) == (Names{"a", "b", "c", "d"}));
}

BOOST_AUTO_TEST_CASE(brace_inside_a_word_is_not_a_group) {
    const Analysis a = analyze("echo {a,b} {x}");
    BOOST_TEST(names(a) == Names{"echo"});
    BOOST_TEST(arg_texts(a.invocations[0]) == (Names{"{a,b}", "{x}"}));
}

BOOST_AUTO_TEST_CASE(command_substitution_runs_at_depth_one) {
    const Analysis a = analyze("echo $(pkill x)");
    BOOST_TEST(names(a) == (Names{"pkill", "echo"}));
    BOOST_TEST(a.invocations[0].depth == 1u);
    BOOST_TEST(a.invocations[1].depth == 0u);
}

BOOST_AUTO_TEST_CASE(nested_substitutions) {
    const Analysis a = analyze("echo $(a $(b `c`))");
    BOOST_TEST(names(a) == (Names{"c", "b", "a", "echo"}));
    BOOST_TEST(a.invocations[0].depth == 3u);
    BOOST_TEST(a.invocations[1].depth == 2u);
    BOOST_TEST(a.invocations[2].depth == 1u);
}

BOOST_AUTO_TEST_CASE(substitution_with_subshell_inside) {
    const Analysis a = analyze("echo $( (a) ; b ) c");
    BOOST_TEST(names(a) == (Names{"a", "b", "echo"}));
    BOOST_TEST(arg_texts(a.invocations[2]).size() == 2u);
}

BOOST_AUTO_TEST_CASE(backticks_with_escaped_inner_backticks) {
    const Analysis a = analyze(R"(echo `a \`b\``)");
    BOOST_TEST(names(a) == (Names{"b", "a", "echo"}));
    BOOST_TEST(a.invocations[0].depth == 2u);
}

BOOST_AUTO_TEST_CASE(process_substitutions) {
    const Analysis a = analyze("diff <(a) >(b)");
    BOOST_TEST(names(a) == (Names{"a", "b", "diff"}));
    BOOST_TEST(a.invocations[0].depth == 1u);
    BOOST_TEST(a.invocations[2].args.size() == 2u);
    BOOST_TEST(a.redirects.empty());
}

BOOST_AUTO_TEST_CASE(reserved_words_lead_to_commands) {
    BOOST_TEST(names(analyze("if pkill x; then a; elif b; then c; else d; fi")) ==
               (Names{"pkill", "a", "b", "c", "d"}));
    BOOST_TEST(names(analyze("while a; do b; done")) == (Names{"a", "b"}));
    BOOST_TEST(names(analyze("until a; do b; done")) == (Names{"a", "b"}));
    BOOST_TEST(names(analyze("! pkill x")) == Names{"pkill"});
    BOOST_TEST(names(analyze("if\npkill x\nthen\nb\nfi")) == (Names{"pkill", "b"}));
}

BOOST_AUTO_TEST_CASE(reserved_word_as_argument_is_an_argument) {
    const Analysis a = analyze("echo if then fi done");
    BOOST_TEST(names(a) == Names{"echo"});
    BOOST_TEST(a.invocations[0].args.size() == 4u);
}

BOOST_AUTO_TEST_CASE(time_and_time_p) {
    BOOST_TEST(names(analyze("time pkill x")) == Names{"pkill"});
    BOOST_TEST(names(analyze("time -p pkill x")) == Names{"pkill"});
    BOOST_TEST(names(analyze("time ( pkill x )")) == Names{"pkill"});
}

BOOST_AUTO_TEST_CASE(function_bodies_are_commands) {
    // The body is read where it is defined, and again at each call (§7.3).
    const Analysis a = analyze("f() { pkill x; }; f");
    BOOST_TEST(names(a) == (Names{"pkill", "f", "pkill"}));
    BOOST_TEST(names(analyze("function f { pkill x; }")) == Names{"pkill"});
    BOOST_TEST(names(analyze("function f() { pkill x; }")) == Names{"pkill"});
    BOOST_TEST(names(analyze("f () ( pkill x )")) == Names{"pkill"});
}

BOOST_AUTO_TEST_CASE(for_loop_words_are_not_commands) {
    const Analysis a = analyze("for p in pkill killall; do echo $p; done");
    BOOST_TEST(names(a) == Names{"echo"});
    BOOST_TEST(a.chain_operators == 2u);
    BOOST_TEST(names(analyze("for p in a b\ndo\nc\ndone")) == Names{"c"});
    BOOST_TEST(names(analyze("for p do c; done")) == Names{"c"});
    BOOST_TEST(names(analyze("select p in pkill x; do c; done")) == Names{"c"});
}

BOOST_AUTO_TEST_CASE(for_loop_words_run_their_substitutions) {
    BOOST_TEST(names(analyze("for p in $(pgrep x); do kill $p; done")) == (Names{"pgrep", "kill"}));
}

BOOST_AUTO_TEST_CASE(arithmetic_for_loop) {
    const Analysis a = analyze("for ((i=0; i<3; i++)); do a; done");
    BOOST_TEST(names(a) == Names{"a"});
    BOOST_TEST(a.chain_operators == 2u);
}

BOOST_AUTO_TEST_CASE(case_patterns_are_not_commands) {
    const Analysis a = analyze("case $x in pkill) a;; killall|b) c ;; (d) e;; esac; f");
    BOOST_TEST(names(a) == (Names{"a", "c", "e", "f"}));
    BOOST_TEST(a.chain_operators == 1u); // `;;` ends a clause: only the `;` before f chains
}

BOOST_AUTO_TEST_CASE(case_across_lines_and_fallthrough) {
    const Analysis a =
        analyze("case \"$1\" in\n  start) a\n    b ;&\n  stop) c ;;&\n  *) d\nesac\ne");
    BOOST_TEST(names(a) == (Names{"a", "b", "c", "d", "e"}));
}

BOOST_AUTO_TEST_CASE(case_inside_a_substitution) {
    const Analysis a = analyze("echo $(case x in a) pkill y;; esac)");
    BOOST_TEST(names(a) == (Names{"pkill", "echo"}));
}

BOOST_AUTO_TEST_CASE(arithmetic_is_not_a_command) {
    BOOST_TEST(analyze("(( pkill = 1 ))").invocations.empty());
    BOOST_TEST(names(analyze("echo $(( pkill + 1 ))")) == Names{"echo"});
    BOOST_TEST(names(analyze("(( x > 1 )) && a")) == Names{"a"});
    BOOST_TEST(analyze("(( x > 1 ))").redirects.empty());
}

BOOST_AUTO_TEST_CASE(substitution_inside_arithmetic_runs) {
    const Analysis a = analyze("kill $(( $(pgrep x) + 0 ))");
    BOOST_TEST(names(a) == (Names{"pgrep", "kill"}));
    BOOST_TEST(a.invocations[1].args[0].has_substitution);
    BOOST_TEST(names(analyze("(( `pkill x` ))")) == Names{"pkill"});
    BOOST_TEST(!analyze("kill $(( 1 + 2 ))").invocations[0].args[0].has_substitution);
}

BOOST_AUTO_TEST_CASE(conditional_expression_operands_are_not_commands) {
    const Analysis a = analyze("[[ pkill < x && -n $(a) ]] && b");
    BOOST_TEST(names(a) == (Names{"a", "b"}));
    BOOST_TEST(a.redirects.empty());
}

// ---- comments and heredocs ----

BOOST_AUTO_TEST_CASE(comment_opening_a_word) {
    BOOST_TEST(names(analyze("echo hi # pkill x")) == Names{"echo"});
    BOOST_TEST(names(analyze("# pkill x\nls")) == Names{"ls"});
    BOOST_TEST(names(analyze("echo hi;# pkill x")) == Names{"echo"});
    BOOST_TEST(analyze("echo hi # a; b && c").chain_operators == 0u);
}

BOOST_AUTO_TEST_CASE(heredoc_body_is_data) {
    // Unquoted delimiter: the body is data but its $(…) runs (bash expands it).
    const Analysis a = analyze("cat <<EOF\npkill x\n$(killall y)\nEOF\nls");
    BOOST_TEST(names(a) == (Names{"cat", "killall", "ls"}));
    BOOST_TEST(a.invocations[0].stdin_from_heredoc);
    BOOST_TEST(!a.invocations[2].stdin_from_heredoc);
    BOOST_TEST(names(analyze("cat <<'EOF'\npkill x\n$(killall y)\nEOF\nls")) ==
               (Names{"cat", "ls"}));
    BOOST_TEST(a.chain_operators == 0u);
}

BOOST_AUTO_TEST_CASE(heredoc_with_quoted_and_dash_delimiters) {
    BOOST_TEST(names(analyze("cat <<'E O'\npkill\nE O\nls")) == (Names{"cat", "ls"}));
    BOOST_TEST(names(analyze("cat <<\"EOF\"\npkill\nEOF\nls")) == (Names{"cat", "ls"}));
    BOOST_TEST(names(analyze("cat <<-EOF\n\tpkill\n\tEOF\nls")) == (Names{"cat", "ls"}));
    // Without the dash, a tab-indented delimiter does not end the body.
    BOOST_TEST(names(analyze("cat <<EOF\n\tEOF\npkill\nEOF\nls")) == (Names{"cat", "ls"}));
}

BOOST_AUTO_TEST_CASE(several_heredocs_on_one_line) {
    const Analysis a = analyze("cat <<A; cat <<B | c\npkill\nA\nkillall\nB\nd");
    BOOST_TEST(names(a) == (Names{"cat", "cat", "c", "d"}));
}

BOOST_AUTO_TEST_CASE(heredoc_then_commands_on_the_same_line) {
    const Analysis a = analyze("cat <<EOF && pkill x\nbody\nEOF");
    BOOST_TEST(names(a) == (Names{"cat", "pkill"}));
    BOOST_TEST(a.chain_operators == 1u);
}

BOOST_AUTO_TEST_CASE(heredoc_delimiter_with_crlf_line_endings) {
    // The delimiter carries the CR as the line does; a bare `EOF\r` line does not end `EOF`.
    BOOST_TEST(names(analyze("cat <<EOF\r\npkill\r\nEOF\r\nls")) == (Names{"cat", "ls"}));
    BOOST_TEST(names(analyze("cat <<EOF\nEOF\r\npkill\nEOF\nls")) == (Names{"cat", "ls"}));
}

BOOST_AUTO_TEST_CASE(herestring_feeds_stdin) {
    const Analysis a = analyze("python3 <<< 'print(1)'");
    BOOST_TEST(names(a) == Names{"python3"});
    BOOST_TEST(a.invocations[0].stdin_from_heredoc);
    BOOST_TEST(a.invocations[0].args.empty());
    BOOST_TEST(a.invocations[0].redirects.size() == 1u);
    BOOST_TEST((a.invocations[0].redirects[0].kind == RedirectKind::herestring));
    BOOST_TEST(a.invocations[0].redirects[0].target.text == "print(1)");
}

// ---- redirections ----

namespace {
struct ExpectedRedirect {
    int fd;
    RedirectKind kind;
    std::string target;
};

void check_redirect(std::string_view command, ExpectedRedirect expected) {
    const Analysis a = analyze(command);
    BOOST_TEST_CONTEXT(command) {
        BOOST_TEST_REQUIRE(a.redirects.size() == 1u);
        const viber::shell::OwnedRedirect& r = a.redirects[0];
        BOOST_TEST(r.fd == expected.fd);
        BOOST_TEST((r.kind == expected.kind));
        BOOST_TEST(r.target.text == expected.target);
    }
}
} // namespace

BOOST_AUTO_TEST_CASE(output_redirections) {
    check_redirect("echo x > out.txt", {-1, RedirectKind::output, "out.txt"});
    check_redirect("echo x >out.txt", {-1, RedirectKind::output, "out.txt"});
    check_redirect("echo x 2>err.txt", {2, RedirectKind::output, "err.txt"});
    check_redirect("echo x >> log", {-1, RedirectKind::append, "log"});
    check_redirect("echo x 1>>log", {1, RedirectKind::append, "log"});
    check_redirect("echo x >| f", {-1, RedirectKind::clobber, "f"});
    check_redirect("echo x &> f", {-1, RedirectKind::output_and_error, "f"});
    check_redirect("echo x &>> f", {-1, RedirectKind::append_output_and_error, "f"});
    check_redirect("echo x > \"a b\"", {-1, RedirectKind::output, "a b"});
}

BOOST_AUTO_TEST_CASE(duplications_and_files_after_ampersand) {
    check_redirect("echo x >&2", {-1, RedirectKind::duplicate_output, "2"});
    check_redirect("echo x 2>&1", {2, RedirectKind::duplicate_output, "1"});
    check_redirect("echo x >&-", {-1, RedirectKind::duplicate_output, "-"});
    check_redirect("echo x 3>&-", {3, RedirectKind::duplicate_output, "-"});
    check_redirect("echo x >&file", {-1, RedirectKind::output_and_error, "file"});
    check_redirect("echo x 2>&file", {2, RedirectKind::output_and_error, "file"});
}

BOOST_AUTO_TEST_CASE(input_redirections) {
    check_redirect("cat < in", {-1, RedirectKind::input, "in"});
    check_redirect("cat 0<in", {0, RedirectKind::input, "in"});
    check_redirect("cat <&3", {-1, RedirectKind::duplicate_input, "3"});
    check_redirect("cat <> f", {-1, RedirectKind::read_write, "f"});
    check_redirect("cat << EOF\nx\nEOF", {-1, RedirectKind::heredoc, "EOF"});
    check_redirect("cat <<< word", {-1, RedirectKind::herestring, "word"});
}

BOOST_AUTO_TEST_CASE(fd_number_only_when_digits_are_the_whole_prefix) {
    const Analysis a = analyze("echo a2>x");
    BOOST_TEST(arg_texts(a.invocations[0]) == Names{"a2"});
    BOOST_TEST_REQUIRE(a.redirects.size() == 1u);
    BOOST_TEST(a.redirects[0].fd == -1);
    BOOST_TEST(a.redirects[0].target.text == "x");
    const Analysis b = analyze("echo 2 >x");
    BOOST_TEST(arg_texts(b.invocations[0]) == Names{"2"});
    BOOST_TEST(b.redirects[0].fd == -1);
}

BOOST_AUTO_TEST_CASE(redirects_belong_to_their_simple_command) {
    const Analysis a = analyze(">out pkill x 2>/dev/null | cat > b");
    BOOST_TEST(names(a) == (Names{"pkill", "cat"}));
    BOOST_TEST(a.invocations[0].redirects.size() == 2u);
    BOOST_TEST(a.invocations[1].redirects.size() == 1u);
    BOOST_TEST(a.redirects.size() == 3u);
    BOOST_TEST(arg_texts(a.invocations[0]) == Names{"x"});
}

BOOST_AUTO_TEST_CASE(redirects_at_every_depth_and_on_compound_commands) {
    const Analysis a = analyze("{ a > one; } > two; echo $(b > three)");
    BOOST_TEST(a.redirects.size() == 3u);
    BOOST_TEST(a.redirects[0].target.text == "one");
    BOOST_TEST(a.redirects[1].target.text == "two");
    BOOST_TEST(a.redirects[2].target.text == "three");
}

BOOST_AUTO_TEST_CASE(redirect_target_substitution_runs) {
    BOOST_TEST(names(analyze("echo > $(pkill x)")) == (Names{"pkill", "echo"}));
}

// ---- chain operators ----

BOOST_AUTO_TEST_CASE(chain_operators_are_counted_lexically) {
    BOOST_TEST(analyze("a; b").chain_operators == 1u);
    BOOST_TEST(analyze("a && b || c").chain_operators == 2u);
    BOOST_TEST(analyze("a | b & c\nd").chain_operators == 0u);
    BOOST_TEST(analyze("echo 'a; b' \"c && d\" e\\;f").chain_operators == 0u);
    BOOST_TEST(analyze("echo $(a; b)").chain_operators == 1u);
    BOOST_TEST(analyze("echo `a && b`").chain_operators == 1u);
    BOOST_TEST(analyze("bash -c 'a; b'").chain_operators == 1u);
    BOOST_TEST(analyze("case x in a) b;; esac").chain_operators == 0u);
    BOOST_TEST(analyze("{ a; }").chain_operators == 1u);
    BOOST_TEST(analyze("cat <<E\na; b && c\nE").chain_operators == 0u);
}

BOOST_AUTO_TEST_CASE(empty_and_blank_commands) {
    BOOST_TEST(analyze("").invocations.empty());
    BOOST_TEST(analyze("   \n\t ").invocations.empty());
    BOOST_TEST(analyze("").reached_depth_cap == false);
}
