// writers.cpp: shell-guard's R4 writers: which redirections write, and the commands that write
// files with which of their words are the files. Where a target lands (inside the work tree,
// outside .temp/) is is_write_target's, in shell_guard.cpp with why R4 exists.
#include "shell-guard/rules.hpp"

#include <algorithm>
#include <cstddef>
#include <initializer_list>
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

} // namespace

bool written_files(const Command& c, const WriteTarget& write) {
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

} // namespace viber::shell_guard
