// hook_main.cpp: tool mode (--help, --version, --explain) and the fail-open hook mode shared by
// every binary.
#include "common/hook/hook_main.hpp"

#include "common/hook/explain_input.hpp"
#include "common/hook/log.hpp"
#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/io/plugin_paths.hpp"
#include "common/os/os.hpp"
#include "common/text/utf8.hpp"

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
                   const json::object* payload, PayloadSource source) {
    if (!stdin_bytes) {
        trace.read("stdin: not read in full (a bound passed or the read failed): no payload");
        return;
    }
    if (source == PayloadSource::standard_input)
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

int explain(const HookInfo& info, ExplainInput input) {
    Trace trace = Trace::explaining();
    for (std::string& note : input.notes) trace.read(std::move(note));
    std::optional<std::string> stdin_bytes = std::move(input.bytes);
    Decision decision;
    std::optional<std::string> failure;
    try {
        decision = decide_stdin(info, std::move(stdin_bytes), trace, input.source);
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
    // Where hook mode would log this call, and whether it could: a log that is never written
    // must not look like a hook that never ran.
    if (const char* log = std::getenv(log_variable); log != nullptr && *log != '\0') {
        text += std::string("  ") + log_variable + ": " + log;
        const std::optional<std::string> unwritable = log_unwritable(log);
        text += unwritable ? ": the log is not written: " + *unwritable + "\n"
                           : " (hook mode appends one line per call)\n";
    }
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
    os::write_stdout(utf8::repaired(text));
    return 0;
}

// The tool-mode options the suite offers, with the hooks that take each: a hook asked for one it
// does not take says whose it is.
struct OtherHooksOption {
    std::string_view name;
    std::string_view whose;
};
constexpr OtherHooksOption other_hooks_options[] = {
    {.name = "replay", .whose = "plan-gate, plan-hints, kill-guard, shell-guard and verdict-nudge"},
    {.name = "commands-json", .whose = "kill-guard and shell-guard"},
};

// A usage error: one line on stderr naming the problem and the way out, exit 2. The help is
// never printed here: thirty lines would bury the one that says what was wrong.
int usage_error(const HookInfo& info, std::string_view problem) {
    std::cerr << info.name << ": " << problem << "; try --help\n";
    return 2;
}

// The option's name as typed, without its dashes and value: "--replay=x" is "replay".
std::string_view option_name(std::string_view arg) {
    while (arg.starts_with('-')) arg.remove_prefix(1);
    return arg.substr(0, arg.find('='));
}

int tool_mode(int argc, char** argv, const HookInfo& info) {
    po::options_description options("Options");
    options.add_options()("help,h", "print this help and the hook's contract")(
        "version,V", "print the suite version")(
        "explain", "read one payload (FILE, else stdin) as hook mode does and print how the hook "
                   "decided")("log", po::value<std::string>()->value_name("FILE[:LINE]"),
                              "with --explain: explain a call from the VIBER_HOOKS_LOG file (line "
                              "LINE; default: the last line of this hook)");
    const bool offers_replay = info.replay != nullptr && info.run_replay != nullptr;
    if (offers_replay)
        options.add_options()("replay", po::value<std::string>()->value_name("PATH"),
                              "print what the hook would have decided on every call it judges "
                              "in recorded Claude Code sessions (a transcript .jsonl or a "
                              "directory such as ~/.claude/projects/<project>/)");
    const std::string extra_name(info.extra.name);
    if (!extra_name.empty() && info.extra.run != nullptr)
        options.add_options()(extra_name.c_str(),
                              po::value<std::string>()->implicit_value("")->value_name("MODE"),
                              std::string(info.extra.help).c_str());
    // Built after every option above: `all` holds the options `options` holds when it is added.
    po::options_description hidden;
    hidden.add_options()("file", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(options).add(hidden);
    const auto usage = [&](std::ostream& out) {
        out << "usage: " << info.name
            << " [--help | --version | --explain [FILE] | --explain --log FILE[:LINE]"
            << (offers_replay ? " | --replay PATH" : "") << "]\n"
            << "With no arguments " << info.name
            << " runs as a Claude Code hook: JSON payload on stdin, at most one JSON line on "
               "stdout, exit 0.\n\n"
            << "Contract:\n"
            << info.help << "\n\n"
            << "Troubleshooting: --explain shows what the hook read, each step and the exact "
               "line it prints;\nVIBER_HOOKS_LOG=<file> appends one JSON line per call, its "
               "payload included\n(--explain --log <file> explains the last one).\n\n"
            << options;
    };
    po::variables_map vm;
    try {
        // One positional argument, the payload file of --explain; anything else is a bad argument.
        po::positional_options_description positionals;
        positionals.add("file", -1);
        po::store(po::command_line_parser(argc, argv).options(all).positional(positionals).run(),
                  vm);
        po::notify(vm);
    } catch (const po::unknown_option& e) {
        const std::string typed = e.get_option_name();
        for (const OtherHooksOption& other : other_hooks_options)
            if (option_name(typed) == other.name)
                return usage_error(info, std::string(info.name) + " does not take --" +
                                             std::string(other.name) + " (" +
                                             std::string(other.whose) + " do)");
        return usage_error(info, "unknown option " + typed);
    } catch (const std::exception& e) {
        return usage_error(info, e.what());
    }
    const std::vector<std::string> files =
        vm.count("file") ? vm["file"].as<std::vector<std::string>>() : std::vector<std::string>{};
    // The modes, used one at a time; --log and a FILE belong to --explain.
    std::vector<std::string> modes;
    for (const char* mode : {"help", "version", "explain", "replay"})
        if (vm.count(mode)) modes.push_back(std::string("--") + mode);
    if (!extra_name.empty() && vm.count(extra_name)) modes.push_back("--" + extra_name);
    if (modes.size() > 1)
        return usage_error(info, modes[0] + " and " + modes[1] + " are used one at a time");
    if (vm.count("log") && !vm.count("explain")) return usage_error(info, "--log needs --explain");
    if (!files.empty() && !vm.count("explain"))
        return usage_error(info, "a file argument ('" + utf8::repaired(files[0]) +
                                     "') is read only with --explain");
    if (files.size() > 1)
        return usage_error(info,
                           "--explain takes one payload file, not " + std::to_string(files.size()));
    if (files.size() == 1 && vm.count("log"))
        return usage_error(info, "--explain takes a payload file or --log FILE, not both");
    if (modes.empty()) // `--` alone, or an empty argument list after it
        return usage_error(info, "no option given");
    if (vm.count("help")) {
        usage(std::cout);
        return 0;
    }
    if (vm.count("version")) {
        std::cout << info.name << " (viber-hooks) " << suite_version() << "\n";
        return 0;
    }
    if (vm.count("replay")) return info.run_replay(info, vm["replay"].as<std::string>());
    if (vm.count("explain")) {
        ExplainInput input = vm.count("log")
                                 ? explain_input_log(vm["log"].as<std::string>(), info.name)
                             : files.size() == 1 ? explain_input_file(files[0])
                                                 : explain_input_stdin();
        if (!input.error) return explain(info, std::move(input));
        return usage_error(info, *input.error);
    }
    return info.extra.run(vm[extra_name].as<std::string>());
}

void answer(const Decision& decision) {
    if (decision.answer) os::write_stdout(to_line(*decision.answer));
}

// Appends the call to the troubleshooting log when VIBER_HOOKS_LOG names one; never throws.
// The payload as the log keeps it, taken before the parse; none when no log is asked for.
std::optional<LoggedPayload>
payload_for_log(const std::optional<std::string>& stdin_bytes) noexcept {
    try {
        const char* path = std::getenv(log_variable);
        if (path == nullptr || *path == '\0') return std::nullopt;
        return logged_payload(stdin_bytes);
    } catch (...) {
        return std::nullopt;
    }
}

void log_call(const HookInfo& info, os::Clock::time_point start, const Decision& decision,
              const std::optional<LoggedPayload>& payload) noexcept {
    try {
        const char* path = std::getenv(log_variable);
        if (path == nullptr || *path == '\0') return;
        const auto micros =
            std::chrono::duration_cast<std::chrono::microseconds>(os::Clock::now() - start).count();
        if (os::append_to_regular_file(
                path, log_line(LogEntry{.hook = info.name,
                                        .time = std::chrono::system_clock::now(),
                                        .micros = micros,
                                        .decision = decision.kind,
                                        .reason = decision.reason,
                                        .payload = payload ? &*payload : nullptr})))
            return;
        // Said once, on stderr: stdout is the answer, and the decision and exit stay as they are.
        std::cerr << info.name << ": " << log_variable << "=" << utf8::repaired(path)
                  << " is not written: "
                  << log_unwritable(path).value_or("the write failed (a full disk or a quota?)")
                  << "\n";
    } catch (...) {
    }
}

} // namespace

Decision decide_stdin(const HookInfo& info, std::optional<std::string> stdin_bytes, Trace& trace,
                      PayloadSource source) {
    // An unread stdin is no bytes, never a null view: memmem and friends take no null pointer.
    const std::string_view bytes =
        stdin_bytes ? std::string_view(*stdin_bytes) : std::string_view("");
    if (info.prefilter == Prefilter::viber_agent && !os::contains_bytes(bytes, "viber:")) {
        if (trace.on()) {
            if (source == PayloadSource::standard_input)
                trace.read("stdin: " + std::to_string(bytes.size()) + " bytes");
            trace.step("the payload's bytes hold no `viber:`, so it cannot be a viber agent's "
                       "call: dismissed unparsed");
        }
        return Decision::nothing();
    }
    std::optional<json::object> payload;
    if (stdin_bytes) payload = parse_object(*stdin_bytes);
    const json::object* object = payload ? &*payload : nullptr;
    if (trace.on()) trace_payload(trace, stdin_bytes, object, source);
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
            return 2;
        }
    }
    Decision decision;
    std::optional<LoggedPayload> logged;
    try {
        std::optional<std::string> stdin_bytes = read_bounded(os::standard_input());
        logged = payload_for_log(stdin_bytes);
        Trace off;
        decision = decide_stdin(info, std::move(stdin_bytes), off);
        answer(decision);
        log_call(info, start, decision, logged);
        return 0;
    } catch (...) {
    }
    try {
        decision = Decision::nothing();
        if (info.fail_open != nullptr) decision = info.fail_open();
        answer(decision);
    } catch (...) {
    }
    log_call(info, start, decision, logged);
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
