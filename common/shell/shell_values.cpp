// shell_values.cpp: the values a command gives that a later part of it reads (§7.2, §7.3):
// literal variables and aliases, arrays, `read <<<` and `set --` literals and the positional
// parameters, functions it defines and calls, and scripts it writes and then runs.
#include "common/os/paths.hpp"
#include "common/shell/shell_lexer_internal.hpp"

namespace viber::shell::detail {

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
// literal, leaves the word unknown (nullopt): one unknown part is not guessed at. The values it
// writes in are charged to the expansion budget; one that would pass it is not read (nullopt),
// the summary says so and the budget is spent, so no word repeated many times costs more.
std::optional<std::string> Lexer::literal_text(std::string_view text) const {
    std::string out;
    const auto insert = [&](std::string_view value) {
        if (value.size() > r_.expansion_budget) {
            r_.summary.reached_expansion_cap = true;
            r_.expansion_budget = 0;
            return false;
        }
        r_.expansion_budget -= value.size();
        out += value;
        return true;
    };
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
                if (!element || !insert(*element)) return std::nullopt;
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
                    if (!insert(known == nullptr || (colon && known->empty()) ? *word : *known))
                        return std::nullopt;
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
        if (known == nullptr || !insert(*known)) return std::nullopt;
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
    for (std::size_t k = 0; k < names.size(); ++k) {
        while (!line.empty() && is_blank(line.front())) line.remove_prefix(1);
        std::size_t cut = 0;
        if (k + 1 < names.size()) {
            while (cut < line.size() && !is_blank(line[cut])) ++cut;
        } else {
            cut = line.size();
            while (cut > 0 && is_blank(line[cut - 1])) --cut;
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

// The path a file is known by: its lexically normal spelling, so `./k.sh`, `.temp//k.sh` and
// `src/../k.sh` name the file `k.sh` and `.temp/k.sh` name.
std::string file_key(std::string_view path) {
    return paths::lexically_normal(path);
}

// `echo … > FILE`, `printf … >> FILE`, `cat > FILE <<EOF`: the text the command wrote to FILE
// (appended with `>>`), kept within the bound the function bodies share, as they are.
void Lexer::keep_file(std::string_view path, std::string_view text, bool append) {
    if (text.size() > r_.function_bytes) {
        r_.files.erase(file_key(path)); // not read: the reading says so
        r_.summary.reached_expansion_cap = true;
        return;
    }
    r_.function_bytes -= text.size();
    std::string& kept = r_.files[file_key(path)];
    if (!append) kept.clear();
    kept += text;
}

// `bash FILE`, `source FILE`, `./FILE` of a file the command wrote: its text read as a script,
// charged to the expansion budget.
void Lexer::run_file(std::string_view path, unsigned depth, PathStep step, bool fed, bool find) {
    const auto it = r_.files.find(file_key(path));
    if (it == r_.files.end() || !expansion_fits(it->second.size())) return;
    r_.expansion_budget -= it->second.size();
    nested(r_.arena.store(it->second), depth, step, fed, find);
}

// The text the command wrote to `path`, if it is known.
std::optional<std::string> Lexer::file_text(std::string_view path) const {
    const auto it = r_.files.find(file_key(path));
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

} // namespace viber::shell::detail
