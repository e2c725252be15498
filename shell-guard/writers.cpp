// writers.cpp: shell-guard's R4 writers: which redirections write, and the writer table: the
// commands that write files, each with the reader of which of its words are the files. Where a
// target lands (inside the work tree, outside .temp/) is is_write_target's, in shell_guard.cpp
// with why R4 exists.
#include "common/shell/shell_options.hpp"
#include "shell-guard/options.hpp"
#include "shell-guard/rules.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::shell_guard {

using shell::Command;
using shell::Redirect;
using shell::RedirectKind;
using shell::Word;

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

namespace {

// The writer table's row (below): how the command's options read, which options and operands
// name the files it writes, and the reader of what a row cannot say.
struct Writer;
using WrittenFiles = bool (*)(const Command& c, const Writer& row, const WriteTarget& write);
using CommandForm = bool (*)(Words args);

enum class Written : unsigned char { none, all, first }; // which operands are files written

struct Writer {
    std::string_view name;          // the command, as Command::is matches it
    bool versioned = false;         // the name and a version: perl5.36, ruby3.2
    CommandForm only_for = nullptr; // when set: the row holds for this form of the command
    OptionGrammar options = {};     // how its words read as options and operands
    std::string_view writes = {};   // the options whose value is a file written: "-o --output "
    Written operands = Written::none;
    WrittenFiles files =
        nullptr; // when set: reads the command's words, calls `write` for each file
};

// A row that says it all: the values of its `writes` options and its written operands.
bool row_files(const Command& c, const Writer& row, const WriteTarget& write) {
    OptionReader reader(c.args(), row.options);
    bool first = true;
    while (const auto a = reader.next()) {
        if (a->in(row.writes)) write(a->value.value_or(""));
        if (!a->operand) continue;
        if (row.operands == Written::all || (first && row.operands == Written::first))
            write(a->text);
        first = false;
    }
    return false;
}

// A sed script's `w FILE` / `W FILE` commands and `s/…/…/w FILE` flags: FILE is the rest of the
// line. Addresses, `s` and `y` bodies (with their escapes) and text commands are stepped over in
// one pass.
void sed_script_writes(std::string_view script, const WriteTarget& write) {
    std::size_t i = 0;
    const auto rest_of_line = [&] {
        while (i < script.size() && (script[i] == ' ' || script[i] == '\t')) ++i;
        const std::size_t end = std::min(script.find('\n', i), script.size());
        const std::string_view file = script.substr(i, end - i);
        i = end;
        return file;
    };
    const auto skip_delimited = [&](char delimiter) { // to just after the closing delimiter
        while (i < script.size() && script[i] != delimiter) {
            if (script[i] == '\\') ++i;
            ++i;
        }
        if (i < script.size()) ++i;
    };
    while (i < script.size()) {
        const char c = script[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == '!' ||
            c == ',' || c == '$' || c == '+' || c == '~' || (c >= '0' && c <= '9')) {
            ++i;
            continue;
        }
        if (c == '/' || c == '\\') { // an address: /re/ or \cREc
            if (c == '\\') ++i;
            if (i >= script.size()) break;
            const char delimiter = script[i++];
            skip_delimited(delimiter);
            while (i < script.size() && (script[i] == 'I' || script[i] == 'M')) ++i;
            continue;
        }
        ++i;
        if (c == 'w' || c == 'W') {
            const std::string_view file = rest_of_line();
            if (!file.empty()) write(file);
            continue;
        }
        if (c == 's' || c == 'y') {
            if (i >= script.size()) break;
            const char delimiter = script[i++];
            skip_delimited(delimiter);
            skip_delimited(delimiter);
            if (c == 'y') continue;
            while (i < script.size() && script[i] != ';' && script[i] != '\n' && script[i] != '}') {
                if (script[i] == 'w') {
                    ++i;
                    const std::string_view file = rest_of_line();
                    if (!file.empty()) write(file);
                    break;
                }
                ++i;
            }
            continue;
        }
        if (c == 'a' || c == 'i' || c == 'c' || c == 'r' || c == 'R' || c == 'b' || c == 't' ||
            c == 'T' || c == ':' || c == 'e' || c == 'v' || c == 'L' || c == 'q' || c == 'Q' ||
            c == 'l' || c == '#') {
            (void)rest_of_line(); // text, a label or a file read: to the end of the line
            continue;
        }
    }
}

// sed -i (also -i.bak, -Ei, --in-place and its prefixes): the operands after the script, which is
// the first operand unless -e / -f / --expression / --file gave it.
bool sed_in_place_files(const Command& c, const Writer& row, const WriteTarget& write) {
    bool in_place = false, script_given = false;
    std::vector<std::string_view> operands;
    std::vector<std::string_view> scripts; // -e values, or the first operand
    OptionReader reader(c.args(), row.options);
    while (const auto a = reader.next()) {
        if (a->operand) {
            operands.push_back(a->text);
        } else if (a->in("-i --i(n-place) ")) {
            in_place = true;
        } else if (a->in("-e -f --e(xpression) --fi(le) ")) {
            script_given = true;
            if (a->in("-e --e(xpression) ") && a->value) scripts.push_back(*a->value);
        }
    }
    if (!script_given && !operands.empty()) scripts.push_back(operands.front());
    // sed's `w FILE` command and `s///w FILE` flag write FILE (§7.3).
    for (const std::string_view script : scripts) sed_script_writes(script, write);
    if (!in_place) return false;
    if (c.fed_by_input) return true;
    for (std::size_t k = script_given ? 0 : 1; k < operands.size(); ++k) write(operands[k]);
    return false;
}

// perl -i and ruby -i edit in place the operands after the script (or every operand after -e
// CODE), read with R5's switch grammar.
template <const SwitchGrammar& grammar>
bool switch_in_place_files(const Command& c, const Writer&, const WriteTarget& write) {
    const Words args = c.args();
    const Switches switches = read_switches(args, grammar);
    if (!switches.in_place) return false;
    if (c.fed_by_input) return true;
    const std::size_t first = switches.first_operand + (switches.inline_code ? 0 : 1);
    for (std::size_t k = first; k < args.size(); ++k) write(args[k].text);
    return false;
}

// gawk's -i / --include loads a library; `-i inplace` is the one that edits files in place.
bool loads_library(Words args) {
    return std::any_of(args.begin(), args.end(), [](const Word& w) {
        return w.text == "-i" || w.text == "--include" || w.text == "-iinplace" ||
               w.text == "--include=inplace";
    });
}

bool awk_print_files(const Command& c, const Writer& row, const WriteTarget& write);

// gawk -i inplace / --include=inplace: the files it reads (after the program, or after the options
// when -f names the program); and with any library loaded, the files the program prints to, as
// for any awk.
bool gawk_in_place_files(const Command& c, const Writer& row, const WriteTarget& write) {
    const Words args = c.args();
    const AwkLine line = read_awk_line(args);
    if (!line.in_place) return awk_print_files(c, row, write);
    if (c.fed_by_input) return true;
    for (std::size_t k = line.files; k < args.size(); ++k) write(args[k].text);
    return awk_print_files(c, row, write);
}

// cp, install, ln and mv: the destination (the last operand, or -t DIR); mv also its sources.
bool destination_files(const Command& c, const Writer& row, const WriteTarget& write) {
    std::vector<std::string_view> files;
    std::optional<std::string_view> target_directory;
    OptionReader reader(c.args(), row.options);
    while (const auto a = reader.next()) {
        if (a->operand) files.push_back(a->text);
        if (a->in("-t --t(arget-directory) ") && a->value) target_directory = a->value;
    }
    // A directory destination: the files land inside it.
    const auto into = [&](std::string_view dir) { write(std::string(dir) + "/f"); };
    if (target_directory) {
        into(*target_directory);
        if (c.is("mv"))
            for (std::string_view f : files) write(f);
        return false;
    }
    if (files.empty()) return c.fed_by_input;
    if (c.is("mv"))
        for (std::size_t k = 0; k + 1 < files.size(); ++k) write(files[k]);
    if (files.back().ends_with("/"))
        into(files.back());
    else
        write(files.back());
    return false;
}

// dd: its of= operand.
bool dd_output_files(const Command& c, const Writer&, const WriteTarget& write) {
    const Words args = c.args();
    for (const Word& w : args)
        if (w.text.starts_with("of=")) write(w.text.substr(3));
    return false;
}

// `print > "file"` / `printf … >> "file"` in the program (§7.2): the first operand.
bool awk_print_files(const Command& c, const Writer&, const WriteTarget& write) {
    const Words args = c.args();
    const AwkLine line = read_awk_line(args);
    if (!line.program) return false; // a program file, or none
    const std::string_view program = args[*line.program].text;
    for (std::size_t at = program.find("print"); at != std::string_view::npos;
         at = program.find("print", at + 5)) {
        std::size_t p = at + 5;
        bool in_string = false;
        int parens = 0; // `print ($1 > 5)` compares; only a `>` outside parentheses redirects
        while (p < program.size() && (in_string || std::string_view(";}\n|").find(program[p]) ==
                                                       std::string_view::npos)) {
            if (program[p] == '\\' && in_string) {
                p += 2;
                continue;
            }
            if (program[p] == '"') in_string = !in_string;
            if (!in_string && program[p] == '(') ++parens;
            if (!in_string && program[p] == ')') --parens;
            if (!in_string && parens <= 0 && program[p] == '>') {
                std::size_t q = p + 1;
                if (q < program.size() && program[q] == '>') ++q;
                while (q < program.size() && program[q] == ' ') ++q;
                std::size_t close = std::string_view::npos;
                if (q < program.size() && program[q] == '"') close = program.find('"', q + 1);
                std::size_t after = close == std::string_view::npos ? close : close + 1;
                while (after < program.size() && (program[after] == ' ' || program[after] == '\t'))
                    ++after;
                if (close != std::string_view::npos &&
                    (after >= program.size() ||
                     std::string_view(";}\n|)").find(program[after]) != std::string_view::npos))
                    write(program.substr(q + 1, close - q - 1)); // a literal string
                else
                    write("./awk-output"); // any other expression: a file in the cwd (§7.3)
                break;
            }
            ++p;
        }
    }
    return false;
}

// tar -x (and `tar xf`, --extract, --get): into -C DIR / --directory, else cwd. GNU tar reads a
// long option by any prefix no other shares (`--ext`, `--ge`, `--dir`, `--cr`).
bool tar_extract_files(const Command& c, const Writer&, const WriteTarget& write) {
    const Words args = c.args();
    bool extract = false;
    std::optional<std::string_view> directory;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        const std::size_t eq = w.find('=');
        const bool directory_option =
            w.starts_with("--") && shell::lists_option("--dir(ectory) ", w.substr(0, eq));
        if (shell::lists_option("--ext(ract) --ge(t) ", w))
            extract = true;
        else if (directory_option && eq != std::string_view::npos)
            directory = w.substr(eq + 1);
        else if (directory_option && i + 1 < args.size())
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
    // Creating or updating an archive (`-c`, `-r`, `-u`, bundled `czf`) writes its -f FILE (§7.3).
    bool create = false;
    std::optional<std::string_view> archive;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (shell::lists_option("--cr(eate) --ap(pend) --up(date) ", w)) create = true;
        if (w.starts_with("--file=")) archive = w.substr(7);
        if (w == "--file" && i + 1 < args.size()) archive = args[++i].text;
        const bool bundle = i == 0 && !w.empty() && w[0] != '-';
        if (!bundle && !(w.size() > 1 && w[0] == '-' && w[1] != '-')) continue;
        const std::size_t first = bundle ? 0 : 1;
        for (std::size_t k = first; k < w.size(); ++k) {
            if (w[k] == 'c' || w[k] == 'r' || w[k] == 'u') create = true;
            if (w[k] == 'C') break; // -C DIR
            if (w[k] == 'f') {
                if (!bundle && k + 1 < w.size())
                    archive = w.substr(k + 1);
                else if (i + 1 < args.size())
                    archive = args[i + 1].text;
                break;
            }
        }
    }
    if (create && archive) write(*archive);
    return false;
}

// shred without -u overwrites its operands in place (§7.3); with -u it is R3's.
bool shred_files(const Command& c, const Writer& row, const WriteTarget& write) {
    std::vector<std::string_view> files;
    OptionReader reader(c.args(), row.options);
    while (const auto a = reader.next()) {
        if (a->in("-u --re(move) ")) return false;
        if (a->operand) files.push_back(a->text);
    }
    for (const std::string_view f : files) write(f);
    return false;
}

// flock FILE …: creates FILE, as touch does (§7.3); a descriptor number is no file.
bool flock_files(const Command& c, const Writer& row, const WriteTarget& write) {
    OptionReader reader(c.args(), row.options);
    while (const auto a = reader.next()) {
        if (!a->operand) continue;
        if (a->text.find_first_not_of("0123456789") != std::string_view::npos) write(a->text);
        break;
    }
    return false;
}

// script [FILE]: the typescript (`./typescript` when none), and the logs its options name (§7.3).
bool script_files(const Command& c, const Writer& row, const WriteTarget& write) {
    // A wrapper's words end at what it runs: the FILE after `-c STRING` is read from the simple
    // command as written.
    Words args = c.args();
    const Word* const first = c.words.data();
    if (!c.simple_words.empty() && first >= c.simple_words.data() &&
        first < c.simple_words.data() + c.simple_words.size())
        args = c.simple_words.subspan(static_cast<std::size_t>(first - c.simple_words.data()) + 1);
    // Options may follow the typescript's name (util-linux reads them in any order).
    OptionReader reader(args, row.options);
    bool named = false;
    while (const auto a = reader.next()) {
        if (a->operand) {
            if (!named) write(a->text);
            named = true;
        } else if (a->in(row.writes) && a->value) {
            write(*a->value);
        }
    }
    if (!named) write("./typescript");
    return false;
}

// unzip: into -d DIR, else cwd; -l, -v, -t, -Z and -p only list or print.
bool unzip_files(const Command& c, const Writer&, const WriteTarget& write) {
    const Words args = c.args();
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

// rsync: into its last operand, a remote one (host:path) excepted.
bool rsync_destination_files(const Command& c, const Writer& row, const WriteTarget& write) {
    std::vector<std::string_view> operands;
    OptionReader reader(c.args(), row.options);
    while (const auto a = reader.next())
        if (a->operand) operands.push_back(a->text);
    if (operands.size() >= 2 && operands.back().find(':') == std::string_view::npos)
        write(std::string(operands.back()) + "/f");
    return false;
}

// curl: the files its options name (the output, and the files curl logs into, §7.3), and -O /
// --remote-name into --output-dir or cwd.
bool curl_output_files(const Command& c, const Writer& row, const WriteTarget& write) {
    bool remote_name = false;
    std::optional<std::string_view> output_directory;
    OptionReader reader(c.args(), row.options);
    while (const auto a = reader.next()) {
        if (a->in(row.writes))
            write(a->value.value_or(""));
        else if (a->in("-O --remote-name --remote-name-all "))
            remote_name = true;
        else if (a->in("--output-dir "))
            output_directory = a->value.value_or("");
    }
    if (remote_name) // into --output-dir, the tree root included (§7.2), else cwd
        write(output_directory ? std::string(*output_directory) + "/downloaded" : "./downloaded");
    return false;
}

// wget: the files its options name (-O FILE, and the logs -o / -a, §7.3), -P DIR /
// --directory-prefix, else into cwd (not with --spider).
bool wget_output_files(const Command& c, const Writer& row, const WriteTarget& write) {
    bool named = false, spider = false;
    OptionReader reader(c.args(), row.options);
    while (const auto a = reader.next()) {
        const std::string_view value = a->value.value_or("");
        if (a->in(row.writes)) {
            write(value);
            named = named || a->in("-O --output-document ");
        } else if (a->in("--directory-prefix ")) {
            write(std::string(value) + "/f");
            named = true;
        } else if (a->in("-P ")) {
            // A directory prefix: the file lands inside it.
            if (!value.empty() && value != "-") write(std::string(value) + "/f");
            named = true;
        } else if (a->in("--spider ")) {
            spider = true;
        }
    }
    if (!named && !spider) write("./downloaded");
    return false;
}

// git apply writes into the work tree unless it only reports; git diff, log, show and
// format-patch write their --output FILE. The global options before the subcommand are
// shell::git_globals' (common/shell/shell_git.hpp).
bool git_apply_files(const Command& c, const Writer&, const WriteTarget& write) {
    const Words args = c.args();
    const shell::GitGlobals globals = shell::git_globals(args);
    if (globals.exits) return false;
    const std::size_t i = globals.subcommand;
    // `git diff --output=FILE` (log, show, format-patch too) writes the patch to FILE.
    if (i < args.size() && (args[i].text == "diff" || args[i].text == "log" ||
                            args[i].text == "show" || args[i].text == "format-patch")) {
        for (std::size_t k = i + 1; k < args.size(); ++k) {
            const std::string_view w = args[k].text;
            if (w == "--") break;
            if (w.starts_with("--output="))
                write(w.substr(9));
            else if (w == "--output" && k + 1 < args.size())
                write(args[++k].text);
        }
        return false;
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

// patch writes into the work tree unless it only checks.
bool patch_files(const Command& c, const Writer&, const WriteTarget& write) {
    const Words args = c.args();
    for (const Word& w : args)
        if (w.text == "--dry-run" || w.text == "-C" || w.text == "--check") return false;
    write("./patched");
    return false;
}

// The writer table. A command's row is the first whose name it matches, so the order is part of the
// rule: a glob name (`c?`) may match several rows, and awk and gawk have two. Their first row holds
// only for a command loading a library (`gawk -i inplace`: the files it edits; with any library,
// what the program prints to); any other awk command goes on down to the row that reads its
// program's `print > "file"`.
// GNU's copy family: -S / --suffix take a value, -t DIR / --target-directory (any prefix from --t:
// no other long option of cp, mv, ln or install opens with t) name the directory the files land
// in. touch, truncate and zip read -t the same way.
constexpr OptionGrammar copy_options{.value_letters = "St",
                                     .long_values = "--suffix --t(arget-directory) "};

// sed: -e SCRIPT, -f FILE, -l N take a value, -i[SUFFIX] only the rest of its word; the long
// options by any prefix GNU sed takes.
constexpr OptionGrammar sed_options{.value_letters = "efl",
                                    .attached_letters = "i",
                                    .long_values = "--e(xpression) --fi(le) --l(ine-length) "};

constexpr std::array writers{
    Writer{.name = "tee", .operands = Written::all},
    Writer{.name = "sed", .options = sed_options, .files = sed_in_place_files},
    Writer{.name = "gsed", .options = sed_options, .files = sed_in_place_files},
    Writer{.name = "perl", .versioned = true, .files = switch_in_place_files<perl_switches>},
    Writer{.name = "ruby", .versioned = true, .files = switch_in_place_files<ruby_switches>},
    Writer{.name = "gawk", .only_for = loads_library, .files = gawk_in_place_files},
    Writer{.name = "awk", .only_for = loads_library, .files = gawk_in_place_files},
    Writer{.name = "cp", .options = copy_options, .files = destination_files},
    Writer{.name = "install",
           .options = {.value_letters = "mogSt",
                       .long_values = "--mode --owner --group --suffix --t(arget-directory) "},
           .files = destination_files},
    Writer{.name = "ln", .options = copy_options, .files = destination_files},
    Writer{.name = "mv", .options = copy_options, .files = destination_files},
    Writer{.name = "dd", .files = dd_output_files},
    Writer{.name = "awk", .files = awk_print_files},
    Writer{.name = "gawk", .files = awk_print_files},
    Writer{.name = "mawk", .files = awk_print_files},
    Writer{.name = "nawk", .files = awk_print_files},
    // §7.2's writers: touch, sort -o, tar -x, unzip, rsync, sponge.
    Writer{.name = "touch",
           .options = {.value_letters = "dtr",
                       .long_values = "--date --reference --time --ta(rget-directory) "},
           .operands = Written::all},
    Writer{.name = "sponge", .options = {.dashdash_ends = false}, .operands = Written::all},
    // sort's -k, -S, -t and -T end a cluster (their value is the rest of the word) but never take
    // the next word; `--` ends nothing. GNU sort takes any prefix of --output (`--o=FILE`).
    Writer{.name = "sort",
           .options = {.value_letters = "o",
                       .attached_letters = "kStT",
                       .long_values = "--o(utput) ",
                       .dashdash_ends = false},
           .writes = "-o --o(utput) "},
    Writer{.name = "tar", .files = tar_extract_files},
    Writer{.name = "bsdtar", .files = tar_extract_files},
    Writer{.name = "unzip", .files = unzip_files},
    Writer{.name = "rsync",
           .options = {.value_words = "-e -f ",
                       .long_values = "--rsh --exclude --include --filter ",
                       .dashdash_ends = false},
           .files = rsync_destination_files},
    Writer{.name = "truncate",
           .options = {.value_letters = "srt",
                       .long_values = "--size --reference --ta(rget-directory) "},
           .operands = Written::all},
    // Most of curl's long options take a value; the flags listed are the common ones.
    Writer{.name = "curl",
           .options = {.value_letters = "AbcCdDeEFHKmPQrtTuUwxXyYzo",
                       .long_values = "--output --cookie-jar --dump-header --trace --trace-ascii "
                                      "--stderr --libcurl --output-dir ",
                       .long_flags = "--remote-name --remote-name-all --silent --location --fail "
                                     "--show-error --insecure --compressed --verbose --include "
                                     "--head --globoff --create-dirs --progress-bar "
                                     "--no-progress-meter ",
                       .dashdash_ends = false,
                       .unknown_long_values = true},
           .writes = "-o -c -D --output --cookie-jar --dump-header --trace --trace-ascii --stderr "
                     "--libcurl ",
           .files = curl_output_files},
    Writer{.name = "wget",
           .options = {.value_letters = "OPoaeiBtTwQUlARDIXn",
                       .long_values = "--output-document --directory-prefix --output-file "
                                      "--append-output ",
                       .dashdash_ends = false},
           .writes = "-O -o -a --output-document --output-file --append-output ",
           .files = wget_output_files},
    Writer{.name = "git", .files = git_apply_files},
    Writer{.name = "patch", .files = patch_files},
    // §7.3's writers: zip ARCHIVE, shred without -u, flock FILE, script [FILE]; tar -c/-r/-u,
    // curl's and wget's logs and sed's `w FILE` are read by their entries above.
    Writer{.name = "zip",
           .options = {.value_letters = "bnt",
                       .long_values = "--temp-path --suffixes --ta(rget-directory) "},
           .operands = Written::first},
    Writer{.name = "shred", .options = {.value_letters = "ns"}, .files = shred_files},
    Writer{.name = "flock",
           .options = {.value_words = "-w -E ",
                       .long_values = "--timeout --conflict-exit-code ",
                       .dashdash_ends = false},
           .files = flock_files},
    // util-linux script: its options as the command model reads them (shell::script_*).
    Writer{.name = "script",
           .options = {.value_letters = shell::script_value_letters,
                       .attached_letters = shell::script_attached_letters,
                       .long_values = shell::script_long_values,
                       .dashdash_ends = false},
           .writes = "-O -B -I -T --log-in --log-io --log-o(ut) --log-t(iming) ",
           .files = script_files},
};

} // namespace

bool written_files(const Command& c, const WriteTarget& write) {
    for (const Writer& writer : writers) {
        if (!(writer.versioned ? is_versioned(c.name, writer.name) : c.is(writer.name))) continue;
        if (writer.only_for != nullptr && !writer.only_for(c.args())) continue;
        return (writer.files != nullptr ? writer.files : row_files)(c, writer, write);
    }
    return false;
}

} // namespace viber::shell_guard
