// shell_commands.cpp: each simple command the lexer finished, resolved and handed to the sink:
// wrappers, shell strings, aliases and literal variables, find clauses, stdin scripts.
#include "common/shell/shell_lexer_internal.hpp"
#include "common/shell/shell_options.hpp"

namespace viber::shell::detail {

namespace {

// `$NAME` or `${NAME}`, exactly: NAME; else empty.
std::string_view lone_variable(std::string_view text) {
    if (text.size() >= 2 && text[0] == '$' && text[1] != '{')
        text.remove_prefix(1);
    else if (text.size() >= 4 && text.starts_with("${") && text.back() == '}')
        text = text.substr(2, text.size() - 3);
    else
        return {};
    // `$@`, `$*`, `$1`-`$9`: the positional parameters, known once `set --` gave them (§7.3).
    if (text.size() == 1 &&
        (text[0] == '@' || text[0] == '*' || (text[0] >= '1' && text[0] <= '9')))
        return text;
    if (text.empty() || !is_name_start(text[0])) return {};
    for (const char c : text)
        if (!is_name_char(c)) return {};
    return text;
}

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
    bool folded = false;
    for (char c : text)
        if (c >= 'A' && c <= 'Z') folded = true;
    std::string_view name = text;
    if (folded) {
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
        if (known && expansion_fits(known->size())) {
            r_.expansion_budget -= known->size();
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

// `x=pkill`, `export x=pkill`, `alias k='pkill node'`: values a later command word or shell
// string stands for (§7.2). Every name is kept, however many the command assigns: a cap on names
// would let five thousand assignments hide a sixth (`y=pkill; $y node`). The tables hold no more
// than the text the reading lexes, and what their values add to it is bounded by the expansion
// budget.
// A `$` or backquote that was quoted (`c='kill $p'`) is text: the value is what the quotes hold,
// so `c='c='\''pkill x'\''; eval "$c"'; eval "$c"` is read one level at a time (§7.3); a value
// built from earlier literals (`y=$x`) is their joined text.
// An array of literal elements (`x=(pkill node)`, `declare -a x=(…)`) gives `${x[@]}` and
// `${x[*]}` its elements joined by spaces, `${x[N]}` element N and `$x` its first; `x+=(…)`
// adds to a known array and `x+=WORD` to a known value. An element's assignment (`x[3]=…`), or
// an array whose elements are not all literal, leaves the name unknown.
void Lexer::remember_literal(const Word& assignment, std::string_view script) {
    const std::string_view text = assignment.text;
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) return;
    const bool append = text[eq - 1] == '+';
    std::string name(text.substr(0, eq - (append ? 1 : 0)));
    const std::string_view value = text.substr(eq + 1);
    if (const std::size_t open = name.find('['); open != std::string::npos) {
        // An element: `x[1]=pkill` sets it in an array whose elements are all known (or a value's
        // element 0); any other leaves the name unknown.
        const std::optional<std::string> element =
            assignment.expands ? literal_text(value) : std::string(value);
        const std::optional<long> index =
            subscript_value(std::string_view(name).substr(open + 1, name.size() - open - 2));
        name.resize(open);
        const auto array = r_.arrays.find(name);
        if (!append && element && index && array != r_.arrays.end() &&
            array->second.count == array->second.first.size() &&
            static_cast<std::size_t>(*index) <= array->second.count &&
            static_cast<std::size_t>(*index) < Reading::array_indices) {
            Reading::ArrayValue& known = array->second;
            if (static_cast<std::size_t>(*index) == known.count)
                known.first.emplace_back(), ++known.count;
            known.first[static_cast<std::size_t>(*index)] = *element;
            known.joined.clear();
            for (std::size_t k = 0; k < known.count; ++k)
                known.joined.append(k > 0 ? " " : "").append(known.first[k]);
            r_.literals[name] = known.first[0];
            return;
        }
        if (!append && element && index && *index == 0 && array == r_.arrays.end()) {
            r_.literals[name] = *element;
            return;
        }
        if (array != r_.arrays.end()) r_.arrays.erase(array);
        r_.literals.erase(name);
        return;
    }
    if (value.starts_with('(') && !r_.array_sources.empty()) {
        if (const auto array = r_.array_sources.find(std::string(value));
            array != r_.array_sources.end()) {
            remember_array(name, array->second, append);
            return;
        }
    }
    if (!r_.arrays.empty()) r_.arrays.erase(name);
    std::optional<std::string> known;
    if (!assignment.expands) {
        known = std::string(value);
    } else if (!assignment.has_substitution) {
        known = literal_text(value);
    } else if (script.find("${_}") == std::string_view::npos && script.find('=') == eq) {
        // `c=$(echo pkill)`, `` c=`echo pkill` ``: what the substitution prints is known (§7.3).
        known = literal_text(script.substr(eq + 1));
    }
    const auto before = append ? r_.literals.find(name) : r_.literals.end();
    if (!known || (append && before == r_.literals.end())) {
        r_.literals.erase(name); // its value is unknown now
    } else if (append) {
        before->second += *known;
    } else {
        r_.literals[name] = std::move(*known);
    }
}

// `name=(…)` or `name+=(…)` with the literal elements `value`.
void Lexer::remember_array(const std::string& name, const Reading::ArrayValue& value, bool append) {
    if (!append) {
        r_.arrays[name] = value;
    } else {
        // Added to a known array, or to a known value (its element 0).
        auto known = r_.arrays.find(name);
        if (known == r_.arrays.end()) {
            const auto scalar = r_.literals.find(name);
            if (scalar == r_.literals.end()) {
                r_.literals.erase(name);
                return;
            }
            known = r_.arrays
                        .insert_or_assign(name,
                                          Reading::ArrayValue{scalar->second, {scalar->second}, 1})
                        .first;
        }
        // `first` holds the first min(count, array_indices) elements.
        Reading::ArrayValue& array = known->second;
        if (array.count > 0 && value.count > 0) array.joined += ' ';
        array.joined += value.joined;
        for (std::size_t k = 0;
             k < value.first.size() && array.first.size() < Reading::array_indices; ++k)
            array.first.push_back(value.first[k]);
        array.count += value.count;
    }
    const Reading::ArrayValue& array = r_.arrays[name];
    if (array.first.empty())
        r_.literals.erase(name);
    else
        r_.literals[name] = array.first[0];
}

// `p${X}kill`, `"$x"`, `$x$y`: the text with each `$NAME` / `${NAME}` replaced by the literal
// the command gave it (§7.3). Any other expansion, or a name the command did not give a
// literal, leaves the word unknown (nullopt): one unknown part is not guessed at.
std::optional<std::string> Lexer::literal_text(std::string_view text) const {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '`') return std::nullopt;
        if (c != '$') {
            out += c;
            ++i;
            continue;
        }
        std::string_view name;
        if (i + 1 < text.size() && text[i + 1] == '{') {
            const std::size_t close = text.find('}', i + 2);
            if (close == std::string_view::npos) return std::nullopt;
            name = text.substr(i + 2, close - i - 2);
            i = close + 1;
            // `${NAME:-WORD}`, `${NAME-WORD}` (and `:=`, `=`): WORD written out in the command
            // is the value when NAME is unset (or, with `:`, empty); a NAME the command gave no
            // literal is read as unset, as an expansion that can be empty is read without it.
            std::size_t op = 0;
            while (op < name.size() && is_name_char(name[op])) ++op;
            if (op > 0 && op + 2 < name.size() && name[op] == '[' && name.back() == ']') {
                const std::optional<std::string> element =
                    array_element(name.substr(0, op), name.substr(op + 1, name.size() - op - 2));
                if (!element) return std::nullopt;
                out += *element;
                continue;
            }
            if (op > 0 && op < name.size()) {
                const bool colon = name[op] == ':';
                const std::size_t sign = op + (colon ? 1 : 0);
                if (sign < name.size() && (name[sign] == '-' || name[sign] == '=')) {
                    const std::optional<std::string> word = literal_text(name.substr(sign + 1));
                    if (!word || lone_variable("$" + std::string(name.substr(0, op))).empty())
                        return std::nullopt;
                    const std::string* known = value_of(name.substr(0, op));
                    out += known == nullptr || (colon && known->empty()) ? *word : *known;
                    continue;
                }
            }
        } else if (i + 1 < text.size() && (text[i + 1] == '@' || text[i + 1] == '*' ||
                                           (text[i + 1] >= '1' && text[i + 1] <= '9'))) {
            name = text.substr(i + 1, 1);
            i += 2;
        } else {
            std::size_t j = i + 1;
            while (j < text.size() && is_name_char(text[j])) ++j;
            name = text.substr(i + 1, j - i - 1);
            i = j;
        }
        if (name.empty() || (lone_variable(std::string("$") + std::string(name)).empty()))
            return std::nullopt;
        const std::string* known = value_of(name);
        if (known == nullptr) return std::nullopt;
        out += *known;
    }
    return out;
}

// An array subscript's value: constant arithmetic, or a name or `$NAME` the command gave one
// (`x[i]`, `x[$i]`).
std::optional<long> Lexer::subscript_value(std::string_view subscript) const {
    std::optional<std::string> text = subscript.find('$') == std::string_view::npos
                                          ? std::optional<std::string>(subscript)
                                          : literal_text(subscript);
    if (text && !text->empty() && is_name_start(text->front()) &&
        !lone_variable("$" + *text).empty()) {
        const auto it = r_.literals.find(*text);
        text = it == r_.literals.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    const std::optional<long> value = text ? constant_arithmetic(*text) : std::nullopt;
    return value && *value >= 0 ? value : std::nullopt;
}

// `${name[subscript]}`: an array's elements joined (`@`, `*`) or its element N, as the command
// gave them; a value's element 0 is the value. nullopt when it is unknown.
std::optional<std::string> Lexer::array_element(std::string_view name,
                                                std::string_view subscript) const {
    const bool all = subscript == "@" || subscript == "*";
    const std::optional<long> index = all ? std::optional<long>(0) : subscript_value(subscript);
    if (!index || *index < 0) return std::nullopt;
    if (const auto array = r_.arrays.find(std::string(name)); array != r_.arrays.end()) {
        const Reading::ArrayValue& value = array->second;
        if (all) return value.joined;
        const auto k = static_cast<std::size_t>(*index);
        if (k < value.first.size()) return value.first[k];
        if (k >= value.count) return std::string(); // no such element: empty
        return std::nullopt;
    }
    if (*index != 0 || lone_variable("$" + std::string(name)).empty()) return std::nullopt;
    const auto it = r_.literals.find(std::string(name));
    if (it == r_.literals.end()) return std::nullopt;
    return it->second;
}

void Lexer::remember(std::string_view name, std::span<const Word> args) {
    if (name == "alias") {
        for (const Word& a : args) {
            const std::size_t eq = a.text.find('=');
            if (eq == std::string_view::npos || eq == 0 || a.text.starts_with("-")) continue;
            r_.aliases[std::string(a.text.substr(0, eq))] = std::string(a.text.substr(eq + 1));
        }
        return;
    }
    if (name == "export" || name == "local" || name == "declare" || name == "typeset" ||
        name == "readonly")
        for (const Word& a : args)
            if (is_assignment(a.text)) remember_literal(a, a.text);
}

// `read [-r] NAME… <<< 'TEXT'`: a here-string the command writes out gives the names their
// fields (§7.3: text written in the command is read as the shell reads it): IFS's blanks split the
// first line, the last name takes the rest. Any other read, option or input leaves them unknown.
void Lexer::remember_read(const SimpleCommand& simple, std::span<const Word> args) {
    bool raw = false;
    std::vector<std::string> names;
    bool known = true;
    for (const Word& a : args) {
        if (a.text == "-r") {
            raw = true;
        } else if (a.text.starts_with("-") || lone_variable("$" + std::string(a.text)).empty() ||
                   !is_name_start(a.text[0])) {
            known = false;
        } else {
            names.emplace_back(a.text);
        }
    }
    if (names.empty()) names.emplace_back("REPLY");
    std::optional<std::string> text;
    for (const Redirect& rd : simple.redirects)
        if (rd.fd <= 0 && rd.kind == RedirectKind::herestring)
            text = rd.target.expands ? literal_text(script_of(simple, rd.target))
                                     : std::optional<std::string>(std::string(rd.target.text));
    // Without -r a backslash escapes; such text is not guessed at.
    if (!known || !text || (!raw && text->find('\\') != std::string::npos)) {
        for (const std::string& name : names) r_.literals.erase(name);
        return;
    }
    std::string_view line(*text);
    line = line.substr(0, line.find('\n'));
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    for (std::size_t k = 0; k < names.size(); ++k) {
        while (!line.empty() && blank(line.front())) line.remove_prefix(1);
        std::size_t cut = 0;
        if (k + 1 < names.size()) {
            while (cut < line.size() && !blank(line[cut])) ++cut;
        } else {
            cut = line.size();
            while (cut > 0 && blank(line[cut - 1])) --cut;
        }
        r_.literals[names[k]] = std::string(line.substr(0, cut));
        line.remove_prefix(std::min(line.size(), cut));
    }
}

// `set -- WORDS`, `set WORDS`: the positional parameters are WORDS; `set` with options only
// keeps them.
void Lexer::remember_positionals(std::span<const Word> args) {
    if (!args.empty() && args[0].text == "--")
        set_positionals(args.subspan(1));
    else if (!args.empty() && !args[0].text.starts_with("-") && !args[0].text.starts_with("+"))
        set_positionals(args);
}

// `$1`-`$9`, `$@` and `$*` are `words` when each is literal (joined by spaces for `$@` and `$*`);
// any other leaves them unknown.
void Lexer::set_positionals(std::span<const Word> words) {
    Reading::Positionals& p = r_.positionals;
    p.known = false;
    p.all.clear();
    p.words.clear();
    for (const Word& w : words) {
        if (w.expands) return; // one unknown word leaves them all unknown
        if (!p.all.empty()) p.all += ' ';
        p.all += w.text;
        if (p.words.size() < 9) p.words.emplace_back(w.text);
    }
    p.known = true;
}

// The value the command gave `name` (a variable, or `$@`, `$*`, `$1`-`$9`); nullptr when unknown.
const std::string* Lexer::value_of(std::string_view name) const {
    if (name.size() == 1 &&
        (name[0] == '@' || name[0] == '*' || (name[0] >= '1' && name[0] <= '9'))) {
        const Reading::Positionals& p = r_.positionals;
        if (!p.known) return nullptr;
        if (name[0] == '@' || name[0] == '*') return &p.all;
        const auto k = static_cast<std::size_t>(name[0] - '1');
        return k < p.words.size() ? &p.words[k] : nullptr;
    }
    const auto it = r_.literals.find(std::string(name));
    return it == r_.literals.end() ? nullptr : &it->second;
}

// `f() { …; }` (or `function f { …; }`): the body a later `f` runs, kept while the bodies kept
// fit Reading::function_bytes; past it the body is not kept and the summary says so, as past the
// expansion budget.
void Lexer::keep_function(std::string_view name, std::string_view body) {
    if (body.size() > r_.function_bytes) {
        r_.functions.erase(std::string(name)); // not read: the reading says so
        r_.summary.reached_expansion_cap = true;
        return;
    }
    r_.function_bytes -= body.size();
    r_.functions.insert_or_assign(std::string(name), std::string(body));
}

// The path a file is known by: as written, without a leading `./`.
static std::string_view file_key(std::string_view path) {
    while (path.starts_with("./")) path.remove_prefix(2);
    return path;
}

// `echo … > FILE`, `printf … >> FILE`, `cat > FILE <<EOF`: the text the command wrote to FILE
// (appended with `>>`), kept within the bound the function bodies share, as they are.
void Lexer::keep_file(std::string_view path, std::string_view text, bool append) {
    if (text.size() > r_.function_bytes) {
        r_.files.erase(std::string(file_key(path))); // not read: the reading says so
        r_.summary.reached_expansion_cap = true;
        return;
    }
    r_.function_bytes -= text.size();
    std::string& kept = r_.files[std::string(file_key(path))];
    if (!append) kept.clear();
    kept += text;
}

// `bash FILE`, `source FILE`, `./FILE` of a file the command wrote: its text read as a script,
// charged to the expansion budget.
void Lexer::run_file(std::string_view path, unsigned depth, PathStep step, bool fed, bool find) {
    const auto it = r_.files.find(std::string(file_key(path)));
    if (it == r_.files.end() || !expansion_fits(it->second.size())) return;
    r_.expansion_budget -= it->second.size();
    nested(r_.arena.store(it->second), depth, step, fed, find);
}

// The text the command wrote to `path`, if it is known.
std::optional<std::string> Lexer::file_text(std::string_view path) const {
    const auto it = r_.files.find(std::string(file_key(path)));
    if (it == r_.files.end()) return std::nullopt;
    return it->second;
}

// `f pkill node` after `f() { "$@"; }`: the body read again with the call's words as its
// positional parameters (§7.3), within the expansion budget; the caller's come back after.
// A call inside the function's own body is not read again (it reads the same commands).
void Lexer::call_function(std::string_view name, std::span<const Word> args, unsigned depth,
                          const Walk& walk) {
    const auto it = r_.functions.find(std::string(name));
    if (it == r_.functions.end() ||
        std::find(r_.calls.begin(), r_.calls.end(), name) != r_.calls.end() ||
        !expansion_fits(it->second.size() + 1))
        return;
    r_.expansion_budget -= it->second.size() + 1;
    const std::string_view body = r_.arena.store(it->second); // a call may define it again
    Reading::Positionals caller = std::move(r_.positionals);
    std::vector<Word> words(args.begin(), args.end());
    for (Word& w : words) {
        if (!w.expands) continue;
        const std::optional<std::string> value = literal_value(w);
        if (!value) continue; // stays unknown: set_positionals leaves them all unknown
        w.text = r_.arena.store(*value);
        w.expands = false;
    }
    set_positionals(words);
    r_.calls.emplace_back(name);
    nested(body, depth, {name, "()"}, walk.fed_by_input, walk.via_find);
    r_.calls.pop_back();
    r_.positionals = std::move(caller);
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
    const std::size_t bytes = value.size() + rest_bytes(simple, i + 1, end);
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
            r_.sink.command(bare);
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
                } else if (options.script && !r_.files.empty() && !words[*options.script].expands) {
                    run_file(words[*options.script].text, depth, {name, "file"}, walk.fed_by_input,
                             walk.via_find);
                } else if (options.script && words[*options.script].text.starts_with("<(") &&
                           words[*options.script].script_index != 0) {
                    // `bash <(echo pkill x)`: what the substitution prints is the script.
                    nested(script_of(simple, words[*options.script]), depth, {name, "<(…)"},
                           walk.fed_by_input, walk.via_find);
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
                else if (!r_.files.empty() && !words[first].expands)
                    run_file(words[first].text, depth, {name, "file"}, walk.fed_by_input,
                             walk.via_find);
                else if (words[first].text.starts_with("<(") && words[first].script_index != 0)
                    nested(script_of(simple, words[first]), depth, {name, "<(…)"},
                           walk.fed_by_input, walk.via_find);
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
                bool append = false;
                for (std::size_t k = i + 1; k < end; ++k)
                    if (words[k].text == "-a" || words[k].text == "--append") append = true;
                for (std::size_t k = i + 1; k < end; ++k)
                    if (!words[k].text.starts_with("-") && !words[k].expands)
                        keep_file(words[k].text, text, append);
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
                    std::vector<std::string_view> args;
                    for (std::size_t k = first + 1; k < end; ++k)
                        args.push_back(script_of(simple, words[k]));
                    const std::size_t own = rest_bytes(simple, first, end);
                    const std::size_t limit = own + r_.expansion_budget;
                    bool over = false;
                    if (std::optional<std::string> text =
                            printf_output(words[first].text, args, limit, &over)) {
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
                    const std::span<const std::string_view> one(&joined, 1);
                    if (std::optional<std::string> text = printf_output("%b", one, joined.size()))
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
                r_.files.erase(std::string(file_key(rd.target.text)));
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
        r_.sink.command(bare);
    }
}

void Lexer::hand(Command& cmd) {
    cmd.first_in_simple_command = !emitted_any_;
    emitted_any_ = true;
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
