// shell_lexer_spelled_test.cpp: SPEC §7.3's readings of text a command spells out, in the command
// model (common/shell_arithmetic.cpp, shell_powershell.cpp, shell_printf.cpp, shell_terminals.cpp,
// and the literal words and eval of shell_commands.cpp): what each reads, and its look-alike.
#define BOOST_TEST_MODULE shell_lexer_spelled
#include "common/shell/shell_lexer.hpp"
#include "support/shell_analysis.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using viber::shell::analyze;
using viber::shell::arithmetic_word_value;
using viber::shell::constant_arithmetic;
using viber::shell::decode_base64_utf16le;
using viber::shell::powershell_command_text;
using viber::shell::Word;

namespace {

// The command lines the model finds in `command`: each command's name and arguments joined.
std::vector<std::string> lines_of(std::string_view command) {
    std::vector<std::string> out;
    for (const auto& inv : analyze(command).invocations) {
        std::string line = inv.name;
        for (const auto& a : inv.args) line += " " + a.text;
        out.push_back(line);
    }
    return out;
}

bool runs(std::string_view command, std::string_view line) {
    const std::vector<std::string> lines = lines_of(command);
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

std::vector<Word> words(std::initializer_list<std::string_view> texts) {
    std::vector<Word> out;
    for (const std::string_view t : texts) out.push_back(Word{.text = t});
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(constant_arithmetic_has_a_value) {
    BOOST_TEST(constant_arithmetic("1-2").value_or(99) == -1);
    BOOST_TEST(constant_arithmetic(" (3 - 4) * 1 ").value_or(99) == -1);
    BOOST_TEST(constant_arithmetic("2%2").value_or(99) == 0);
    BOOST_TEST(constant_arithmetic("-(0)").value_or(99) == 0);
    BOOST_TEST(arithmetic_word_value("$[1-2]").value_or(99) == -1);
    BOOST_TEST(arithmetic_word_value("$((0))").value_or(99) == 0);
    BOOST_TEST(!constant_arithmetic("p-1").has_value());
    BOOST_TEST(!constant_arithmetic("--p").has_value());
    BOOST_TEST(!constant_arithmetic("1/0").has_value());
    BOOST_TEST(!constant_arithmetic("9223372036854775807*2").has_value());
    BOOST_TEST(!constant_arithmetic(std::string(10000, '(') + "1" + std::string(10000, ')'))
                    .has_value()); // nesting past the cap is unknown, and the stack is safe
}

BOOST_AUTO_TEST_CASE(powershell_command_text_joins_or_decodes) {
    BOOST_TEST(powershell_command_text(words({"-NoProfile", "-c", "rm", "dist", "-r"}), false)
                   .value_or("") == "rm dist -r");
    BOOST_TEST(powershell_command_text(words({"-Comm", "Stop-Process", "-n", "node"}), false)
                   .value_or("") == "Stop-Process -n node");
    // "echo 1" in UTF-16LE, base64.
    BOOST_TEST(powershell_command_text(words({"-e", "ZQBjAGgAbwAgADEA"}), false).value_or("") ==
               "echo 1");
    BOOST_TEST(powershell_command_text(words({"-enc", "ZQBjAGgAbwAgADEA"}), false).value_or("") ==
               "echo 1");
    BOOST_TEST(powershell_command_text(words({"Stop-Process", "-Name", "x"}), true).value_or("") ==
               "Stop-Process -Name x");
    BOOST_TEST(!powershell_command_text(words({"-File", "x.ps1", "-c"}), false).has_value());
    BOOST_TEST(!powershell_command_text(words({"x.ps1"}), false).has_value());
    BOOST_TEST(decode_base64_utf16le("ZQBjAGgAbwAgADEA") == "echo 1");
}

BOOST_AUTO_TEST_CASE(printf_text_is_read_where_a_shell_reads_it) {
    BOOST_TEST(runs("printf 'pk%sll node\\n' i | sh", "pkill node"));
    BOOST_TEST(runs("printf '%b' 'pkill\\x20node' | bash", "pkill node"));
    BOOST_TEST(runs("printf '%s\\n' 'echo a' 'pkill x' | sh", "pkill x")); // the format reused
    BOOST_TEST(runs("bash <(printf 'pkill %s' node)", "pkill node"));
    BOOST_TEST(runs("echo -e 'pkill\\x20node' | sh", "pkill node"));
    BOOST_TEST(!runs("printf %s 'pkill node'", "pkill node"));
}

BOOST_AUTO_TEST_CASE(literal_words_backquotes_and_eval) {
    BOOST_TEST(runs("`echo killall` node", "killall node"));
    BOOST_TEST(runs("x=pkill; \"$x\" -f vite", "pkill -f vite"));
    BOOST_TEST(runs("X=; p${X}kill node", "pkill node"));
    BOOST_TEST(runs("c=$(echo pkill); $c node", "pkill node"));
    BOOST_TEST(runs("c='c='\\''kill -9 -1'\\''; eval \"$c\"'; eval \"$c\"", "kill -9 -1"));
    BOOST_TEST(runs("eval \"$(echo pkill) node\"", "pkill node"));
    BOOST_TEST(!runs("p${X}kill node", "pkill node"));
    BOOST_TEST(!runs("eval \"echo pkill\"", "pkill"));
}

BOOST_AUTO_TEST_CASE(tmux_and_screen_run_their_strings_and_typed_lines) {
    BOOST_TEST(runs("tmux new-session -d -s dev 'pkill node'", "pkill node"));
    BOOST_TEST(runs("tmux send-keys -t dev 'pkill node' Enter", "pkill node"));
    BOOST_TEST(runs("tmux send-keys pkill Space node C-m", "pkill node"));
    BOOST_TEST(runs("screen -S dev -X stuff 'pkill node^M'", "pkill node"));
    BOOST_TEST(!runs("tmux send-keys 'pkill node'", "pkill node"));
    BOOST_TEST(!runs("screen -X stuff 'pkill node'", "pkill node"));
}

BOOST_AUTO_TEST_CASE(read_from_a_written_here_string_and_set_positionals) {
    // read: the first line's fields, the last name taking the rest; -r keeps backslashes.
    BOOST_TEST(runs("read -r c <<< 'pkill node'; $c", "pkill node"));
    // (arguments stay as written: kill-guard reads `$b` through Command::values)
    BOOST_TEST(runs("read a b <<< '  kill  -9 -1 '; $a $b", "kill $b"));
    BOOST_TEST(runs("x=pkill; read -r c <<< \"$x node\"; $c", "pkill node"));
    BOOST_TEST(!runs("read c <<< 'pk\\ill node'; $c", "pkill node")); // an escape: unknown
    BOOST_TEST(!runs("read -r c < cmd.txt; $c", "pkill node"));
    BOOST_TEST(!runs("read -d x c <<< 'pkill node'; $c", "pkill node")); // an option: unknown
    // set -- WORDS: $@, $*, $1-$9; an expansion among them leaves them unknown.
    BOOST_TEST(runs("set -- pkill node; \"$@\"", "pkill node"));
    BOOST_TEST(runs("set -- pkill node; $1 $2", "pkill $2"));
    BOOST_TEST(runs("set -e; set -- pkill; $* node", "pkill node"));
    BOOST_TEST(!runs("set -- \"$(cat x)\" node; \"$@\"", "pkill node"));
    BOOST_TEST(!runs("set -- pkill node; set -- \"$v\"; \"$@\"", "pkill node"));
}

BOOST_AUTO_TEST_CASE(a_default_value_written_out_is_the_value_of_an_unset_variable) {
    BOOST_TEST(runs("${x:-pkill} node", "pkill node"));
    BOOST_TEST(runs("\"${x-pkill}\" node", "pkill node"));
    BOOST_TEST(runs("x=; ${x:-pkill} node", "pkill node"));
    BOOST_TEST(!runs("x=; ${x-pkill} node", "pkill node")); // set, empty: no default
    BOOST_TEST(!runs("x=ls; ${x:-pkill} node", "pkill node"));
    BOOST_TEST(runs("x=ls; ${x:-pkill} node", "ls node"));
    BOOST_TEST(runs("y=${u:=pkill}; $y node", "pkill node"));
    BOOST_TEST(!runs("${x:+pkill} node", "pkill node")); // the alternate value is not guessed
    BOOST_TEST(!runs("${x:-$(cat f)} node", "pkill node"));
}

BOOST_AUTO_TEST_CASE(an_array_of_literal_elements_is_its_elements) {
    BOOST_TEST(runs("x=(pkill node); \"${x[@]}\"", "pkill node"));
    BOOST_TEST(runs("x=('pkill' \"node\"); ${x[*]}", "pkill node"));
    BOOST_TEST(runs("declare -a x=(pkill node); $x", "pkill"));
    BOOST_TEST(runs("x=(echo pkill); \"${x[1]}\" node", "pkill node"));
    BOOST_TEST(runs("i=1; x=(echo pkill); \"${x[i]}\" node", "pkill node"));
    BOOST_TEST(runs("i=1; x=(echo pkill); \"${x[$i]}\" node", "pkill node"));
    BOOST_TEST(runs("x=(pk); x+=(ill); \"${x[0]}${x[1]}\" node", "pkill node"));
    BOOST_TEST(runs("x=(); x+=(pkill node); \"${x[@]}\"", "pkill node"));
    BOOST_TEST(runs("x=(echo hi); x[0]=pkill; \"${x[@]}\"", "pkill hi"));
    BOOST_TEST(runs("x[0]=pkill; $x node", "pkill node"));
    BOOST_TEST(runs("x=pk; x+=ill; $x node", "pkill node"));
    // Look-alikes: the element run is not pkill; an element whose value is unknown is not
    // guessed, and leaves its array unknown.
    BOOST_TEST(runs("x=(echo pkill); \"${x[@]}\"", "echo pkill"));
    BOOST_TEST(!runs("x=(echo pkill); \"${x[@]}\"", "pkill"));
    BOOST_TEST(!runs("x=($(cat f) node); \"${x[@]}\"", "pkill node"));
    BOOST_TEST(!runs("x=(*.js); \"${x[@]}\"", "pkill node"));
    BOOST_TEST(!runs("x=(pkill node); x[5]=ls; \"${x[@]}\"", "pkill node ls"));
    BOOST_TEST(!runs("x=(pkill node); x=ls; \"${x[1]}\"", "node"));
}

BOOST_AUTO_TEST_CASE(a_function_the_command_defines_runs_its_body_at_each_call) {
    BOOST_TEST(runs("f() { \"$@\"; }; f pkill node", "pkill node"));
    BOOST_TEST(runs("function f { $1 node; }; f pkill", "pkill node"));
    BOOST_TEST(runs("f() ( \"$@\" ); f pkill node", "pkill node"));
    BOOST_TEST(runs("f()\n{\n  \"$@\"\n}\nf pkill node", "pkill node"));
    BOOST_TEST(runs("f() { g() { \"$@\"; }; g \"$@\"; }; f pkill node", "pkill node"));
    // The caller's positional parameters come back after the call.
    BOOST_TEST(runs("set -- pkill node; f() { :; }; f ls; \"$@\"", "pkill node"));
    // Look-alikes: a body that prints its arguments; a function called before it is defined; a
    // call inside its own body is not read again (no endless reading).
    BOOST_TEST(!runs("f() { echo \"$@\"; }; f pkill node", "pkill node"));
    BOOST_TEST(!runs("f pkill node; f() { \"$@\"; }", "pkill node"));
    BOOST_TEST(!analyze("f() { f; f; }; f").reached_depth_cap);
    BOOST_TEST(!runs("f() { \"$@\"; }; f \"$(cat x)\" node", "pkill node"));
}

BOOST_AUTO_TEST_CASE(literal_fields_are_the_words_bash_passes) {
    struct Values final : viber::shell::WordValues {
        std::optional<std::string> literal_value(const Word&) const override {
            return std::string(" -9\t-1 ");
        }
    } values;
    using Fields = std::vector<std::string>;
    BOOST_TEST(values.literal_fields(Word{.text = "$b"}).value() == (Fields{"-9", "-1"}));
    BOOST_TEST(values.literal_fields(Word{.text = "$b", .quoted = true}).value() ==
               (Fields{" -9\t-1 "}));
    BOOST_TEST(values.literal_fields(Word{.text = "$@", .quoted = true}).value() ==
               (Fields{"-9", "-1"}));
    BOOST_TEST(values.literal_fields(Word{.text = "${a[@]}", .quoted = true}).value() ==
               (Fields{"-9", "-1"}));
}

BOOST_AUTO_TEST_CASE(a_script_the_command_writes_then_runs_is_read) {
    BOOST_TEST(runs("echo 'pkill node' > .temp/k.sh; bash .temp/k.sh", "pkill node"));
    BOOST_TEST(runs("printf 'pkill %s\\n' node > k.sh && sh ./k.sh", "pkill node"));
    BOOST_TEST(runs("echo -n pkill > k.sh; echo ' node' >> k.sh; source k.sh", "pkill node"));
    BOOST_TEST(runs("echo pkill > k.sh; echo ' node' >> k.sh; source k.sh", "pkill")); // lines
    BOOST_TEST(runs("cat > .temp/k.sh <<'EOF'\npkill node\nEOF\n. .temp/k.sh", "pkill node"));
    BOOST_TEST(runs("cat <<EOF > k.sh\npkill node\nEOF\nchmod +x k.sh; ./k.sh", "pkill node"));
    BOOST_TEST(runs("cat <<< 'pkill node' > k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(runs("echo 'pkill node' | tee k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(runs("echo 'pkill node' | tee -a k.sh | bash", "pkill node"));
    // tee appends with -a in any cluster or --append by any prefix, wherever it stands.
    BOOST_TEST(runs("echo -n pkill > k.sh; echo ' node' | tee -ia k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(
        runs("echo -n pkill > k.sh; echo ' node' | tee --app k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(runs("echo -n pkill > k.sh; echo ' node' | tee k.sh -a; bash k.sh", "pkill node"));
    BOOST_TEST(!runs("echo -n pkill > k.sh; echo ' node' | tee -i k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(
        !runs("echo -n pkill > k.sh; echo ' node' | tee -- -a k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(runs("echo 'pkill node' > k.sh; bash < k.sh", "pkill node"));
    BOOST_TEST(runs("echo 'pkill node' > k.sh; cat k.sh | sh", "pkill node"));
    BOOST_TEST(runs("echo 'pkill node' > k.sh; source <(cat k.sh)", "pkill node"));
    // A file is known by its lexically normal path, however the command spells it.
    BOOST_TEST(runs("echo 'pkill node' > .temp//k.sh; bash ./.temp/k.sh", "pkill node"));
    BOOST_TEST(runs("echo 'pkill node' > src/../k.sh; source k.sh", "pkill node"));
    BOOST_TEST(runs("echo 'pkill node' > k.sh; bash ././k.sh", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' > src/k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' > k.sh; echo ls > ./k.sh; bash k.sh", "pkill node"));
    // A written file does not hide a process substitution's script.
    BOOST_TEST(runs("echo ls > k.sh; bash <(echo pkill node)", "pkill node"));
    BOOST_TEST(runs("echo ls > k.sh; source <(echo pkill node)", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' > k.sh; cat k.sh other.sh | sh", "pkill node"));
    // Look-alikes: printed, not run; run before it is written; written over; a name without a
    // slash is looked up in PATH, not in the directory; a target that expands is not guessed.
    BOOST_TEST(!runs("echo 'pkill node' > k.sh; cat k.sh", "pkill node"));
    BOOST_TEST(!runs("bash k.sh; echo 'pkill node' > k.sh", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' > k.sh; echo ls > k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' > k.sh; ls > k.sh; bash k.sh", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' > k.sh; k.sh", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' > \"$f\"; bash k.sh", "pkill node"));
    BOOST_TEST(!runs("echo 'pkill node' 2> k.sh; bash k.sh", "pkill node"));
}
