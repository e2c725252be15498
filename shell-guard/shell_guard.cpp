// shell_guard.cpp: shell-guard, the Bash hook holding viber's coders and reviewers to R1-R5: the
// rules, R2's and R3's commands, where an R4 target lands, and the judgement of a command (its
// Contract opens main.cpp; the decision on a payload, with what --explain shows, is in
// decide.cpp; R5's interpreters are in interpreters.cpp, R4's writers in writers.cpp).
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

#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/os/git.hpp"
#include "common/os/paths.hpp"
#include "common/shell/shell_lexer.hpp"
#include "common/shell/shell_options.hpp"
#include "common/text/ascii.hpp"
#include "shell-guard/options.hpp"
#include "shell-guard/rules.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace viber::shell_guard {

namespace {

using shell::Command;
using shell::Redirect;
using shell::Word;

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
// R4: placing a target.

// Targets, cwd and the work tree compare in one spelling: Git Bash's (`C:\r\x` is `/c/r/x`), as
// the plan file limit reads paths (common/os/paths.hpp).
using paths::git_bash_spelling;
using paths::has_temp_segment;
using paths::lexically_normal;
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
        // `..` above the start leaves the tree: outside .temp/.
        const std::string normal = lexically_normal(path);
        if (normal == ".." || normal.starts_with("../")) return true;
        // A `.temp` segment anywhere is `.temp/`, and the path `.temp` itself counts as inside it
        // (§7.3: `src/.temp/a`).
        return !has_temp_segment(normal);
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
// R2: git's writes, kept as a table (git's global options: common/shell/shell_git).

constexpr std::array<std::string_view, 6> git_writes{"stash", "checkout", "restore",
                                                     "clean", "switch",   "checkout-index"};

// `alias.x=…` / `help.autocorrect=…` given to `-c`: either can make any word run a git write.
bool is_dangerous_git_config(std::string_view setting) {
    const std::string key = ascii::lowered(setting.substr(0, setting.find('=')));
    return key.starts_with("alias.") || key == "help.autocorrect";
}

// `GIT_CONFIG_KEY_<N>=alias.x`: git's environment configuration is `-c KEY=VALUE` (§7.3).
bool assigns_dangerous_git_key(std::string_view assignment) {
    constexpr std::string_view prefix = "GIT_CONFIG_KEY_";
    const std::size_t eq = assignment.find('=');
    if (eq == std::string_view::npos || !assignment.starts_with(prefix)) return false;
    const std::string_view n = assignment.substr(prefix.size(), eq - prefix.size());
    if (n.empty() || n.find_first_not_of("0123456789") != std::string_view::npos) return false;
    return is_dangerous_git_config(std::string(assignment.substr(eq + 1)) + "=");
}

// R2 for one git command.
bool runs_git_write(const Command& git) {
    const Words args = git.args();
    const shell::GitGlobals globals = shell::git_globals(args);
    if (std::ranges::any_of(globals.settings, is_dangerous_git_config)) return true;
    if (globals.exits || globals.subcommand >= args.size()) return false;
    const std::size_t i = globals.subcommand;
    const std::string_view subcommand = args[i].text;
    if (one_of(subcommand, git_writes)) return true;
    const Words rest = args.subspan(i + 1);
    // git reads a long option by any prefix no other option of the subcommand shares
    // (`git reset --ha` is --hard).
    if (subcommand == "reset")
        return std::any_of(rest.begin(), rest.end(), [](const Word& w) {
            return shell::lists_option("--h(ard) --me(rge) --k(eep) ", w.text);
        });
    // `submodule update --force` and `worktree remove --force` discard work (§7.3).
    if ((subcommand == "submodule" || subcommand == "worktree") && !rest.empty() &&
        rest[0].text == (subcommand == "submodule" ? "update" : "remove"))
        return std::any_of(rest.begin() + 1, rest.end(), [&](const Word& w) {
            return shell::lists_option(subcommand == "submodule" ? "--fo(rce) " : "--f(orce) ",
                                       w.text) ||
                   (w.text.size() > 1 && w.text[0] == '-' && w.text[1] != '-' &&
                    w.text.find('f') != std::string_view::npos);
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
        // Remove-Item and its aliases inside the command text (the arguments after -Command
        // joined, or the decoded -EncodedCommand: §7.3), in the words kill-guard reads.
        const std::optional<std::string> command =
            shell::powershell_command_text(c.args(), c.is("powershell"));
        if (command)
            for (const shell::PowerShellWord& word : shell::powershell_words(*command)) {
                const std::string token = ascii::lowered(word.text);
                if (token == "remove-item" || token == "ri" || token == "rm" || token == "del" ||
                    token == "erase" || token == "rd" || token == "rmdir")
                    return true;
            }
    }
    const Words args = c.args();
    if (c.is("shred")) {
        // -n N / -s N take the rest of their word: a `u` before them in the group still counts.
        static constexpr OptionGrammar shred_options{.attached_letters = "ns"};
        OptionReader reader(args, shred_options);
        while (const auto a = reader.next())
            if (a->in("-u --re(move) ")) return true;
        return false;
    }
    if (c.is("find")) return find_deletes(args);
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
        // `GIT_CONFIG_KEY_0=alias.x` assigned anywhere in the command (also through export,
        // declare or env) sets an alias for every later git (§7.3).
        for (const Word& a : c.assignments)
            if (assigns_dangerous_git_key(a.text)) git_env_alias_ = true;
        if (c.is("export") || c.is("declare") || c.is("typeset") || c.is("readonly") ||
            c.is("local") || c.is("env"))
            for (const Word& a : c.args())
                if (assigns_dangerous_git_key(a.text)) git_env_alias_ = true;
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
        // flock FILE and script FILE write their file before they run a command (§7.3).
        if (c.is_wrapper && !c.is("find") && !c.is("env") && !is_interpreter(c) && !c.is("flock") &&
            !c.is("script")) {
            if (binding_.has(Rule::inline_code))
                for (const Word& a : c.assignments)
                    if (assignment_loads_temp_code(a.text)) found(Rule::inline_code, c);
            return;
        }
        if (c.is("find")) note_find(c);
        if (binding_.has(Rule::git_write) && c.is("git") &&
            (git_env_alias_ || runs_git_write(c) || git_alias_runs_write(c)))
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
    bool git_env_alias_ = false;              // GIT_CONFIG_KEY_N=alias.* assigned earlier

    // `git config [--global …] alias.NAME VALUE` whose value is an R2 form (§7.2); and a later
    // `git NAME`.
    bool git_alias_runs_write(const Command& git) {
        const Words args = git.args();
        const shell::GitGlobals globals = shell::git_globals(args);
        const std::size_t i = globals.subcommand;
        if (globals.exits || i >= args.size()) return false;
        if (args[i].text == "config") {
            std::size_t k = i + 1;
            while (k < args.size() && args[k].text.starts_with("-")) ++k;
            if (k + 1 < args.size()) {
                const std::string key = ascii::lowered(args[k].text);
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

std::string RuleSet::to_string(std::string_view separator) const {
    if (empty()) return "allow";
    std::string out;
    for (unsigned r = 1; r <= 5; ++r) {
        if (!has(static_cast<Rule>(r))) continue;
        if (!out.empty()) out += separator;
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
    out.unread = summary.reached_command_cap;
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
