// interpreters.cpp: shell-guard's R5: the interpreters, each with the parser of how its command
// line gives it its code (inline, a script, stdin), awk's program check and the variables that load
// code. Why R5 exists opens shell_guard.cpp.
#include "common/os/paths.hpp"
#include "common/shell/shell_options.hpp"
#include "common/text/ascii.hpp"
#include "shell-guard/options.hpp"
#include "shell-guard/rules.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace viber::shell_guard {

using paths::git_bash_spelling;
using shell::Command;
using shell::Redirect;
using shell::RedirectKind;
using shell::Word;

namespace {

struct Launch {
    bool inline_code = false;               // code on the command line (-c, -e, eval, …)
    bool names_other = false;               // a module, a version query, help: no script
    std::optional<std::string_view> script; // the script operand, "-" for stdin
    bool temp_code = false;                 // .temp/ code loaded by an option (node -r, --rcfile)
};

bool inside_temp(std::string_view path);

// python: -c CODE inline; -m MOD, -V, --version, -h, --help name something else; -W -X -Q take a
// value.
Launch python_launch(Words args, const OptionGrammar& options) {
    Launch launch;
    OptionReader reader(args, options);
    while (const auto a = reader.next()) {
        if (a->operand) {
            launch.script = a->text;
            return launch;
        }
        if (a->in("--version --help --help-all ") && !a->attached) launch.names_other = true;
        if (a->in("-c ")) {
            launch.inline_code = true;
            return launch;
        }
        if (a->in("-m ")) {
            // `-m pytest .temp/t.py`: a test runner running .temp/ code (§7.2).
            launch.names_other = true;
            for (std::size_t k = a->word + (a->attached ? 1 : 2); k < args.size(); ++k)
                if (inside_temp(args[k].text) || args[k].text == ".temp") launch.temp_code = true;
            return launch;
        }
        if (a->in("-V -h ")) {
            launch.names_other = true;
            return launch;
        }
    }
    return launch;
}

// node and friends (tsx, ts-node): -e/--eval/-p/--print give the code; -r, --import … load a
// module, which counts when it is .temp/ code.
Launch node_launch(Words args, const OptionGrammar& options) {
    Launch launch;
    OptionReader reader(args, options);
    while (const auto a = reader.next()) {
        if (a->operand) {
            launch.script = a->text;
            return launch;
        }
        const std::string_view w = args[a->word].text;
        if (a->in("--eval --print ") || (a->in("-e -p ") && !a->attached)) {
            launch.inline_code = true;
            return launch;
        }
        // `-c` / `--check` checks syntax and runs nothing (§7.3).
        if (a->in("-v --version -h --help -c --check ") && !a->attached) {
            launch.names_other = true;
            return launch;
        }
        if (w[1] != '-' && w.find_first_not_of("epi", 1) == std::string_view::npos &&
            w.find_first_of("ep", 1) != std::string_view::npos) {
            launch.inline_code = true; // -pe, -ep, -pi …
            return launch;
        }
        const std::string_view value = a->value.value_or("");
        // A module or directory that names `.temp` (`.temp`, `./.temp`, `.temp/lib`).
        if (a->in("-r --require --import --loader ") && paths::has_temp_segment(value))
            launch.temp_code = true;
    }
    return launch;
}

} // namespace

Switches read_switches(Words args, const SwitchGrammar& grammar) {
    Switches switches;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            ++i;
            break;
        }
        if (w == "-" || !is_option(w)) break;
        if (w[1] == '-') {
            if (w == "--version" || w == "--help") switches.names_other = true;
            continue;
        }
        for (std::size_t j = 1; j < w.size(); ++j) {
            const char c = w[j];
            if (c == 'i') {
                switches.in_place = true;
                break;
            }
            if (c == 'v' || c == 'h') switches.names_other = true;
            if (grammar.inline_switches.find(c) != std::string_view::npos) {
                switches.inline_code = true;
                if (j + 1 == w.size()) ++i; // the code is the next word
                break;
            }
            if (c == '0' || c == 'l') {
                while (j + 1 < w.size() &&
                       (is_digit(w[j + 1]) || (c == '0' && (w[j + 1] == 'x' || w[j + 1] == 'X'))))
                    ++j;
                continue;
            }
            if (grammar.next_switches.find(c) != std::string_view::npos) {
                if (j + 1 == w.size()) ++i;
                break;
            }
            // perl's -d takes a value only as `-d:Module` (§7.2: `perl -de 1` is inline code).
            if (c == 'd' && (j + 1 == w.size() || w[j + 1] != ':')) continue;
            if (grammar.rest_switches.find(c) != std::string_view::npos) break;
        }
    }
    switches.first_operand = std::min(i, args.size());
    return switches;
}

namespace {

template <const SwitchGrammar& grammar, bool check_runs_nothing>
Launch perl_style_launch(Words args, const OptionGrammar&) {
    const Switches switches = read_switches(args, grammar);
    Launch launch;
    launch.inline_code = switches.inline_code;
    launch.names_other = switches.names_other;
    // `-I DIR` (perl, ruby) and ruby's `-r LIB` naming .temp load .temp/ code (§7.3); ruby's
    // `-c` checks syntax and runs nothing (perl's `-c` runs BEGIN blocks: no exception).
    for (std::size_t i = 0; i < switches.first_operand && i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w.size() < 2 || w[0] != '-' || w[1] == '-') continue;
        for (std::size_t j = 1; j < w.size(); ++j) {
            const char c = w[j];
            if (grammar.inline_switches.find(c) != std::string_view::npos) break;
            if (c == 'c' && check_runs_nothing) launch.names_other = true;
            if (c == 'I' || (c == 'r' && check_runs_nothing)) {
                const std::string_view value = j + 1 < w.size()
                                                   ? w.substr(j + 1)
                                                   : (i + 1 < args.size() ? args[i + 1].text : "");
                if (paths::has_temp_segment(value)) launch.temp_code = true;
                break;
            }
            if (grammar.rest_switches.find(c) != std::string_view::npos ||
                grammar.next_switches.find(c) != std::string_view::npos)
                break;
        }
    }
    if (!launch.inline_code && switches.first_operand < args.size())
        launch.script = args[switches.first_operand].text;
    return launch;
}

// php: -r/-R/-B/-E CODE (and --run, --process-code, --process-begin, --process-end), -f FILE.
Launch php_launch(Words args, const OptionGrammar& options) {
    Launch launch;
    OptionReader reader(args, options);
    while (const auto a = reader.next()) {
        if (a->in("-- ") && !a->attached) return launch; // the script comes on stdin
        if (a->in("-f --file ") && !a->attached) {
            launch.script = a->value;
            return launch;
        }
        if (a->in("-v --version -h --help -m -i -l ") && !a->attached) {
            launch.names_other = true;
            return launch;
        }
        if (a->operand) {
            launch.script = a->text;
            return launch;
        }
        const std::string_view w = args[a->word].text;
        if ((a->in("-r -R -B -E --run --process-code --process-begin --process-end ") &&
             !a->attached) ||
            (w.size() > 2 && w[1] != '-' &&
             std::string_view("rRBE").find(w[1]) != std::string_view::npos)) {
            launch.inline_code = true;
            return launch;
        }
    }
    return launch;
}

// The shells, read by the command model's own reader (common/shell/shell_options.hpp), so R5 and
// the commands read inside a `-c` string agree on where the string is: `-c` anywhere among the
// options is inline code (the command model reads its string as commands too); `-s` reads the
// script from stdin; `--rcfile`/`--init-file` load a file; `-n` and `--version` run nothing.
Launch shell_launch(Words args, const OptionGrammar&) {
    const shell::ShellOptions options = shell::read_shell_options(args, 0, args.size());
    Launch launch;
    launch.inline_code = options.command_option;
    launch.temp_code = options.rcfile && inside_temp(args[*options.rcfile].text);
    launch.names_other = options.names_other || options.no_exec;
    if (options.stdin_option)
        launch.script = "-";
    else if (options.script)
        launch.script = args[*options.script].text;
    return launch;
}

// `.` and `source`: the first operand is the script the current shell reads.
Launch source_launch(Words args, const OptionGrammar&) {
    Launch launch;
    for (const Word& word : args) {
        if (word.text == "--") continue;
        launch.script = word.text;
        break;
    }
    return launch;
}

// deno: `deno eval CODE` is inline; `deno run [options] SCRIPT`, or a script path as subcommand.
Launch deno_launch(Words args, const OptionGrammar& options) {
    Launch launch;
    bool running = false;
    OptionReader reader(args, options);
    while (const auto a = reader.next()) {
        if (!a->operand) {
            if (a->in("--eval ")) { // deno repl --eval
                launch.inline_code = true;
                return launch;
            }
            if (a->in("--version -V --help -h ") && !a->attached) launch.names_other = true;
            continue;
        }
        const std::string_view w = a->text;
        if (!running) {
            if (w == "eval") {
                launch.inline_code = true;
                return launch;
            }
            if (w == "run") {
                running = true;
                continue;
            }
            if (w == "repl") continue;         // `deno repl --eval CODE`
            if (w == "test" || w == "bench") { // .temp/ tests are .temp/ code (§7.2)
                for (std::size_t k = a->word + 1; k < args.size(); ++k)
                    if (inside_temp(args[k].text)) launch.temp_code = true;
                launch.names_other = !launch.temp_code;
                return launch;
            }
            if (w.find('/') != std::string_view::npos || w.find('.') != std::string_view::npos)
                launch.script = w;
            else
                launch.names_other = true; // another subcommand (test, fmt, task …)
            return launch;
        }
        launch.script = w;
        return launch;
    }
    return launch;
}

// Interpreters whose inline code is a flag taking the code: bun, lua, Rscript, tsx, ts-node, pwsh.
struct InlineFlags {
    std::array<std::string_view, 4> flags;
    bool prefixes = false; // PowerShell: any unambiguous prefix of a flag names it
};

// Their options are whole words, in any case; the row's long_values (folded to lower case) take the
// next word, skipped with it (§7.2).
template <const InlineFlags& Flags> Launch flag_launch(Words args, const OptionGrammar& options) {
    Launch launch;
    OptionReader reader(args, options);
    while (const auto a = reader.next()) {
        const std::string_view w = args[a->word].text;
        if (a->operand) {
            if (w == "run" && a->word + 1 < args.size()) continue; // bun run SCRIPT
            if (w == "test") {                                     // bun test .temp/x.ts (§7.2)
                for (std::size_t k = a->word + 1; k < args.size(); ++k)
                    if (inside_temp(args[k].text)) launch.temp_code = true;
                launch.names_other = !launch.temp_code;
                return launch;
            }
            launch.script = w;
            return launch;
        }
        const std::string folded_word = ascii::lowered(w);
        if (shell::lists_option(options.long_values, folded_word)) continue;
        for (std::string_view flag : Flags.flags) {
            if (flag.empty()) continue;
            const bool folded = std::equal(w.begin(), w.end(), flag.begin(), flag.end(),
                                           [](char a, char b) { return lower(a) == lower(b); }) ||
                                (Flags.prefixes && folded_word.size() >= 3 &&
                                 flag.starts_with(folded_word) && flag.starts_with("-comm")) ||
                                // `-e`, `-en`, `-enc` …: prefixes of -EncodedCommand (§7.3)
                                (Flags.prefixes && folded_word.size() >= 2 &&
                                 flag == "-encodedcommand" && flag.starts_with(folded_word));
            if (folded || (flag.starts_with("--") && w.starts_with(flag) &&
                           w.size() > flag.size() && w[flag.size()] == '=')) {
                launch.inline_code = true;
                return launch;
            }
        }
        if (w == "--version" || w == "-v" || w == "-V" || w == "--help" || w == "-h") {
            launch.names_other = true;
            return launch;
        }
    }
    return launch;
}

constexpr InlineFlags bun_flags{{"-e", "--eval", "-p", "--print"}};
constexpr InlineFlags lua_flags{{"-e", "", "", ""}};
constexpr InlineFlags rscript_flags{{"-e", "--expr", "", ""}};
constexpr InlineFlags tsx_flags{{"-e", "--eval", "-p", "--print"}};
constexpr InlineFlags pwsh_flags{{"-c", "-command", "-encodedcommand", "-ec"}, true};

// The options of the interpreters above: whole words in any case, `--` ending nothing.
constexpr OptionGrammar flag_options(std::string_view long_values) {
    return {
        .long_values = long_values, .dashdash_ends = false, .clusters = false, .fold_case = true};
}
constexpr OptionGrammar bun_options = flag_options("--cwd --config -c ");
constexpr OptionGrammar lua_options = flag_options("-l ");
constexpr OptionGrammar rscript_options = flag_options("");
constexpr OptionGrammar tsx_options = flag_options("--tsconfig -r --require ");
constexpr OptionGrammar pwsh_options =
    flag_options("-executionpolicy -ep -workingdirectory -wd -configurationname -outputformat ");

using LaunchParser = Launch (*)(Words args, const OptionGrammar& options);

// The interpreter table: a program name (exact, or a versioned family) and its parser.
struct Interpreter {
    std::string_view name;
    bool versioned = false;     // python3.11, perl5.36 …
    OptionGrammar options = {}; // how its options read, for the parsers that use the option reader
    LaunchParser parse;
    bool reads_stdin = true; // with no script operand, its program comes from stdin
    // The row of every shell: the names are the command model's one list (shell::shell_names).
    bool shells = false;
};

// python's -W, -X, -Q and -m take a value; node's options are whole words (no clusters), those
// listed taking the next word unless given as `--opt=VALUE`; php's likewise, `--` ending nothing
// (the script comes on stdin).
constexpr OptionGrammar python_options{.value_letters = "WXQm",
                                       .long_values = "--check-hash-based-pycs "};
constexpr OptionGrammar node_options{
    .long_values = "-r --require --import --loader --experimental-loader -C --conditions "
                   "--input-type --title --env-file --inspect-port --redirect-warnings ",
    .clusters = false};
constexpr OptionGrammar php_options{
    .long_values = "-f --file -d -c -z -t -S --define --php-ini --zend-extension ",
    .dashdash_ends = false,
    .clusters = false};

constexpr OptionGrammar deno_options{.long_values = "--config -c --import-map --lock --cert "
                                                    "--location --seed --env-file ",
                                     .dashdash_ends = false,
                                     .clusters = false};

constexpr std::array interpreters{
    Interpreter{
        .name = "python", .versioned = true, .options = python_options, .parse = python_launch},
    Interpreter{
        .name = "pypy", .versioned = true, .options = python_options, .parse = python_launch},
    Interpreter{.name = "node", .options = node_options, .parse = node_launch},
    Interpreter{.name = "nodejs", .options = node_options, .parse = node_launch},
    Interpreter{
        .name = "perl", .versioned = true, .parse = perl_style_launch<perl_switches, false>},
    Interpreter{.name = "ruby", .versioned = true, .parse = perl_style_launch<ruby_switches, true>},
    Interpreter{.name = "php", .versioned = true, .options = php_options, .parse = php_launch},
    Interpreter{.name = "a shell", .parse = shell_launch, .shells = true},
    Interpreter{.name = ".", .parse = source_launch, .reads_stdin = false},
    Interpreter{.name = "source", .parse = source_launch, .reads_stdin = false},
    Interpreter{
        .name = "deno", .options = deno_options, .parse = deno_launch, .reads_stdin = false},
    Interpreter{.name = "bun", .options = bun_options, .parse = flag_launch<bun_flags>},
    Interpreter{
        .name = "lua", .versioned = true, .options = lua_options, .parse = flag_launch<lua_flags>},
    Interpreter{.name = "luajit", .options = lua_options, .parse = flag_launch<lua_flags>},
    Interpreter{.name = "py", .options = python_options, .parse = python_launch},
    Interpreter{.name = "r", .options = rscript_options, .parse = flag_launch<rscript_flags>},
    Interpreter{.name = "rscript", .options = rscript_options, .parse = flag_launch<rscript_flags>},
    Interpreter{.name = "tsx", .options = tsx_options, .parse = flag_launch<tsx_flags>},
    Interpreter{.name = "ts-node", .options = tsx_options, .parse = flag_launch<tsx_flags>},
    Interpreter{.name = "pwsh", .options = pwsh_options, .parse = flag_launch<pwsh_flags>},
    Interpreter{.name = "powershell", .options = pwsh_options, .parse = flag_launch<pwsh_flags>},
};

const Interpreter* interpreter_of(const Command& c) {
    if (c.name.empty()) return nullptr;
    for (const Interpreter& interpreter : interpreters) {
        if (interpreter.shells) {
            for (const std::string_view shell : shell::shell_names)
                if ((c.glob_name || shell[0] == c.name[0]) && c.is(shell)) return &interpreter;
            continue;
        }
        if (!c.glob_name && interpreter.name[0] != c.name[0]) continue;
        if (interpreter.versioned ? is_versioned(c.name, interpreter.name) : c.is(interpreter.name))
            return &interpreter;
        // `pyth?n3 -c 1`: the R5 interpreters are guarded names for the glob rule (§7.2).
        if (c.glob_name && interpreter.versioned &&
            (c.is(interpreter.name) || c.is(std::string(interpreter.name) + "3") ||
             c.is(std::string(interpreter.name) + "5")))
            return &interpreter;
    }
    return nullptr;
}

} // namespace

bool is_interpreter(const Command& c) {
    return interpreter_of(c) != nullptr;
}

namespace {

// awk's program runs a command: a `system(` call, or a `|` to or from a string, outside string
// and regex literals (`||` is not a pipe).
bool awk_program_runs_command(std::string_view program) {
    bool in_string = false, in_regex = false;
    char previous = ' ';
    for (std::size_t i = 0; i < program.size(); ++i) {
        const char c = program[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (in_regex) {
            if (c == '\\')
                ++i;
            else if (c == '/')
                in_regex = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '/' && (previous == '(' || previous == ',' || previous == '~' ||
                                previous == '!' || previous == '{' || previous == ';' ||
                                previous == ' ' || previous == '&' || previous == '|')) {
            // A `/` where an operand starts opens a regex; after an operand it divides.
            std::size_t back = i;
            while (back > 0 && (program[back - 1] == ' ' || program[back - 1] == '\t')) --back;
            const char before = back > 0 ? program[back - 1] : '(';
            if (!(is_alpha(before) || is_digit(before) || before == ')' || before == '_' ||
                  before == ']' || before == '$'))
                in_regex = true;
        } else if (c == '|') {
            if (i + 1 < program.size() && program[i + 1] == '|') {
                ++i;
            } else {
                return true;
            }
        } else if (c == 's' && program.substr(i, 6) == "system" &&
                   (i == 0 || !(is_alpha(program[i - 1]) || program[i - 1] == '_'))) {
            std::size_t after = i + 6;
            while (after < program.size() && (program[after] == ' ' || program[after] == '\t'))
                ++after;
            if (after < program.size() && program[after] == '(') return true;
        }
        if (c != ' ' && c != '\t') previous = c;
    }
    return false;
}

// awk's program (read_awk_line): its text runs a command, or -f names .temp/ code.
bool awk_runs_command(const Command& awk) {
    const Words args = awk.args();
    const AwkLine line = read_awk_line(args);
    if (line.program_file) return inside_temp(*line.program_file);
    return line.program && awk_program_runs_command(args[*line.program].text);
}

// Any `.temp` directory on the way to the file (the last segment is the file itself).
bool inside_temp(std::string_view path) {
    const std::size_t last = path.find_last_of("/\\");
    return last != std::string_view::npos && paths::has_temp_segment(path.substr(0, last));
}

// The environment variables that load code, and .temp/ code named in one of them.
constexpr std::array<std::string_view, 7> code_loading_variables{
    "BASH_ENV", "ENV", "NODE_OPTIONS", "PYTHONPATH", "PYTHONSTARTUP", "PERL5OPT", "RUBYOPT"};

} // namespace

AwkLine read_awk_line(Words args) {
    static constexpr OptionGrammar awk_options{.long_values = "-f --file -i --include -v -F -l -E ",
                                               .operand_ends = true,
                                               .clusters = false};
    AwkLine line;
    line.files = args.size();
    OptionReader reader(args, awk_options);
    while (const auto a = reader.next()) {
        if (a->operand) {
            if (!line.program_file) line.program = a->word;
            line.files = a->word + (line.program_file ? 0 : 1);
            break;
        }
        const bool whole = !a->attached || a->text.starts_with("--"); // `-f=x` is no -f
        if (a->in("-f --file ") && whole && !line.program_file)
            line.program_file = a->value.value_or("");
        if (a->in("-i --include ") && whole) line.in_place = line.in_place || a->value == "inplace";
        if (args[a->word].text == "-iinplace") line.in_place = true;
    }
    return line;
}

bool assignment_loads_temp_code(std::string_view assignment) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string_view::npos) return false;
    std::string_view name = assignment.substr(0, eq);
    if (name.ends_with("+")) name.remove_suffix(1);
    if (!one_of(name, code_loading_variables)) return false;
    return assignment.find(".temp/") != std::string_view::npos || assignment.ends_with(".temp");
}

namespace {

// env's own NAME=VALUE operands, before its command: only those words are env's, so a chain of a
// thousand wrappers costs each env the words up to its command, not every word after it.
bool env_loads_temp_code(const Command& env) {
    const Words args = env.args();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view word = args[i].text;
        if (word == "--") continue;
        if (word.starts_with("-")) {
            // -u NAME, -C DIR, -S STRING, -P PATH take the next word when not attached.
            if (word.size() == 2 &&
                std::string_view("uCSP").find(word[1]) != std::string_view::npos)
                ++i;
            continue;
        }
        if (word.find('=') == std::string_view::npos) return false; // the command
        if (assignment_loads_temp_code(word)) return true;
    }
    return false;
}

} // namespace

// R5 for one command.
bool runs_inline_code(const Command& c) {
    for (const Word& a : c.assignments)
        if (assignment_loads_temp_code(a.text)) return true;
    if (c.is("export"))
        for (const Word& a : c.args())
            if (assignment_loads_temp_code(a.text)) return true;
    if (c.is("env") && env_loads_temp_code(c)) return true;
    if (c.words.empty()) return false;
    // A .temp/ script run by its path: the kernel hands it to the interpreter of its #! line.
    const std::string_view path = c.words[0].text;
    if (path.find('/') != std::string_view::npos && inside_temp(path)) return true;
    if (c.is("awk") || c.is("gawk") || c.is("mawk") || c.is("nawk")) return awk_runs_command(c);
    const Interpreter* interpreter = interpreter_of(c);
    if (interpreter == nullptr) return false;
    const Launch launch = interpreter->parse(c.args(), interpreter->options);
    if (launch.inline_code || launch.temp_code) return true;
    if (launch.names_other) return false;
    if (launch.script) {
        const std::string_view script = *launch.script;
        if (script == "-" || script == "/dev/stdin" || script == "/dev/fd/0") {
            // `python3 - < FILE` reads FILE as `python3 < FILE` does (§7.3); a shell's `-s`
            // reads whatever feeds it (no exception).
            const Words args = c.args();
            const bool operand = std::any_of(args.begin(), args.end(),
                                             [&](const Word& w) { return w.text == script; });
            if (operand && !c.stdin_from_pipe && !c.stdin_from_heredoc)
                for (const Redirect& redirect : c.redirects)
                    if (redirect.kind == RedirectKind::input &&
                        (redirect.fd == -1 || redirect.fd == 0) &&
                        !redirect.target_is_process_substitution)
                        return inside_temp(redirect.target.text);
            return true;
        }
        return script.starts_with("<(") || inside_temp(script);
    }
    if (!interpreter->reads_stdin) return false;
    // No script operand: the interpreter reads its program from stdin, a file fed through `<`
    // being that script. Under xargs its stdin is not the pipeline's (xargs gives it /dev/null).
    if (c.fed_by_input) return false;
    for (const Redirect& redirect : c.redirects) {
        if (redirect.kind == RedirectKind::input && (redirect.fd == -1 || redirect.fd == 0)) {
            if (redirect.target_is_process_substitution) return true;
            return inside_temp(redirect.target.text);
        }
    }
    return c.stdin_from_pipe || c.stdin_from_heredoc;
}

} // namespace viber::shell_guard
