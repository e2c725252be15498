// shell_commands.cpp: each simple command the lexer finished, resolved and handed to the sink:
// wrappers, shell strings, aliases and literal variables, find clauses, stdin scripts.
#include "common/shell/shell_lexer_internal.hpp"
#include "common/shell/shell_options.hpp"

namespace viber::shell::detail {

namespace {

// `pkill${IFS}x` and `{rm,-rf,x}` in the command word: the parts, as views of its text.
std::vector<std::string_view> command_word_parts(const Word& w) {
    std::vector<std::string_view> parts;
    std::string_view text = w.text;
    if (w.unquoted_brace && text.size() > 2 && text.front() == '{' && text.back() == '}') {
        int nesting = 0;
        std::size_t start = 1;
        bool comma = false;
        for (std::size_t i = 1; i + 1 < text.size(); ++i) {
            if (text[i] == '{') ++nesting;
            if (text[i] == '}') --nesting;
            if (text[i] == ',' && nesting == 0) {
                parts.push_back(text.substr(start, i - start));
                start = i + 1;
                comma = true;
            }
        }
        if (!comma) return {};
        parts.push_back(text.substr(start, text.size() - 1 - start));
        return parts;
    }
    if (w.unquoted_ifs) {
        std::size_t start = 0;
        for (std::size_t i = 0; i < text.size();) {
            std::size_t len = 0;
            if (text.substr(i, 6) == "${IFS}")
                len = 6;
            else if (text.substr(i, 4) == "$IFS" &&
                     (i + 4 == text.size() || !is_name_char(text[i + 4])))
                len = 4;
            if (len == 0) {
                ++i;
                continue;
            }
            if (i > start) parts.push_back(text.substr(start, i - start));
            i += len;
            start = i;
        }
        if (start < text.size()) parts.push_back(text.substr(start));
    }
    return parts;
}

// `exec "$@"`, `nice "$@"`: the plain words before a final `"$@"`, else empty.
std::string_view words_before_all_arguments(std::string_view s) {
    std::string_view lead;
    if (s.ends_with(" \"$@\""))
        lead = s.substr(0, s.size() - 5);
    else if (s.ends_with(" $@"))
        lead = s.substr(0, s.size() - 3);
    else
        return {};
    while (!lead.empty() && is_blank(lead.front())) lead.remove_prefix(1);
    while (!lead.empty() && is_blank(lead.back())) lead.remove_suffix(1);
    for (const char c : lead)
        if (!(is_name_char(c) || c == '-' || c == '/' || c == '.' || c == ' ')) return {};
    return lead;
}

} // namespace

// The name rules compare: path prefix cut, lower case, `.exe` cut.
std::string_view Lexer::normalise(std::string_view text, bool version_suffix) {
    text = strip_path_prefix(text);
    if (version_suffix) {
        const std::size_t at = text.find('@', 1);
        if (at != std::string_view::npos) text = text.substr(0, at);
    }
    std::string_view name = text;
    if (std::ranges::any_of(text, ascii::is_upper)) {
        std::string lowered(text);
        for (char& c : lowered) c = lower(c);
        name = r_.arena.store(lowered);
    }
    if (name.size() > 4 && name.ends_with(".exe")) name.remove_suffix(4);
    return name;
}

Command Lexer::base_command(const SimpleCommand& simple, bool fed, bool find) const {
    Command cmd;
    cmd.simple_words = simple_words_.empty() ? std::span<const Word>(simple.words)
                                             : std::span<const Word>(simple_words_);
    cmd.assignments = simple.assignments;
    cmd.redirects = simple.redirects;
    cmd.path = r_.path;
    cmd.fed_by_input = fed;
    cmd.via_find = find;
    cmd.stdin_from_pipe = simple.stdin_from_pipe;
    cmd.values = this;
    for (const Redirect& rd : simple.redirects) {
        if (rd.fd > 0) continue;
        if (rd.kind == RedirectKind::heredoc || rd.kind == RedirectKind::herestring)
            cmd.stdin_from_heredoc = true;
        if (rd.kind == RedirectKind::input && rd.target_is_process_substitution)
            cmd.stdin_from_process_substitution = true;
    }
    return cmd;
}

// A command line given as a string: lexed on its own, one level deeper.
void Lexer::nested(std::string_view line, unsigned depth, PathStep step, bool fed, bool find) {
    if (deeper_than_cap(depth + 1)) return;
    if (line.find_first_not_of(" \t\n") == std::string_view::npos) return;
    // `c='pkill x'; eval "$c"`, `FOO='rm -rf /' … sh -c '$FOO'`: a variable the command
    // assigned a literal stands for that literal (§7.2).
    std::string_view trimmed = line.substr(line.find_first_not_of(" \t\n"));
    trimmed = trimmed.substr(0, trimmed.find_last_not_of(" \t\n") + 1);
    if (trimmed.size() > 2 && trimmed.front() == '"' && trimmed.back() == '"')
        trimmed = trimmed.substr(1, trimmed.size() - 2);
    if (const std::string_view name = lone_variable(trimmed); !name.empty()) {
        const std::string* known = value_of(name);
        if (known == nullptr || !expansion_fits(known->size())) return;
        // `c='eval "$c"'; eval "$c"`: reading a value inside the reading of the same value
        // recurses for ever in bash too; it is read once and counts as past the nesting cap.
        for (const auto& [outer_name, outer_value] : r_.reading_values)
            if (outer_name == name && outer_value == *known) {
                r_.summary.reached_depth_cap = true;
                return;
            }
        r_.expansion_budget -= known->size();
        const std::string value = *known; // the map may grow while it is read
        r_.reading_values.emplace_back(std::string(name), value);
        fast::push_back_growing(r_.path, step);
        Lexer(r_, value, depth + 1, fed, find).run();
        r_.path.pop_back();
        r_.reading_values.pop_back();
        return;
    }
    fast::push_back_growing(r_.path, step);
    Lexer(r_, line, depth + 1, fed, find).run();
    r_.path.pop_back();
}

std::string_view Lexer::script_of(const SimpleCommand& simple, const Word& w) {
    if (w.script_index == lost_script) return "${_}";
    if (w.script_index == 0 || w.script_index > simple.scripts.size()) return w.text;
    return simple.scripts[w.script_index - 1];
}

// The bytes `words`' scripts take joined by spaces (one more for each word).
std::size_t Lexer::scripts_bytes(const SimpleCommand& simple, std::span<const Word> words) {
    std::size_t bytes = 0;
    for (const Word& w : words) bytes += script_of(simple, w).size() + 1;
    return bytes;
}

// scripts_bytes of simple.words[begin, end), in constant time once the offsets are built.
std::size_t Lexer::rest_bytes(const SimpleCommand& simple, std::size_t begin, std::size_t end) {
    std::vector<std::size_t>& offsets = simple.script_offsets;
    if (offsets.size() != simple.words.size() + 1) {
        offsets.clear();
        offsets.reserve(simple.words.size() + 1);
        offsets.push_back(0);
        for (const Word& w : simple.words)
            offsets.push_back(offsets.back() + script_of(simple, w).size() + 1);
    }
    return offsets[end] - offsets[begin];
}

std::string_view Lexer::join_scripts(const SimpleCommand& simple, std::span<const Word> words,
                                     std::string_view prefix) {
    std::string line;
    fast::reserve_for_writes(line, prefix.size() + scripts_bytes(simple, words));
    line += prefix;
    for (const Word& w : words) {
        if (!line.empty()) line += ' ';
        line += script_of(simple, w);
    }
    return r_.arena.store(line);
}

// `eval`'s words joined after what the command knows is expanded (§7.3): `c='kill -9 -1';
// eval "$c"`, `eval "$(echo pkill) node"`. A word whose value stays unknown is read as written.
std::string_view Lexer::eval_line(const SimpleCommand& simple, std::span<const Word> words) {
    std::string line;
    for (const Word& w : words) {
        if (!line.empty()) line += ' ';
        const std::string_view script = script_of(simple, w);
        std::optional<std::string> known;
        if (w.expands && script.find("${_}") == std::string_view::npos &&
            script.find('$') != std::string_view::npos)
            known = literal_text(script);
        if (known) { // (its values charged as literal_text read them)
            line += *known;
        } else {
            line += script;
        }
    }
    return r_.arena.store(line);
}

// A shell reading its script from stdin: a heredoc, a here-string or `echo … |` feeding it.
void Lexer::stdin_script(SimpleCommand& simple, std::string_view shell, unsigned depth,
                         const PipeText& piped, bool fed, bool find) {
    for (const Redirect& rd : simple.redirects) {
        if (rd.fd > 0) continue;
        if (rd.kind == RedirectKind::herestring)
            nested(script_of(simple, rd.target), depth, {shell, "<<<"}, fed, find);
        // `bash < k.sh` of a script the command wrote (§7.3).
        if (rd.kind == RedirectKind::input && !rd.target.expands && !r_.files.empty())
            run_file(rd.target.text, depth, {shell, "<"}, fed, find);
    }
    for (std::size_t k = simple.heredocs_begin; k < heredocs_.size(); ++k) {
        heredocs_[k].feeds_shell = true;
        heredocs_[k].shell = std::string(shell);
    }
    if (simple.stdin_from_pipe && piped.valid) {
        for (std::size_t k = piped.heredoc_begin; k < piped.heredoc_end && k < heredocs_.size();
             ++k) {
            heredocs_[k].feeds_shell = true;
            heredocs_[k].shell = std::string(shell);
        }
        nested(piped.text, depth, {shell, "|"}, fed, find);
    }
}

// A command word that is only an expansion: when the command itself gives its value (a
// literal variable, `$(echo WORDS)`), that value and the words after it are a command line.
void Lexer::expanded_command_word(const SimpleCommand& simple, std::span<const Word> words,
                                  std::size_t i, std::size_t end, unsigned depth,
                                  const Walk& walk) {
    const Word& w = words[i];
    std::string_view value;
    std::optional<std::string> joined;
    if (const std::string_view var = lone_variable(w.text); !var.empty()) {
        const std::string* known = value_of(var);
        if (known == nullptr) return;
        value = *known;
    } else if (w.has_substitution) {
        value = script_of(simple, w);
        if (value == "${_}" || value == w.text) return;
        if (value.find("${_}") != std::string_view::npos) return; // a part stays unknown
        if (value.find('$') != std::string_view::npos) {
            joined = literal_text(value);
            if (!joined) return;
            value = *joined;
        }
    } else if (w.expands) {
        // `X=; p${X}kill node`, `x=pkill; "$x" -f vite`: literal parts and literal variables.
        joined = literal_text(w.text);
        if (!joined || *joined == w.text) return;
        value = *joined;
    } else {
        return;
    }
    const std::span<const Word> rest = words.subspan(i + 1, end - i - 1);
    // (a value literal_text wrote was charged as it was read)
    const std::size_t bytes = (joined ? 0 : value.size()) + rest_bytes(simple, i + 1, end);
    if (!expansion_fits(bytes)) return; // not guessed past the budget
    r_.expansion_budget -= bytes;
    std::string line(value);
    line += ' ';
    line += join_scripts(simple, rest);
    nested(r_.arena.store(line), depth, {"", "$…"}, walk.fed_by_input, walk.via_find);
}

// Hands a finished simple command to the sink: the command word, then through each wrapper,
// find clause and shell string. A chain of wrappers is walked in a loop over one vector.
void Lexer::emit(SimpleCommand& simple, unsigned depth, PipeText& piped) {
    for (const Word& a : simple.assignments) remember_literal(a, script_of(simple, a));
    if (simple.words.empty()) {
        if (!simple.redirects.empty() || !simple.assignments.empty()) {
            Command bare = base_command(simple, fed_by_input_, via_find_);
            bare.first_in_simple_command = true;
            deliver(bare);
        }
        return;
    }
    PipeText feeding = std::move(piped);
    piped = PipeText{};
    emitted_any_ = false;
    const std::size_t path_base = r_.path.size();
    std::vector<Walk> work{{0, simple.words.size(), path_base, fed_by_input_, via_find_}};
    bool rewritten = false; // one IFS or brace rewrite per simple command keeps this linear
    while (!work.empty()) {
        Walk walk = work.back();
        work.pop_back();
        r_.path.resize(walk.path_size);
        std::size_t i = walk.begin;
        std::size_t end = walk.end;
        bool version_suffix = false;
        while (i < end) {
            const Word& w = simple.words[i];
            const bool shell_variable = w.text == "$SHELL" || w.text == "${SHELL}";
            // `$(true) pkill`: an unquoted expansion that can be empty is no command word.
            if (!shell_variable && w.only_expansion) {
                // `x=pkill; $x node`, `$(echo pkill) node`: a value the command itself
                // gives is that command word (§7.2); the words are also read without it.
                expanded_command_word(simple, words_of(simple), i, end, depth, walk);
                ++i;
                continue;
            }
            if (!rewritten && work.empty() && (w.unquoted_ifs || w.unquoted_brace)) {
                const std::vector<std::string_view> parts = command_word_parts(w);
                if (parts.size() > 1 || (parts.size() == 1 && parts[0] != w.text)) {
                    rewritten = true;
                    std::vector<Word> split;
                    for (std::string_view part : parts) {
                        Word piece = w;
                        piece.text = part;
                        piece.unquoted_ifs = piece.unquoted_brace = false;
                        piece.leading_expansion = 0;
                        piece.script_index = 0;
                        split.push_back(piece);
                    }
                    if (split.empty()) {
                        ++i;
                        continue;
                    }
                    simple_words_ = simple.words; // as written, for --commands-json
                    simple.script_offsets.clear();
                    fast::reserve_for_writes(simple.words, simple.words.size() + split.size() - 1);
                    const auto at = simple.words.begin() + static_cast<std::ptrdiff_t>(i);
                    simple.words.erase(at);
                    simple.words.insert(simple.words.begin() + static_cast<std::ptrdiff_t>(i),
                                        split.begin(), split.end());
                    end = end + split.size() - 1;
                    continue;
                }
            }
            // (a `${NAME:-WORD}` spells its value out even where the command gave no literal)
            if (!shell_variable && w.expands &&
                (!r_.literals.empty() || r_.positionals.known || w.has_substitution ||
                 w.text.starts_with("${")))
                expanded_command_word(simple, words_of(simple), i, end, depth, walk);
            std::string_view text =
                w.text.substr(std::min<std::size_t>(w.leading_expansion, w.text.size()));
            if (w.unquoted_ifs) {
                const std::size_t cut = std::min(text.find("$IFS"), text.find("${IFS}"));
                if (cut != std::string_view::npos && cut > 0) text = text.substr(0, cut);
            }
            std::string_view name =
                shell_variable ? std::string_view("sh") : normalise(text, version_suffix);
            version_suffix = false;
            const std::span<const Word> words(simple.words);
            if (!w.quoted && !r_.aliases.empty()) {
                // `alias k='pkill node'` earlier in the command: `k` is that line (§7.2).
                const auto it = r_.aliases.find(std::string(w.text));
                if (it != r_.aliases.end() &&
                    expansion_fits(it->second.size() + rest_bytes(simple, i + 1, end))) {
                    std::string line = it->second;
                    r_.expansion_budget -= line.size();
                    line += ' ';
                    line += join_scripts(simple, words.subspan(i + 1, end - i - 1));
                    Command alias = base_command(simple, walk.fed_by_input, walk.via_find);
                    alias.name = name;
                    alias.depth = depth;
                    alias.words = words.subspan(i, end - i);
                    alias.is_wrapper = true;
                    hand(alias);
                    nested(r_.arena.store(line), depth, {name, "alias"}, walk.fed_by_input,
                           walk.via_find);
                    break;
                }
            }
            Command cmd = base_command(simple, walk.fed_by_input, walk.via_find);
            cmd.name = name;
            cmd.depth = depth;
            cmd.glob_name = w.unquoted_glob;

            if (const WrapperRule* rule = wrapper_for(name, words, i, end)) {
                simple_ = &simple;
                WrapperReading reading = read_wrapper(words, i + 1, end, *rule);
                if (reading.query) {
                    cmd.words = words.subspan(i, end - i);
                    cmd.query = true;
                    hand(cmd);
                    break;
                }
                if (rule->rest == Rest::find_clauses || rule->rest == Rest::fd_clauses) {
                    cmd.words = words.subspan(i, end - i);
                    cmd.is_wrapper = true;
                    hand(cmd);
                    find_clauses(words, i + 1, end, *rule, walk, work);
                    break;
                }
                const std::size_t own_end =
                    rule->rest == Rest::parallel ? end : std::min(reading.command, end);
                cmd.words = words.subspan(i, own_end - i);
                cmd.is_wrapper = true;
                hand(cmd);
                const bool fed = walk.fed_by_input || rule->fed_by_input;
                if (reading.split_string) {
                    if (rule->split_string_option != 0) {
                        const std::string_view line = join_scripts(
                            simple, words.subspan(reading.command, end - reading.command),
                            std::string("env ") + std::string(*reading.split_string));
                        nested(line, depth, {name, "-S"}, fed, walk.via_find);
                    } else {
                        nested(*reading.split_string, depth, {name, "-c"}, fed, walk.via_find);
                    }
                    break;
                }
                if (reading.shell_string) {
                    nested(script_of(simple, words[*reading.shell_string]), depth, {name, "-c"},
                           fed, walk.via_find);
                    break;
                }
                if (reading.nothing) break;
                if (rule->rest == Rest::joined_line && !reading.exec) {
                    if (reading.command < end)
                        nested(join_scripts(simple,
                                            words.subspan(reading.command, end - reading.command)),
                               depth, {name, "…"}, fed, walk.via_find);
                    break;
                }
                if (rule->rest == Rest::parallel) {
                    std::size_t marker = reading.command;
                    while (marker < end && words[marker].text != ":::" &&
                           words[marker].text != "::::")
                        ++marker;
                    if (marker == reading.command) {
                        for (std::size_t k = marker + 1; k < end; ++k)
                            nested(script_of(simple, words[k]), depth, {name, ":::"}, fed,
                                   walk.via_find);
                        break;
                    }
                    end = marker;
                }
                fast::push_back_growing(r_.path, PathStep{name, rule->subcommand});
                walk.fed_by_input = fed;
                version_suffix = rule->version_suffix;
                i = reading.command;
                continue;
            }

            if (is_shell_name(name) || shell_variable) {
                // Its code: the -c string, a script on stdin, or a script operand (§7.2).
                const ShellOptions options = read_shell_options(words, i + 1, end);
                const std::optional<std::size_t> at = options.command_string;
                cmd.words = words.subspan(i, end - i);
                cmd.is_wrapper = at.has_value();
                cmd.reads_script_from_stdin = options.script_from_stdin;
                hand(cmd);
                if (at) {
                    const Word& string = words[*at];
                    const std::string_view s = string.text;
                    if (s == "$@" || s == "\"$@\"") {
                        fast::push_back_growing(r_.path, PathStep{name, "-c"});
                        i = *at + 2; // the words after $0 are the command
                        continue;
                    }
                    // `sh -c 'exec "$@"' sh pkill node`: leading words, then the words
                    // after $0 (§7.2).
                    if (const std::string_view lead = words_before_all_arguments(s);
                        !lead.empty() && *at + 2 < end) {
                        std::string line(lead);
                        line += ' ';
                        line += join_scripts(simple, words.subspan(*at + 2, end - *at - 2));
                        nested(r_.arena.store(line), depth, {name, "-c"}, walk.fed_by_input,
                               walk.via_find);
                        break;
                    }
                    std::size_t n = 0;
                    if (s.size() == 2 && s[0] == '$' && s[1] >= '1' && s[1] <= '9')
                        n = static_cast<std::size_t>(s[1] - '0');
                    if (s.size() == 4 && s.starts_with("${") && s[2] >= '1' && s[2] <= '9' &&
                        s[3] == '}')
                        n = static_cast<std::size_t>(s[2] - '0');
                    if (n > 0) {
                        if (*at + 1 + n < end)
                            nested(script_of(simple, words[*at + 1 + n]), depth, {name, "-c"},
                                   walk.fed_by_input, walk.via_find);
                        break;
                    }
                    r_.string_reads_pipe = simple.stdin_from_pipe && !walk.fed_by_input;
                    nested(script_of(simple, string), depth, {name, "-c"}, walk.fed_by_input,
                           walk.via_find);
                    r_.string_reads_pipe = false;
                } else if (options.script_from_stdin) {
                    stdin_script(simple, name, depth, feeding, walk.fed_by_input, walk.via_find);
                } else if (options.script && words[*options.script].text.starts_with("<(") &&
                           words[*options.script].script_index != 0) {
                    // `bash <(echo pkill x)`: what the substitution prints is the script.
                    nested(script_of(simple, words[*options.script]), depth, {name, "<(…)"},
                           walk.fed_by_input, walk.via_find);
                } else if (options.script && !r_.files.empty() && !words[*options.script].expands) {
                    run_file(words[*options.script].text, depth, {name, "file"}, walk.fed_by_input,
                             walk.via_find);
                }
                break;
            }
            if (name == "eval") {
                std::size_t first = i + 1;
                if (first < end && words[first].text == "--") ++first;
                cmd.words = words.subspan(i, end - i);
                cmd.is_wrapper = true;
                hand(cmd);
                nested(eval_line(simple, words.subspan(first, end - first)), depth, {name, ""},
                       walk.fed_by_input, walk.via_find);
                break;
            }
            if ((name == "source" || name == ".") && i + 1 < end) {
                std::size_t first = i + 1;
                if (words[first].text == "--" && first + 1 < end) ++first;
                cmd.words = words.subspan(i, end - i);
                hand(cmd);
                if (words[first].text == "/dev/stdin" || words[first].text == "/dev/fd/0")
                    stdin_script(simple, name, depth, feeding, walk.fed_by_input, walk.via_find);
                else if (words[first].text.starts_with("<(") && words[first].script_index != 0)
                    nested(script_of(simple, words[first]), depth, {name, "<(…)"},
                           walk.fed_by_input, walk.via_find);
                else if (!r_.files.empty() && !words[first].expands)
                    run_file(words[first].text, depth, {name, "file"}, walk.fed_by_input,
                             walk.via_find);
                break;
            }
            cmd.words = words.subspan(i, end - i);
            if (name == "tmux" || name == "screen") {
                hand(cmd);
                terminal_commands(simple, words, i, end, name, depth, walk.fed_by_input,
                                  walk.via_find);
                break;
            }
            hand(cmd);
            if (!r_.functions.empty() && !w.expands)
                call_function(w.text, words.subspan(i + 1, end - i - 1), depth, walk);
            if (!r_.files.empty() && !w.expands && w.text.find('/') != std::string_view::npos)
                run_file(w.text, depth, {name, "file"}, walk.fed_by_input, walk.via_find);
            remember(name, words.subspan(i + 1, end - i - 1));
            if (name == "read") remember_read(simple, words.subspan(i + 1, end - i - 1));
            if (name == "set") remember_positionals(words.subspan(i + 1, end - i - 1));
            if (name == "trap") {
                // `trap 'STRING' SIG` runs STRING (§7.2); `trap - SIG` and `trap -p` do not.
                std::size_t first = i + 1;
                if (first < end && words[first].text == "--") ++first;
                if (first + 1 < end && words[first].text != "-" &&
                    !(words[first].text.starts_with("-") && !words[first].quoted))
                    nested(script_of(simple, words[first]), depth, {name, ""}, walk.fed_by_input,
                           walk.via_find);
                break;
            }
            if (name == "cat" && cmd.path.size() == path_base) {
                // `cat <<EOF | bash`, `cat <<< '…' | sh`: what feeds cat is what it prints.
                bool operands = false;
                for (std::size_t k = i + 1; k < end; ++k)
                    if (words[k].text != "-" && !words[k].text.starts_with("-")) operands = true;
                // `cat k.sh | bash`: the files the command wrote, joined.
                if (operands && !r_.files.empty()) {
                    std::string text;
                    bool known = true;
                    for (std::size_t k = i + 1; k < end && known; ++k) {
                        if (words[k].text.starts_with("-")) continue;
                        const std::optional<std::string> file =
                            words[k].expands ? std::nullopt : file_text(words[k].text);
                        known = file && expansion_fits(text.size() + file->size());
                        if (known) text += *file;
                    }
                    if (known) {
                        r_.expansion_budget -= text.size();
                        piped.valid = true;
                        piped.text = std::move(text);
                    }
                }
                if (!operands) {
                    for (const Redirect& rd : simple.redirects)
                        if (rd.fd <= 0 && rd.kind == RedirectKind::herestring) {
                            piped.valid = true;
                            piped.text = script_of(simple, rd.target);
                        }
                    if (simple.heredocs_begin < heredocs_.size()) {
                        piped.valid = true;
                        piped.heredoc_begin = simple.heredocs_begin;
                        piped.heredoc_end = heredocs_.size();
                    }
                }
                break;
            }
            if (name == "tee" && cmd.path.size() == path_base && simple.stdin_from_pipe &&
                feeding.valid && feeding.heredoc_end == feeding.heredoc_begin) {
                // `echo 'pkill node' | tee k.sh`: the files hold what feeds tee, which it also
                // prints (§7.3).
                const std::string text = feeding.newline ? feeding.text + '\n' : feeding.text;
                // GNU tee (coreutils 9.1) reads every option before its files, up to `--`: -a
                // in any cluster or --append by any unambiguous prefix appends to them all.
                bool append = false;
                std::size_t files_from = end; // the word after `--`
                for (std::size_t k = i + 1; k < end; ++k) {
                    const std::string_view t = words[k].text;
                    if (t == "--") {
                        files_from = k + 1;
                        break;
                    }
                    if (t.starts_with("--"))
                        append = append || lists_option("--a(ppend) ", t);
                    else if (t.size() > 1 && t[0] == '-')
                        append = append || t.find('a') != std::string_view::npos;
                }
                for (std::size_t k = i + 1; k < end; ++k) {
                    const std::string_view t = words[k].text;
                    const bool option =
                        k < files_from && (t == "--" || (t.size() > 1 && t[0] == '-'));
                    if (!option && !words[k].expands) keep_file(t, text, append);
                }
                piped = feeding;
                break;
            }
            if (name == "printf" && cmd.path.size() == path_base) {
                // `printf 'pk%sll node\n' i | sh`: what printf prints (§7.3). Past the
                // expansion budget the text is unknown and the reading says so.
                std::size_t first = i + 1;
                if (first < end && words[first].text == "--") ++first;
                if (first < end && !words[first].text.starts_with("-") &&
                    words[first].script_index == 0) {
                    const auto arg = [&](std::size_t k) {
                        return script_of(simple, words[first + 1 + k]);
                    };
                    const std::size_t own = rest_bytes(simple, first, end);
                    const std::size_t limit = own + r_.expansion_budget;
                    bool over = false;
                    if (std::optional<std::string> text =
                            printf_output(words[first].text, end - first - 1, arg, limit, &over)) {
                        if (text->size() > own) r_.expansion_budget -= text->size() - own;
                        piped.valid = true;
                        piped.text = std::move(*text);
                    } else if (over) {
                        r_.summary.reached_expansion_cap = true; // not read past the budget
                    }
                }
                break;
            }
            if (name == "echo" && cmd.path.size() == path_base) {
                piped.valid = true;
                piped.newline = true;
                std::size_t first = i + 1;
                bool escapes = false; // `echo -e`: backslash escapes as printf's %b reads them
                while (first < end && words[first].text.size() >= 2 &&
                       words[first].text[0] == '-' &&
                       words[first].text.find_first_not_of("neE", 1) == std::string_view::npos) {
                    for (const char flag : words[first].text.substr(1))
                        if (flag == 'e' || flag == 'E')
                            escapes = flag == 'e';
                        else
                            piped.newline = false;
                    ++first;
                }
                // Sized once: `echo` of a mebibyte of words is one buffer, on huge pages.
                fast::reserve_for_writes(piped.text,
                                         scripts_bytes(simple, words.subspan(first, end - first)));
                for (std::size_t k = first; k < end; ++k) {
                    if (k > first) piped.text += ' ';
                    piped.text += script_of(simple, words[k]);
                }
                if (escapes) {
                    const std::string_view joined = piped.text;
                    const auto one = [&](std::size_t) { return joined; };
                    if (std::optional<std::string> text =
                            printf_output("%b", 1, one, joined.size()))
                        piped.text = std::move(*text);
                }
            }
            break;
        }
    }
    // What echo, printf or cat printed, written to a file (§7.3); any other command writing it
    // leaves its text unknown.
    if (piped.valid || !r_.files.empty())
        for (const Redirect& rd : simple.redirects) {
            const bool append =
                rd.kind == RedirectKind::append || rd.kind == RedirectKind::append_output_and_error;
            const bool writes = append || rd.kind == RedirectKind::output ||
                                rd.kind == RedirectKind::clobber ||
                                rd.kind == RedirectKind::output_and_error;
            if (!writes || rd.fd > 1 || rd.target.expands || rd.target_is_process_substitution)
                continue;
            if (!piped.valid) {
                r_.files.erase(file_key(rd.target.text));
            } else if (piped.heredoc_end > piped.heredoc_begin) {
                for (std::size_t k = piped.heredoc_begin;
                     k < piped.heredoc_end && k < heredocs_.size(); ++k) {
                    heredocs_[k].file = std::string(rd.target.text);
                    heredocs_[k].append = append;
                }
            } else {
                keep_file(rd.target.text, piped.newline ? piped.text + '\n' : piped.text, append);
            }
        }
    r_.path.resize(path_base);
    simple_words_.clear();
    if (!emitted_any_) { // every word expanded away: its redirections still happen
        Command bare = base_command(simple, fed_by_input_, via_find_);
        bare.first_in_simple_command = true;
        deliver(bare);
    }
}

void Lexer::hand(Command& cmd) {
    cmd.first_in_simple_command = !emitted_any_;
    emitted_any_ = true;
    deliver(cmd);
}

void Lexer::deliver(const Command& cmd) {
    if (r_.commands == r_.options.max_commands) {
        r_.summary.reached_command_cap = true;
        throw CommandCapReached{};
    }
    ++r_.commands;
    r_.sink.command(cmd);
}

// find's -exec/-execdir/-ok/-okdir clauses (up to `;` or `+`), fd's -x/-X: each a command.
void Lexer::find_clauses(std::span<const Word> words, std::size_t i, std::size_t end,
                         const WrapperRule& rule, const Walk& walk, std::vector<Walk>& work) {
    std::vector<Walk> found;
    const std::size_t path_size = r_.path.size() + 1;
    fast::push_back_growing(r_.path, PathStep{rule.name, "-exec"});
    while (i < end) {
        const std::string_view w = words[i].text;
        const bool opens = rule.rest == Rest::find_clauses
                               ? (w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir")
                               : (w == "-x" || w == "--exec" || w == "-X" || w == "--exec-batch");
        ++i;
        if (!opens) continue;
        std::size_t j = i;
        while (j < end && words[j].text != ";" &&
               !(rule.rest == Rest::find_clauses && words[j].text == "+"))
            ++j;
        if (j > i) found.push_back({i, j, path_size, walk.fed_by_input, true});
        i = j + 1;
    }
    for (auto it = found.rbegin(); it != found.rend(); ++it) work.push_back(*it);
}

} // namespace viber::shell::detail
