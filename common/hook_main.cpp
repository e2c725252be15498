// hook_main.cpp: tool mode and the fail-open hook mode shared by every binary.
#include "common/hook_main.hpp"

#include "common/os.hpp"
#include "common/output.hpp"
#include "common/payload.hpp"
#include "common/plugin_paths.hpp"

#include <boost/program_options.hpp>
#include <exception>
#include <iostream>

namespace viber {

namespace po = boost::program_options;

std::string_view suite_version() {
    return VIBER_VERSION;
}

namespace {

int tool_mode(int argc, char** argv, const HookInfo& info) {
    po::options_description options("Options");
    options.add_options()("help,h", "print this help and the hook's contract")(
        "version,V", "print the suite version");
    const auto usage = [&](std::ostream& out) {
        out << "usage: " << info.name << " [--help | --version]\n"
            << "With no arguments " << info.name
            << " runs as a Claude Code hook: JSON payload on stdin, at most one JSON line on "
               "stdout, exit 0.\n\n"
            << "Contract:\n"
            << info.help << "\n\n"
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
        if (vm.count("help")) {
            usage(std::cout);
            return 0;
        }
        if (vm.count("version")) {
            std::cout << info.name << " (viber-hooks) " << suite_version() << "\n";
            return 0;
        }
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

} // namespace

Decision decide_stdin(const HookInfo& info, const std::optional<std::string>& stdin_bytes,
                      Trace& trace) {
    const std::string_view bytes =
        stdin_bytes ? std::string_view(*stdin_bytes) : std::string_view();
    if (info.prefilter == Prefilter::viber_agent && !contains(bytes, "viber:")) {
        if (trace.on()) trace.step("the payload's bytes hold no `viber:`: dismissed unparsed");
        return Decision::nothing();
    }
    std::optional<boost::json::object> payload;
    if (stdin_bytes) payload = parse_object(bytes);
    return info.decide(HookInput{payload ? &*payload : nullptr, bytes}, trace);
}

int hook_main(int argc, char** argv, const HookInfo& info) {
    os::prepare_standard_streams();
    if (argc > 1) {
        try {
            return tool_mode(argc, argv, info);
        } catch (...) {
            return 1;
        }
    }
    set_argv0(argc > 0 ? argv[0] : nullptr);
    try {
        const std::optional<std::string> stdin_bytes = read_bounded(os::standard_input());
        Trace off;
        answer(decide_stdin(info, stdin_bytes, off));
        return 0;
    } catch (...) {
    }
    try {
        if (info.fail_open != nullptr) answer(info.fail_open());
    } catch (...) {
    }
    return 0;
}

} // namespace viber
