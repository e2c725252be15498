// shell_guard.cpp: shell-guard, the Bash hook holding viber's coders and reviewers to R1-R5
// (its Contract opens main.cpp).
//
// Why each rule (the agents carry one line per rule; the reasons live here):
//   R1 chain (coder). One command per Bash call keeps every command visible as itself to the
//      user's permission rules and to the guards, and makes the coder read each result before the
//      next step: `make && rm x` hides a second command behind an allowed first, and `a; b` runs b
//      after a failed a. The rule is lexical (any unquoted `;`, `;;`, `&&`, `||` at any depth,
//      `for …; do …; done` included) so the agent can apply it without judging which chains are
//      harmless. A newline, `|` and `&` are not chains.
//   R2 git stash / checkout / restore / clean (coder and both reviewers). The coders and
//      reviewers of one build share one working tree, one index and one stash stack: any of the
//      four discards or swaps another agent's uncommitted work. Git stays read-only (status, diff,
//      log, show); the coder's only index writes, `git rm -r -q --` and
//      `git update-index --chmod=+x --`, stay allowed. Git's global options (`-C <dir>`,
//      `-c <k=v>`, `--git-dir …`, `--no-pager`, …) are looked through: `git -C . stash` stashes.
//   R3 rm (coder). A file in the shared tree may be another coder's or the user's, and rm cannot
//      be undone. A tracked file is removed with `git rm`, so the removal is in the diff the
//      reviewer reads; a scratch file the coder must leave outside .temp/ is named on its SCRATCH:
//      line, and the implementor drops it at commit. Found wherever a command runs: through
//      xargs, the wrappers, `bash -c`, `eval`, and `find -exec`; a quoted or escaped command word
//      is still rm, a quoted `rm` argument is not. rmdir (empty directories only) and git rm are
//      not rm.
//   R4 a file write through Bash (coder). Files are written with the Write and Edit tools, whose
//      changes the harness shows and tracks; a write inside a redirect, tee, `sed -i` or `perl -i`
//      (also run by xargs or find -exec, onto the files they hand over) bypasses that and can
//      clobber files the task does not own. `.temp/` is the scratch area (the coder's out
//      directory) and stays writable. Only relative targets are judged: the working tree is where
//      the agent runs, and an absolute target (`/dev/null`, `/tmp/x`) lies outside it. `~/x` and
//      `$VAR/x` are not judged either: they expand to places the guard cannot see (home,
//      `$TMPDIR`, an out directory), refusing them would refuse the agent's legitimate scratch
//      writes, and the guard fails open on what it cannot read; the one exception is `$PWD`,
//      `${PWD}`, `$(pwd)`, which is the working tree itself. `..` is resolved: `../x` and
//      `.temp/../x` are outside `.temp/`. `<>` counts as a write: it creates the file.
//   R5 inline or .temp/ interpreter code (coder). Code given inline (`python -c`, a heredoc or a
//      pipe as the script, `node -e`, `bash -c`, …) or from a script under .temp/ (never
//      committed, never reviewed) is code no reviewer sees and nobody can rerun, and it is the
//      easy way around R3 and R4 (`python -c "os.remove(…)"`). The code goes in a file written
//      with Write outside .temp/, run as such (`python3 tools/check.py`) and named on SCRATCH:
//      when it is not part of the task. The same stdin rule holds for every interpreter listed
//      (a `-` script, or no script with stdin from a pipe, heredoc or herestring), and a script
//      fed through `<` counts as the script. A .temp/ script is any script path holding a `.temp`
//      directory (`/repo/.temp/x.py` too), also when run by its own path (`./.temp/x.sh`).
#include "shell-guard/shell_guard.hpp"

#include "common/output.hpp"
#include "common/payload.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

namespace viber::shell_guard {

namespace {

using shell::Analysis;
using shell::Invocation;
using shell::Redirect;
using shell::RedirectKind;
using shell::Word;

// ---------------------------------------------------------------------------------------------
// Callers and the rules binding each.

struct Binding {
    std::string_view agent_type;
    RuleSet rules;
};

constexpr std::array<Binding, 3> bindings{{
    {"viber:task-coder", RuleSet::all()},
    {"viber:task-reviewer", RuleSet().add(Rule::git_write)},
    {"viber:final-reviewer", RuleSet().add(Rule::git_write)},
}};

// ---------------------------------------------------------------------------------------------
// The corrections, in rule order: each refusal names the rules it found and how to go on.

struct Correction {
    Rule rule;
    std::string_view text;
};

constexpr std::array<Correction, 5> corrections{{
    {Rule::chain,
     "R1 (chained command: ;, &&, || or ;;): run one command per Bash call and read its result "
     "before the next call."},
    {Rule::git_write,
     "R2 (git stash, checkout, restore or clean): keep git read-only (status, diff, log, show); "
     "the "
     "working tree and its stash stack are shared with the other agents, so leave them as they "
     "are."},
    {Rule::remove,
     "R3 (rm): leave files in place; remove a tracked file with git rm -r -q -- <path>, and name a "
     "scratch file you must leave outside .temp/ on your SCRATCH: line."},
    {Rule::file_write,
     "R4 (file write through Bash onto a path outside .temp/): write and change files with the "
     "Write or Edit tool; only output under .temp/ (your out directory) may be written from "
     "Bash."},
    {Rule::inline_code,
     "R5 (inline or .temp/ interpreter code): put the code in a file with the Write tool outside "
     ".temp/, run that file (python3 path/to/script.py), and name it on your SCRATCH: line when it "
     "is not part of the task."},
}};

// ---------------------------------------------------------------------------------------------
// Small word helpers.

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& table) {
    return std::find(table.begin(), table.end(), word) != table.end();
}

// The command's name as the rules compare it: the lexer has already cut quotes and the path
// prefix; a Windows `.exe` suffix (Git Bash) names the same program.
std::string_view program(const Invocation& invocation) {
    std::string_view name = invocation.name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".exe") name.remove_suffix(4);
    return name;
}

// `base` alone or followed by a version (`python3`, `python3.11`, `perl5.36`).
bool is_versioned(std::string_view name, std::string_view base) {
    if (!name.starts_with(base)) return false;
    const std::string_view version = name.substr(base.size());
    return std::all_of(version.begin(), version.end(),
                       [](char c) { return is_digit(c) || c == '.'; });
}

// ---------------------------------------------------------------------------------------------
// R2: git's global options, kept as tables.

constexpr std::array<std::string_view, 9> git_options_with_value{"-C",           "-c",
                                                                 "--git-dir",    "--work-tree",
                                                                 "--namespace",  "--super-prefix",
                                                                 "--config-env", "--attr-source",
                                                                 "--list-cmds"};
// These make git print something and exit before any subcommand runs.
constexpr std::array<std::string_view, 7> git_options_that_exit{
    "--version", "-v", "--help", "-h", "--html-path", "--man-path", "--info-path"};
constexpr std::array<std::string_view, 4> git_writes{"stash", "checkout", "restore", "clean"};

// ---------------------------------------------------------------------------------------------
// R5: the interpreters and how each is given its code.

// What an interpreter invocation runs.
struct Launch {
    bool inline_code = false;               // code on the command line (-c, -e, eval, …)
    bool module = false;                    // a named module or task, not a file (python -m)
    std::optional<std::string_view> script; // the script operand, "-" for stdin
};

using LaunchParser = Launch (*)(const std::vector<Word>& args);

// python: -c CODE, -m MOD end the options; -W, -X, -Q take a value; the first operand is the
// script.
Launch python_launch(const std::vector<Word>& args) {
    Launch launch;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            if (i + 1 < args.size()) launch.script = args[i + 1].text;
            return launch;
        }
        if (w == "-" || w.size() < 2 || w[0] != '-') {
            launch.script = w;
            return launch;
        }
        if (w[1] == '-') {
            if (w == "--check-hash-based-pycs") ++i;
            continue;
        }
        for (std::size_t j = 1; j < w.size(); ++j) {
            const char c = w[j];
            if (c == 'c') {
                launch.inline_code = true;
                return launch;
            }
            if (c == 'm') {
                launch.module = true;
                return launch;
            }
            if (c == 'W' || c == 'X' || c == 'Q') {
                if (j + 1 == w.size()) ++i;
                break;
            }
        }
    }
    return launch;
}

// node: -e/--eval/-p/--print (also clustered, `-pe`) give the code; -r, --import … take a value.
Launch node_launch(const std::vector<Word>& args) {
    static constexpr std::array<std::string_view, 9> with_value{
        "-r", "--require",    "--import",     "--loader", "--experimental-loader",
        "-C", "--conditions", "--input-type", "--title"};
    Launch launch;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            if (i + 1 < args.size()) launch.script = args[i + 1].text;
            return launch;
        }
        if (w == "-" || w.size() < 2 || w[0] != '-') {
            launch.script = w;
            return launch;
        }
        if (w == "-e" || w == "--eval" || w == "-p" || w == "--print" || w.starts_with("--eval=") ||
            w.starts_with("--print=")) {
            launch.inline_code = true;
            return launch;
        }
        if (w[1] != '-' && w.find_first_not_of("epi", 1) == std::string_view::npos &&
            w.find_first_of("ep", 1) != std::string_view::npos) {
            launch.inline_code = true; // -pe, -ep, -pi …
            return launch;
        }
        if (one_of(w, with_value)) ++i;
    }
    return launch;
}

// perl and ruby share one switch grammar: clustered switches; -e CODE (the rest of the word or the
// next word); -i[EXTENSION] (in place, the rest of the word its backup extension); -0 and -l
// followed by digits; switches whose argument is the rest of the word or the next word.
struct SwitchGrammar {
    std::string_view inline_switches; // give the program as code
    std::string_view rest_switches;   // take the rest of the word
    std::string_view next_switches;   // take the rest of the word, or the next word
};

constexpr SwitchGrammar perl_switches{"eE", "CdDFMmxV", "I"};
constexpr SwitchGrammar ruby_switches{"e", "FxWK", "CEIr"};

struct Switches {
    bool inline_code = false;
    bool in_place = false;
    std::size_t first_operand = 0; // the script (without inline code), then the program's arguments
};

Switches read_switches(const std::vector<Word>& args, const SwitchGrammar& grammar) {
    Switches switches;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            ++i;
            break;
        }
        if (w == "-" || w.size() < 2 || w[0] != '-') break;
        if (w[1] == '-') continue; // --version, --enable=…: long flags
        for (std::size_t j = 1; j < w.size(); ++j) {
            const char c = w[j];
            if (c == 'i') {
                switches.in_place = true;
                break;
            }
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
            if (grammar.rest_switches.find(c) != std::string_view::npos) break;
        }
    }
    switches.first_operand = std::min(i, args.size());
    return switches;
}

Launch perl_style_launch(const std::vector<Word>& args, const SwitchGrammar& grammar) {
    const Switches switches = read_switches(args, grammar);
    Launch launch;
    launch.inline_code = switches.inline_code;
    if (!launch.inline_code && switches.first_operand < args.size())
        launch.script = args[switches.first_operand].text;
    return launch;
}

Launch perl_launch(const std::vector<Word>& args) {
    return perl_style_launch(args, perl_switches);
}

Launch ruby_launch(const std::vector<Word>& args) {
    return perl_style_launch(args, ruby_switches);
}

// php: -r/-R/-B/-E CODE (and --run, --process-code, --process-begin, --process-end), -f FILE.
Launch php_launch(const std::vector<Word>& args) {
    static constexpr std::array<std::string_view, 8> inline_options{
        "-r", "-R", "-B", "-E", "--run", "--process-code", "--process-begin", "--process-end"};
    static constexpr std::array<std::string_view, 8> with_value{
        "-d", "-c", "-z", "-t", "-S", "--define", "--php-ini", "--zend-extension"};
    Launch launch;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") return launch; // the script comes on stdin
        if (w == "-f" || w == "--file") {
            if (i + 1 < args.size()) launch.script = args[i + 1].text;
            return launch;
        }
        if (w == "-" || w.size() < 2 || w[0] != '-') {
            launch.script = w;
            return launch;
        }
        if (one_of(w, inline_options) ||
            (w.size() > 2 && w[1] != '-' &&
             std::string_view("rRBE").find(w[1]) != std::string_view::npos)) {
            launch.inline_code = true;
            return launch;
        }
        if (one_of(w, with_value)) ++i;
    }
    return launch;
}

// bash, sh, zsh, dash, ksh: -c runs its string; -o/-O/+o/+O take a value; `-` or `--` ends the
// options and the next word is the script.
Launch shell_launch(const std::vector<Word>& args) {
    Launch launch;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--" || w == "-") {
            if (i + 1 < args.size()) launch.script = args[i + 1].text;
            return launch;
        }
        if (w.size() < 2 || (w[0] != '-' && w[0] != '+')) {
            launch.script = w;
            return launch;
        }
        if (w[0] == '-' && w[1] == '-') {
            if (w == "--rcfile" || w == "--init-file") ++i;
            continue;
        }
        bool takes_value = false;
        for (std::size_t j = 1; j < w.size(); ++j) {
            if (w[j] == 'c' && w[0] == '-') {
                launch.inline_code = true;
                return launch;
            }
            if (w[j] == 'o' || w[j] == 'O') takes_value = true;
        }
        if (takes_value) ++i;
    }
    return launch;
}

// `.` and `source`: the first operand is the script the current shell reads.
Launch source_launch(const std::vector<Word>& args) {
    Launch launch;
    for (const Word& word : args) {
        if (word.text == "--") continue;
        launch.script = word.text;
        break;
    }
    return launch;
}

// deno: `deno eval CODE` is inline; `deno run [options] SCRIPT`, or a script path as subcommand.
Launch deno_launch(const std::vector<Word>& args) {
    Launch launch;
    bool running = false;
    for (const Word& word : args) {
        const std::string_view w = word.text;
        if (w.size() > 1 && w[0] == '-') continue;
        if (!running) {
            if (w == "eval") {
                launch.inline_code = true;
                return launch;
            }
            if (w == "run") {
                running = true;
                continue;
            }
            if (w.find('/') != std::string_view::npos || w.find('.') != std::string_view::npos)
                launch.script = w;
            else
                launch.module = true; // another subcommand (test, fmt, task …)
            return launch;
        }
        launch.script = w;
        return launch;
    }
    return launch;
}

// bun: -e/--eval/-p/--print CODE; `bun run X` or `bun X` runs a file or a package script.
Launch bun_launch(const std::vector<Word>& args) {
    Launch launch;
    for (const Word& word : args) {
        const std::string_view w = word.text;
        if (w == "-e" || w == "--eval" || w == "-p" || w == "--print" || w.starts_with("--eval=") ||
            w.starts_with("--print=")) {
            launch.inline_code = true;
            return launch;
        }
        if (w.size() > 1 && w[0] == '-') continue;
        if (w == "run") continue;
        launch.script = w;
        return launch;
    }
    return launch;
}

// The interpreter table: a program name (exact, or a versioned family) and its parser.
struct Interpreter {
    std::string_view name;
    bool versioned; // python3.11, perl5.36 …
    LaunchParser parse;
};

constexpr std::array<Interpreter, 16> interpreters{{
    {"python", true, python_launch},
    {"pypy", true, python_launch},
    {"node", false, node_launch},
    {"nodejs", false, node_launch},
    {"perl", true, perl_launch},
    {"ruby", true, ruby_launch},
    {"php", true, php_launch},
    {"bash", false, shell_launch},
    {"sh", false, shell_launch},
    {"zsh", false, shell_launch},
    {"dash", false, shell_launch},
    {"ksh", false, shell_launch},
    {".", false, source_launch},
    {"source", false, source_launch},
    {"deno", false, deno_launch},
    {"bun", false, bun_launch},
}};

const Interpreter* interpreter_of(std::string_view name) {
    for (const Interpreter& interpreter : interpreters) {
        if (interpreter.versioned ? is_versioned(name, interpreter.name) : name == interpreter.name)
            return &interpreter;
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// find -exec: find runs the command that follows -exec/-execdir/-ok/-okdir, up to `;` or `+`.

std::vector<Invocation> find_exec_commands(const Invocation& find) {
    std::vector<Invocation> commands;
    const std::vector<Word>& args = find.args;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w != "-exec" && w != "-execdir" && w != "-ok" && w != "-okdir") continue;
        if (i + 1 >= args.size()) break;
        Invocation command;
        command.command_word = args[i + 1];
        command.name = std::string(shell::strip_path_prefix(args[i + 1].text));
        command.depth = find.depth;
        std::size_t j = i + 2;
        for (; j < args.size() && args[j].text != ";" && args[j].text != "+"; ++j)
            command.args.push_back(args[j]);
        commands.push_back(std::move(command));
        i = j;
    }
    return commands;
}

// find's starting points: the operands before its expression, after its own -H -L -P -D -O
// options; "." when there are none.
std::vector<std::string_view> find_start_points(const Invocation& find) {
    std::vector<std::string_view> starts;
    const std::vector<Word>& args = find.args;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "-H" || w == "-L" || w == "-P" || (w.starts_with("-O") && w.size() > 2)) continue;
        if (w == "-D") {
            ++i;
            continue;
        }
        break;
    }
    for (; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w.starts_with("-") || w == "(" || w == "!" || w == ")" || w == ",") break;
        starts.push_back(w);
    }
    if (starts.empty()) starts.push_back(".");
    return starts;
}

// The command find runs on the files under `start`: each `{}` becomes a path inside `start`, so
// the file rules can judge where the command writes.
Invocation with_found_paths(const Invocation& command, std::string_view start) {
    Invocation found = command;
    const std::string path = std::string(start) + "/{}";
    for (Word& word : found.args) {
        for (std::size_t at = word.text.find("{}"); at != std::string::npos;
             at = word.text.find("{}", at + path.size())) {
            word.text.replace(at, 2, path);
        }
    }
    return found;
}

// The R2, R3 and R5 checks of one command.
void check_command(const Invocation& invocation, RuleSet binding, RuleSet& broken) {
    if (binding.has(Rule::git_write) && runs_git_write(invocation)) broken.add(Rule::git_write);
    if (binding.has(Rule::remove) && runs_rm(invocation)) broken.add(Rule::remove);
    if (binding.has(Rule::inline_code) && runs_inline_code(invocation))
        broken.add(Rule::inline_code);
}

// sed -i / --in-place: GNU option grammar (permuted, clustered; -e/-f/-l take a value; -i takes
// only an attached suffix). Without -e/-f the first operand is the script; the rest are files.
bool sed_writes_outside_temp(const Invocation& sed) {
    bool in_place = false;
    bool script_given = false;
    std::vector<std::string_view> operands;
    const std::vector<Word>& args = sed.args;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            for (++i; i < args.size(); ++i) operands.push_back(args[i].text);
            break;
        }
        if (w.size() < 2 || w[0] != '-') {
            operands.push_back(w);
            continue;
        }
        if (w[1] == '-') {
            if (w == "--in-place" || w.starts_with("--in-place="))
                in_place = true;
            else if (w == "--expression" || w == "--file") {
                script_given = true;
                ++i;
            } else if (w.starts_with("--expression=") || w.starts_with("--file="))
                script_given = true;
            else if (w == "--line-length")
                ++i;
            continue;
        }
        for (std::size_t j = 1; j < w.size(); ++j) {
            const char c = w[j];
            if (c == 'i') {
                in_place = true;
                break; // the rest of the word is the backup suffix
            }
            if (c == 'e' || c == 'f' || c == 'l') {
                if (c != 'l') script_given = true;
                if (j + 1 == w.size()) ++i;
                break;
            }
        }
    }
    if (!in_place) return false;
    if (sed.via_xargs)
        return true; // xargs appends file names the guard cannot see, found as relative paths
    const std::size_t first_file = script_given ? 0 : 1;
    for (std::size_t k = first_file; k < operands.size(); ++k) {
        if (place_of(operands[k]) == PathPlace::outside_temp) return true;
    }
    return false;
}

// perl -i (alone or in a cluster: -pi, -pi.bak, -pie): with -e/-E every operand is a file, without
// it the first operand is the script and the rest are files.
bool perl_writes_outside_temp(const Invocation& perl) {
    const Switches switches = read_switches(perl.args, perl_switches);
    if (!switches.in_place) return false;
    if (perl.via_xargs) return true; // as for sed: the files come from xargs
    const std::size_t first_file = switches.first_operand + (switches.inline_code ? 0 : 1);
    for (std::size_t k = first_file; k < perl.args.size(); ++k) {
        if (place_of(perl.args[k].text) == PathPlace::outside_temp) return true;
    }
    return false;
}

// tee: every operand is a file it writes (its options take no value; `-` is standard output).
bool tee_writes_outside_temp(const Invocation& tee) {
    bool options_done = false;
    for (const Word& word : tee.args) {
        const std::string_view w = word.text;
        if (!options_done && w == "--") {
            options_done = true;
            continue;
        }
        if (!options_done && w.size() > 1 && w[0] == '-') continue;
        if (w.starts_with(">(") || w.starts_with("<("))
            continue; // a process substitution, lexed as its own commands
        if (place_of(w) == PathPlace::outside_temp) return true;
    }
    return false;
}

// Resolves the segments of a relative path; false when `..` climbs above the start.
bool resolve_segments(std::string_view path, std::vector<std::string_view>& segments) {
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        const std::string_view segment = path.substr(0, slash);
        path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
        if (segment.empty() || segment == ".") continue;
        if (segment == "..") {
            if (segments.empty()) return false;
            segments.pop_back();
            continue;
        }
        segments.push_back(segment);
    }
    return true;
}

// The string a `sh -c STRING` runs: find -exec hands its command to no lexer, so the guard lexes
// that string itself, found by the lexer's own -c rule.
std::optional<std::string_view> shell_command_string(const Invocation& command) {
    if (interpreter_of(program(command)) == nullptr ||
        interpreter_of(program(command))->parse != shell_launch) {
        return std::nullopt;
    }
    const std::optional<std::size_t> at = shell::shell_command_string(command.args);
    if (!at) return std::nullopt;
    return std::string_view(command.args[*at].text);
}

// find -exec sh -c '…' inside find -exec sh -c '…': each level lexes one more string; past this
// many the rest is not looked into.
constexpr unsigned max_find_nesting = 4;

void collect_broken_rules(const Analysis& analysis, RuleSet binding, unsigned nesting,
                          RuleSet& broken);

// The rules broken by the commands find runs.
void check_find(const Invocation& find, RuleSet binding, unsigned nesting, RuleSet& broken) {
    const std::vector<std::string_view> starts = find_start_points(find);
    for (const Invocation& command : find_exec_commands(find)) {
        check_command(command, binding, broken);
        if (binding.has(Rule::file_write)) {
            for (const std::string_view start : starts) {
                if (command_writes_outside_temp(with_found_paths(command, start)))
                    broken.add(Rule::file_write);
            }
        }
        const std::optional<std::string_view> script = shell_command_string(command);
        if (script && nesting < max_find_nesting) {
            collect_broken_rules(shell::analyze(*script), binding, nesting + 1, broken);
        }
    }
}

void collect_broken_rules(const Analysis& analysis, RuleSet binding, unsigned nesting,
                          RuleSet& broken) {
    if (!analysis.complete || binding.empty()) return;
    if (binding.has(Rule::chain) && is_chain(analysis)) broken.add(Rule::chain);
    if (binding.has(Rule::file_write)) {
        for (const Redirect& redirect : analysis.redirects) {
            if (writes_outside_temp(redirect)) {
                broken.add(Rule::file_write);
                break;
            }
        }
    }
    for (const Invocation& invocation : analysis.invocations) {
        check_command(invocation, binding, broken);
        if (binding.has(Rule::file_write) && command_writes_outside_temp(invocation))
            broken.add(Rule::file_write);
        if (program(invocation) == "find") check_find(invocation, binding, nesting, broken);
    }
}

} // namespace

// ---------------------------------------------------------------------------------------------

std::string RuleSet::to_string() const {
    if (empty()) return "allow";
    std::string out;
    for (unsigned r = 1; r <= 5; ++r) {
        if (!has(static_cast<Rule>(r))) continue;
        if (!out.empty()) out += ',';
        out += 'R';
        out += static_cast<char>('0' + r);
    }
    return out;
}

RuleSet rules_binding(std::string_view agent_type) {
    for (const Binding& binding : bindings) {
        if (binding.agent_type == agent_type) return binding.rules;
    }
    return {};
}

PathPlace place_of(std::string_view path) {
    if (path.empty() || path == "-") return PathPlace::elsewhere;
    if (path[0] == '/' || path[0] == '~') return PathPlace::elsewhere;
    if (path.size() >= 3 && is_alpha(path[0]) && path[1] == ':' &&
        (path[2] == '/' || path[2] == '\\')) {
        return PathPlace::elsewhere; // a Windows drive path (Git Bash)
    }
    if (path.starts_with(">(") || path.starts_with("<(")) return PathPlace::elsewhere;
    if (path[0] == '$' || path[0] == '`') {
        // The working directory spelled as an expansion is the working tree; any other expansion
        // names a place the guard cannot see.
        static constexpr std::array<std::string_view, 4> working_directory{"$PWD", "${PWD}",
                                                                           "$(pwd)", "`pwd`"};
        bool here = false;
        for (const std::string_view spelling : working_directory) {
            if (path.starts_with(spelling) &&
                (path.size() == spelling.size() || path[spelling.size()] == '/')) {
                path.remove_prefix(spelling.size());
                here = true;
                break;
            }
        }
        if (!here) return PathPlace::elsewhere;
    }
    std::vector<std::string_view> segments;
    if (!resolve_segments(path, segments)) return PathPlace::outside_temp;
    if (segments.size() >= 2 && segments.front() == ".temp") return PathPlace::under_temp;
    return PathPlace::outside_temp;
}

bool inside_temp(std::string_view path) {
    const PathPlace place = place_of(path);
    if (place == PathPlace::under_temp) return true;
    if (place == PathPlace::outside_temp) return false;
    // An absolute or expanded path: any `.temp` directory segment on the way to the file.
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find_first_of("/\\", start);
        if (end == std::string_view::npos) break; // the last segment is the file itself
        if (path.substr(start, end - start) == ".temp") return true;
        start = end + 1;
    }
    return false;
}

bool is_chain(const Analysis& analysis) {
    return analysis.chain_operators > 0;
}

std::optional<std::string_view> git_subcommand(const Invocation& git) {
    const std::vector<Word>& args = git.args;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w.empty() || w[0] != '-') return w;
        if (w == "--" || one_of(w, git_options_that_exit)) return std::nullopt;
        if (one_of(w, git_options_with_value))
            ++i; // `--git-dir=x`, `-C` … with the value attached are one word
    }
    return std::nullopt;
}

bool runs_git_write(const Invocation& invocation) {
    if (program(invocation) != "git") return false;
    const std::optional<std::string_view> subcommand = git_subcommand(invocation);
    return subcommand && one_of(*subcommand, git_writes);
}

bool runs_rm(const Invocation& invocation) {
    return program(invocation) == "rm";
}

bool writes_outside_temp(const Redirect& redirect) {
    switch (redirect.kind) {
    case RedirectKind::output:
    case RedirectKind::append:
    case RedirectKind::clobber:
    case RedirectKind::output_and_error:
    case RedirectKind::append_output_and_error:
    case RedirectKind::read_write: // `<>` opens for writing and creates the file
        return place_of(redirect.target.text) == PathPlace::outside_temp;
    default: // descriptor duplications (>&2, >&-, 2>&1), input, heredocs
        return false;
    }
}

bool command_writes_outside_temp(const Invocation& invocation) {
    const std::string_view name = program(invocation);
    if (name == "tee") return tee_writes_outside_temp(invocation);
    if (name == "sed" || name == "gsed") return sed_writes_outside_temp(invocation);
    if (is_versioned(name, "perl")) return perl_writes_outside_temp(invocation);
    return false;
}

bool runs_inline_code(const Invocation& invocation) {
    // A .temp/ script run by its path: the kernel hands it to the interpreter of its #! line.
    const std::string_view path = invocation.command_word.text;
    if (path.find('/') != std::string_view::npos && inside_temp(path)) return true;
    const Interpreter* interpreter = interpreter_of(program(invocation));
    if (interpreter == nullptr) return false;
    const Launch launch = interpreter->parse(invocation.args);
    if (launch.inline_code) return true;
    if (launch.module) return false;
    if (launch.script) return *launch.script == "-" || inside_temp(*launch.script);
    // No script operand: the interpreter reads its program from stdin, a file fed through `<`
    // being that script. Under xargs its stdin is not the pipeline's (xargs gives it /dev/null).
    if (invocation.via_xargs) return false;
    for (const Redirect& redirect : invocation.redirects) {
        if (redirect.kind == RedirectKind::input && (redirect.fd == -1 || redirect.fd == 0)) {
            return inside_temp(redirect.target.text);
        }
    }
    if (interpreter->parse == source_launch) return false;
    return invocation.stdin_from_pipe || invocation.stdin_from_heredoc;
}

RuleSet broken_rules(const Analysis& analysis, RuleSet binding) {
    RuleSet broken;
    collect_broken_rules(analysis, binding, 0, broken);
    return broken;
}

std::string refusal_reason(RuleSet broken) {
    std::string reason = "viber guard: this command breaks " + broken.to_string() +
                         "; apply each correction and run the corrected command.";
    for (const Correction& correction : corrections) {
        if (!broken.has(correction.rule)) continue;
        reason += ' ';
        reason += correction.text;
    }
    return reason;
}

Decision decide(std::string_view agent_type, std::string_view command) {
    const RuleSet binding = rules_binding(agent_type);
    if (binding.empty()) return Decision::nothing();
    const Analysis analysis = shell::analyze(command);
    const RuleSet broken = broken_rules(analysis, binding);
    if (broken.empty()) return Decision::nothing();
    return Decision::deny(refusal_reason(broken));
}

Decision decide(const HookInput& in, Trace&) {
    if (in.payload == nullptr) return Decision::nothing();
    const std::optional<std::string_view> agent_type = string_field(*in.payload, "agent_type");
    if (!agent_type || rules_binding(*agent_type).empty()) return Decision::nothing();
    const std::optional<std::string_view> command = bash_command(*in.payload);
    if (!command) return Decision::nothing();
    return decide(*agent_type, *command);
}

} // namespace viber::shell_guard
