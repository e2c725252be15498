// workloads.cpp: builds the benchmark's payloads and transcripts with Boost.JSON.
#include "bench/workloads.hpp"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <ctime>
#include <fstream>
#include <vector>

namespace viber::bench {

namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 48> words{
    "the",     "plan",   "reader",  "writes",  "handler", "option",  "returns", "value",
    "module",  "test",   "case",    "when",    "config",  "missing", "keeps",   "order",
    "index",   "builds", "request", "session", "parser",  "token",   "stream",  "buffer",
    "checks",  "each",   "line",    "before",  "after",   "result",  "error",   "path",
    "render",  "view",   "state",   "update",  "cache",   "entry",   "loads",   "field",
    "default", "schema", "report",  "review",  "change",  "commit",  "branch",  "build"};

constexpr std::string_view session_id = "4f1c2a9e-7b3d-4e8a-9c61-2d5e8f0a1b37";
constexpr std::string_view transcript_name =
    "/root/.claude/projects/-work-repo/4f1c2a9e-7b3d-4e8a-9c61-2d5e8f0a1b37.jsonl";

std::string id_of(Noise& noise, std::string_view prefix) {
    static constexpr std::string_view alphabet =
        "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789";
    std::string id(prefix);
    for (int i = 0; i < 24; ++i) id += alphabet[noise.below(alphabet.size())];
    return id;
}

// The keys every transcript record carries besides its message.
json::object envelope(Noise& noise, std::string_view type, std::int64_t when) {
    return json::object{{"parentUuid", id_of(noise, "")},
                        {"isSidechain", false},
                        {"userType", "external"},
                        {"cwd", "/work/repo"},
                        {"sessionId", session_id},
                        {"version", "2.0.14"},
                        {"gitBranch", "main"},
                        {"type", type},
                        {"uuid", id_of(noise, "")},
                        {"timestamp", iso_time(when)}};
}

json::object usage(Noise& noise) {
    return json::object{{"input_tokens", 4 + noise.below(40)},
                        {"cache_creation_input_tokens", noise.below(3000)},
                        {"cache_read_input_tokens", 20000 + noise.below(60000)},
                        {"output_tokens", 30 + noise.below(900)},
                        {"service_tier", "standard"}};
}

json::object assistant(Noise& noise, std::int64_t when, json::array content) {
    json::object record = envelope(noise, "assistant", when);
    record["message"] =
        json::object{{"id", id_of(noise, "msg_")},    {"type", "message"},
                     {"role", "assistant"},           {"model", "claude-opus-4-1-20250805"},
                     {"content", std::move(content)}, {"stop_reason", nullptr},
                     {"usage", usage(noise)}};
    record["requestId"] = id_of(noise, "req_");
    return record;
}

json::object tool_use(std::string_view id, std::string_view name, json::object input) {
    return json::object{
        {"type", "tool_use"}, {"id", id}, {"name", name}, {"input", std::move(input)}};
}

json::object user_result(Noise& noise, std::int64_t when, std::string_view id,
                         std::string_view text) {
    json::object record = envelope(noise, "user", when);
    record["message"] = json::object{
        {"role", "user"},
        {"content", json::array{json::object{
                        {"tool_use_id", id}, {"type", "tool_result"}, {"content", text}}}}};
    return record;
}

std::string source_file(Noise& noise) {
    return "/work/repo/src/" + std::string(words[noise.below(words.size())]) + "/" +
           std::string(words[noise.below(words.size())]) + "_" + std::to_string(noise.below(90)) +
           ".ts";
}

// One realistic 1-3 KB line: assistant prose, a tool call with its reasoning, or a tool result.
std::string noise_line(Noise& noise, std::int64_t when) {
    const std::size_t size = 1000 + noise.below(2000);
    switch (noise.below(6)) {
    case 0:
        return json::serialize(assistant(
            noise, when, json::array{json::object{{"type", "text"}, {"text", noise.prose(size)}}}));
    case 1: {
        const std::string id = id_of(noise, "toolu_01");
        return json::serialize(assistant(
            noise, when,
            json::array{json::object{{"type", "text"}, {"text", noise.prose(size - 300)}},
                        tool_use(id, "Read", json::object{{"file_path", source_file(noise)}})}));
    }
    case 2: {
        const std::string id = id_of(noise, "toolu_01");
        return json::serialize(assistant(
            noise, when,
            json::array{json::object{{"type", "text"}, {"text", noise.prose(size / 2)}},
                        tool_use(id, "Bash",
                                 json::object{{"command", allowed_command(size / 3)},
                                              {"description",
                                               "List the recent changes to the touched files"}})}));
    }
    case 3: {
        const std::string id = id_of(noise, "toolu_01");
        return json::serialize(
            assistant(noise, when,
                      json::array{tool_use(id, "Edit",
                                           json::object{{"file_path", source_file(noise)},
                                                        {"old_string", noise.code(size / 2)},
                                                        {"new_string", noise.code(size / 2)}})}));
    }
    default:
        return json::serialize(
            user_result(noise, when, id_of(noise, "toolu_01"), noise.code(size)));
    }
}

} // namespace

std::uint64_t Noise::next() {
    // xorshift64*: cheap and good enough to vary the text.
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545f4914f6cdd1dull;
}

std::string Noise::prose(std::size_t bytes) {
    std::string text;
    text.reserve(bytes + 16);
    std::size_t line = 0;
    while (text.size() < bytes) {
        const std::string_view word = words[below(words.size())];
        text += word;
        line += word.size() + 1;
        if (line > 60 + below(40)) {
            text += ".\n";
            line = 0;
        } else {
            text += ' ';
        }
    }
    return text;
}

std::string Noise::code(std::size_t bytes) {
    std::string text;
    text.reserve(bytes + 64);
    int number = 1;
    while (text.size() < bytes) {
        const std::string_view a = words[below(words.size())];
        const std::string_view b = words[below(words.size())];
        text += std::to_string(number++) + "\t  const " + std::string(a) + "_" + std::string(b) +
                " = \"" + std::string(b) + "\"; // " + std::string(words[below(words.size())]) +
                "\n";
    }
    return text;
}

std::string allowed_command(std::size_t bytes) {
    std::string command = "git -C \"$(git rev-parse --show-toplevel)\" log --oneline -n 20 --";
    const std::string tail = " 2>&1 | grep -v -e 'wip' | head -n 40";
    Noise noise(bytes);
    while (command.size() + tail.size() < bytes) {
        command += " src/" + std::string(words[noise.below(words.size())]) + "/" +
                   std::string(words[noise.below(words.size())]) + ".ts";
    }
    return command + tail;
}

namespace {

std::string repeat_to(std::string_view piece, std::size_t bytes) {
    std::string out;
    out.reserve(bytes + piece.size());
    while (out.size() + piece.size() <= bytes) out += piece;
    return out;
}

} // namespace

std::vector<HostileCommand> hostile_commands(std::size_t bytes) {
    std::vector<HostileCommand> out;
    {
        std::string nested = "pkill node; ";
        for (int i = 0; i < 16; ++i) nested += "sh -c $(";
        nested += repeat_to("echo x ", bytes - nested.size() - 16);
        nested += std::string(16, ')');
        out.push_back({"16 nested sh -c $(", std::move(nested), "deny", "deny"});
    }
    out.push_back({"10,000-deep $( then text",
                   "echo " + repeat_to("$(", 20000) + repeat_to("x ", bytes - 20006), "deny",
                   "silent"});
    out.push_back(
        {"a thousand wrappers, repeated",
         repeat_to("sudo -u root nice -n 5 timeout 5 env X=1 ", bytes - 12) + "pkill node", "deny",
         "deny"});
    out.push_back(
        {"targetless redirections", "x " + repeat_to("> ", bytes - 2), "silent", "silent"});
    out.push_back({"find -exec tee {} {} ... \\;",
                   "find src -exec tee " + repeat_to("{} ", bytes - 22) + "\\;", "silent", "deny"});
    out.push_back(
        {"many heredocs", repeat_to("cat <<'E'\npkill x; rm y\nE\n", bytes), "deny", "deny"});
    out.push_back(
        {"pkill node and words", "pkill node " + repeat_to("x ", bytes - 11), "deny", "silent"});
    // Each `$x` is read with the words after it, then again without it: the expansion budget ends
    // that (and flags it) at a cost linear in the command.
    out.push_back({"a variable in every word, then $y node",
                   "x=1; " + repeat_to("$x ", bytes - 24) + "; y=pkill; $y node", "deny", "deny"});
    // What the command model remembers across a command (SPEC §7.2): a literal-valued variable
    // expanded as a command word again and again (each expansion is lexed, within one budget the
    // size of the command plus 64 KiB: past it the command is flagged, and kill-guard refuses it),
    // then the one that stops processes; an alias used again and again;
    // a hundred thousand names assigned before the one that is run; and, for scale, plain simple
    // commands one a line (the cost of a command, whatever it expands to). Each of these runs
    // past the command model's 10,000 commands: the reading ends there, and both guards refuse.
    {
        const std::string head = "x='echo aaaaaaaaaaaaaaaaaaaa'\ny=pkill\n";
        out.push_back({"a variable expanded as a command 300,000 times, then $y node",
                       head + repeat_to("$x\n", bytes - head.size() - 8) + "$y node", "deny",
                       "deny"});
    }
    {
        const std::string head = "alias k='echo a'\n";
        out.push_back({"an alias used 300,000 times, then pkill",
                       head + repeat_to("k\n", bytes - head.size() - 10) + "pkill node", "deny",
                       "deny"});
    }
    {
        std::string names;
        for (std::size_t i = 0; names.size() + 32 < bytes; ++i)
            names += "v" + std::to_string(i) + "=a\n";
        out.push_back({"100,000 names assigned, then y=pkill; $y node", names + "y=pkill\n$y node",
                       "deny", "deny"});
    }
    out.push_back({"150,000 simple commands", repeat_to("echo a\n", bytes), "deny", "deny"});
    {
        // Every level's word list open at once, each with room reserved for what is left (a
        // third of the command, just under 4 MiB of words a level).
        const std::size_t tail = bytes / 3;
        std::string lists;
        for (int i = 0; i < 32; ++i) lists += "echo " + repeat_to("w ", 40) + "$(";
        lists += "pkill node " + repeat_to("w ", 40) + std::string(32, ')') + "\n#";
        std::string command = "echo " + repeat_to("x ", bytes - tail - lists.size() - 7) + "; ";
        command += lists + std::string(tail, 'c');
        out.push_back({"32 nested word lists, then a comment", std::move(command), "deny", "deny"});
    }
    // SPEC §7.3's readings, each linear in the command: eval of a variable whose value evals it
    // again (each line walks to the nesting cap, within the expansion budget); a printf format
    // reused for a quarter of a million arguments (its output past the budget is not read: the
    // command is flagged); a mebibyte of -EncodedCommand decoded once; a tmux send-keys typing a
    // hundred thousand lines.
    out.push_back({"eval of a variable that evals itself, repeated",
                   repeat_to("c='eval \"$c\"'; eval \"$c\"\n", bytes - 12) + "pkill node", "deny",
                   "deny"});
    out.push_back(
        {"a printf format reused for every argument, into sh",
         "printf '" + repeat_to("x", 4096) + " %s\\n' " + repeat_to("a ", bytes - 4200) + "| sh",
         "deny", "deny"});
    out.push_back({"a mebibyte of -EncodedCommand",
                   "powershell -e " +
                       repeat_to("UwB0AG8AcAAtAFAAcgBvAGMAZQBzAHMAIAAtAE4AYQBtAGUAIABuAG8AZABlADsA",
                                 bytes - 16),
                   "deny", "deny"});
    // Literals given by `set --` (and `read <<<`, `${x:-…}` alike): "$@" used again and again,
    // each use charged to the expansion budget.
    {
        const std::string head = "set -- echo aaaaaaaaaaaaaaaaaaaa\n";
        out.push_back({"\"$@\" after set -- used 200,000 times, then pkill",
                       head + repeat_to("\"$@\"\n", bytes - head.size() - 12) + "pkill node",
                       "deny", "deny"});
    }
    // An array of literal elements, a function the command defines and a script it writes
    // (§7.3): each use, call or run reads the elements, the body or the text again, charged to
    // the expansion budget.
    {
        const std::string head = "x=(echo aaaaaaaaaaaaaaaaaaaa)\n";
        out.push_back({"\"${x[@]}\" of a literal array used 100,000 times, then pkill",
                       head + repeat_to("\"${x[@]}\"\n", bytes - head.size() - 12) + "pkill node",
                       "deny", "deny"});
    }
    {
        const std::string head = "f() {\n\"$@\"\n}\n";
        out.push_back({"a function running its arguments called 150,000 times, then pkill",
                       head + repeat_to("f echo a\n", bytes - head.size() - 12) + "pkill node",
                       "deny", "deny"});
    }
    {
        const std::string head = "echo 'echo aaaaaaaaaaaaaaaaaaaa' > .temp/k.sh\n";
        out.push_back(
            {"a script the command wrote, run 100,000 times, then pkill",
             head + repeat_to("bash .temp/k.sh\n", bytes - head.size() - 12) + "pkill node", "deny",
             "deny"}); // shell-guard: R5 (a .temp/ script run)
    }
    // A 200 KB literal as kill's operands again and again: kill-guard reads each word written
    // again once (its fields are kept once), and no operand is -1 or 0.
    {
        const std::string head = "x=" + std::string(200000, 'a') + "\nkill ";
        out.push_back({"a 200 KB value as kill's operands 280,000 times",
                       head + repeat_to("$x ", bytes - head.size()), "silent", "silent"});
    }
    // Wrapper options read as getopt_long reads them: by prefix, and after script's operand.
    out.push_back(
        {"script's options after its operand, then -c",
         "script /dev/null " + repeat_to("--e never -q --o 9 ", bytes - 40) + "-c 'pkill node'",
         "deny", "silent"});
    // git's global options read once to find the subcommand (shell::git_globals), each -c setting
    // kept: a mebibyte of them before `submodule foreach STRING`.
    out.push_back({"git's global options, then submodule foreach",
                   "git " + repeat_to("-c a.b=c -C d --no-pager ", bytes - 40) +
                       "submodule foreach 'pkill node'",
                   "deny", "silent"});
    out.push_back({"tmux send-keys typing a line a key",
                   "tmux send-keys " + repeat_to("ls Enter ", bytes - 40) + "'pkill node' Enter",
                   "deny", "deny"});
    return out;
}

std::string bash_payload(std::string_view agent_type, std::string_view command,
                         std::string_view cwd) {
    json::object payload{
        {"session_id", session_id},
        {"transcript_path", transcript_name},
        {"cwd", cwd},
        {"permission_mode", "acceptEdits"},
        {"hook_event_name", "PreToolUse"},
        {"tool_name", "Bash"},
        {"tool_input",
         json::object{{"command", command},
                      {"description", "Show the recent history of the touched files"}}},
        {"tool_use_id", "toolu_01Hq8vW3kZpT6yLmN2bR4sXc"}};
    if (!agent_type.empty()) {
        payload["agent_id"] = "a7c9e1f3";
        payload["agent_type"] = agent_type;
    }
    return json::serialize(payload);
}

std::string subagent_stop_payload(std::string_view agent_type, std::string_view message,
                                  std::string_view cwd) {
    return json::serialize(json::object{
        {"session_id", session_id},
        {"transcript_path", transcript_name},
        {"cwd", cwd},
        {"permission_mode", "acceptEdits"},
        {"hook_event_name", "SubagentStop"},
        {"stop_hook_active", false},
        {"agent_id", "a7c9e1f3"},
        {"agent_type", agent_type},
        {"agent_transcript_path", "/root/.claude/projects/-work-repo/agent-a7c9e1f3.jsonl"},
        {"last_assistant_message", message}});
}

std::string agent_message(std::size_t bytes) {
    Noise noise(bytes);
    std::string message = "## Summary\n" + noise.prose(bytes > 40 ? bytes - 40 : 1);
    return message + "\n\nVERDICT: PASS\n";
}

std::string session_start_payload(std::string_view cwd) {
    return json::serialize(json::object{{"session_id", session_id},
                                        {"transcript_path", transcript_name},
                                        {"cwd", cwd},
                                        {"hook_event_name", "SessionStart"},
                                        {"source", "startup"}});
}

std::string user_prompt_payload(std::string_view transcript_path, std::string_view cwd) {
    return json::serialize(
        json::object{{"session_id", session_id},
                     {"transcript_path", transcript_path},
                     {"cwd", cwd},
                     {"permission_mode", "plan"},
                     {"hook_event_name", "UserPromptSubmit"},
                     {"prompt", "Also keep the old option working for one release."}});
}

std::string exit_plan_mode_payload(std::string_view transcript_path, std::string_view cwd) {
    return json::serialize(
        json::object{{"session_id", session_id},
                     {"transcript_path", transcript_path},
                     {"cwd", cwd},
                     {"permission_mode", "plan"},
                     {"hook_event_name", "PreToolUse"},
                     {"tool_name", "ExitPlanMode"},
                     {"tool_input", json::object{{"plan", "# Plan\nSee the plan file."}}},
                     {"tool_use_id", "toolu_01ExitPlanModeBench00001"}});
}

std::string planner_plan(std::size_t tasks) {
    Noise noise(tasks);
    std::string plan = "---\nsource: planner\ngoal: add the export option\n---\n# Plan: export "
                       "option\n\n## Spec\n" +
                       noise.prose(600) + "\n\n## Tasks\n";
    for (std::size_t t = 1; t <= tasks; ++t) {
        plan += "<!-- TASK -->\n### T" + std::to_string(t) + ": " +
                std::string(words[noise.below(words.size())]) + "\nFiles: src/export/part_" +
                std::to_string(t) + ".ts\n" + noise.prose(300) + "\n\n";
    }
    return plan;
}

std::string plain_plan(std::size_t bytes, std::size_t paths) {
    Noise noise(paths);
    std::string plan = "# Plan: rename the handler across the tree\n\n";
    const std::size_t per_path = bytes / (paths == 0 ? 1 : paths);
    for (std::size_t i = 0; i < paths; ++i) {
        plan += "- Update `src/area_" + std::to_string(i % 97) + "/handler_" + std::to_string(i) +
                ".ts`: " + noise.prose(per_path > 60 ? per_path - 60 : 10) + "\n";
    }
    return plan;
}

bool write_transcript(const std::string& path, std::size_t noise_bytes, Tail tail,
                      const std::string& plan_path, std::size_t plan_tasks) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    Noise noise(noise_bytes + 1);
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    std::int64_t when = now - 3 * 3600;
    std::size_t written = 0;
    const auto line = [&](const std::string& text) {
        out << text << '\n';
        written += text.size() + 1;
    };
    line(json::serialize(json::object{
        {"type", "permission-mode"}, {"permissionMode", "default"}, {"sessionId", session_id}}));
    // Noise fills the file up to about 2 KB short of the requested size; the tail follows.
    while (written + 6000 < noise_bytes) line(noise_line(noise, when++));

    line(json::serialize(json::object{
        {"type", "permission-mode"}, {"permissionMode", "default"}, {"sessionId", session_id}}));
    json::object prompt = envelope(noise, "user", when++);
    prompt["message"] =
        json::object{{"role", "user"}, {"content", "Add an export option to the report view."}};
    line(json::serialize(prompt));
    if (tail != Tail::plain_plan)
        line(json::serialize(
            assistant(noise, when++,
                      json::array{tool_use("toolu_01SkillPlanner0000000001", "Skill",
                                           json::object{{"skill", "viber:planner"}})})));
    line(json::serialize(assistant(
        noise, when++,
        json::array{tool_use("toolu_01EnterPlanMode00000001", "EnterPlanMode", json::object{})})));
    line(json::serialize(json::object{
        {"type", "permission-mode"}, {"permissionMode", "plan"}, {"sessionId", session_id}}));
    for (int i = 0; i < 3; ++i) line(noise_line(noise, when++));
    line(json::serialize(
        assistant(noise, when++,
                  json::array{tool_use(
                      "toolu_01WritePlan000000000001", "Write",
                      json::object{{"file_path", plan_path}, {"content", noise.prose(1500)}})})));

    const std::string verdict_time = iso_time(now + 60);
    const auto dispatch = [&](std::string_view id, std::string_view agent,
                              std::string prompt_text) {
        line(json::serialize(
            assistant(noise, when++,
                      json::array{tool_use(
                          id, "Agent",
                          json::object{{"description", "Review the plan"},
                                       {"subagent_type", agent},
                                       {"prompt", plan_path + "\nrefs: /plugin/references\n" +
                                                      prompt_text}})})));
    };
    const auto pass = [&](std::string_view id) {
        json::object result = user_result(noise, when++, id,
                                          "## Plan Review\nNo blocking findings.\nVERDICT: PASS\n");
        result["timestamp"] = verdict_time;
        line(json::serialize(result));
    };
    if (tail == Tail::plans_line) {
        // Quotes and backslashes next to every `plans`, escaped in the JSON: each hit searches
        // back across them for the quote that opened its string.
        std::string text;
        const std::string_view piece = R"(see "plans" and "plans" in C:\plans\ or .claude/plans/ )";
        while (text.size() < (std::size_t{8} << 20)) text += piece;
        line(json::serialize(
            assistant(noise, when++, json::array{json::object{{"type", "text"}, {"text", text}}})));
    }
    if (tail == Tail::planner_pass || tail == Tail::plans_line) {
        dispatch("toolu_01PlannerReview0000001", "viber:planner-review",
                 "memory: true\ninput: add an export option to the report view");
        pass("toolu_01PlannerReview0000001");
    } else if (tail == Tail::review_set_pass) {
        dispatch("toolu_01SpecReview000000001", "viber:planner-spec-review",
                 "input: add an export option");
        dispatch("toolu_01GraphReview00000001", "viber:planner-graph-review", "memory: true");
        std::vector<std::string> slices;
        for (std::size_t a = 1, n = 0; a <= plan_tasks; a += 8, ++n) {
            const std::size_t b = std::min(plan_tasks, a + 7);
            const std::string id = "toolu_01TaskReview" + std::to_string(n) + "00000000";
            dispatch(id, "viber:planner-task-review",
                     "tasks: T" + std::to_string(a) + "-T" + std::to_string(b));
            slices.push_back(id);
        }
        for (auto it = slices.rbegin(); it != slices.rend(); ++it) pass(*it);
        pass("toolu_01GraphReview00000001");
        pass("toolu_01SpecReview000000001");
    } else if (tail == Tail::many_reviews) {
        // The reviewer answered FAIL 19,999 times, by id, and then PASS: every dispatch and
        // verdict line is one pairing must keep.
        for (std::size_t i = 0; i < many_reviews; ++i) {
            const std::string id = "toolu_01Review" + std::to_string(1000000 + i) + "xyzw";
            dispatch(id, "viber:planner-review", "memory: true\ninput: round " + std::to_string(i));
            if (i + 1 == many_reviews) {
                pass(id);
            } else {
                line(json::serialize(
                    user_result(noise, when++, id,
                                "## Plan Review\nFinding: tighten step 3.\nVERDICT: FAIL\n")));
            }
        }
    } else if (tail == Tail::many_unpaired) {
        for (std::size_t i = 0; i < many_reviews; ++i) {
            const std::string id = "toolu_01Review" + std::to_string(1000000 + i) + "xyzw";
            dispatch(id, "viber:planner-review", "memory: true\ninput: round " + std::to_string(i));
            line(json::serialize(user_result(noise, when++, "toolu_01Other" + std::to_string(i),
                                             "## Plan Review\nVERDICT: FAIL\n")));
        }
    }
    return static_cast<bool>(out.flush());
}

std::string iso_time(std::int64_t seconds) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm utc{};
    ::gmtime_r(&t, &utc);
    char text[40];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S.000Z", &utc);
    return text;
}

} // namespace viber::bench
