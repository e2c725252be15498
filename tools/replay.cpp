// replay.cpp: reading recorded Claude Code sessions for --replay, and printing what a hook would
// have decided on each call found in them. Streamed line by line (common/io/line_reader.hpp); only
// lines holding the needle of the calls looked for are parsed; nothing read is run.
#include "tools/replay.hpp"

#include "common/hook/hook_main.hpp"
#include "common/io/files.hpp"
#include "common/io/line_reader.hpp"
#include "common/io/payload.hpp"
#include "common/io/trace.hpp"
#include "common/os/os.hpp"
#include "common/os/paths.hpp"
#include "common/text/utf8.hpp"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <deque>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

namespace viber {

namespace json = boost::json;

namespace {

// The stop text kept for one agent is bounded like hook mode's stdin.
constexpr std::size_t longest_message = std::size_t{64} << 20;
// A meta file is a few hundred bytes.
constexpr std::size_t longest_meta = std::size_t{1} << 20;

// Paths are handled as strings with `/` between segments (Windows accepts it too): the file
// system is reached only through common/os, never Boost.Filesystem's operations, whose start-up
// work every hook call would pay (docs/internals.md).
std::string_view parent_of(std::string_view path) {
    const std::size_t slash = path.find_last_of("/\\");
    return slash == std::string_view::npos ? std::string_view(".") : path.substr(0, slash);
}

// `<session>/subagents/agent-<id>.jsonl`.
bool is_agent_file(std::string_view path) {
    const std::string_view name = paths::last_segment(path);
    return name.starts_with("agent-") && name.ends_with(".jsonl") &&
           paths::last_segment(parent_of(path)) == "subagents";
}

// The main transcript an agent file belongs to: `<session>.jsonl` beside `<session>/`.
std::string session_of(std::string_view agent_file) {
    return std::string(parent_of(parent_of(agent_file))) + ".jsonl";
}

// The agent's type: `agent-<id>.meta.json`'s `agentType`; else a top-level `agentType` or
// `agent_type` on one of the file's lines; else "".
std::string agent_type_of(const std::string& agent_file) {
    const std::string meta =
        agent_file.substr(0, agent_file.size() - std::string_view(".jsonl").size()) + ".meta.json";
    if (const std::optional<std::string> bytes = read_regular_file(meta, longest_meta)) {
        if (const std::optional<json::object> object = parse_object(*bytes))
            if (const std::optional<std::string_view> type = string_field(*object, "agentType"))
                return std::string(*type);
    }
    LineReader reader(agent_file);
    std::string line;
    while (reader.next(line)) {
        if (reader.too_long()) continue;
        if (!os::contains_bytes(line, "gent")) continue;
        const std::optional<json::object> object = parse_object(line);
        if (!object) continue;
        for (std::string_view key : {"agentType", "agent_type"})
            if (const std::optional<std::string_view> type = string_field(*object, key))
                return std::string(*type);
    }
    return "";
}

// Every `.jsonl` file under `root`, sorted into session transcripts and agent files.
constexpr std::size_t most_entries = 1'000'000;
void walk(const std::string& root, std::vector<std::string>& sessions,
          std::vector<std::string>& agents) {
    std::vector<std::string> pending{root};
    while (!pending.empty()) {
        const std::string dir = std::move(pending.back());
        pending.pop_back();
        const std::optional<std::vector<std::string>> names =
            os::directory_names(dir, most_entries);
        if (!names) continue;
        for (const std::string& name : *names) {
            std::string path = dir + "/" + name;
            const os::FileKind kind = os::file_kind(path);
            if (kind == os::FileKind::directory)
                pending.push_back(std::move(path));
            else if (kind == os::FileKind::regular && name.ends_with(".jsonl"))
                (is_agent_file(path) ? agents : sessions).push_back(std::move(path));
        }
    }
}

// The tool_use blocks of an assistant line's message.content.
std::vector<const json::object*> content_blocks(const json::object& line, std::string_view type) {
    std::vector<const json::object*> out;
    const json::object* message = object_field(line, "message");
    if (message == nullptr) return out;
    const json::value* content = message->if_contains("content");
    if (content == nullptr || !content->is_array()) return out;
    for (const json::value& block : content->get_array()) {
        if (!block.is_object()) continue;
        const std::optional<std::string_view> kind = string_field(block.get_object(), "type");
        if (kind && *kind == type) out.push_back(&block.get_object());
    }
    return out;
}

// The members every replayed payload carries, from the line it was read on.
json::object payload_base(const json::object* line, const std::string& agent_file,
                          const std::string& agent_type, std::string_view event) {
    json::object payload;
    std::optional<std::string_view> session, cwd, agent_id;
    if (line != nullptr) {
        session = string_field(*line, "sessionId");
        cwd = string_field(*line, "cwd");
        agent_id = string_field(*line, "agentId");
    }
    if (session) payload["session_id"] = *session;
    payload["transcript_path"] = session_of(agent_file);
    if (cwd) payload["cwd"] = *cwd;
    payload["hook_event_name"] = event;
    if (agent_id) payload["agent_id"] = *agent_id;
    payload["agent_type"] = agent_type;
    return payload;
}

void read_agent_bash(const std::string& file, const std::string& agent_type,
                     const std::function<void(const ReplayCall&)>& on_call, ReplayCount& count) {
    LineReader reader(file);
    std::string line;
    while (reader.next(line)) {
        if (reader.too_long()) {
            ++count.long_lines;
            continue;
        }
        if (!os::contains_bytes(line, "\"Bash\"") || !os::contains_bytes(line, "tool_use"))
            continue;
        const std::optional<json::object> object = parse_object(line);
        if (!object) continue;
        const std::optional<std::string_view> type = string_field(*object, "type");
        if (!type || *type != "assistant") continue;
        for (const json::object* block : content_blocks(*object, "tool_use")) {
            const std::optional<std::string_view> name = string_field(*block, "name");
            const json::object* input = object_field(*block, "input");
            if (!name || *name != "Bash" || input == nullptr) continue;
            const std::optional<std::string_view> command = string_field(*input, "command");
            if (!command) continue;
            json::object payload = payload_base(&*object, file, agent_type, "PreToolUse");
            payload["tool_name"] = "Bash";
            payload["tool_input"] = *input;
            if (const std::optional<std::string_view> id = string_field(*block, "id"))
                payload["tool_use_id"] = *id;
            on_call(ReplayCall{.file = file,
                               .line = reader.number(),
                               .agent_type = agent_type,
                               .what = std::string(*command),
                               .payload = json::serialize(payload)});
        }
    }
}

void read_agent_stop(const std::string& file, const std::string& agent_type,
                     const std::function<void(const ReplayCall&)>& on_call, ReplayCount& count) {
    LineReader reader(file);
    std::string line;
    std::string text;       // the last assistant message's text
    std::string message_id; // its message.id (one message may span several lines)
    std::size_t text_line = 0;
    std::optional<json::object> last_line; // the line it ended on, for the payload's members
    while (reader.next(line)) {
        if (reader.too_long()) {
            ++count.long_lines;
            continue;
        }
        if (!os::contains_bytes(line, "\"assistant\"") || !os::contains_bytes(line, "\"text\""))
            continue;
        std::optional<json::object> object = parse_object(line);
        if (!object) continue;
        const std::optional<std::string_view> type = string_field(*object, "type");
        if (!type || *type != "assistant") continue;
        const std::vector<const json::object*> blocks = content_blocks(*object, "text");
        if (blocks.empty()) continue;
        const json::object* message = object_field(*object, "message");
        const std::string id(message != nullptr ? string_field(*message, "id").value_or("") : "");
        if (id.empty() || id != message_id) text.clear();
        message_id = id;
        for (const json::object* block : blocks) {
            const std::optional<std::string_view> part = string_field(*block, "text");
            if (!part || text.size() + part->size() > longest_message) continue;
            if (!text.empty()) text += "\n";
            text += *part;
        }
        text_line = reader.number();
        last_line = std::move(object);
    }
    if (text_line == 0) return; // the agent never answered: no stop to judge
    json::object payload =
        payload_base(last_line ? &*last_line : nullptr, file, agent_type, "SubagentStop");
    payload["stop_hook_active"] = false;
    payload["agent_transcript_path"] = file;
    payload["last_assistant_message"] = text;
    on_call(ReplayCall{.file = file,
                       .line = text_line,
                       .agent_type = agent_type,
                       .what = "SubagentStop",
                       .payload = json::serialize(payload)});
}

// The calls of one main transcript, in line order, to `keep`: each ExitPlanMode tool_use (the
// transcript as the CLI had written it when the hook ran holds the assistant line itself: the cut
// is after it), or each typed prompt in plan mode (UserPromptSubmit runs before the prompt is
// written: the cut is before it).
template <class Keep>
void read_main_lines(const std::string& file, ReplayCalls calls, Keep& keep, ReplayCount& count) {
    LineReader reader(file);
    std::string line;
    std::uint64_t line_start = 0;
    const bool exits = calls == ReplayCalls::exit_plan_mode;
    while (reader.next(line)) {
        const std::uint64_t start = line_start;
        line_start = reader.end_offset();
        if (reader.too_long()) {
            ++count.long_lines;
            continue;
        }
        if (exits ? !os::contains_bytes(line, "\"ExitPlanMode\"")
                  : !os::contains_bytes(line, "\"permissionMode\"") ||
                        !os::contains_bytes(line, "\"user\"")) {
            continue;
        }
        const std::optional<json::object> object = parse_object(line);
        if (!object) continue;
        const std::optional<std::string_view> type = string_field(*object, "type");
        json::object payload;
        if (const std::optional<std::string_view> session = string_field(*object, "sessionId"))
            payload["session_id"] = *session;
        payload["transcript_path"] = file;
        if (const std::optional<std::string_view> cwd = string_field(*object, "cwd"))
            payload["cwd"] = *cwd;
        if (exits) {
            if (!type || *type != "assistant") continue;
            for (const json::object* block : content_blocks(*object, "tool_use")) {
                const std::optional<std::string_view> name = string_field(*block, "name");
                if (!name || *name != "ExitPlanMode") continue;
                json::object call = payload;
                call["hook_event_name"] = "PreToolUse";
                call["tool_name"] = "ExitPlanMode";
                if (const json::object* input = object_field(*block, "input"))
                    call["tool_input"] = *input;
                if (const std::optional<std::string_view> id = string_field(*block, "id"))
                    call["tool_use_id"] = *id;
                keep(ReplayCall{.file = file,
                                .line = reader.number(),
                                .agent_type = "main",
                                .what = "ExitPlanMode",
                                .payload = json::serialize(call),
                                .transcript_bytes = reader.end_offset()});
            }
            continue;
        }
        if (!type || *type != "user") continue;
        if (string_field(*object, "permissionMode") != std::optional<std::string_view>("plan"))
            continue;
        const json::object* message = object_field(*object, "message");
        if (message == nullptr) continue;
        const std::optional<std::string_view> prompt = string_field(*message, "content");
        if (!prompt) continue;
        payload["hook_event_name"] = "UserPromptSubmit";
        payload["permission_mode"] = "plan";
        payload["prompt"] = *prompt;
        keep(ReplayCall{.file = file,
                        .line = reader.number(),
                        .agent_type = "main",
                        .what = std::string(*prompt),
                        .payload = json::serialize(payload),
                        .transcript_bytes = start});
    }
}

// The file is streamed once; each call carries only its cut, and the hook reads that prefix again
// when it judges the call. Only the session's last judged_main_calls calls are kept and judged
// (the earlier ones are counted): a session costs at most that many prefix scans, linear in its
// size whatever number of calls it holds.
void read_main_calls(const std::string& file, ReplayCalls calls,
                     const std::function<void(const ReplayCall&)>& on_call, ReplayCount& count) {
    std::deque<ReplayCall> kept;
    const auto keep = [&](ReplayCall call) {
        if (kept.size() == judged_main_calls) {
            kept.pop_front();
            ++count.calls_left;
        }
        kept.push_back(std::move(call));
    };
    read_main_lines(file, calls, keep, count);
    for (const ReplayCall& call : kept) on_call(call);
}

// One line of the listing: the command on one line, its first 100 characters.
std::string one_line(std::string_view text) {
    constexpr std::size_t shown = 100;
    std::string flat;
    for (char c : text.substr(0, utf8::offset_of(text, shown + 1))) {
        if (c == '\n')
            flat += "\\n";
        else if (c == '\t' || c == '\r')
            flat += ' ';
        else
            flat += c;
    }
    if (utf8::code_points(text) > shown) {
        flat = flat.substr(0, utf8::offset_of(flat, shown));
        flat += "...";
    }
    return utf8::repaired(flat);
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// What a replay that judged no call read, so that "nothing to judge" never reads as "all
// allowed": every line of the files found, and their tool calls by name, the hook's own first.
std::string what_was_read(const std::vector<std::string>& files, ReplayCalls calls) {
    std::size_t lines = 0;
    std::map<std::string, std::size_t> tools;
    const std::string judged_tool = calls == ReplayCalls::agent_bash       ? "Bash"
                                    : calls == ReplayCalls::exit_plan_mode ? "ExitPlanMode"
                                                                           : "";
    if (!judged_tool.empty()) tools[judged_tool] = 0;
    for (const std::string& file : files) {
        LineReader reader(file);
        std::string line;
        while (reader.next(line)) {
            ++lines;
            if (reader.too_long() || !os::contains_bytes(line, "tool_use")) continue;
            const std::optional<json::object> object = parse_object(line);
            if (!object ||
                string_field(*object, "type") != std::optional<std::string_view>("assistant"))
                continue;
            for (const json::object* block : content_blocks(*object, "tool_use"))
                if (const std::optional<std::string_view> name = string_field(*block, "name"))
                    ++tools[utf8::repaired(*name)];
        }
    }
    std::string out = "read " + plural(lines, "line", "lines") + " in " +
                      plural(files.size(), "file", "files") + ": ";
    std::string sep;
    if (!judged_tool.empty()) {
        out += plural(tools[judged_tool], judged_tool + " call", judged_tool + " calls");
        sep = ", ";
    }
    for (const auto& [name, n] : tools) {
        if (name == judged_tool) continue;
        out += sep + plural(n, name + " call", name + " calls");
        sep = ", ";
    }
    if (sep.empty()) out += "no tool calls";
    return out;
}

// What each kind of replay judges, for the line under a replay that judged nothing.
std::string_view what_is_judged(ReplayCalls calls) {
    switch (calls) {
    case ReplayCalls::agent_bash:
        return "the Bash calls of viber agents, in <session>/subagents/agent-*.jsonl beside "
               "<session>.jsonl";
    case ReplayCalls::agent_stop:
        return "each viber agent's stop, in <session>/subagents/agent-*.jsonl beside "
               "<session>.jsonl";
    case ReplayCalls::exit_plan_mode:
        return "the ExitPlanMode calls of main transcripts (<session>.jsonl)";
    case ReplayCalls::plan_prompt:
        return "the prompts typed in plan mode in main transcripts (<session>.jsonl)";
    }
    return "";
}

} // namespace

std::optional<std::string> not_a_transcript(const std::string& path) {
    LineReader reader(path);
    if (!reader.is_open()) return "not a regular file that can be read";
    std::string line;
    while (reader.next(line)) {
        if (reader.too_long()) continue;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = "line " + std::to_string(reader.number());
        const std::optional<json::object> object = parse_object(line);
        if (!object)
            return where + " is not a JSON object (a transcript holds one JSON object a line)";
        if (string_field(*object, "type")) return std::nullopt;
        if (object->contains("hook_event_name"))
            return where + " is a hook payload, not a transcript line (--explain FILE explains a "
                           "payload)";
        return where + " is a JSON object without a \"type\", not a transcript line";
    }
    return reader.number() == 0 ? std::string("it is empty")
                                : std::string("it holds no line to read");
}

bool read_sessions(const std::string& path, ReplayCalls calls,
                   const std::function<void(const ReplayCall&)>& on_call, ReplayCount& count) {
    std::vector<std::string> sessions;
    std::vector<std::string> agents;
    std::string root = path;
    while (root.size() > 1 && (root.back() == '/' || root.back() == '\\')) root.pop_back();
    const os::FileKind kind = os::file_kind(root);
    if (kind == os::FileKind::regular) {
        if (const std::optional<std::string> why = not_a_transcript(root)) {
            count.refusal = "not a session transcript: " + *why;
            return false;
        }
        if (is_agent_file(root)) {
            agents.push_back(root);
        } else {
            sessions.push_back(root);
            const std::string dir =
                (root.ends_with(".jsonl") ? root.substr(0, root.size() - 6) : root) + "/subagents";
            if (const std::optional<std::vector<std::string>> names =
                    os::directory_names(dir, most_entries))
                for (const std::string& name : *names) {
                    std::string file = dir + "/" + name;
                    if (is_agent_file(file) && os::file_kind(file) == os::FileKind::regular)
                        agents.push_back(std::move(file));
                }
        }
    } else if (kind == os::FileKind::directory) {
        walk(root, sessions, agents);
        // A .jsonl file that is no transcript is passed over and counted.
        for (std::vector<std::string>* found : {&sessions, &agents})
            std::erase_if(*found, [&](const std::string& file) {
                const bool other = not_a_transcript(file).has_value();
                count.not_transcripts += other ? 1 : 0;
                return other;
            });
        if (sessions.empty() && agents.empty()) {
            count.refusal = "holds no session transcript (a .jsonl file of JSON objects with a "
                            "\"type\", as in ~/.claude/projects/<project>/)";
            return false;
        }
    } else {
        count.refusal = kind == os::FileKind::missing
                            ? "no such file or directory"
                            : "neither a session transcript (.jsonl) nor a directory of sessions";
        return false;
    }
    std::sort(sessions.begin(), sessions.end());
    std::sort(agents.begin(), agents.end());
    count.sessions = sessions.size();
    count.agent_files = agents.size();
    count.files = sessions;
    count.files.insert(count.files.end(), agents.begin(), agents.end());
    if (calls == ReplayCalls::exit_plan_mode || calls == ReplayCalls::plan_prompt) {
        for (const std::string& file : sessions) read_main_calls(file, calls, on_call, count);
        return true;
    }
    for (const std::string& file : agents) {
        const std::string agent_type = agent_type_of(file);
        if (!agent_type.starts_with("viber:")) continue;
        ++count.viber_agent_files;
        if (calls == ReplayCalls::agent_bash)
            read_agent_bash(file, agent_type, on_call, count);
        else
            read_agent_stop(file, agent_type, on_call, count);
    }
    return true;
}

int replay(const HookInfo& info, const std::string& path) {
    const ReplaySpec& spec = *info.replay;
    // The heading is printed once the path is known to hold a transcript: a refusal is one line.
    bool headed = false;
    const auto heading = [&] {
        if (headed) return;
        headed = true;
        std::cout << info.name << " --replay " << utf8::repaired(path) << "\n";
        if (!spec.note.empty()) std::cout << spec.note << "\n";
    };
    std::map<std::string, std::size_t> decisions;
    std::map<std::string, std::size_t> labels;
    std::size_t judged = 0;
    std::string current_file;
    ReplayCount count;
    const bool found = read_sessions(
        path, spec.calls,
        [&](const ReplayCall& call) {
            heading();
            if (call.file != current_file) {
                current_file = call.file;
                std::cout << "\n"
                          << utf8::repaired(call.file) << "  ("
                          << (spec.judge != nullptr ? std::string("main transcript")
                                                    : call.agent_type)
                          << ")\n";
            }
            // The hook's own judge (an unparsable payload: no decision), else hook mode's
            // decision with the spec's label.
            ReplayJudgement judgement;
            try {
                if (spec.judge != nullptr) {
                    const std::optional<json::object> payload = parse_object(call.payload);
                    if (payload) judgement = spec.judge(*payload, call.transcript_bytes);
                } else {
                    Trace off;
                    const Decision decision = decide_stdin(info, call.payload, off);
                    judgement.decision = to_string(decision.kind);
                    const std::optional<json::object> payload = parse_object(call.payload);
                    if (spec.label != nullptr && payload)
                        judgement.label = spec.label(decision, *payload);
                }
            } catch (const std::exception& e) {
                judgement = {.decision = "none",
                             .label = std::string("failed open: ") + e.what(),
                             .why = {}};
            }
            ++judged;
            ++decisions[judgement.decision];
            if (!judgement.label.empty()) ++labels[judgement.label];
            std::string row = "  line " + std::to_string(call.line);
            row.resize(std::max<std::size_t>(row.size(), 13), ' ');
            row += " " + judgement.decision;
            row.resize(std::max<std::size_t>(row.size(), 21), ' ');
            row += " " + (judgement.label.empty() ? std::string("-") : judgement.label);
            row.resize(std::max<std::size_t>(row.size(), 40), ' ');
            row += " " + one_line(call.what);
            std::cout << row << "\n";
            if (!judgement.why.empty())
                std::cout << "      " << utf8::repaired(judgement.why) << "\n";
        },
        count);
    if (!found) {
        std::cerr << info.name << ": --replay " << utf8::repaired(path) << ": " << count.refusal
                  << "; give a session file (<session>.jsonl) or a directory such as "
                     "~/.claude/projects/<project>/\n";
        return 2;
    }
    heading();
    std::string summary = "\nSummary: " + plural(count.sessions, "session", "sessions") + ", ";
    if (spec.judge == nullptr)
        summary += plural(count.agent_files, "agent file", "agent files") + " (" +
                   std::to_string(count.viber_agent_files) + " of viber agents), ";
    summary += plural(judged, "call", "calls") + " judged";
    std::string sep = ": ";
    for (const auto& [kind, n] : decisions) {
        summary += sep + kind + " " + std::to_string(n);
        sep = ", ";
    }
    if (!labels.empty()) {
        summary += "; by rule or step:";
        sep = " ";
        for (const auto& [label, n] : labels) {
            summary += sep + label + " " + std::to_string(n);
            sep = ", ";
        }
    }
    if (count.long_lines > 0)
        summary += "; " + plural(count.long_lines, "line", "lines") + " over 64 MiB passed over";
    if (count.calls_left > 0)
        summary += "; " + plural(count.calls_left, "earlier call", "earlier calls") +
                   " not judged (the last " + std::to_string(judged_main_calls) +
                   " of a session are)";
    if (count.not_transcripts > 0)
        summary += "; " + plural(count.not_transcripts, ".jsonl file", ".jsonl files") +
                   " that are no transcript passed over";
    std::cout << summary << "\n";
    if (judged == 0)
        std::cout << "No call to judge (this is not \"all allowed\"): "
                  << what_was_read(count.files, spec.calls) << "; " << info.name << " judges "
                  << what_is_judged(spec.calls) << "\n";
    if (spec.judge == nullptr && count.agent_files > 0 && count.viber_agent_files == 0 &&
        judged == 0)
        std::cout << "(no agent file named a viber agent: its agent-*.meta.json gives the type)\n";
    return 0;
}

} // namespace viber
