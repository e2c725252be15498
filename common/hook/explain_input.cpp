// explain_input.cpp: the payload --explain reads: stdin, a file, or a logged call.
#include "common/hook/explain_input.hpp"

#include "common/hook/log.hpp"
#include "common/io/files.hpp"
#include "common/io/line_reader.hpp"
#include "common/io/payload.hpp"
#include "common/os/os.hpp"
#include "common/text/utf8.hpp"

#include <boost/json/serialize.hpp>
#include <charconv>

namespace viber {

namespace json = boost::json;

namespace {

ExplainInput failed(std::string message) {
    ExplainInput out;
    out.error = std::move(message);
    return out;
}

// FILE:LINE when what follows the last `:` is a line number (a Windows path's `C:` is not).
std::pair<std::string, std::optional<std::size_t>> split_log_spec(std::string_view spec) {
    const std::size_t colon = spec.rfind(':');
    if (colon != std::string_view::npos && colon + 1 < spec.size()) {
        const std::string_view digits = spec.substr(colon + 1);
        std::size_t line = 0;
        const auto [end, error] =
            std::from_chars(digits.data(), digits.data() + digits.size(), line);
        if (error == std::errc() && end == digits.data() + digits.size() && line > 0)
            return {std::string(spec.substr(0, colon)), line};
    }
    return {std::string(spec), std::nullopt};
}

} // namespace

ExplainInput explain_input_stdin() {
    const os::Stream in = os::standard_input();
    if (os::is_terminal(in))
        return failed("--explain reads a payload on stdin, and stdin is a terminal: give a file "
                      "(--explain payload.json), pipe one in (--explain < payload.json), or "
                      "explain a logged call (--explain --log FILE[:LINE])");
    ExplainInput out;
    out.bytes = read_bounded(in);
    if (out.bytes && out.bytes->empty())
        out.notes.push_back("stdin: empty (0 bytes): no payload to explain; give a file "
                            "(--explain payload.json) or pipe one in");
    return out;
}

ExplainInput explain_input_file(const std::string& path) {
    if (os::file_kind(path) == os::FileKind::missing)
        return failed("--explain " + path + ": no such file");
    if (!is_regular_file(path))
        return failed("--explain " + path + ": not a regular file that can be read");
    std::optional<std::string> bytes = read_regular_file(path);
    if (!bytes) return failed("--explain " + path + ": unreadable, or over 64 MiB");
    ExplainInput out;
    out.source = PayloadSource::file;
    out.notes.push_back("payload file: " + utf8::repaired(path) + " (" +
                        std::to_string(bytes->size()) + " bytes)");
    out.bytes = std::string(strip_bom(*bytes));
    return out;
}

ExplainInput explain_input_log(std::string_view spec, std::string_view hook) {
    const auto [path, wanted] = split_log_spec(spec);
    LineReader reader(path);
    if (!reader.is_open())
        return failed("--log " + path +
                      (os::file_kind(path) == os::FileKind::missing
                           ? ": no such file"
                           : ": not a regular file that can be read"));
    std::string line;
    std::string chosen;
    std::size_t chosen_number = 0;
    std::string chosen_hook;
    while (reader.next(line)) {
        if (reader.too_long()) continue;
        if (wanted) {
            if (reader.number() != *wanted) continue;
            chosen = std::move(line);
            chosen_number = reader.number();
            break;
        }
        // The last line of this hook: a cheap byte test first, the parse only on a candidate.
        if (!os::contains_bytes(line, hook)) continue;
        const std::optional<json::object> entry = parse_object(line);
        if (!entry) continue;
        const std::optional<std::string_view> name = string_field(*entry, "hook");
        if (!name || *name != hook) continue;
        chosen = line;
        chosen_number = reader.number();
    }
    if (chosen_number == 0)
        return failed(wanted ? "--log " + path + ": no line " + std::to_string(*wanted)
                             : "--log " + path + ": no call of " + std::string(hook) + " logged");
    const std::optional<json::object> entry = parse_object(chosen);
    if (!entry)
        return failed("--log " + path + ":" + std::to_string(chosen_number) +
                      ": not a log line (not a JSON object)");
    const std::string where = path + ":" + std::to_string(chosen_number);
    const json::value* payload = entry->if_contains("payload");
    if (payload == nullptr)
        return failed("--log " + where +
                      ": the line holds no payload (a log written before the payload was "
                      "logged, or not this suite's log)");
    ExplainInput out;
    out.source = PayloadSource::log;
    const std::optional<std::string_view> logged_hook = string_field(*entry, "hook");
    std::string note = "logged call: " + utf8::repaired(where) + " (" +
                       utf8::repaired(logged_hook.value_or("no hook named"));
    if (const std::optional<std::string_view> time = string_field(*entry, "time"))
        note += ", " + utf8::repaired(*time);
    if (const std::optional<std::string_view> decision = string_field(*entry, "decision"))
        note += ", logged decision " + utf8::repaired(*decision);
    note += ")";
    out.notes.push_back(std::move(note));
    if (logged_hook && *logged_hook != hook)
        out.notes.push_back("note: the line is a call of " + utf8::repaired(*logged_hook) +
                            ", explained here as " + std::string(hook) + " would decide it");
    if (is_true(*entry, "payload_cut"))
        out.notes.push_back("note: the log kept only the payload's first 64 KiB: this explains "
                            "that head, which is no longer whole JSON");
    if (const json::value* read = entry->if_contains("payload_read");
        read != nullptr && read->is_bool() && !read->get_bool()) {
        out.notes.push_back("note: hook mode could not read that call's stdin in full (a bound "
                            "passed): it printed nothing");
        return out; // bytes stay nullopt, as hook mode saw them
    }
    if (const std::optional<std::string_view> text = string_text(*payload))
        out.bytes = std::string(*text);
    else
        out.bytes = json::serialize(*payload);
    return out;
}

} // namespace viber
