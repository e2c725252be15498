// shell_wrappers.cpp: the wrapper table (docs/command-model.md, "Wrappers") and how a wrapper's
// options are read to find the command it runs.
#include "common/shell/shell_git.hpp"
#include "common/shell/shell_lexer_internal.hpp"
#include "common/shell/shell_options.hpp"

namespace viber::shell::detail {

namespace {

constexpr std::array wrapper_rules{
    // Long options by GNU prefix where the tool reads them with getopt_long (sudo, coreutils,
    // util-linux, findutils, GNU time, procps): the shortest prefix no other option shares.
    WrapperRule{.name = "sudo",
                .value_options = "ugphCDrtUTR",
                .long_values = "--u(ser) --g(roup) --ho(st) --pro(mpt) --cl(ose-from) --chd(ir) "
                               "--chr(oot) --ro(le) --t(ype) --o(ther-user) --co(mmand-timeout) ",
                .assignments = Assignments::before_dashdash},
    WrapperRule{.name = "doas", .value_options = "uC"},
    WrapperRule{.name = "env",
                .value_options = "uCSP",
                .long_values = "--u(nset) --c(hdir) ",
                .split_string_option = 'S',
                .assignments = Assignments::always,
                .dash_is_option = true},
    WrapperRule{.name = "command", .query_options = "vV"},
    WrapperRule{.name = "builtin"},
    WrapperRule{.name = "exec", .value_options = "a"},
    WrapperRule{.name = "nohup"},
    WrapperRule{.name = "time", .value_options = "fo", .long_values = "--f(ormat) --o(utput) "},
    WrapperRule{.name = "nice", .value_options = "n", .long_values = "--a(djustment) "},
    WrapperRule{.name = "timeout",
                .value_options = "sk",
                .long_values = "--s(ignal) --k(ill-after) ",
                .operands = 1},
    WrapperRule{
        .name = "stdbuf", .value_options = "ioe", .long_values = "--i(nput) --o(utput) --e(rror) "},
    WrapperRule{.name = "setsid"},
    WrapperRule{.name = "unbuffer"},
    WrapperRule{.name = "unshare", .value_options = "SGRw"},
    WrapperRule{.name = "ionice", .value_options = "cnp"},
    WrapperRule{.name = "chrt", .query_options = "p", .operands = 1},
    WrapperRule{.name = "taskset", .query_options = "p", .operands = 1},
    WrapperRule{.name = "flock",
                .value_options = "wE",
                .long_values = "--timeout --conflict-exit-code ",
                .shell_string_option = 'c',
                .operands = 1},
    WrapperRule{.name = "chroot", .long_values = "--u(serspec) --g(roups) ", .operands = 1},
    WrapperRule{.name = "runuser",
                .value_options = "ugGsw",
                .long_values = "--u(ser) --g(roup) --su(pp-group) --sh(ell) "
                               "--w(hitelist-environment) ",
                .shell_string_option = 'c',
                .shell_string_long = "--c(ommand) --se(ssion-command) "},
    WrapperRule{.name = "su",
                .value_options = "ugGsw",
                .long_values = "--u(ser) --g(roup) --su(pp-group) --sh(ell) "
                               "--w(hitelist-environment) ",
                .shell_string_option = 'c',
                .shell_string_long = "--c(ommand) --se(ssion-command) ",
                .rest = Rest::nothing},
    WrapperRule{.name = "script",
                .value_options = script_value_letters,
                .attached_only = script_attached_letters,
                .long_values = script_long_values,
                .shell_string_option = 'c',
                .shell_string_long = "--c(ommand) ",
                .permutes = true,
                .operands = 1},
    WrapperRule{.name = "watch",
                .value_options = "nq",
                .attached_only = "d",
                .long_values = "--i(nterval) --eq(uexit) ",
                .exec_option = 'x',
                .exec_long = "--ex(ec) ",
                .rest = Rest::joined_line},
    WrapperRule{.name = "strace", .value_options = "eopsuaIXPb"},
    WrapperRule{.name = "ltrace", .value_options = "eopsuanAD"},
    WrapperRule{
        // systemd 252's `systemd-run --help`: the options that take a value; getopt_long
        // prefixes.
        .name = "systemd-run",
        .value_options = "HMupE",
        .long_values =
            "--ho(st) --m(achine) --un(it) --pr(operty) --d(escription) --slice "
            "--ser(vice-type) --ui(d) --g(id) --ni(ce) --wo(rking-directory) --set(env) "
            "--pa(th-property) --so(cket-property) --on-a(ctive) --on-b(oot) --on-s(tartup) "
            "--on-unit-a(ctive) --on-unit-i(nactive) --on-ca(lendar) --t(imer-property) ",
    },
    WrapperRule{.name = "busybox"},
    WrapperRule{.name = "xargs",
                .value_options = "nPILsdEaJRS",
                .attached_only = "iel",
                // --eof, --replace and --max-lines take only an attached `=VALUE`.
                .long_values = "--a(rg-file) --d(elimiter) --max-a(rgs) --max-p(rocs) "
                               "--max-c(hars) --p(rocess-slot-var) ",
                .fed_by_input = true},
    // GNU parallel 20221122's Getopt::Long table (bundling: one letter after `-`; a long option
    // by any prefix no other option shares, its aliases aside): the options that take a value;
    // -e, -i, -l (and --eof, --replace, --max-lines) take one only attached.
    WrapperRule{
        .name = "parallel",
        .value_options = "BCDEHIJLNPSUWadjns",
        .attached_only = "eil",
        .long_values =
            "--arg-file --arg-file-(sep) --arg-s(ep) --argfile --argfiles(ep) --args(ep) "
            "--basef(ile) --basenamee(xtensionreplace) --basenamer(eplace) --bf --bin "
            "--block --block-s(ize) --block-t(imeout) --blocks(ize) --blockt(imeout) "
            "--bne(r) --bnr --bt --col-(sep) --cols(ep) --compressp(rogram) --ctag-(string) "
            "--ctags(tring) --deb(ug) --decompressp(rogram) --dela(y) --deli(miter) "
            "--di(rnamereplace) --dn(r) --en(v) --er --ext(ensionreplace) --group-(by) "
            "--groupb(y) --hal(t) --hal(t-on-error) --hal(tonerror) --hea(der) --id --jl "
            "--jobl(og) --jobs --lim(it) --linki(nputsource) --lo(ad) --max-a(rgs) "
            "--max-c(hars) --max-p(rocs) --max-r(eplace-args) --maxa(rgs) --maxc(hars) "
            "--maxp(rocs) --maxr(eplaceargs) --memf(ree) --mems(uspend) --mi(n-version) "
            "--mi(nversion) --ni(ce) --pa(rens) --proc(ess-slot-var) --proc(essslotvar) "
            "--prof(ile) --rece(nd) --recs(tart) --res --resul(t) --resul(ts) --retri(es) "
            "--retu(rn) --rp(l) --rs(ync-opts) --rs(yncopts) --semaphore-n(ame) "
            "--semaphore-t(imeout) --semaphoren(ame) --semaphoret(imeout) --seq(replace) "
            "--sha(rd) --slf --slo(treplace) --sql --sql-a(nd-worker) --sql-m(aster) "
            "--sql-w(orker) --sqla(ndworker) --sqlm(aster) --sqlw(orker) --ssh --ssh-(delay) "
            "--sshd(elay) --sshlogin --sshloginf(ile) --st --tag-(string) --tags(tring) "
            "--tempd(ir) --templ(ate) --ter(m-seq) --ter(mseq) --tf --ti(meout) --tmpd(ir) "
            "--tmpl --tot(al) --tot(al-jobs) --tot(aljobs) --transfer-(file) "
            "--transfer-(files) --transferf(ile) --transferf(iles) --trc --tri(m) "
            "--usecom(pressprogram) --used(ecompressprogram) --wd --wo(rk-dir) --wo(rkdir) "
            "--xapplyi(nputsource) ",
        .rest = Rest::parallel,
        .fed_by_input = true},
    WrapperRule{.name = "find", .rest = Rest::find_clauses},
    WrapperRule{.name = "fd", .rest = Rest::fd_clauses},
    WrapperRule{.name = "fdfind", .rest = Rest::fd_clauses},
    WrapperRule{.name = "ssh",
                .value_options = "piloOFJLRDbcEemQSWwBI",
                .operands = 1,
                .rest = Rest::joined_line},
    WrapperRule{.name = "docker",
                .subcommand = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --env-file --detach-keys ",
                .operands = 1},
    WrapperRule{.name = "podman",
                .subcommand = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --env-file --detach-keys ",
                .operands = 1},
    WrapperRule{.name = "docker",
                .subcommand = "compose",
                .subcommand2 = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --index ",
                .operands = 1},
    WrapperRule{.name = "docker-compose",
                .subcommand = "exec",
                .value_options = "euw",
                .long_values = "--env --user --workdir --index ",
                .operands = 1},
    WrapperRule{.name = "kubectl",
                .subcommand = "exec",
                .value_options = "cnf",
                .long_values = "--container --namespace --filename --context --kubeconfig "
                               "--pod-running-timeout ",
                .operands = 1,
                .after_dashdash = true},
    WrapperRule{.name = "wsl",
                .value_options = "du",
                .long_values = "--distribution --user --cd --shell-type ",
                .exec_option = 'e',
                .rest = Rest::joined_line},
    WrapperRule{.name = "npx",
                .value_options = "p",
                .long_values = "--package --call ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "pnpx",
                .value_options = "p",
                .long_values = "--package ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "npm",
                .subcommand = "exec",
                .value_options = "pw",
                .long_values = "--package --workspace --call ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "uvx",
                .value_options = "p",
                .long_values = "--from --with --with-requirements --python --index --directory ",
                .version_suffix = true},
    WrapperRule{.name = "pipx",
                .subcommand = "run",
                .long_values = "--spec --python --index-url --pip-args ",
                .version_suffix = true},
    WrapperRule{.name = "conda",
                .subcommand = "run",
                .value_options = "np",
                .long_values = "--name --prefix --cwd "},
    WrapperRule{
        .name = "pdm", .subcommand = "run", .value_options = "p", .long_values = "--project "},
    WrapperRule{.name = "hatch", .subcommand = "run"},
    WrapperRule{.name = "rye", .subcommand = "run"},
    WrapperRule{
        .name = "bunx", .value_options = "p", .long_values = "--package ", .version_suffix = true},
    WrapperRule{.name = "pnpm",
                .subcommand = "dlx",
                .value_options = "p",
                .long_values = "--package ",
                .shell_string_option = 'c',
                .version_suffix = true},
    WrapperRule{.name = "pnpm",
                .subcommand = "exec",
                .value_options = "CF",
                .long_values = "--dir --filter ",
                .shell_string_option = 'c'},
    WrapperRule{.name = "yarn",
                .subcommand = "dlx",
                .value_options = "p",
                .long_values = "--package ",
                .version_suffix = true},
    WrapperRule{.name = "yarn", .subcommand = "exec"},
    WrapperRule{
        .name = "uv",
        .subcommand = "run",
        .value_options = "p",
        .long_values = "--with --with-requirements --python --from --project --directory "
                       "--env-file --extra --group --index --package --module ",
    },
    WrapperRule{.name = "poetry",
                .subcommand = "run",
                .value_options = "CP",
                .long_values = "--directory --project "},
    WrapperRule{.name = "pipenv", .subcommand = "run"},
    WrapperRule{.name = "cmd", .rest = Rest::joined_line},
    // `git [GLOBAL OPTIONS] submodule [--quiet] foreach [--recursive] STRING`: git runs STRING
    // in each submodule (§7.2).
    WrapperRule{.name = "git",
                .subcommand = "submodule",
                .subcommand2 = "foreach",
                .rest = Rest::joined_line,
                .git_globals = true,
                .between = "--quiet -q "},
};

bool contains(std::string_view letters, char c) {
    return c != 0 && letters.find(c) != std::string_view::npos;
}

// `/c`, `//c`, `/C`: cmd's "run this line".
bool is_cmd_run_option(std::string_view w) {
    std::size_t slashes = 0;
    while (slashes < w.size() && w[slashes] == '/') ++slashes;
    return slashes > 0 && w.size() == slashes + 1 && lower(w[slashes]) == 'c';
}

// Where a rule's command line goes on after its subcommand words, in words[i, end) with i the word
// after the wrapper's name: the index after them, or nullopt when they are not there.
std::optional<std::size_t> after_subcommands(const WrapperRule& rule, std::span<const Word> words,
                                             std::size_t i, std::size_t end) {
    if (rule.subcommand.empty()) return i;
    if (rule.git_globals) {
        const GitGlobals globals = git_globals(words.subspan(i, end - i));
        if (globals.exits) return std::nullopt;
        i += globals.subcommand;
    }
    if (i >= end || words[i].text != rule.subcommand) return std::nullopt;
    ++i;
    if (rule.subcommand2.empty()) return i;
    while (i < end && lists_option(rule.between, words[i].text)) ++i;
    if (i >= end || words[i].text != rule.subcommand2) return std::nullopt;
    return i + 1;
}

} // namespace

Lexer::WrapperReading Lexer::read_wrapper(std::span<const Word> words, std::size_t i,
                                          std::size_t end, const WrapperRule& rule) {
    WrapperReading out;
    i = *after_subcommands(rule, words, i, end); // already matched by wrapper_for
    bool saw_user = false;      // runuser -u USER: a command follows; else USER -c STRING
    unsigned operands_read = 0; // operands passed over among the options (rule.permutes)
    while (i < end) {
        const std::string_view w = words[i].text;
        if (w == "--") {
            ++i;
            if (rule.assignments == Assignments::always)
                while (i < end && is_assignment(words[i].text)) ++i;
            break;
        }
        if (w == "-" && rule.dash_is_option) {
            ++i;
            continue;
        }
        if (rule.name == "cmd" && w.starts_with("/")) {
            ++i;
            if (is_cmd_run_option(w)) break;
            continue;
        }
        if (w.size() > 2 && w[0] == '-' && w[1] == '-') {
            const std::size_t eq = w.find('=');
            const std::string_view option = w.substr(0, eq);
            if (rule.split_string_option != 0 && lists_option("--s(plit-string) ", option)) {
                if (eq != std::string_view::npos)
                    out.split_string = w.substr(eq + 1);
                else if (i + 1 < end)
                    out.split_string = script_of(*simple_, words[++i]);
            } else if (rule.shell_string_option != 0 &&
                       lists_option(rule.shell_string_long, option)) {
                if (eq != std::string_view::npos) {
                    out.split_string = w.substr(eq + 1);
                    out.query = false;
                } else if (i + 1 < end) {
                    out.shell_string = ++i;
                }
            } else if (rule.exec_option != 0 && lists_option(rule.exec_long, option)) {
                out.exec = true;
            } else if (eq == std::string_view::npos && lists_option(rule.long_values, option)) {
                ++i;
            }
            if (lists_option("--u(ser) ", option)) saw_user = true;
            ++i;
            continue;
        }
        if (w.size() > 1 && w[0] == '-') {
            bool consumed_next = false;
            for (std::size_t k = 1; k < w.size(); ++k) {
                const char letter = w[k];
                if (letter == 'u') saw_user = true;
                if (contains(rule.query_options, letter)) out.query = true;
                if (letter == rule.exec_option) out.exec = true;
                const bool shell_string = letter == rule.shell_string_option;
                const bool split = letter == rule.split_string_option;
                if (shell_string || split || contains(rule.value_options, letter)) {
                    if (k + 1 < w.size()) {
                        if (shell_string || split) out.split_string = w.substr(k + 1);
                    } else if (i + 1 < end) {
                        if (shell_string) out.shell_string = i + 1;
                        if (split) out.split_string = script_of(*simple_, words[i + 1]);
                        consumed_next = true;
                    }
                    break;
                }
                if (contains(rule.attached_only, letter)) break;
            }
            if (out.split_string && rule.split_string_option == 0) {
                // `-cSTRING`: a shell string given attached.
                out.command = end;
                return out;
            }
            i += consumed_next ? 2 : 1;
            continue;
        }
        if (rule.assignments != Assignments::none && is_assignment(w)) {
            ++i;
            continue;
        }
        if (rule.permutes && operands_read < rule.operands) {
            // `script /dev/null -qc STRING`: the operand, then more options.
            ++operands_read;
            ++i;
            continue;
        }
        break;
    }
    if (!out.query && !out.shell_string && !out.split_string) {
        for (unsigned k = operands_read; k < rule.operands && i < end; ++k) ++i;
        // `kubectl exec POD -c app -- cmd`, `docker exec C -- cmd`.
        if (rule.after_dashdash)
            for (std::size_t k = i; k < end; ++k)
                if (words[k].text == "--") {
                    i = k;
                    break;
                }
        if (rule.operands > 0 && i < end && words[i].text == "--") ++i;
        // `flock FILE -c STRING`, `script FILE -c …` after the operand.
        if (rule.shell_string_option != 0 && i + 1 < end && words[i].text.size() == 2 &&
            words[i].text[0] == '-' && words[i].text[1] == rule.shell_string_option)
            out.shell_string = i + 1;
    }
    // runuser [-l] USER -c STRING reads as su does; `runuser -u USER cmd` runs cmd.
    const bool su_like = rule.rest == Rest::nothing || (rule.name == "runuser" && !saw_user);
    if (su_like && !out.shell_string && !out.split_string) {
        out.nothing = true;
        // su USER -c STRING: the option may follow the user (`-lc`, `--comm=STRING` alike).
        for (std::size_t k = i; k < end && !out.shell_string && !out.split_string; ++k) {
            const std::string_view t = words[k].text;
            if (t.starts_with("--")) {
                const std::size_t eq = t.find('=');
                if (!lists_option(rule.shell_string_long, t.substr(0, eq))) continue;
                if (eq != std::string_view::npos)
                    out.split_string = t.substr(eq + 1);
                else if (k + 1 < end)
                    out.shell_string = k + 1;
            } else if (t.size() > 1 && t[0] == '-') {
                for (std::size_t l = 1; l < t.size(); ++l) {
                    if (t[l] == rule.shell_string_option) {
                        if (l + 1 < t.size())
                            out.split_string = t.substr(l + 1);
                        else if (k + 1 < end)
                            out.shell_string = k + 1;
                        break;
                    }
                    if (contains(rule.value_options, t[l])) break;
                }
            }
        }
    }
    out.command = i;
    return out;
}

const WrapperRule* Lexer::wrapper_for(std::string_view name, std::span<const Word> words,
                                      std::size_t i, std::size_t end) const {
    if (name.empty()) return nullptr;
    for (const WrapperRule& rule : wrapper_rules) {
        if (rule.name[0] != name[0] || rule.name != name) continue;
        if (after_subcommands(rule, words, i + 1, end)) return &rule;
    }
    return nullptr;
}

} // namespace viber::shell::detail
