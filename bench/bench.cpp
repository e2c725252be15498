// bench.cpp: the benchmark of docs/contract.md (Speed and size): runs each real hook binary as a
// process on generated inputs and reports median and p90 wall time as ratios to baselines measured
// in the same run.
//
// Contract: argv [--quick] [--only TEXT] [--keep] [--calls FILE] [--out FILE] [--work DIR]
// [--bin-dir DIR] [--old-bin-dir DIR] [--floor EXE] [--floor-bash EXE] [--content-dir DIR]
// [--help]; reads the six hook binaries (with --old-bin-dir also another build's six, each run on
// the same call as a baseline) and content/*.md; writes a scratch plugin tree, project and inputs
// (transcripts up to 100 MB) under a fresh directory in --work, removed at the end; prints the
// table to stdout and writes it to --out; exits 0 when every case gave its expected decision, 1
// otherwise, 2 on a usage or setup error (a figure over its target is reported, not failed: speed
// is measured here, never asserted). With --calls, measures nothing: writes each hook call among
// the cases to FILE (a line of tab-separated executable, stdin file and working directory) and
// keeps the scratch directory, for a profiler to replay.
//
// Each run is a posix_spawn of the binary from a helper process, with stdin from a file, stdout
// to /dev/null, cwd the scratch project and CLAUDE_PLUGIN_ROOT unset (the binaries live in the
// scratch plugin tree and find their files by the finding-files rule (docs/contract.md)). A case
// and its baselines are interleaved run by run, so machine noise falls on all of them alike.
#include "bench/workloads.hpp"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace fs = boost::filesystem;
namespace json = boost::json;
namespace po = boost::program_options;

namespace {

using namespace viber::bench;

struct Options {
    bool quick = false;
    std::string only;  // run only the cases whose name holds this text
    bool keep = false; // leave the scratch directory (inputs, plugin tree) for profiling
    std::string calls; // write the cases' hook calls here and measure nothing
    std::string out = std::string(VIBER_BENCH_BIN_DIR) + "/../bench-results.md";
    std::string work = "/tmp";
    std::string bin_dir = VIBER_BENCH_BIN_DIR;
    std::string old_bin_dir; // another build's binaries, run beside each hook call
    std::string floor = VIBER_BENCH_FLOOR;
    std::string floor_bash = VIBER_BENCH_FLOOR_BASH;
    std::string content_dir = VIBER_BENCH_CONTENT_DIR;
};

// One program invocation: executable, arguments, stdin file.
struct Command {
    std::string label;
    std::string exe;
    std::vector<std::string> args;
    std::string stdin_file;
    // stdin is a pipe the file is written into while the program reads it (as Claude Code
    // sends a payload), not the file itself.
    bool stdin_pipe = false;
};

struct Sample {
    double ms = 0;
    long max_rss_kb = 0;
    int status = 0;
};

struct Baseline {
    Command command;
    std::string target; // "" when the ratio has no target
    double limit = 0;   // ratio limit, 0 when none
};

struct Case {
    std::string name;
    Command command;
    int runs = 0;
    std::string expect;        // the decision: allow, deny, block, context, silent
    std::string expect_reason; // text the reason must contain, "" when any
    std::vector<Baseline> baselines;
    bool rss_target = false; // docs/contract.md (Speed and size): peak RSS under 32 MB
    double max_ms = 0;       // a time target for every run, 0 when only the 2 s bound holds
};

// Runs the measured programs from a helper process forked at start-up, while the driver is still
// small: a child's ru_maxrss starts from the memory of the process that spawned it, so spawning
// from the driver once it holds megabytes of generated input would report that, not the hook.
class Runner {
public:
    Runner() {
        int to_helper[2], from_helper[2];
        if (::pipe2(to_helper, O_CLOEXEC) != 0 || ::pipe2(from_helper, O_CLOEXEC) != 0)
            throw std::runtime_error("pipe failed");
        helper_ = ::fork();
        if (helper_ < 0) throw std::runtime_error("fork failed");
        if (helper_ == 0) {
            ::close(to_helper[1]);
            ::close(from_helper[0]);
            serve(to_helper[0], from_helper[1]);
            ::_exit(0);
        }
        ::close(to_helper[0]);
        ::close(from_helper[1]);
        requests_ = to_helper[1];
        answers_ = from_helper[0];
    }
    ~Runner() {
        ::close(requests_);
        ::close(answers_);
        int status = 0;
        ::waitpid(helper_, &status, 0);
    }
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    // Runs `command` once in `cwd`; stdout goes to `stdout_file` (or /dev/null).
    Sample run(const Command& command, const std::string& cwd,
               const std::string& stdout_file = "/dev/null") const {
        std::vector<std::string> fields{
            cwd, stdout_file,
            (command.stdin_pipe ? "|" : "") +
                (command.stdin_file.empty() ? std::string("/dev/null") : command.stdin_file),
            command.exe};
        fields.insert(fields.end(), command.args.begin(), command.args.end());
        std::string request;
        put(request, static_cast<std::uint32_t>(fields.size()));
        for (const auto& field : fields) {
            put(request, static_cast<std::uint32_t>(field.size()));
            request += field;
        }
        Sample sample;
        sample.status = -1;
        if (!write_all(requests_, request) || !read_all(answers_, &sample, sizeof sample))
            return Sample{0, 0, -1};
        return sample;
    }

private:
    static void put(std::string& out, std::uint32_t n) {
        out.append(reinterpret_cast<const char*>(&n), sizeof n);
    }

    static bool write_all(int fd, std::string_view bytes) {
        while (!bytes.empty()) {
            const ssize_t n = ::write(fd, bytes.data(), bytes.size());
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    static bool read_all(int fd, void* into, std::size_t size) {
        char* at = static_cast<char*>(into);
        while (size > 0) {
            const ssize_t n = ::read(fd, at, size);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            at += n;
            size -= static_cast<std::size_t>(n);
        }
        return true;
    }

    // The helper: one request at a time until the driver closes the pipe.
    static void serve(int requests, int answers) {
        std::signal(SIGPIPE, SIG_IGN); // a program that stops reading its piped stdin
        std::vector<std::string> env;
        for (char** e = environ; *e != nullptr; ++e)
            if (std::strncmp(*e, "CLAUDE_PLUGIN_ROOT=", 19) != 0) env.emplace_back(*e);
        std::vector<char*> envp;
        for (auto& entry : env) envp.push_back(entry.data());
        envp.push_back(nullptr);
        for (;;) {
            std::uint32_t count = 0;
            if (!read_all(requests, &count, sizeof count)) return;
            std::vector<std::string> fields(count);
            for (auto& field : fields) {
                std::uint32_t size = 0;
                if (!read_all(requests, &size, sizeof size)) return;
                field.resize(size);
                if (size > 0 && !read_all(requests, field.data(), size)) return;
            }
            Sample sample{0, 0, -1};
            if (fields.size() >= 4) sample = spawn(fields, envp);
            if (!write_all(answers,
                           std::string_view(reinterpret_cast<const char*>(&sample), sizeof sample)))
                return;
        }
    }

    // fields: cwd, stdout, stdin ("|file": the file's bytes through a pipe), exe, args...
    static Sample spawn(std::vector<std::string>& fields, std::vector<char*>& envp) {
        std::vector<char*> argv;
        for (std::size_t i = 3; i < fields.size(); ++i) argv.push_back(fields[i].data());
        argv.push_back(nullptr);
        const bool piped = fields[2].starts_with("|");
        int pipe_fds[2] = {-1, -1};
        pid_t feeder = -1;
        if (piped) {
            // A small process of its own writes the file into the pipe, so neither the helper's
            // memory (ru_maxrss) nor its time holds the bytes.
            if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return Sample{0, 0, -1};
            feeder = ::fork();
            if (feeder < 0) return Sample{0, 0, -1};
            if (feeder == 0) {
                ::close(pipe_fds[0]);
                const int in = ::open(fields[2].c_str() + 1, O_RDONLY | O_CLOEXEC);
                static char chunk[1 << 16];
                for (ssize_t got = 0; in >= 0 && (got = ::read(in, chunk, sizeof chunk)) > 0;)
                    if (!write_all(pipe_fds[1],
                                   std::string_view(chunk, static_cast<std::size_t>(got))))
                        break;
                ::_exit(0);
            }
            ::close(pipe_fds[1]);
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        if (piped) {
            posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], STDIN_FILENO);
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, fields[2].c_str(), O_RDONLY,
                                             0);
        }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, fields[1].c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addchdir_np(&actions, fields[0].c_str());
        Sample sample{0, 0, -1};
        const auto started = std::chrono::steady_clock::now();
        pid_t pid = 0;
        const bool spawned =
            posix_spawn(&pid, fields[3].c_str(), &actions, nullptr, argv.data(), envp.data()) == 0;
        if (piped) ::close(pipe_fds[0]); // a program that stops reading ends the feed (EPIPE)
        if (spawned) {
            int status = 0;
            rusage usage{};
            while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
            }
            const auto ended = std::chrono::steady_clock::now();
            sample.ms = std::chrono::duration<double, std::milli>(ended - started).count();
            sample.max_rss_kb = usage.ru_maxrss;
            sample.status = status;
        }
        posix_spawn_file_actions_destroy(&actions);
        if (feeder > 0) {
            int status = 0;
            while (::waitpid(feeder, &status, 0) < 0 && errno == EINTR) {
            }
        }
        return sample;
    }

    pid_t helper_ = -1;
    int requests_ = -1;
    int answers_ = -1;
};

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t at =
        static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(at, values.size() - 1)];
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_file(const std::string& path, std::string_view contents) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
}

// The decision a hook printed: allow, deny, block, context or silent, and the reason's text.
std::pair<std::string, std::string> decision_of(const std::string& out) {
    if (out.empty()) return {"silent", ""};
    boost::system::error_code ec;
    const json::value answer = json::parse(out, ec);
    if (ec || !answer.is_object()) return {"unreadable", out.substr(0, 80)};
    const json::object& object = answer.as_object();
    if (const auto* decision = object.if_contains("decision"))
        return {decision->is_string() ? std::string(decision->as_string()) : "unreadable",
                object.contains("reason") && object.at("reason").is_string()
                    ? std::string(object.at("reason").as_string())
                    : ""};
    if (const auto* specific = object.if_contains("hookSpecificOutput");
        specific && specific->is_object()) {
        const json::object& inner = specific->as_object();
        if (const auto* permission = inner.if_contains("permissionDecision");
            permission && permission->is_string()) {
            std::string reason;
            if (const auto* r = inner.if_contains("permissionDecisionReason"); r && r->is_string())
                reason = r->as_string();
            return {std::string(permission->as_string()), reason};
        }
        if (inner.contains("additionalContext")) return {"context", ""};
    }
    return {"other", out.substr(0, 80)};
}

std::string fixed(double value, int digits) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(digits) << value;
    return text.str();
}

struct Row {
    std::string line;
    bool over = false;
};

// The scratch world every case runs in: a plugin tree holding copies of the six binaries, the
// content, a config.sh stub turning the plain plan review on and a setup template one schema
// ahead of the project (session-start's note); a git project; the generated inputs.
struct World {
    std::string work;
    std::string plugin;
    std::string project;
    std::string inputs;

    std::string bin(std::string_view hook) const {
        return plugin + "/hooks/bin/" + std::string(hook);
    }
    // The --old-bin-dir build's binary: in the same plugin tree (hooks/old/ finds the same
    // files through ../../), so both read the same content, config.sh and project.
    std::string old_bin(std::string_view hook) const {
        return plugin + "/hooks/old/" + std::string(hook);
    }
    std::string input(const std::string& name, std::string_view contents) const {
        const std::string path = inputs + "/" + name;
        write_file(path, contents);
        return path;
    }
};

std::optional<std::string> lay_out(World& world, const Options& options) {
    world.plugin = world.work + "/plugin";
    world.project = world.work + "/project";
    world.inputs = world.work + "/inputs";
    fs::create_directories(world.plugin + "/hooks/bin");
    if (!options.old_bin_dir.empty()) fs::create_directories(world.plugin + "/hooks/old");
    for (const char* hook : {"plan-gate", "plan-hints", "kill-guard", "shell-guard",
                             "verdict-nudge", "session-start"}) {
        std::vector<std::pair<std::string, std::string>> copies{
            {options.bin_dir + "/" + hook, world.bin(hook)}};
        if (!options.old_bin_dir.empty())
            copies.emplace_back(options.old_bin_dir + "/" + hook, world.old_bin(hook));
        for (const auto& [from, to] : copies) {
            if (!fs::is_regular_file(from)) return from + " is not built";
            fs::copy_file(from, to, fs::copy_options::overwrite_existing);
            fs::permissions(to, fs::perms::owner_all | fs::perms::group_read |
                                    fs::perms::group_exe | fs::perms::others_read |
                                    fs::perms::others_exe);
        }
    }
    write_file(world.plugin + "/hooks/content/manifest.md",
               read_file(options.content_dir + "/manifest.md"));
    write_file(world.plugin + "/hooks/content/plan-hints.md",
               read_file(options.content_dir + "/plan-hints.md"));
    write_file(world.plugin + "/scripts/config.sh",
               "#!/usr/bin/env bash\necho 'planning.plain-plan-review: true'\n");
    write_file(world.plugin + "/skills/setup/templates/viber.yml",
               "schema: 3\nplanning:\n  plain-plan-review: false\n");
    fs::create_directories(world.project + "/.git");
    fs::create_directories(world.project + "/.claude/plans/export");
    write_file(world.project + "/.claude/viber.yml",
               "schema: 2\nplanning:\n  plain-plan-review: true\n");
    fs::create_directories(world.inputs);
    return std::nullopt;
}

// Every case of docs/contract.md (Speed and size) and the issues' benchmark lists, with its
// baselines and targets.
std::vector<Case> build_cases(const World& world, const Options& options) {
    const int scale = options.quick ? 10 : 1;
    const auto runs = [&](int n) { return std::max(3, n / scale); };
    const auto floor_on = [&](const std::string& stdin_file, std::string target, double limit) {
        return Baseline{Command{"floor", options.floor, {}, stdin_file}, std::move(target), limit};
    };
    const auto wc_on = [&](const std::string& file, std::string target, double limit) {
        return Baseline{Command{"wc -l", "/usr/bin/wc", {"-l", file}, ""}, std::move(target),
                        limit};
    };
    const std::string& project = world.project;
    const auto generate = [](const std::string& path, std::size_t bytes, Tail tail,
                             const std::string& plan, std::size_t tasks) {
        if (!write_transcript(path, bytes, tail, plan, tasks))
            throw std::runtime_error("cannot write " + path);
    };
    std::vector<Case> cases;

    // The common path: a call that is not for a viber agent.
    const std::string typical =
        world.input("bash-plain.json", bash_payload("", allowed_command(1200), project));
    const std::string typical_size = std::to_string(fs::file_size(typical)) + " B";
    for (const char* guard : {"kill-guard", "shell-guard"})
        cases.push_back({std::string(guard) + ", non-viber Bash call (" + typical_size + ")",
                         {guard, world.bin(guard), {}, typical},
                         runs(200),
                         "silent",
                         "",
                         {floor_on(typical, "<= 1.2x floor", 1.2)},
                         false});
    const std::string stop = world.input(
        "stop-plain.json", subagent_stop_payload("Explore", agent_message(1500), project));
    cases.push_back(
        {"verdict-nudge, non-viber stop (" + std::to_string(fs::file_size(stop)) + " B)",
         {"verdict-nudge", world.bin("verdict-nudge"), {}, stop},
         runs(200),
         "silent",
         "",
         {floor_on(stop, "<= 1.5x floor", 1.5)},
         false});

    // Commands from viber agents, and shell-guard's non-viber caller, at three sizes.
    // docs/contract.md (Speed and size) sets 1.3x for a 20 KB viber command and 1.2x for the common
    // call; 100 B and 100 KB are reported.
    for (const auto& [size, label, n] :
         {std::tuple{std::size_t{100}, "100 B", 200}, std::tuple{std::size_t{20000}, "20 KB", 200},
          std::tuple{std::size_t{100000}, "100 KB", 100}}) {
        const std::string command = allowed_command(size);
        const bool viber_target = size == 20000;
        const bool plain_target = size <= 20000;
        const std::string coder = world.input("coder-" + std::to_string(size) + ".json",
                                              bash_payload("viber:task-coder", command, project));
        for (const char* guard : {"kill-guard", "shell-guard"})
            cases.push_back(
                {std::string(guard) + ", viber:task-coder, " + label + " command",
                 {guard, world.bin(guard), {}, coder},
                 runs(n),
                 "silent",
                 "",
                 {floor_on(coder, viber_target ? "<= 1.3x floor" : "", viber_target ? 1.3 : 0)},
                 false});
        const std::string plain = world.input("plain-" + std::to_string(size) + ".json",
                                              bash_payload("", command, project));
        cases.push_back(
            {std::string("shell-guard, non-viber caller, ") + label + " command",
             {"shell-guard", world.bin("shell-guard"), {}, plain},
             runs(n),
             "silent",
             "",
             {floor_on(plain, plain_target ? "<= 1.2x floor" : "", plain_target ? 1.2 : 0)},
             false});
    }

    // The hostile 1 MiB commands (docs/contract.md (Speed and size)): each guard under 50 ms and 32
    // MB on every run.
    int hostile_index = 0;
    for (const HostileCommand& hostile : hostile_commands(std::size_t{1} << 20)) {
        const std::string payload =
            world.input("hostile-" + std::to_string(hostile_index++) + ".json",
                        bash_payload("viber:task-coder", hostile.command, project));
        for (const auto& [guard, expect] : {std::pair{"kill-guard", hostile.kill_guard},
                                            std::pair{"shell-guard", hostile.shell_guard}}) {
            Case c{std::string(guard) + ", 1 MiB hostile: " + hostile.label,
                   {guard, world.bin(guard), {}, payload},
                   runs(20),
                   expect,
                   "",
                   {floor_on(payload, "", 0)},
                   true};
            c.max_ms = 50;
            cases.push_back(std::move(c));
        }
    }

    const std::string big =
        world.input("stop-5mb.json",
                    subagent_stop_payload("viber:task-coder", agent_message(5u << 20), project));
    cases.push_back({"verdict-nudge, viber:task-coder, 5 MB message",
                     {"verdict-nudge", world.bin("verdict-nudge"), {}, big},
                     runs(50),
                     "silent",
                     "",
                     {floor_on(big, "<= 3x floor", 3)},
                     true});
    // The same message as Claude Code sends it: through a pipe, read as it is written. Reported
    // against the floor reading the same pipe.
    Command piped_nudge{"verdict-nudge", world.bin("verdict-nudge"), {}, big};
    piped_nudge.stdin_pipe = true;
    Command piped_floor{"floor", options.floor, {}, big};
    piped_floor.stdin_pipe = true;
    cases.push_back({"verdict-nudge, viber:task-coder, 5 MB message through a pipe",
                     piped_nudge,
                     runs(50),
                     "silent",
                     "",
                     {Baseline{piped_floor, "", 0}},
                     true});
    const std::string start = world.input("session-start.json", session_start_payload(project));
    cases.push_back({"session-start, per call (schema note)",
                     {"session-start", world.bin("session-start"), {}, start},
                     runs(200),
                     "context",
                     "",
                     {floor_on(start, "", 0)},
                     false});

    // The transcript hooks over 1, 10 and 100 MB of 1-3 KB lines, the signals near the end.
    const std::string plan_path = project + "/.claude/plans/export/plan.md";
    write_file(plan_path, planner_plan(6));
    for (const auto& [mb, n] : {std::pair{1, 100}, std::pair{10, 20}, std::pair{100, 5}}) {
        const std::string transcript =
            world.work + "/transcript-" + std::to_string(mb) + "mb.jsonl";
        generate(transcript, static_cast<std::size_t>(mb) << 20, Tail::planner_pass, plan_path, 6);
        const std::string gate = world.input("gate-" + std::to_string(mb) + ".json",
                                             exit_plan_mode_payload(transcript, project));
        const std::string hints = world.input("hints-" + std::to_string(mb) + ".json",
                                              user_prompt_payload(transcript, project));
        std::vector<Baseline> gate_baselines{
            wc_on(transcript, mb == 100 ? "<= 1.2x wc -l" : "", mb == 100 ? 1.2 : 0)};
        std::vector<Baseline> hints_baselines = gate_baselines;
        if (mb == 1) {
            gate_baselines.push_back(floor_on(gate, "<= 1.6x floor", 1.6));
            hints_baselines.push_back(floor_on(hints, "<= 1.6x floor", 1.6));
        }
        cases.push_back({"plan-gate, planner PASS, " + std::to_string(mb) + " MB transcript",
                         {"plan-gate", world.bin("plan-gate"), {}, gate},
                         runs(n),
                         "silent",
                         "",
                         gate_baselines,
                         true});
        cases.push_back({"plan-hints, planner episode, " + std::to_string(mb) + " MB transcript",
                         {"plan-hints", world.bin("plan-hints"), {}, hints},
                         runs(n),
                         "silent",
                         "",
                         hints_baselines,
                         true});
    }

    // The review set's allow path: 20 tasks; spec, graph and three task slices all PASS.
    const std::string set_plan = project + "/.claude/plans/export/large-plan.md";
    write_file(set_plan, planner_plan(20));
    const std::string set_transcript = world.work + "/transcript-set.jsonl";
    generate(set_transcript, std::size_t{1} << 20, Tail::review_set_pass, set_plan, 20);
    const std::string set_gate =
        world.input("gate-set.json", exit_plan_mode_payload(set_transcript, project));
    cases.push_back({"plan-gate, review set PASS (20 tasks), 1 MB transcript",
                     {"plan-gate", world.bin("plan-gate"), {}, set_gate},
                     runs(100),
                     "silent",
                     "",
                     {floor_on(set_gate, "", 0)},
                     true});

    // A session that reviewed its plan 20,000 times after writing it: every dispatch and verdict
    // line is one pairing keeps (the last pair a PASS).
    const std::string many_transcript = world.work + "/transcript-many-reviews.jsonl";
    generate(many_transcript, 0, Tail::many_reviews, plan_path, 6);
    const std::string many_gate =
        world.input("gate-many.json", exit_plan_mode_payload(many_transcript, project));
    const std::string many_hints =
        world.input("hints-many.json", user_prompt_payload(many_transcript, project));
    cases.push_back({"plan-gate, 20,000 dispatches and 20,000 verdicts after the plan write",
                     {"plan-gate", world.bin("plan-gate"), {}, many_gate},
                     runs(20),
                     "silent",
                     "",
                     {wc_on(many_transcript, "<= 1.2x wc -l", 1.2), floor_on(many_gate, "", 0)},
                     true});
    cases.push_back({"plan-hints, 20,000 dispatches and 20,000 verdicts",
                     {"plan-hints", world.bin("plan-hints"), {}, many_hints},
                     runs(20),
                     "silent",
                     "",
                     {wc_on(many_transcript, "<= 1.2x wc -l", 1.2)},
                     true});

    // A plan-gate case on a transcript of its own shape (no noise before it), against `wc -l` on
    // that transcript.
    const auto gate_on_shape = [&](std::string label, std::string_view name, Tail tail, int count,
                                   std::string decision, std::string reason) {
        const std::string transcript = world.work + "/transcript-" + std::string(name) + ".jsonl";
        generate(transcript, 0, tail, plan_path, 6);
        const std::string gate = world.input("gate-" + std::string(name) + ".json",
                                             exit_plan_mode_payload(transcript, project));
        cases.push_back({std::move(label),
                         {"plan-gate", world.bin("plan-gate"), {}, gate},
                         runs(count),
                         std::move(decision),
                         std::move(reason),
                         {wc_on(transcript, "", 0)},
                         true});
    };
    // One 8 MB line of text naming `plans` 590,000 times among escaped quotes and backslashes,
    // after the plan write: the search back from each hit stays linear (docs/transcript.md).
    gate_on_shape("plan-gate, an 8 MB line naming plans 590,000 times, then planner PASS",
                  "plans-line", Tail::plans_line, 20, "silent", "");
    // The worst case for settling pairing late: 20,000 dispatches whose verdict lines all name
    // other ids, so no pair forms and every candidate line is parsed once, walking back.
    gate_on_shape("plan-gate, 20,000 dispatches, every verdict naming another id",
                  "unpaired-reviews", Tail::many_unpaired, 10, "deny",
                  "Next step: let the review finish.");

    // The file counter: a plain plan of 2 MB naming 5,000 paths, the switch on. The same path on
    // a plain plan naming 3 files is what running bash on config.sh (docs/plan-gate.md, step 2)
    // and the rest of the gate cost without the counter's work: a baseline of its own, so the
    // counter's share can be read off the table.
    const std::string small_plan_path = project + "/.claude/plans/plain-small.md";
    write_file(small_plan_path, plain_plan(600, 3));
    const std::string small_transcript = world.work + "/transcript-plain-small.jsonl";
    generate(small_transcript, 0, Tail::plain_plan, small_plan_path, 0);
    const std::string small_gate =
        world.input("gate-plain-small.json", exit_plan_mode_payload(small_transcript, project));
    const std::string plain_plan_path = project + "/.claude/plans/plain-rename.md";
    write_file(plain_plan_path, plain_plan(2u << 20, 5000));
    const std::string plain_transcript = world.work + "/transcript-plain.jsonl";
    generate(plain_transcript, 0, Tail::plain_plan, plain_plan_path, 0);
    const std::string plain_gate =
        world.input("gate-plain.json", exit_plan_mode_payload(plain_transcript, project));
    // The least any gate can cost on this path: the floor, once it has read the payload, starting
    // bash on config.sh and waiting for it. The hook has to start before bash can, so its ratio
    // to the floor is a bound no change to the gate can pass: the target's reach on this machine.
    const Baseline bound{Command{"floor starting bash",
                                 options.floor_bash,
                                 {world.plugin + "/scripts/config.sh"},
                                 small_gate},
                         "", 0};
    // SPEC §10 rev. 3: the target is read against that bound.
    Baseline bound_target = bound;
    bound_target.target = "<= 1.5x floor starting bash";
    bound_target.limit = 1.5;
    cases.push_back(
        {"plan-gate, plain plan 2 MB naming 5,000 paths",
         {"plan-gate", world.bin("plan-gate"), {}, plain_gate},
         runs(20),
         "deny",
         "Next step: narrow the plan.",
         {floor_on(plain_gate, "", 0),
          Baseline{Command{"3-path gate", world.bin("plan-gate"), {}, small_gate}, "", 0},
          bound_target},
         true});
    // bash running config.sh on its own, as a baseline: the share of the gate's time that is
    // bash's start, which no change to the gate can take away.
    const Baseline bash_alone{Command{"bash on config.sh alone",
                                      "/bin/bash",
                                      {world.plugin + "/scripts/config.sh"},
                                      small_gate},
                              "", 0};
    cases.push_back({"plan-gate, plain plan naming 3 paths (config.sh, no counting)",
                     {"plan-gate", world.bin("plan-gate"), {}, small_gate},
                     runs(20),
                     "deny",
                     "Next step: review the plan.",
                     {floor_on(small_gate, "", 0), bash_alone, bound},
                     true});
    // The bound itself against the floor and bash alone, measured as a case so its ratio shows.
    cases.push_back({"the least a plain plan can cost: the floor starting bash on config.sh",
                     bound.command,
                     runs(20),
                     "silent",
                     "",
                     {floor_on(small_gate, "", 0), bash_alone},
                     false});
    return cases;
}

// Runs one case and its baselines interleaved; one table row per baseline. `expected` is false
// when the case did not take the path it is meant to measure.
std::vector<Row> measure(const Runner& runner, const World& world, const Case& c, bool& expected) {
    const std::string captured = world.work + "/answer.json";
    const Sample check = runner.run(c.command, world.project, captured);
    const auto [decision, reason] = decision_of(read_file(captured));
    expected = check.status == 0 && decision == c.expect &&
               (c.expect_reason.empty() || reason.find(c.expect_reason) != std::string::npos);

    std::vector<double> times;
    std::vector<std::vector<double>> baseline_times(c.baselines.size());
    std::vector<long> baseline_rss(c.baselines.size(), 0);
    long rss = 0;
    double worst = 0;
    for (int i = 0; i < c.runs; ++i) {
        for (std::size_t b = 0; b < c.baselines.size(); ++b) {
            const Sample base = runner.run(c.baselines[b].command, world.project);
            baseline_times[b].push_back(base.ms);
            baseline_rss[b] = std::max(baseline_rss[b], base.max_rss_kb);
        }
        const Sample sample = runner.run(c.command, world.project);
        times.push_back(sample.ms);
        rss = std::max(rss, sample.max_rss_kb);
        worst = std::max(worst, sample.ms);
    }
    const double median = percentile(times, 0.5);
    const double p90 = percentile(times, 0.9);
    const bool rss_over = c.rss_target && rss >= 32 * 1024;
    const std::string rss_text = fixed(static_cast<double>(rss) / 1024.0, 1) +
                                 (c.rss_target ? (rss_over ? " (< 32: OVER)" : " (< 32: ok)") : "");
    const std::string decision_text = decision + (expected ? "" : " (expected " + c.expect + ")");

    std::vector<Row> rows;
    for (std::size_t b = 0; b < c.baselines.size(); ++b) {
        const Baseline& baseline = c.baselines[b];
        const double base = percentile(baseline_times[b], 0.5);
        const double ratio = base > 0 ? median / base : 0;
        const bool ratio_over = baseline.limit > 0 && ratio > baseline.limit;
        const bool time_over = worst >= (c.max_ms > 0 ? c.max_ms : 2000);
        std::ostringstream line;
        line << "| " << c.name << " | " << decision_text << " | " << c.runs << " | "
             << fixed(median, 2) << " | " << fixed(p90, 2) << " | " << fixed(worst, 1) << " | "
             << baseline.command.label << " " << fixed(base, 2) << " | " << fixed(ratio, 2)
             << "x | " << (baseline.target.empty() ? "" : baseline.target + ", ")
             << (c.max_ms > 0 ? "< " + fixed(c.max_ms, 0) + " ms" : std::string("< 2 s")) << " | "
             << rss_text << "; " << baseline.command.label << " "
             << fixed(static_cast<double>(baseline_rss[b]) / 1024.0, 1) << " | "
             << (ratio_over || time_over || rss_over ? "OVER" : "ok") << " |";
        rows.push_back({line.str(), ratio_over || time_over || rss_over});
    }
    return rows;
}

} // namespace

int main(int argc, char** argv) {
    // Forked first, while this process is small (see Runner).
    const Runner runner;

    Options options;
    po::options_description described("viber-bench options");
    described.add_options()("help,h", "print this help")("quick", po::bool_switch(&options.quick),
                                                         "a tenth of the runs")(
        "out", po::value(&options.out), "the table, as markdown")(
        "work", po::value(&options.work), "where the scratch directory goes")(
        "bin-dir", po::value(&options.bin_dir), "the six hook binaries")(
        "old-bin-dir", po::value(&options.old_bin_dir),
        "another build's six binaries: each hook call also runs on them, interleaved, as a "
        "baseline (target <= 1.1x: the new build at most 10% slower)")(
        "floor", po::value(&options.floor),
        "the floor binary")("floor-bash", po::value(&options.floor_bash),
                            "the floor starting bash on a script (the plain plan's bound)")(
        "content-dir", po::value(&options.content_dir), "manifest.md and plan-hints.md")(
        "only", po::value(&options.only), "run only the cases whose name holds this text")(
        "keep", po::bool_switch(&options.keep),
        "leave the scratch directory and print its path (for profiling)")(
        "calls", po::value(&options.calls),
        "measure nothing: write each case's hook call (executable, stdin file, working "
        "directory; tab-separated) to this file and keep the scratch directory");
    try {
        po::variables_map vm;
        po::store(po::command_line_parser(argc, argv).options(described).run(), vm);
        po::notify(vm);
        if (vm.count("help")) {
            std::cout << described;
            return 0;
        }
    } catch (const std::exception& e) {
        std::cerr << "viber-bench: " << e.what() << "\n" << described;
        return 2;
    }

    // Every program runs with the scratch project as its cwd: relative paths would miss.
    options.floor = fs::absolute(options.floor).string();
    options.floor_bash = fs::absolute(options.floor_bash).string();
    options.bin_dir = fs::absolute(options.bin_dir).string();
    if (!options.old_bin_dir.empty())
        options.old_bin_dir = fs::absolute(options.old_bin_dir).string();
    options.content_dir = fs::absolute(options.content_dir).string();

    std::string pattern = options.work + "/viber-bench-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        std::cerr << "viber-bench: cannot create a directory under " << options.work << "\n";
        return 2;
    }
    World world;
    world.work = fs::canonical(pattern).string();
    // Generated inputs (up to 100 MB of transcript) never outlive the run.
    struct Cleanup {
        std::string path;
        bool keep;
        ~Cleanup() {
            if (keep) {
                std::cout << "scratch directory kept: " << path << "\n";
                return;
            }
            boost::system::error_code ec;
            fs::remove_all(path, ec);
        }
    } cleanup{world.work, options.keep || !options.calls.empty()};

    if (const auto problem = lay_out(world, options)) {
        std::cerr << "viber-bench: " << *problem << "\n";
        return 2;
    }
    std::vector<Case> cases;
    try {
        cases = build_cases(world, options);
    } catch (const std::exception& e) {
        std::cerr << "viber-bench: " << e.what() << "\n";
        return 2;
    }

    if (!options.only.empty())
        std::erase_if(
            cases, [&](const Case& c) { return c.name.find(options.only) == std::string::npos; });
    if (!options.old_bin_dir.empty()) {
        // The same call on the other build, run interleaved with this one like every baseline.
        for (Case& c : cases) {
            if (!c.command.exe.starts_with(world.bin(""))) continue;
            Command old = c.command;
            old.label = "old " + c.command.label;
            old.exe = world.old_bin(c.command.exe.substr(world.bin("").size()));
            c.baselines.push_back(Baseline{std::move(old), "<= 1.1x old", 1.1});
        }
    }
    if (!options.calls.empty()) {
        // Hook calls only: the plain plan's bound is a case of its own, not a hook's call.
        std::string listed;
        std::size_t listed_calls = 0;
        for (const Case& c : cases) {
            if (!c.command.exe.starts_with(world.bin(""))) continue;
            listed += c.command.exe + "\t" + c.command.stdin_file + "\t" + world.project + "\n";
            ++listed_calls;
        }
        write_file(options.calls, listed);
        std::cout << listed_calls << " hook calls written to " << options.calls << "\n";
        return 0;
    }
    std::cout << "viber-hooks benchmark: " << cases.size() << " cases"
              << (options.quick ? " (quick)" : "") << "\n"
              << std::flush;
    std::vector<Row> rows;
    bool all_expected = true;
    for (const Case& c : cases) {
        bool expected = true;
        for (Row& row : measure(runner, world, c, expected)) {
            std::cout << row.line << "\n" << std::flush;
            rows.push_back(std::move(row));
        }
        all_expected = all_expected && expected;
    }

    std::ostringstream table;
    table << "# viber-hooks benchmark\n\n"
          << "Wall time per call (the real binary spawned as a process, stdin from a file), median "
             "and p90 over N "
             "runs, each case interleaved with its baselines measured in the same run. Ratio = "
             "case median / "
             "baseline median. Targets from docs/contract.md (Speed and size). Peak RSS is wait4's "
             "ru_maxrss of the case "
             "and of its "
             "baseline.\n\n"
          << "| case | decision | N | median ms | p90 ms | max ms | baseline median ms | ratio | "
             "target | peak RSS MB | "
             "status |\n"
          << "|---|---|---|---|---|---|---|---|---|---|---|\n";
    const auto over =
        std::count_if(rows.begin(), rows.end(), [](const Row& row) { return row.over; });
    for (const Row& row : rows) table << row.line << "\n";
    const std::string closing = std::to_string(rows.size()) + " figures, " + std::to_string(over) +
                                " over target; " +
                                (all_expected ? "every case took its expected path"
                                              : "SOME CASES DID NOT TAKE THEIR EXPECTED PATH");
    table << "\n" << closing << "\n";
    write_file(options.out, table.str());
    std::cout << "\n" << closing << "\nwritten to " << options.out << "\n";
    return all_expected ? 0 : 1;
}
