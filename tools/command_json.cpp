// command_json.cpp: the command model's findings as JSON, for --commands-json.
#include "tools/command_json.hpp"

#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/os/os.hpp"
#include "common/shell/shell_lexer.hpp"
#include "common/text/utf8.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <iostream>
#include <optional>

namespace viber::shell {

namespace json = boost::json;

namespace {

// A word whose text is what the command receives: no expansion, no unquoted glob, no brace list.
bool is_literal(const Word& w) {
    if (w.expands || w.has_substitution || w.unquoted_glob || w.unquoted_ifs) return false;
    if ((w.unquoted_brace || w.brace_inside) &&
        (w.text.find(',') != std::string_view::npos || w.text.find("..") != std::string_view::npos))
        return false;
    return true;
}

json::array words_json(std::span<const Word> words) {
    json::array out;
    for (const Word& w : words)
        out.push_back(json::object{{"text", utf8::repaired(w.text)}, {"literal", is_literal(w)}});
    return out;
}

class JsonSink final : public CommandSink {
public:
    void command(const Command& c) override {
        if (c.words.empty()) return;
        json::array path;
        for (const PathStep& step : c.path)
            path.push_back(json::object{{"name", utf8::repaired(step.name)},
                                        {"how", utf8::repaired(step.how)}});
        json::object out{{"name", utf8::repaired(c.name)},    {"words", words_json(c.words)},
                         {"path", std::move(path)},           {"depth", c.depth},
                         {"wrapper", c.is_wrapper},           {"query", c.query},
                         {"fed_by_input", c.fed_by_input},    {"via_find", c.via_find},
                         {"first", c.first_in_simple_command}};
        if (c.first_in_simple_command) out["simple_words"] = words_json(c.simple_words);
        commands.push_back(std::move(out));
    }

    json::array commands;
};

} // namespace

std::string commands_json(std::string_view command, std::size_t max_commands) {
    JsonSink sink;
    const Summary summary = read_commands(command, sink, Options{.max_commands = max_commands});
    std::string out =
        json::serialize(json::object{{"commands", std::move(sink.commands)},
                                     {"chain_operators", summary.chain_operators},
                                     {"depth_cap_reached", summary.reached_depth_cap},
                                     {"expansion_cap_reached", summary.reached_expansion_cap},
                                     {"count_cap_reached", summary.reached_command_cap}});
    out += '\n';
    return out;
}

int commands_json_tool(std::string_view mode) {
    if (mode != "" && mode != "text" && mode != "text0") {
        std::cerr
            << "--commands-json: MODE is empty (a PreToolUse payload on stdin), `text` (the "
               "bare command on stdin) or `text0` (commands separated by NUL bytes); try --help\n";
        return 2;
    }
    std::optional<std::string> bytes = read_bounded(os::standard_input());
    if (!bytes) {
        std::cerr << "--commands-json: stdin was not read in full\n";
        return 1;
    }
    if (mode == "text") {
        os::write_stdout(commands_json(*bytes));
        return 0;
    }
    if (mode == "text0") { // one line per command, in order (the oracle's batches)
        std::string_view rest(*bytes);
        std::string out;
        while (!rest.empty()) {
            const std::size_t nul = rest.find('\0');
            out += commands_json(rest.substr(0, nul));
            if (nul == std::string_view::npos) break;
            rest.remove_prefix(nul + 1);
        }
        os::write_stdout(out);
        return 0;
    }
    const std::optional<boost::json::object> payload = parse_object(*bytes);
    const std::optional<std::string_view> command = payload ? bash_command(*payload) : std::nullopt;
    if (!command) {
        os::write_stdout("{\"commands\":[],\"chain_operators\":0,\"depth_cap_reached\":false,"
                         "\"expansion_cap_reached\":false,\"count_cap_reached\":false,"
                         "\"command_found\":false}\n");
        return 0;
    }
    os::write_stdout(commands_json(*command));
    return 0;
}

} // namespace viber::shell
