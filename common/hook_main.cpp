// hook_main.cpp: tool mode (--help, --version, --explain) and the fail-open hook mode shared by
// every binary.
#include "common/hook_main.hpp"

#include "common/log.hpp"
#include "common/os.hpp"
#include "common/output.hpp"
#include "common/payload.hpp"
#include "common/plugin_paths.hpp"
#include "common/utf8.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>

namespace viber {

namespace po = boost::program_options;
namespace json = boost::json;

std::string_view suite_version() {
    return VIBER_VERSION;
}

namespace {

// How --explain shows one top-level value: its type, and a string's first characters.
std::string describe(const json::value& value) {
    switch (value.kind()) {
    case json::kind::string: {
        // Escaped as JSON, so a newline or a quote in the value stays on one line.
        const std::string_view view = *string_text(value);
        constexpr std::size_t shown = 60;
        const std::size_t characters = utf8::code_points(view);
        std::string out = "string " + json::serialize(json::string(utf8::repaired(
                                          view.substr(0, utf8::offset_of(view, shown)))));
        if (characters > shown) out += "... (" + std::to_string(characters) + " characters)";
        return out;
    }
    case json::kind::object:
        return "object (" + std::to_string(value.get_object().size()) + " keys)";
    case json::kind::array:
        return "array (" + std::to_string(value.get_array().size()) + " elements)";
    case json::kind::bool_:
        return value.get_bool() ? "true" : "false";
    case json::kind::null:
        return "null";
    default:
        return "number " + json::serialize(value);
    }
}

// What hook mode read, for --explain: recorded by decide_stdin itself, so the explanation shows
// the very path hook mode takes.
void trace_payload(Trace& trace, const std::optional<std::string>& stdin_bytes,
                   const json::object* payload) {
    if (!stdin_bytes) {
        trace.read("stdin: not read in full (a bound passed or the read failed): no payload");
        return;
    }
    trace.read("stdin: " + std::to_string(stdin_bytes->size()) + " bytes");
    if (payload == nullptr) {
        trace.read("payload: not a JSON object");
        return;
    }
    trace.read("payload: a JSON object with " + std::to_string(payload->size()) +
               (payload->size() == 1 ? " key" : " keys"));
    for (const auto& member : *payload)
        trace.read("  key " + utf8::repaired(member.key()) + ": " + describe(member.value()));
}

int explain(const HookInfo& info) {
    std::optional<std::string> stdin_bytes = read_bounded(os::standard_input());
    Trace trace = Trace::explaining();
    Decision decision;
    std::optional<std::string> failure;
    try {
        decision = decide_stdin(info, std::move(stdin_bytes), trace);
    } catch (const std::exception& e) {
        failure = e.what();
    } catch (...) {
        failure = "an unknown exception";
    }
    if (failure) {
        trace.step("the decision failed (" + *failure + "): hook mode prints its fail-open answer");
        decision = Decision::nothing();
        try {
            if (info.fail_open != nullptr) decision = info.fail_open();
        } catch (...) {
        }
    }
    std::string text(info.name);
    text += " --explain\n\nRead:\n";
    for (const std::string& line : trace.reads()) text += "  " + line + "\n";
    text += "\nSteps:\n";
    if (trace.steps().empty()) text += "  (none recorded)\n";
    std::size_t number = 0;
    for (const std::string& line : trace.steps())
        text += "  " + std::to_string(++number) + ". " + line + "\n";
    text += "\nDecision: ";
    text += to_string(decision.kind);
    if (!decision.reason.empty())
        text +=
            " (" + std::to_string(utf8::code_points(decision.reason)) + " characters of reason)";
    text += "\n\nHook mode prints:\n";
    text += decision.answer ? to_line(*decision.answer) : std::string("(nothing)\n");
    write_stdout(utf8::repaired(text));
    return 0;
}

int tool_mode(int argc, char** argv, const HookInfo& info) {
    po::options_description options("Options");
    options.add_options()("help,h", "print this help and the hook's contract")(
        "version,V", "print the suite version")(
        "explain", "read one payload on stdin as hook mode does and print how the hook decided");
    const auto usage = [&](std::ostream& out) {
        out << "usage: " << info.name << " [--help | --version | --explain < payload.json]\n"
            << "With no arguments " << info.name
            << " runs as a Claude Code hook: JSON payload on stdin, at most one JSON line on "
               "stdout, exit 0.\n\n"
            << "Contract:\n"
            << info.help << "\n\n"
            << "Troubleshooting: --explain shows what the hook read, each step and the exact "
               "line it prints;\nVIBER_HOOKS_LOG=<file> appends one JSON line per call.\n\n"
            << options;
    };
    try {
        po::variables_map vm;
        // No positional arguments at all: `--version extra` is a bad argument, not a version.
        const po::positional_options_description no_positionals;
        po::store(
            po::command_line_parser(argc, argv).options(options).positional(no_positionals).run(),
            vm);
        po::notify(vm);
        if (vm.size() == 1 && vm.count("help")) {
            usage(std::cout);
            return 0;
        }
        if (vm.size() == 1 && vm.count("version")) {
            std::cout << info.name << " (viber-hooks) " << suite_version() << "\n";
            return 0;
        }
        if (vm.size() == 1 && vm.count("explain")) return explain(info);
    } catch (const std::exception& e) {
        std::cerr << info.name << ": " << e.what() << "\n";
    } catch (...) {
    }
    usage(std::cerr);
    return 1;
}

void answer(const Decision& decision) {
    if (decision.answer) write_stdout(to_line(*decision.answer));
}

// Appends the call to the troubleshooting log when VIBER_HOOKS_LOG names one; never throws.
void log_call(const HookInfo& info, os::Clock::time_point start,
              const Decision& decision) noexcept {
    try {
        const char* path = std::getenv(log_variable);
        if (path == nullptr || *path == '\0') return;
        const auto micros =
            std::chrono::duration_cast<std::chrono::microseconds>(os::Clock::now() - start).count();
        append_log(path, log_line(LogEntry{.hook = info.name,
                                           .time = std::chrono::system_clock::now(),
                                           .micros = micros,
                                           .decision = decision.kind,
                                           .reason = decision.reason}));
    } catch (...) {
    }
}

} // namespace

Decision decide_stdin(const HookInfo& info, std::optional<std::string> stdin_bytes, Trace& trace) {
    // An unread stdin is no bytes, never a null view: memmem and friends take no null pointer.
    const std::string_view bytes =
        stdin_bytes ? std::string_view(*stdin_bytes) : std::string_view("");
    if (info.prefilter == Prefilter::viber_agent && !contains(bytes, "viber:")) {
        if (trace.on()) {
            trace.read("stdin: " + std::to_string(bytes.size()) + " bytes");
            trace.step("the payload's bytes hold no `viber:`, so it cannot be a viber agent's "
                       "call: dismissed unparsed");
        }
        return Decision::nothing();
    }
    std::optional<json::object> payload;
    if (stdin_bytes) payload = parse_object(*stdin_bytes);
    const json::object* object = payload ? &*payload : nullptr;
    if (trace.on()) trace_payload(trace, stdin_bytes, object);
    return info.decide(HookInput{object, bytes}, trace);
}

int hook_main(int argc, char** argv, const HookInfo& info) {
    const auto start = os::process_start();
    os::prepare_standard_streams();
    set_argv0(argc > 0 ? argv[0] : nullptr);
    if (argc > 1) {
        try {
            return tool_mode(argc, argv, info);
        } catch (...) {
            return 1;
        }
    }
    Decision decision;
    try {
        std::optional<std::string> stdin_bytes = read_bounded(os::standard_input());
        Trace off;
        decision = decide_stdin(info, std::move(stdin_bytes), off);
        answer(decision);
        log_call(info, start, decision);
        return 0;
    } catch (...) {
    }
    try {
        decision = Decision::nothing();
        if (info.fail_open != nullptr) decision = info.fail_open();
        answer(decision);
    } catch (...) {
    }
    log_call(info, start, decision);
    return 0;
}

int run_hook(int argc, char** argv, const HookInfo& info) {
    const int status = hook_main(argc, argv, info);
    // Hook mode's answer went out through write(2) and nothing is buffered: the process leaves
    // at once, without the C and C++ libraries' exit work (Boost.Filesystem's and the standard
    // streams' static destructors, a flush of stdio buffers nothing wrote to), which touches code
    // and data a call otherwise never reaches: two or three page faults.
    if (hook_mode_leaves_at_once && argc <= 1) std::_Exit(status);
    return status;
}

} // namespace viber
