// command_json.cpp: the command model's findings as JSON, for --commands-json.
#include "tools/command_json.hpp"

#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/os/os.hpp"
#include "common/shell/shell_lexer.hpp"
#include "common/text/utf8.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <iostream>
#include <optional>

namespace viber::shell {

namespace {

void append_string(std::string& out, std::string_view text) {
    out += boost::json::serialize(boost::json::string(utf8::repaired(text)));
}

// A word whose text is what the command receives: no expansion, no unquoted glob, no brace list.
bool is_literal(const Word& w) {
    if (w.expands || w.has_substitution || w.unquoted_glob || w.unquoted_ifs) return false;
    if ((w.unquoted_brace || w.brace_inside) &&
        (w.text.find(',') != std::string_view::npos || w.text.find("..") != std::string_view::npos))
        return false;
    return true;
}

class JsonSink final : public CommandSink {
public:
    explicit JsonSink(std::string& out) : out_(out) {}

    void command(const Command& c) override {
        if (c.words.empty()) return;
        if (count_++ > 0) out_ += ',';
        out_ += "{\"name\":";
        append_string(out_, c.name);
        out_ += ",\"words\":";
        append_words(c.words);
        out_ += ",\"path\":[";
        bool first = true;
        for (const PathStep& step : c.path) {
            if (!first) out_ += ',';
            first = false;
            out_ += "{\"name\":";
            append_string(out_, step.name);
            out_ += ",\"how\":";
            append_string(out_, step.how);
            out_ += '}';
        }
        out_ += "],\"depth\":" + std::to_string(c.depth);
        out_ += c.is_wrapper ? ",\"wrapper\":true" : ",\"wrapper\":false";
        out_ += c.query ? ",\"query\":true" : ",\"query\":false";
        out_ += c.fed_by_input ? ",\"fed_by_input\":true" : ",\"fed_by_input\":false";
        out_ += c.via_find ? ",\"via_find\":true" : ",\"via_find\":false";
        if (c.first_in_simple_command) {
            out_ += ",\"first\":true,\"simple_words\":";
            append_words(c.simple_words);
            out_ += '}';
        } else {
            out_ += ",\"first\":false}";
        }
    }

private:
    void append_words(std::span<const Word> words) {
        out_ += '[';
        bool first = true;
        for (const Word& w : words) {
            if (!first) out_ += ',';
            first = false;
            out_ += "{\"text\":";
            append_string(out_, w.text);
            out_ += is_literal(w) ? ",\"literal\":true}" : ",\"literal\":false}";
        }
        out_ += ']';
    }

    std::string& out_;
    std::size_t count_ = 0;
};

} // namespace

std::string commands_json(std::string_view command, std::size_t max_commands) {
    std::string out = "{\"commands\":[";
    JsonSink sink(out);
    const Summary summary = read_commands(command, sink, Options{.max_commands = max_commands});
    out += "],\"chain_operators\":" + std::to_string(summary.chain_operators);
    out +=
        summary.reached_depth_cap ? ",\"depth_cap_reached\":true" : ",\"depth_cap_reached\":false";
    out += summary.reached_expansion_cap ? ",\"expansion_cap_reached\":true"
                                         : ",\"expansion_cap_reached\":false";
    out += summary.reached_command_cap ? ",\"count_cap_reached\":true}\n"
                                       : ",\"count_cap_reached\":false}\n";
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
