// shell_guard.cpp: shell-guard, the Bash hook holding viber's coders and reviewers to R1-R5
// (its Contract opens main.cpp; the decision on a payload, with what --explain
// shows, is in decide.cpp).
//
// Why each rule (the agents carry one line per rule; the reasons live here):
//   R1 chain (coder). One command per Bash call keeps every command visible as itself to the
//      user's permission rules and to the guards, and makes the coder read each result before the
//      next step: `make && rm x` hides a second command behind an allowed first, and `a; b` runs b
//      after a failed a. The rule is lexical (any unquoted `;`, `&&`, `||` wherever commands run,
//      `for …; do …; done` included) so the agent can apply it without judging which chains are
//      harmless. A newline, `|`, `&`, a case clause's `;;` and the `&&` of `[[ … ]]` are not
//      chains.
//   R2 git that discards or moves the shared work tree (coder and both reviewers). The coders and
//      reviewers of one build share one working tree, one index and one stash stack: stash,
//      checkout, restore, clean, switch, `reset --hard|--merge|--keep`, checkout-index and
//      `read-tree -u` discard or swap another agent's uncommitted work, and a `-c alias.*` or
//      `-c help.autocorrect` option can make any word run them. Git stays read-only (status,
//      diff, log, show); the coder's only index writes, `git rm -r -q --` and
//      `git update-index --chmod=+x --`, stay allowed. Git's global options are looked through.
//   R3 removing files (coder). A file in the shared tree may be another coder's or the user's, and
//      a removal cannot be undone: rm, unlink, `shred -u` and `find -delete` all remove. A tracked
//      file is removed with `git rm`, so the removal is in the diff the reviewer reads; a scratch
//      file the coder must leave outside .temp/ is named on its SCRATCH: line. rmdir (empty
//      directories only) and git rm are not removals.
//   R4 a file write through Bash (coder). Files are written with the Write and Edit tools, whose
//      changes the harness shows and tracks; a write through a redirect or a writing command
//      (tee, sed -i, cp, mv, curl -o, git apply, …) bypasses that and can clobber files the task
//      does not own. `.temp/` is the scratch area and stays writable. Every target is placed
//      against the payload's `cwd`: a write is one that lands inside the work tree (the git top
//      level of cwd) outside any `.temp` directory; a target opening with an expansion the guard
//      cannot know (`$TMPDIR/x`) is not judged, except the spellings of the working directory.
//   R5 inline or .temp/ interpreter code (coder). Code given inline (`python -c`, a heredoc or a
//      pipe as the script, `node -e`, `bash -c`, …) or from a script under .temp/ (never
//      committed, never reviewed) is code no reviewer sees and nobody can rerun, and it is the
//      easy way around R3 and R4 (`python -c "os.remove(…)"`). The code goes in a file written
//      with Write outside .temp/, run as such (`python3 tools/check.py`) and named on SCRATCH:
//      when it is not part of the task.
#include "shell-guard/shell_guard.hpp"

#include "common/ascii.hpp"
#include "common/git.hpp"
#include "common/output.hpp"
#include "common/paths.hpp"
#include "common/payload.hpp"
#include "common/shell_lexer.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace viber::shell_guard {

namespace {

using shell::Command;
using shell::Redirect;
using shell::RedirectKind;
using shell::Word;
using Words = std::span<const Word>;

// ---------------------------------------------------------------------------------------------
// Callers and the rules binding each.

struct Binding {
    std::string_view agent_type;
    RuleSet rules;
};

constexpr std::array<Binding, 3> bindings{{
    {.agent_type = "viber:task-coder", .rules = RuleSet::all()},
    {.agent_type = "viber:task-reviewer", .rules = RuleSet().add(Rule::git_write)},
    {.agent_type = "viber:final-reviewer", .rules = RuleSet().add(Rule::git_write)},
}};

// ---------------------------------------------------------------------------------------------
// The corrections, in rule order: each refusal names the rules it found and how to go on.

struct Correction {
    Rule rule;
    std::string_view text;
};

constexpr std::array<Correction, 5> corrections{{
    {Rule::chain,
     "R1 (chained command: ;, && or ||): run one command per Bash call and read its result "
     "before the next call."},
    {Rule::git_write,
     "R2 (git stash, checkout, restore, clean, switch, reset --hard/--merge/--keep, "
     "checkout-index, read-tree -u, or a -c alias/help.autocorrect option): keep git read-only "
     "(status, diff, log, show); the working tree and its stash stack are shared with the other "
     "agents, so leave them as they are."},
    {Rule::remove,
     "R3 (rm, unlink, shred -u, find -delete): leave files in place; remove a tracked file with "
     "git rm -r -q -- <path>, and name a scratch file you must leave outside .temp/ on your "
     "SCRATCH: line."},
    {Rule::file_write,
     "R4 (file write through Bash into the work tree outside .temp/): write and change files with "
     "the Write or Edit tool; only output under .temp/ (your out directory) may be written from "
     "Bash."},
    {Rule::inline_code,
     "R5 (inline or .temp/ interpreter code): put the code in a file with the Write tool outside "
     ".temp/, run that file (python3 path/to/script.py), and name it on your SCRATCH: line when it "
     "is not part of the task."},
}};

// ---------------------------------------------------------------------------------------------
// Small word helpers.

using ascii::is_alpha;
using ascii::is_digit;
constexpr auto lower = ascii::to_lower;

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& table) {
    return std::find(table.begin(), table.end(), word) != table.end();
}

// `base` alone or followed by a version (`python3`, `python3.11`, `perl5.36`).
bool is_versioned(std::string_view name, std::string_view base) {
    if (!name.starts_with(base)) return false;
    std::string_view version = name.substr(base.size());
    if (version.size() > 1 && version.back() == 't') version.remove_suffix(1); // python3.13t
    return std::all_of(version.begin(), version.end(),
                       [](char c) { return is_digit(c) || c == '.'; });
}

bool is_option(std::string_view w) {
    return w.size() > 1 && w[0] == '-';
}

// `--in` and `--in-pl=.bak` are `--in-place`: GNU tools take an unambiguous prefix of a long
// option. `option` is the word up to any `=`.
bool is_long_prefix(std::string_view option, std::string_view full, std::size_t unique_from) {
    return option.size() >= unique_from && option.size() <= full.size() && full.starts_with(option);
}

// ---------------------------------------------------------------------------------------------
// R4: placing a target.

// Targets, cwd and the work tree compare in one spelling: Git Bash's (`C:\r\x` is `/c/r/x`), as
// the plan file limit reads paths (common/paths.hpp).
using paths::git_bash_spelling;
using paths::rooted_segments;

const std::string& work_tree_of(Place& place) {
    if (!place.work_tree) {
        std::optional<std::string> top = git_top_level(*place.cwd);
        place.work_tree = git_bash_spelling(top ? *top : *place.cwd);
    }
    return *place.work_tree;
}

// The spellings of the working directory (and of the git top level) a target may open with.
struct DirectorySpelling {
    std::string_view text;
    bool top_level; // `$(git rev-parse --show-toplevel)`
};

constexpr std::array<DirectorySpelling, 8> directory_spellings{{
    {"$PWD", false},
    {"${PWD}", false},
    {"${PWD%/}", false},
    {"$(pwd)", false},
    {"$(pwd -P)", false},
    {"`pwd`", false},
    {"$(git rev-parse --show-toplevel)", true},
    {"`git rev-parse --show-toplevel`", true},
}};

} // namespace

bool is_write_target(std::string_view target, Place& place) {
    if (target.empty() || target == "-") return false;
    if (target.starts_with(">(") || target.starts_with("<(")) return false; // process substitution
    std::string path;
    bool at_work_tree = false;
    if (target[0] == '$' || target[0] == '`') {
        for (const DirectorySpelling& spelling : directory_spellings) {
            if (target.starts_with(spelling.text) &&
                (target.size() == spelling.text.size() || target[spelling.text.size()] == '/')) {
                path = "." + std::string(target.substr(spelling.text.size()));
                at_work_tree = spelling.top_level;
                break;
            }
        }
        if (path.empty()) {
            for (std::string_view home : {std::string_view("$HOME"), std::string_view("${HOME}")}) {
                if (target.starts_with(home) &&
                    (target.size() == home.size() || target[home.size()] == '/')) {
                    if (!place.home) return false;
                    path = *place.home + std::string(target.substr(home.size()));
                }
            }
        }
        if (path.empty()) return false; // any other expansion: a place the guard cannot know
    } else if (target.starts_with("~+") && (target.size() == 2 || target[2] == '/')) {
        path = "." + std::string(target.substr(2)); // `~+` is $PWD (§7.2)
    } else if (target[0] == '~') {
        if (target.size() > 1 && target[1] != '/') return false; // ~user
        if (!place.home) return false;
        path = *place.home + std::string(target.substr(1));
    } else {
        path = std::string(target);
    }
    path = git_bash_spelling(path);
    if (path.starts_with("/dev/")) return false;
    const bool relative = path.empty() || path[0] != '/';
    if (!place.cwd) {
        // The seed's rule: a relative target outside .temp/ is a write, an absolute one is not.
        if (!relative) return false;
        const std::string rooted = "/" + path;
        const std::vector<std::string_view> segments = rooted_segments(rooted);
        // `..` above the start leaves the tree: rooted_segments clamps at the root, so count them.
        int height = 0;
        std::size_t start = 0;
        while (start <= path.size()) {
            std::size_t end = path.find('/', start);
            if (end == std::string_view::npos) end = path.size();
            const std::string_view segment = std::string_view(path).substr(start, end - start);
            if (segment == "..")
                --height;
            else if (!segment.empty() && segment != ".")
                ++height;
            if (height < 0) return true; // above the working directory: outside .temp/
            start = end + 1;
        }
        return !(segments.size() >= 2 && segments.front() == ".temp");
    }
    std::string absolute;
    if (relative) {
        absolute = at_work_tree ? work_tree_of(place) : git_bash_spelling(*place.cwd);
        absolute += "/";
        absolute += path;
    } else {
        absolute = path;
    }
    const std::vector<std::string_view> target_segments = rooted_segments(absolute);
    const std::string& tree = work_tree_of(place);
    const std::vector<std::string_view> tree_segments = rooted_segments(tree);
    // The tree root itself is inside the tree (`cp /tmp/a .`, §7.2); above it is not.
    if (target_segments.size() < tree_segments.size()) return false;
    if (!std::equal(tree_segments.begin(), tree_segments.end(), target_segments.begin()))
        return false; // outside the work tree
    for (std::size_t k = tree_segments.size(); k < target_segments.size(); ++k)
        if (target_segments[k] == ".temp") return false;
    return true;
}

namespace {

// ---------------------------------------------------------------------------------------------
// R2: git's global options, kept as tables.

constexpr std::array<std::string_view, 9> git_options_with_value{"-C",           "-c",
                                                                 "--git-dir",    "--work-tree",
                                                                 "--namespace",  "--super-prefix",
                                                                 "--config-env", "--attr-source",
                                                                 "--list-cmds"};
// These make git print something and exit before any subcommand runs.
constexpr std::array<std::string_view, 8> git_options_that_exit{
    "--version", "-v", "--help", "-h", "--html-path", "--man-path", "--info-path", "--exec-path"};
constexpr std::array<std::string_view, 6> git_writes{"stash", "checkout", "restore",
                                                     "clean", "switch",   "checkout-index"};

// `alias.x=…` / `help.autocorrect=…` given to `-c`: either can make any word run a git write.
bool is_dangerous_git_config(std::string_view setting) {
    std::string key;
    for (char c : setting.substr(0, setting.find('='))) key += lower(c);
    return key.starts_with("alias.") || key == "help.autocorrect";
}

// R2 for one git command.
bool runs_git_write(const Command& git) {
    const Words args = git.args();
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w.empty() || w[0] != '-') break;
        if (w == "--" || one_of(w, git_options_that_exit)) return false;
        if (w == "-c" && i + 1 < args.size() && is_dangerous_git_config(args[i + 1].text))
            return true;
        if (w.starts_with("-c") && w.size() > 2 && is_dangerous_git_config(w.substr(2)))
            return true;
        if (w.starts_with("--config-env=") && is_dangerous_git_config(w.substr(13))) return true;
        if (one_of(w, git_options_with_value)) ++i; // attached forms are one word
    }
    if (i >= args.size()) return false;
    const std::string_view subcommand = args[i].text;
    if (one_of(subcommand, git_writes)) return true;
    const Words rest = args.subspan(i + 1);
    if (subcommand == "reset")
        return std::any_of(rest.begin(), rest.end(), [](const Word& w) {
            return w.text == "--hard" || w.text == "--merge" || w.text == "--keep";
        });
    if (subcommand == "read-tree") {
        // `-n` / `--dry-run` writes nothing (§7.2).
        if (std::any_of(rest.begin(), rest.end(), [](const Word& w) {
                return w.text == "--dry-run" ||
                       (w.text.size() > 1 && w.text[0] == '-' && w.text[1] != '-' &&
                        w.text.find('n') != std::string_view::npos);
            }))
            return false;
        return std::any_of(rest.begin(), rest.end(), [](const Word& w) {
            return w.text == "-u" || (w.text.size() > 1 && w.text[0] == '-' && w.text[1] != '-' &&
                                      w.text.find('u') != std::string_view::npos);
        });
    }
    return false;
}

// `gh pr checkout N` checks a branch out in the work tree (§7.2).
bool runs_gh_checkout(const Command& gh) {
    const Words args = gh.args();
    return args.size() >= 2 && args[0].text == "pr" && args[1].text == "checkout";
}

// find's tests and actions that take a value: `-name -delete` names a file, it deletes nothing.
constexpr std::array<std::string_view, 34> find_value_primaries{
    "-name",     "-iname",  "-path",   "-ipath",   "-wholename", "-iwholename", "-regex",
    "-iregex",   "-lname",  "-ilname", "-type",    "-xtype",     "-user",       "-group",
    "-uid",      "-gid",    "-perm",   "-size",    "-newer",     "-anewer",     "-cnewer",
    "-atime",    "-ctime",  "-mtime",  "-amin",    "-cmin",      "-mmin",       "-maxdepth",
    "-mindepth", "-printf", "-fprint", "-fprint0", "-samefile",  "-inum"};

// find's `-delete` action, outside the values of other primaries and outside -exec clauses.
bool find_deletes(Words args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "-delete") return true;
        if (w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir") {
            while (i + 1 < args.size() && args[i + 1].text != ";" && args[i + 1].text != "+") ++i;
            ++i;
            continue;
        }
        if (w == "-fprintf") {
            i += 2;
            continue;
        }
        if (one_of(w, find_value_primaries)) ++i;
    }
    return false;
}

// R3 for one command.
bool removes_files(const Command& c) {
    if (c.is("rm") || c.is("unlink") || c.is("rimraf")) return true;
    // Inside `cmd /c`: del, erase, and rd / rmdir with /s (§7.2).
    // The wrapper path is walked only for those names: a chain of a thousand wrappers gives every
    // command in it a path as long as the chain before it.
    const auto in_cmd = [&c] {
        return std::any_of(c.path.begin(), c.path.end(),
                           [](const shell::PathStep& s) { return s.name == "cmd"; });
    };
    if ((c.is("del") || c.is("erase")) && in_cmd()) return true;
    if ((c.is("rd") || c.is("rmdir")) && in_cmd())
        for (const Word& w : c.args())
            if (w.text.size() >= 2 && w.text.find_first_not_of('/') == w.text.size() - 1 &&
                lower(w.text.back()) == 's')
                return true;
    if (c.is("rsync"))
        for (const Word& w : c.args())
            if (w.text == "--remove-source-files" || w.text == "--remove-sent-files") return true;
    if (c.is("pwsh") || c.is("powershell")) {
        // Remove-Item and its aliases inside the -Command string (§7.2), split as kill-guard
        // splits it: on whitespace and ; | { } ( ) &.
        for (const Word& w : c.args()) {
            const std::string_view text = w.text;
            std::size_t p = 0;
            while (p < text.size()) {
                const auto splits = [](char ch) {
                    return std::string_view(" \t\r\n;|{}()&").find(ch) != std::string_view::npos;
                };
                while (p < text.size() && splits(text[p])) ++p;
                std::size_t e = p;
                while (e < text.size() && !splits(text[e])) ++e;
                std::string token;
                for (const char ch : text.substr(p, e - p)) token += lower(ch);
                if (token == "remove-item" || token == "ri" || token == "del" || token == "erase" ||
                    token == "rd" || token == "rmdir")
                    return true;
                p = e;
            }
        }
    }
    const Words args = c.args();
    if (c.is("shred")) {
        for (const Word& word : args) {
            const std::string_view w = word.text;
            if (w == "--") break;
            if (w.starts_with("--")) {
                if (is_long_prefix(w.substr(0, w.find('=')), "--remove", 4)) return true;
                continue;
            }
            if (is_option(w) && w.find('u') != std::string_view::npos &&
                w.find_first_of("ns") == std::string_view::npos)
                return true;
            if (is_option(w) &&
                (w.find('n') != std::string_view::npos || w.find('s') != std::string_view::npos)) {
                // -n N / -s N take a value: a `u` before them in the group still counts
                const std::size_t value_at = w.find_first_of("ns");
                if (w.substr(0, value_at).find('u') != std::string_view::npos) return true;
            }
        }
        return false;
    }
    if (c.is("find")) return find_deletes(args);
    return false;
}

// ---------------------------------------------------------------------------------------------
// R5: the interpreters and how each is given its code.

struct Launch {
    bool inline_code = false;               // code on the command line (-c, -e, eval, …)
    bool names_other = false;               // a module, a version query, help: no script
    std::optional<std::string_view> script; // the script operand, "-" for stdin
    bool temp_code = false;                 // .temp/ code loaded by an option (node -r, --rcfile)
};

bool inside_temp(std::string_view path);

// python: -c CODE inline; -m MOD, -V, --version, -h, --help name something else; -W -X -Q take a
// value.
Launch python_launch(Words args) {
    Launch launch;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            if (i + 1 < args.size()) launch.script = args[i + 1].text;
            return launch;
        }
        if (w == "-" || !is_option(w)) {
            launch.script = w;
            return launch;
        }
        if (w[1] == '-') {
            if (w == "--version" || w == "--help" || w == "--help-all") launch.names_other = true;
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
                // `-m pytest .temp/t.py`: a test runner running .temp/ code (§7.2).
                launch.names_other = true;
                for (std::size_t k = i + (j + 1 == w.size() ? 2 : 1); k < args.size(); ++k)
                    if (inside_temp(args[k].text) || args[k].text == ".temp")
                        launch.temp_code = true;
                return launch;
            }
            if (c == 'V' || c == 'h') {
                launch.names_other = true;
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

// node and friends (tsx, ts-node): -e/--eval/-p/--print give the code; -r, --import … load a
// module, which counts when it is .temp/ code.
Launch node_launch(Words args) {
    static constexpr std::array<std::string_view, 12> with_value{"-r",
                                                                 "--require",
                                                                 "--import",
                                                                 "--loader",
                                                                 "--experimental-loader",
                                                                 "-C",
                                                                 "--conditions",
                                                                 "--input-type",
                                                                 "--title",
                                                                 "--env-file",
                                                                 "--inspect-port",
                                                                 "--redirect-warnings"};
    static constexpr std::array<std::string_view, 4> loads_code{"-r", "--require", "--import",
                                                                "--loader"};
    Launch launch;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            if (i + 1 < args.size()) launch.script = args[i + 1].text;
            return launch;
        }
        if (w == "-" || !is_option(w)) {
            launch.script = w;
            return launch;
        }
        if (w == "-e" || w == "--eval" || w == "-p" || w == "--print" || w.starts_with("--eval=") ||
            w.starts_with("--print=")) {
            launch.inline_code = true;
            return launch;
        }
        if (w == "-v" || w == "--version" || w == "-h" || w == "--help") {
            launch.names_other = true;
            return launch;
        }
        if (w[1] != '-' && w.find_first_not_of("epi", 1) == std::string_view::npos &&
            w.find_first_of("ep", 1) != std::string_view::npos) {
            launch.inline_code = true; // -pe, -ep, -pi …
            return launch;
        }
        const std::size_t eq = w.find('=');
        const std::string_view option = w.substr(0, eq);
        if (one_of(option, loads_code)) {
            const std::string_view value = eq != std::string_view::npos
                                               ? w.substr(eq + 1)
                                               : (i + 1 < args.size() ? args[i + 1].text : "");
            if (inside_temp(value)) launch.temp_code = true;
        }
        if (eq == std::string_view::npos && one_of(w, with_value)) ++i;
    }
    return launch;
}

// perl and ruby share one switch grammar: clustered switches; -e CODE (the rest of the word or the
// next word); -i[EXTENSION] (in place); -0 and -l followed by digits; switches whose argument is
// the rest of the word or the next word.
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
    bool names_other = false;
    std::size_t first_operand = 0; // the script (without inline code), then the program's arguments
};

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

Launch perl_style_launch(Words args, const SwitchGrammar& grammar) {
    const Switches switches = read_switches(args, grammar);
    Launch launch;
    launch.inline_code = switches.inline_code;
    launch.names_other = switches.names_other;
    if (!launch.inline_code && switches.first_operand < args.size())
        launch.script = args[switches.first_operand].text;
    return launch;
}

Launch perl_launch(Words args) {
    return perl_style_launch(args, perl_switches);
}

Launch ruby_launch(Words args) {
    return perl_style_launch(args, ruby_switches);
}

// php: -r/-R/-B/-E CODE (and --run, --process-code, --process-begin, --process-end), -f FILE.
Launch php_launch(Words args) {
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
        if (w == "-v" || w == "--version" || w == "-h" || w == "--help" || w == "-m" || w == "-i" ||
            w == "-l") {
            launch.names_other = true;
            return launch;
        }
        if (w == "-" || !is_option(w)) {
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

// The shells: -c runs its string (the command model reads it as commands too); -o/-O/+o/+O take
// a value unless attached; `--rcfile`/`--init-file` load a file; `-` or `--` ends the options.
Launch shell_launch(Words args) {
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
            if (w == "--rcfile" || w == "--init-file") {
                if (i + 1 < args.size() && inside_temp(args[i + 1].text)) launch.temp_code = true;
                ++i;
            }
            if (w == "--version" || w == "--help") launch.names_other = true;
            continue;
        }
        bool takes_value = false;
        for (std::size_t j = 1; j < w.size(); ++j) {
            if (w[j] == 'c' && w[0] == '-') {
                launch.inline_code = true;
                return launch;
            }
            if (w[j] == 's' && w[0] == '-') {
                launch.script = "-";
                return launch;
            }
            if (w[j] == 'n' && w[0] == '-') { // `sh -n FILE` reads it for syntax, runs nothing
                launch.names_other = true;
                return launch;
            }
            if (w[j] == 'o' || w[j] == 'O') {
                takes_value = j + 1 == w.size();
                break;
            }
        }
        if (takes_value) ++i;
    }
    return launch;
}

// `.` and `source`: the first operand is the script the current shell reads.
Launch source_launch(Words args) {
    Launch launch;
    for (const Word& word : args) {
        if (word.text == "--") continue;
        launch.script = word.text;
        break;
    }
    return launch;
}

// deno: `deno eval CODE` is inline; `deno run [options] SCRIPT`, or a script path as subcommand.
Launch deno_launch(Words args) {
    static constexpr std::array<std::string_view, 8> with_value{
        "--config", "-c", "--import-map", "--lock", "--cert", "--location", "--seed", "--env-file"};
    Launch launch;
    bool running = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (is_option(w)) {
            if (w == "--eval" || w.starts_with("--eval=")) { // deno repl --eval
                launch.inline_code = true;
                return launch;
            }
            if (w.find('=') == std::string_view::npos && one_of(w, with_value)) ++i;
            if (w == "--version" || w == "-V" || w == "--help" || w == "-h")
                launch.names_other = true;
            continue;
        }
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
                for (std::size_t k = i + 1; k < args.size(); ++k)
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
    // Options that take the next word as their value, skipped with it (§7.2), folded to lower case.
    std::array<std::string_view, 6> with_value = {};
    bool prefixes = false; // PowerShell: any unambiguous prefix of a flag names it
};

template <const InlineFlags& Flags> Launch flag_launch(Words args) {
    Launch launch;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        std::string folded_word;
        for (const char ch : w) folded_word += lower(ch);
        if (std::find(Flags.with_value.begin(), Flags.with_value.end(), folded_word) !=
                Flags.with_value.end() &&
            !folded_word.empty()) {
            ++i;
            continue;
        }
        for (std::string_view flag : Flags.flags) {
            if (flag.empty()) continue;
            const bool folded = std::equal(w.begin(), w.end(), flag.begin(), flag.end(),
                                           [](char a, char b) { return lower(a) == lower(b); }) ||
                                (Flags.prefixes && folded_word.size() >= 3 &&
                                 flag.starts_with(folded_word) && flag.starts_with("-comm"));
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
        if (w == "-" || !is_option(w)) {
            if (w == "run" && i + 1 < args.size()) continue; // bun run SCRIPT
            if (w == "test") {                               // bun test .temp/x.ts (§7.2)
                for (std::size_t k = i + 1; k < args.size(); ++k)
                    if (inside_temp(args[k].text)) launch.temp_code = true;
                launch.names_other = !launch.temp_code;
                return launch;
            }
            launch.script = w;
            return launch;
        }
    }
    return launch;
}

constexpr InlineFlags bun_flags{{"-e", "--eval", "-p", "--print"}, {"--cwd", "--config", "-c"}};
constexpr InlineFlags lua_flags{{"-e", "", "", ""}, {"-l"}};
constexpr InlineFlags rscript_flags{{"-e", "--expr", "", ""}};
constexpr InlineFlags tsx_flags{{"-e", "--eval", "-p", "--print"},
                                {"--tsconfig", "-r", "--require"}};
constexpr InlineFlags pwsh_flags{
    {"-c", "-command", "-encodedcommand", "-ec"},
    {"-executionpolicy", "-ep", "-workingdirectory", "-wd", "-configurationname", "-outputformat"},
    true};

using LaunchParser = Launch (*)(Words args);

// The interpreter table: a program name (exact, or a versioned family) and its parser.
struct Interpreter {
    std::string_view name;
    bool versioned; // python3.11, perl5.36 …
    LaunchParser parse;
    bool reads_stdin = true; // with no script operand, its program comes from stdin
};

constexpr std::array interpreters{
    Interpreter{.name = "python", .versioned = true, .parse = python_launch},
    Interpreter{.name = "pypy", .versioned = true, .parse = python_launch},
    Interpreter{.name = "node", .versioned = false, .parse = node_launch},
    Interpreter{.name = "nodejs", .versioned = false, .parse = node_launch},
    Interpreter{.name = "perl", .versioned = true, .parse = perl_launch},
    Interpreter{.name = "ruby", .versioned = true, .parse = ruby_launch},
    Interpreter{.name = "php", .versioned = true, .parse = php_launch},
    Interpreter{.name = "bash", .versioned = false, .parse = shell_launch},
    Interpreter{.name = "sh", .versioned = false, .parse = shell_launch},
    Interpreter{.name = "zsh", .versioned = false, .parse = shell_launch},
    Interpreter{.name = "dash", .versioned = false, .parse = shell_launch},
    Interpreter{.name = "ksh", .versioned = false, .parse = shell_launch},
    Interpreter{.name = "mksh", .versioned = false, .parse = shell_launch},
    Interpreter{.name = "ash", .versioned = false, .parse = shell_launch},
    Interpreter{.name = "fish", .versioned = false, .parse = shell_launch},
    Interpreter{.name = ".", .versioned = false, .parse = source_launch, .reads_stdin = false},
    Interpreter{.name = "source", .versioned = false, .parse = source_launch, .reads_stdin = false},
    Interpreter{.name = "deno", .versioned = false, .parse = deno_launch, .reads_stdin = false},
    Interpreter{.name = "bun", .versioned = false, .parse = flag_launch<bun_flags>},
    Interpreter{.name = "lua", .versioned = true, .parse = flag_launch<lua_flags>},
    Interpreter{.name = "luajit", .versioned = false, .parse = flag_launch<lua_flags>},
    Interpreter{.name = "py", .versioned = false, .parse = python_launch},
    Interpreter{.name = "r", .versioned = false, .parse = flag_launch<rscript_flags>},
    Interpreter{.name = "rscript", .versioned = false, .parse = flag_launch<rscript_flags>},
    Interpreter{.name = "tsx", .versioned = false, .parse = flag_launch<tsx_flags>},
    Interpreter{.name = "ts-node", .versioned = false, .parse = flag_launch<tsx_flags>},
    Interpreter{.name = "pwsh", .versioned = false, .parse = flag_launch<pwsh_flags>},
    Interpreter{.name = "powershell", .versioned = false, .parse = flag_launch<pwsh_flags>},
};

const Interpreter* interpreter_of(const Command& c) {
    if (c.name.empty()) return nullptr;
    for (const Interpreter& interpreter : interpreters) {
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

// awk's program: the first operand after its options (-f FILE names a file instead).
bool awk_runs_command(const Command& awk) {
    const Words args = awk.args();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            return i + 1 < args.size() && awk_program_runs_command(args[i + 1].text);
        }
        if (w == "-f" || w == "--file" || w.starts_with("--file="))
            return inside_temp(w.starts_with("--file=")
                                   ? w.substr(7)
                                   : (i + 1 < args.size() ? args[i + 1].text : ""));
        if (w == "-v" || w == "-F" || w == "-i" || w == "--include" || w == "-l" || w == "-E") {
            ++i;
            continue;
        }
        if (is_option(w)) continue;
        return awk_program_runs_command(w);
    }
    return false;
}

bool inside_temp(std::string_view path) {
    if (path.empty()) return false;
    const std::string text = git_bash_spelling(path);
    // Any `.temp` directory on the way to the file.
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find('/', start);
        if (end == std::string::npos) break; // the last segment is the file itself
        if (std::string_view(text).substr(start, end - start) == ".temp") return true;
        start = end + 1;
    }
    return false;
}

// The environment variables that load code, and .temp/ code named in one of them.
constexpr std::array<std::string_view, 7> code_loading_variables{
    "BASH_ENV", "ENV", "NODE_OPTIONS", "PYTHONPATH", "PYTHONSTARTUP", "PERL5OPT", "RUBYOPT"};

bool assignment_loads_temp_code(std::string_view assignment) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string_view::npos) return false;
    std::string_view name = assignment.substr(0, eq);
    if (name.ends_with("+")) name.remove_suffix(1);
    if (!one_of(name, code_loading_variables)) return false;
    return assignment.find(".temp/") != std::string_view::npos || assignment.ends_with(".temp");
}

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
    const Launch launch = interpreter->parse(c.args());
    if (launch.inline_code || launch.temp_code) return true;
    if (launch.names_other) return false;
    if (launch.script) {
        const std::string_view script = *launch.script;
        return script == "-" || script == "/dev/stdin" || script == "/dev/fd/0" ||
               script.starts_with("<(") || inside_temp(script);
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

// ---------------------------------------------------------------------------------------------
// R4: the commands that write files, and which of their words are the files.

bool redirect_writes(const Redirect& redirect) {
    switch (redirect.kind) {
    case RedirectKind::output:
    case RedirectKind::append:
    case RedirectKind::clobber:
    case RedirectKind::output_and_error:
    case RedirectKind::append_output_and_error:
    case RedirectKind::read_write: // `<>` opens for writing and creates the file
        return !redirect.target_is_process_substitution;
    default: // descriptor duplications (>&2, >&-, 2>&1), input, heredocs
        return false;
    }
}

// The operands of a GNU-style command (options skipped, with the value of any in
// `value_letters` / `value_longs`), and the value of `-t`/`--target-directory` when it has one.
struct Operands {
    std::vector<std::string_view> files;
    std::optional<std::string_view> target_directory;
};

Operands operands_of(Words args, std::string_view value_letters,
                     std::initializer_list<std::string_view> value_longs) {
    Operands out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (w == "--") {
            for (++i; i < args.size(); ++i) out.files.push_back(args[i].text);
            break;
        }
        if (w.starts_with("--")) {
            const std::size_t eq = w.find('=');
            const std::string_view option = w.substr(0, eq);
            if (is_long_prefix(option, "--target-directory", 4)) {
                if (eq != std::string_view::npos)
                    out.target_directory = w.substr(eq + 1);
                else if (i + 1 < args.size())
                    out.target_directory = args[++i].text;
                continue;
            }
            if (eq == std::string_view::npos &&
                std::find(value_longs.begin(), value_longs.end(), option) != value_longs.end())
                ++i;
            continue;
        }
        if (is_option(w)) {
            for (std::size_t k = 1; k < w.size(); ++k) {
                if (w[k] == 't') {
                    if (k + 1 < w.size())
                        out.target_directory = w.substr(k + 1);
                    else if (i + 1 < args.size())
                        out.target_directory = args[++i].text;
                    break;
                }
                if (value_letters.find(w[k]) != std::string_view::npos) {
                    if (k + 1 == w.size()) ++i;
                    break;
                }
            }
            continue;
        }
        out.files.push_back(w);
    }
    return out;
}

// Calls `write` with every file `c` writes (its own operands; redirections are judged apart).
// Returns true when the files come from input the guard cannot see (sed -i under xargs).
template <typename Write> bool written_files(const Command& c, Write&& write) {
    const Words args = c.args();
    if (c.is("tee")) {
        bool options_done = false;
        for (const Word& word : args) {
            const std::string_view w = word.text;
            if (!options_done && w == "--") {
                options_done = true;
                continue;
            }
            if (!options_done && is_option(w)) continue;
            write(w);
        }
        return false;
    }
    if (c.is("sed") || c.is("gsed")) {
        bool in_place = false, script_given = false;
        std::vector<std::string_view> operands;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w == "--") {
                for (++i; i < args.size(); ++i) operands.push_back(args[i].text);
                break;
            }
            if (!is_option(w)) {
                operands.push_back(w);
                continue;
            }
            if (w[1] == '-') {
                const std::size_t eq = w.find('=');
                const std::string_view option = w.substr(0, eq);
                if (is_long_prefix(option, "--in-place", 3)) {
                    in_place = true;
                } else if (is_long_prefix(option, "--expression", 3) ||
                           is_long_prefix(option, "--file", 4)) {
                    script_given = true;
                    if (eq == std::string_view::npos) ++i;
                } else if (is_long_prefix(option, "--line-length", 3) &&
                           eq == std::string_view::npos) {
                    ++i;
                }
                continue;
            }
            for (std::size_t j = 1; j < w.size(); ++j) {
                const char ch = w[j];
                if (ch == 'i') {
                    in_place = true;
                    break; // the rest of the word is the backup suffix
                }
                if (ch == 'e' || ch == 'f' || ch == 'l') {
                    if (ch != 'l') script_given = true;
                    if (j + 1 == w.size()) ++i;
                    break;
                }
            }
        }
        if (!in_place) return false;
        if (c.fed_by_input) return true;
        for (std::size_t k = script_given ? 0 : 1; k < operands.size(); ++k) write(operands[k]);
        return false;
    }
    if (is_versioned(c.name, "perl") || is_versioned(c.name, "ruby")) {
        const Switches switches =
            read_switches(args, c.name.starts_with("perl") ? perl_switches : ruby_switches);
        if (!switches.in_place) return false;
        if (c.fed_by_input) return true;
        const std::size_t first = switches.first_operand + (switches.inline_code ? 0 : 1);
        for (std::size_t k = first; k < args.size(); ++k) write(args[k].text);
        return false;
    }
    if ((c.is("gawk") || c.is("awk")) && std::any_of(args.begin(), args.end(), [](const Word& w) {
            return w.text == "-i" || w.text == "--include" || w.text == "-iinplace" ||
                   w.text == "--include=inplace";
        })) {
        bool in_place = false;
        std::size_t i = 0;
        for (; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if ((w == "-i" || w == "--include") && i + 1 < args.size() &&
                args[i + 1].text == "inplace") {
                in_place = true;
                ++i;
                continue;
            }
            if (w == "-iinplace" || w == "--include=inplace") {
                in_place = true;
                continue;
            }
            if (w == "-v" || w == "-F" || w == "-f" || w == "-i" || w == "-l" || w == "-E") {
                ++i;
                continue;
            }
            if (!is_option(w)) break;
        }
        if (!in_place) return false;
        if (c.fed_by_input) return true;
        for (std::size_t k = i + 1; k < args.size(); ++k) write(args[k].text);
        return false;
    }
    if (c.is("cp") || c.is("install") || c.is("ln") || c.is("mv")) {
        const Operands ops =
            c.is("install")
                ? operands_of(args, "mogS", {"--mode", "--owner", "--group", "--suffix"})
                : operands_of(args, "S", {"--suffix"});
        // A directory destination: the files land inside it.
        const auto into = [&](std::string_view dir) { write(std::string(dir) + "/f"); };
        if (ops.target_directory) {
            into(*ops.target_directory);
            if (c.is("mv"))
                for (std::string_view f : ops.files) write(f);
            return false;
        }
        if (ops.files.empty()) return c.fed_by_input;
        if (c.is("mv"))
            for (std::size_t k = 0; k + 1 < ops.files.size(); ++k) write(ops.files[k]);
        if (ops.files.back().ends_with("/"))
            into(ops.files.back());
        else
            write(ops.files.back());
        return false;
    }
    if (c.is("dd")) {
        for (const Word& w : args)
            if (w.text.starts_with("of=")) write(w.text.substr(3));
        return false;
    }
    if (c.is("awk") || c.is("gawk") || c.is("mawk") || c.is("nawk")) {
        // `print > "file"` / `printf … >> "file"` in the program (§7.2): the first operand.
        std::size_t i = 0;
        while (i < args.size() && is_option(args[i].text)) {
            const std::string_view w = args[i].text;
            if (w == "-f" || w == "--file") return false;
            i += (w == "-v" || w == "-F" || w == "-i" || w == "-l" || w == "-E") ? 2 : 1;
        }
        if (i >= args.size()) return false;
        const std::string_view program = args[i].text;
        for (std::size_t at = program.find("print"); at != std::string_view::npos;
             at = program.find("print", at + 5)) {
            std::size_t p = at + 5;
            bool in_string = false;
            while (p < program.size() && (in_string || std::string_view(";}\n|").find(program[p]) ==
                                                           std::string_view::npos)) {
                if (program[p] == '"') in_string = !in_string;
                if (!in_string && program[p] == '>') {
                    std::size_t q = p + 1;
                    if (q < program.size() && program[q] == '>') ++q;
                    while (q < program.size() && program[q] == ' ') ++q;
                    if (q < program.size() && program[q] == '"') {
                        const std::size_t close = program.find('"', q + 1);
                        if (close != std::string_view::npos)
                            write(program.substr(q + 1, close - q - 1));
                    }
                    break;
                }
                ++p;
            }
        }
        return false;
    }
    // §7.2's writers: touch, sort -o, tar -x, unzip, rsync, sponge.
    if (c.is("touch")) {
        const Operands ops = operands_of(args, "dtr", {"--date", "--reference", "--time"});
        for (std::string_view f : ops.files) write(f);
        return false;
    }
    if (c.is("sponge")) {
        for (const Word& w : args)
            if (!is_option(w.text)) write(w.text);
        return false;
    }
    if (c.is("sort")) {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w.starts_with("--output="))
                write(w.substr(9));
            else if (w == "--output" && i + 1 < args.size())
                write(args[++i].text);
            else if (w.size() > 1 && w[0] == '-' && w[1] != '-') {
                const std::size_t o = w.find('o');
                const std::size_t value = w.find_first_of("kStT");
                if (o != std::string_view::npos && (value == std::string_view::npos || o < value))
                    write(o + 1 < w.size() ? w.substr(o + 1)
                                           : (i + 1 < args.size() ? args[++i].text : ""));
            }
        }
        return false;
    }
    if (c.is("tar") || c.is("bsdtar")) {
        bool extract = false;
        std::optional<std::string_view> directory;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w == "--extract" || w == "--get")
                extract = true;
            else if (w.starts_with("--directory="))
                directory = w.substr(12);
            else if (w == "--directory" && i + 1 < args.size())
                directory = args[++i].text;
            else if (w == "-C" && i + 1 < args.size())
                directory = args[++i].text;
            else if (i == 0 && !w.starts_with("-") && w.find('x') != std::string_view::npos)
                extract = true; // `tar xf a.tar`: the old bundled form
            else if (w.size() > 1 && w[0] == '-' && w[1] != '-' &&
                     w.find('x') != std::string_view::npos)
                extract = true;
        }
        if (extract) write(std::string(directory.value_or(".")) + "/extracted");
        return false;
    }
    if (c.is("unzip")) {
        std::optional<std::string_view> directory;
        bool lists = false;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w == "-d" && i + 1 < args.size())
                directory = args[++i].text;
            else if (w.starts_with("-d") && w.size() > 2)
                directory = w.substr(2);
            else if (w == "-l" || w == "-v" || w == "-t" || w == "-Z" || w == "-p")
                lists = true;
        }
        if (!lists) write(std::string(directory.value_or(".")) + "/extracted");
        return false;
    }
    if (c.is("rsync")) {
        std::vector<std::string_view> operands;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w == "-e" || w == "--rsh" || w == "--exclude" || w == "--include" ||
                w == "--filter" || w == "-f") {
                ++i;
                continue;
            }
            if (!is_option(w)) operands.push_back(w);
        }
        if (operands.size() >= 2 && operands.back().find(':') == std::string_view::npos)
            write(std::string(operands.back()) + "/f");
        return false;
    }
    if (c.is("truncate")) {
        const Operands ops = operands_of(args, "sr", {"--size", "--reference"});
        for (std::string_view f : ops.files) write(f);
        return false;
    }
    if (c.is("curl")) {
        bool remote_name = false, output_dir = false;
        std::string_view output_directory;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w.starts_with("--")) {
                const std::size_t eq = w.find('=');
                const std::string_view option = w.substr(0, eq);
                if (option == "--output") {
                    write(eq != std::string_view::npos
                              ? w.substr(eq + 1)
                              : (i + 1 < args.size() ? args[++i].text : ""));
                } else if (option == "--remote-name" || option == "--remote-name-all") {
                    remote_name = true;
                } else if (option == "--output-dir") {
                    output_dir = true;
                    const std::string_view dir = eq != std::string_view::npos
                                                     ? w.substr(eq + 1)
                                                     : (i + 1 < args.size() ? args[++i].text : "");
                    output_directory = dir;
                } else if (eq == std::string_view::npos && option != "--silent" &&
                           option != "--location" && option != "--fail" &&
                           option != "--show-error" && option != "--insecure" &&
                           option != "--compressed" && option != "--verbose" &&
                           option != "--include" && option != "--head" && option != "--globoff" &&
                           option != "--create-dirs" && option != "--progress-bar" &&
                           option != "--no-progress-meter") {
                    // Most of curl's long options take a value; the flags above are the common
                    // ones.
                    if (i + 1 < args.size() && !args[i + 1].text.starts_with("-")) ++i;
                }
                continue;
            }
            if (!is_option(w)) continue;
            for (std::size_t k = 1; k < w.size(); ++k) {
                const char ch = w[k];
                if (ch == 'O') remote_name = true;
                if (ch == 'o') {
                    write(k + 1 < w.size() ? w.substr(k + 1)
                                           : (i + 1 < args.size() ? args[++i].text : ""));
                    break;
                }
                if (std::string_view("AbcCdDeEFHKmPQrtTuUwxXyYz").find(ch) !=
                    std::string_view::npos) {
                    if (k + 1 == w.size()) ++i;
                    break;
                }
            }
        }
        if (remote_name) // into --output-dir, the tree root included (§7.2), else cwd
            write(output_dir ? std::string(output_directory) + "/downloaded" : "./downloaded");
        return false;
    }
    if (c.is("wget")) {
        bool named = false, spider = false;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w.starts_with("--")) {
                const std::size_t eq = w.find('=');
                const std::string_view option = w.substr(0, eq);
                const auto value = [&] {
                    return eq != std::string_view::npos
                               ? w.substr(eq + 1)
                               : (i + 1 < args.size() ? args[++i].text : "");
                };
                if (option == "--output-document") {
                    write(value());
                    named = true;
                } else if (option == "--directory-prefix") {
                    write(std::string(value()) + "/f");
                    named = true;
                } else if (option == "--spider") {
                    spider = true;
                }
                continue;
            }
            if (!is_option(w)) continue;
            for (std::size_t k = 1; k < w.size(); ++k) {
                const char ch = w[k];
                if (ch == 'O' || ch == 'P') {
                    const std::string_view v = k + 1 < w.size()
                                                   ? w.substr(k + 1)
                                                   : (i + 1 < args.size() ? args[++i].text : "");
                    if (ch == 'O') {
                        write(v);
                    } else if (!v.empty()) {
                        // A directory prefix: the file lands inside it.
                        if (v != "-") write(std::string(v) + "/f");
                    }
                    named = true;
                    break;
                }
                if (std::string_view("oaeiBtTwQUlARDIXn").find(ch) != std::string_view::npos) {
                    if (k + 1 == w.size()) ++i;
                    break;
                }
            }
        }
        if (!named && !spider) write("./downloaded");
        return false;
    }
    if (c.is("git")) {
        // git apply writes into the work tree unless it only reports.
        std::size_t i = 0;
        while (i < args.size() && is_option(args[i].text)) {
            const std::string_view w = args[i].text;
            if (w == "-C" || w == "-c" || w == "--git-dir" || w == "--work-tree") ++i;
            ++i;
        }
        if (i < args.size() && args[i].text == "apply") {
            for (std::size_t k = i + 1; k < args.size(); ++k) {
                const std::string_view w = args[k].text;
                if (w == "--check" || w == "--stat" || w == "--numstat" || w == "--summary" ||
                    w == "--cached")
                    return false;
            }
            write("./patched");
        }
        return false;
    }
    if (c.is("patch")) {
        for (const Word& w : args)
            if (w.text == "--dry-run" || w.text == "-C" || w.text == "--check") return false;
        write("./patched");
        return false;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// Reads the command model once, judging each command as it is found.

class Judge final : public shell::CommandSink {
public:
    Judge(RuleSet binding, Place& place) : binding_(binding), place_(place) {}

    Judgement judgement;

    void command(const Command& c) override {
        ++serial_;
        if (binding_.has(Rule::file_write) && c.first_in_simple_command) {
            for (const Redirect& r : c.redirects) {
                if (redirect_writes(r) &&
                    (r.target.text.empty() ||
                             (r.target.text[0] != '$' && r.target.text[0] != '~') ||
                             r.target.expands
                         ? writes(c, r.target.text)
                         : is_write_target("./" + std::string(r.target.text), place_))) {
                    found(Rule::file_write, c);
                    break;
                }
            }
        }
        if (c.words.empty()) {
            if (binding_.has(Rule::inline_code) && runs_inline_code(c)) found(Rule::inline_code, c);
            return;
        }
        if (c.query) return;
        // A wrapper that only passes words on (sudo, nice, timeout, xargs …) breaks no rule by
        // itself: its command is judged next. Shells, find and env are judged as commands.
        if (c.is_wrapper && !c.is("find") && !c.is("env") && interpreter_of(c) == nullptr) {
            if (binding_.has(Rule::inline_code))
                for (const Word& a : c.assignments)
                    if (assignment_loads_temp_code(a.text)) found(Rule::inline_code, c);
            return;
        }
        if (c.is("find")) note_find(c);
        if (binding_.has(Rule::git_write) && c.is("git") &&
            (runs_git_write(c) || git_alias_runs_write(c)))
            found(Rule::git_write, c);
        if (binding_.has(Rule::git_write) && c.is("gh") && runs_gh_checkout(c))
            found(Rule::git_write, c);
        if (binding_.has(Rule::remove) && removes_files(c)) found(Rule::remove, c);
        if (binding_.has(Rule::inline_code) && runs_inline_code(c)) found(Rule::inline_code, c);
        if (binding_.has(Rule::file_write) && !judgement.broken.has(Rule::file_write)) {
            bool wrote = false;
            const bool unseen = written_files(c, [&](std::string_view target) {
                if (!wrote && writes(c, target)) wrote = true;
            });
            if (wrote || unseen) found(Rule::file_write, c);
        }
    }

private:
    RuleSet binding_;
    Place& place_;
    bool find_writes_ = false; // the last find's start points lie where `{}` would be a write

    void found(Rule rule, const Command& c) {
        if (judgement.broken.has(rule)) return;
        judgement.broken.add(rule);
        judgement.findings.push_back(
            {rule, std::string(c.name), shell::joined_words(c), shell::describe_path(c.path)});
    }

    // A target word of `c`: `{}` under find -exec is a path under find's start points. A target
    // whose `$` or `~` was quoted or escaped is a literal relative path (§7.2: `> '$HOME/x'` writes
    // ./$HOME/x).
    bool writes(const Command& c, std::string_view target) {
        if (c.via_find && target.find("{}") != std::string_view::npos) return find_writes_;
        if (!target.empty() && (target[0] == '$' || target[0] == '~') && is_literal_word(c, target))
            return is_write_target("./" + std::string(target), place_);
        return is_write_target(target, place_);
    }

    // True when `target` opens a word of `c` (or a redirection target) holding no expansion. The
    // words' starts are gathered once per command, so many such targets stay linear.
    bool is_literal_word(const Command& c, std::string_view target) {
        if (literal_serial_ != serial_) {
            literal_serial_ = serial_;
            literal_starts_.clear();
            for (const Word& w : c.words)
                if (!w.expands) literal_starts_.insert(w.text.data());
            for (const Redirect& r : c.redirects)
                if (!r.target.expands) literal_starts_.insert(r.target.text.data());
        }
        return literal_starts_.count(target.data()) != 0;
    }
    std::size_t serial_ = 0; // counts the commands judged
    std::size_t literal_serial_ = 0;
    std::unordered_set<const char*> literal_starts_;
    std::set<std::string> git_write_aliases_; // `git config alias.co checkout` earlier

    // `git config [--global …] alias.NAME VALUE` whose value is an R2 form (§7.2); and a later
    // `git NAME`.
    bool git_alias_runs_write(const Command& git) {
        const Words args = git.args();
        std::size_t i = 0;
        while (i < args.size() && args[i].text.starts_with("-")) {
            if (one_of(args[i].text, git_options_with_value)) ++i;
            ++i;
        }
        if (i >= args.size()) return false;
        if (args[i].text == "config") {
            std::size_t k = i + 1;
            while (k < args.size() && args[k].text.starts_with("-")) ++k;
            if (k + 1 < args.size()) {
                std::string key;
                for (const char ch : args[k].text) key += lower(ch);
                if (key.starts_with("alias.")) {
                    std::string value(args[k + 1].text);
                    const std::string first = value.substr(0, value.find(' '));
                    const bool hard = value.find("--hard") != std::string::npos ||
                                      value.find("--merge") != std::string::npos ||
                                      value.find("--keep") != std::string::npos;
                    if (one_of(std::string_view(first), git_writes) || (first == "reset" && hard) ||
                        first.starts_with("!"))
                        git_write_aliases_.insert(key.substr(6));
                }
            }
            return false;
        }
        return git_write_aliases_.count(std::string(args[i].text)) != 0;
    }

    // find's start points: the operands before its expression, after -H -L -P -D -O; "." when none.
    void note_find(const Command& find) {
        const Words args = find.args();
        std::size_t i = 0;
        for (; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w == "-H" || w == "-L" || w == "-P" || (w.starts_with("-O") && w.size() > 2))
                continue;
            if (w == "-D") {
                ++i;
                continue;
            }
            break;
        }
        find_writes_ = false;
        bool any = false;
        for (; i < args.size(); ++i) {
            const std::string_view w = args[i].text;
            if (w.starts_with("-") || w == "(" || w == "!" || w == ")" || w == ",") break;
            any = true;
            if (!find_writes_ && is_write_target(std::string(w) + "/found", place_))
                find_writes_ = true;
        }
        if (!any) find_writes_ = is_write_target("./found", place_);
    }
};

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

Judgement judge(std::string_view command, RuleSet binding, Place place) {
    if (binding.empty()) return {};
    Judge judge(binding, place);
    const shell::Summary summary = shell::read_commands(command, judge);
    Judgement out = std::move(judge.judgement);
    if (binding.has(Rule::chain) && summary.chain_operators > 0 && !out.broken.has(Rule::chain)) {
        out.broken.add(Rule::chain);
        out.findings.push_back({Rule::chain, "", "", ""});
    }
    return out;
}

RuleSet broken_rules(std::string_view command, RuleSet binding, Place place) {
    return judge(command, binding, std::move(place)).broken;
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

} // namespace viber::shell_guard
