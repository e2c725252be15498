// model.cpp: the plain model of plan-gate's and plan-hints' decisions (SPEC §3-§5).
#include "model/model.hpp"

#include <algorithm>
#include <boost/filesystem/operations.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <fstream>
#include <iterator>

namespace viber::model {

namespace json = boost::json;
namespace fs = boost::filesystem;

namespace {

// One physical transcript line: its text without `\n` and a trailing `\r`, and its object when it
// parsed as one and is not an `api-request-blob` replay (such a line takes part in no scan).
struct Line {
    std::size_t number = 0;
    std::string raw;
    bool live = false;
    json::object object;
};

std::optional<std::string> read_whole(const std::string& path) {
    boost::system::error_code ec;
    if (!fs::is_regular_file(path, ec)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
    return text;
}

bool regular_file(const std::string& path) {
    boost::system::error_code ec;
    return fs::is_regular_file(path, ec);
}

// Physical lines split at `\n`; a missing final newline still ends the last line.
std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        lines.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::string without_cr(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

std::optional<std::vector<Line>> read_transcript(const std::optional<std::string>& path) {
    if (!path) return std::nullopt;
    const auto text = read_whole(*path);
    if (!text) return std::nullopt;
    std::vector<Line> lines;
    json::parse_options options;
    options.max_depth = 100000;
    for (std::string& physical : split_lines(*text)) {
        Line line;
        line.number = lines.size() + 1;
        line.raw = without_cr(std::move(physical));
        boost::system::error_code ec;
        json::value value = json::parse(line.raw, ec, {}, options);
        if (!ec && value.is_object()) {
            line.object = std::move(value.as_object());
            const json::value* type = line.object.if_contains("type");
            // Records Claude Code keeps for itself take part in no scan (SPEC §3, rev. 4).
            static const std::vector<std::string_view> bookkeeping{
                "api-request-blob", "queue-operation", "api-request", "api-request-shape",
                "tools-used",       "atis-latch",      "last-prompt", "cost-state"};
            line.live = !(type && type->is_string() &&
                          std::find(bookkeeping.begin(), bookkeeping.end(),
                                    std::string_view(type->as_string())) != bookkeeping.end());
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

std::optional<std::string_view> string_at(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || !value->is_string()) return std::nullopt;
    return std::string_view(value->as_string());
}

const json::object* object_at(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    return value != nullptr && value->is_object() ? &value->as_object() : nullptr;
}

const json::value* message_content(const json::object& line) {
    const json::object* message = object_at(line, "message");
    return message != nullptr ? message->if_contains("content") : nullptr;
}

// message.content is a string and message.role, if present, is `user`.
bool string_content_from_user(const json::object& line) {
    const json::value* content = message_content(line);
    if (content == nullptr || !content->is_string()) return false;
    const json::object* message = object_at(line, "message");
    const json::value* role = message->if_contains("role");
    return role == nullptr || (role->is_string() && role->as_string() == "user");
}

struct ToolUse {
    std::string name;
    std::string id;
    const json::object* input = nullptr;
};

std::vector<ToolUse> tool_uses(const Line& line) {
    std::vector<ToolUse> uses;
    if (!line.live) return uses;
    const json::value* content = message_content(line.object);
    if (content == nullptr || !content->is_array()) return uses;
    for (const json::value& element : content->as_array()) {
        if (!element.is_object()) continue;
        const json::object& use = element.as_object();
        if (string_at(use, "type") != std::string_view("tool_use")) continue;
        ToolUse tool;
        tool.name = std::string(string_at(use, "name").value_or(""));
        tool.id = std::string(string_at(use, "id").value_or(""));
        tool.input = object_at(use, "input");
        uses.push_back(tool);
    }
    return uses;
}

std::string input_string(const ToolUse& use, std::string_view key) {
    if (use.input == nullptr) return {};
    return std::string(string_at(*use.input, key).value_or(""));
}

// ---- §3: the episode and the skill signals ----

// A line that shows Claude Code out of plan mode.
bool out_of_plan_mode(const Line& line) {
    if (!line.live) return false;
    const auto type = string_at(line.object, "type");
    const auto mode = string_at(line.object, "permissionMode");
    if (type == std::string_view("permission-mode")) return mode && *mode != "plan";
    if (type == std::string_view("user")) {
        const json::value* content = message_content(line.object);
        const json::value* meta = line.object.if_contains("isMeta");
        const bool is_meta = meta != nullptr && meta->is_bool() && meta->as_bool();
        return content != nullptr && content->is_string() && !is_meta && mode && *mode != "plan";
    }
    if (type == std::string_view("attachment")) {
        const json::object* attachment = object_at(line.object, "attachment");
        return attachment != nullptr &&
               string_at(*attachment, "type") == std::string_view("plan_mode_exit");
    }
    return false;
}

std::size_t episode_start(const std::vector<Line>& lines) {
    std::size_t start = 0;
    for (const Line& line : lines)
        if (out_of_plan_mode(line)) start = line.number;
    return start;
}

bool has_skill(const Line& line, const std::vector<std::string_view>& skills) {
    for (const ToolUse& use : tool_uses(line)) {
        if (use.name != "Skill") continue;
        const std::string skill = input_string(use, "skill");
        if (std::find(skills.begin(), skills.end(), skill) != skills.end()) return true;
    }
    return false;
}

bool ends_entry_wait(const Line& line) {
    if (!line.live) return false;
    return string_at(line.object, "permissionMode") == std::string_view("plan") ||
           string_content_from_user(line.object);
}

bool has_tool(const Line& line, std::string_view name) {
    for (const ToolUse& use : tool_uses(line))
        if (use.name == name) return true;
    return false;
}

// The last Skill signal among `skills` owns the episode when its line or its own EnterPlanMode
// lies inside it.
bool signal_in_episode(const std::vector<Line>& lines, std::size_t start,
                       const std::vector<std::string_view>& skills, std::vector<std::string>& why) {
    std::size_t signal = 0;
    for (const Line& line : lines)
        if (has_skill(line, skills)) signal = line.number;
    if (signal == 0) return false;
    std::size_t entry = 0;
    for (std::size_t i = signal; i < lines.size(); ++i) { // lines[i] is line i + 1
        if (ends_entry_wait(lines[i])) break;
        if (has_tool(lines[i], "EnterPlanMode")) {
            entry = lines[i].number;
            break;
        }
    }
    why.push_back("last skill signal on line " + std::to_string(signal) + ", entry line " +
                  std::to_string(entry));
    return signal > start || (entry != 0 && entry > start);
}

const std::vector<std::string_view> planner_skills = {"planner", "viber:planner"};
const std::vector<std::string_view> hint_skills = {"planner",      "viber:planner", "intent",
                                                   "viber:intent", "fixer",         "viber:fixer"};

// ---- §4: plan-gate ----

bool is_separator(char c) {
    return c == '/' || c == '\\';
}

} // namespace

bool arms_plan_path(std::string_view path) {
    if (path.size() < 3 || path.substr(path.size() - 3) != ".md") return false;
    for (std::size_t i = 1; i + 5 < path.size(); ++i)
        if (is_separator(path[i - 1]) && path.substr(i, 5) == "plans" && is_separator(path[i + 5]))
            return true;
    return false;
}

bool planner_frontmatter(std::string_view text) {
    const std::vector<std::string> lines = split_lines(text);
    if (lines.empty() || without_cr(lines[0]) != "---") return false;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (without_cr(lines[i]) == "---") return false;
        if (lines[i].starts_with("source:")) return true;
    }
    return false;
}

std::size_t task_count(std::string_view text) {
    std::size_t count = 0;
    for (const std::string& line : split_lines(text))
        if (without_cr(line) == "<!-- TASK -->") ++count;
    return count;
}

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

// A verdict at `at` (VERDICT: already found there): the value, or nothing.
std::optional<std::string> verdict_at(std::string_view s, std::size_t at) {
    std::size_t i = at + 8;
    const std::size_t blanks = i;
    while (i < s.size() && is_blank(s[i])) ++i;
    if (i == blanks) return std::nullopt;
    if (i < s.size() && s[i] == '`') ++i;
    std::string value;
    for (std::string_view candidate : {"PASS", "FAIL", "DENIED"})
        if (s.substr(i, candidate.size()) == candidate) value = std::string(candidate);
    if (value.empty()) return std::nullopt;
    i += value.size();
    if (i < s.size() && s[i] == '`') ++i;
    while (i < s.size() && (is_blank(s[i]) || s[i] == '\r')) ++i;
    if (i == s.size() || s[i] == '\n' || s[i] == '<') return value;
    return std::nullopt;
}

} // namespace

std::optional<std::string> verdict_in_string(std::string_view s, bool content_or_text) {
    for (std::size_t p = 0; p <= s.size(); ++p) {
        const bool opens = (p == 0 && content_or_text) || (p > 0 && s[p - 1] == '\n') ||
                           (p >= 8 && s.substr(p - 8, 8) == "<result>");
        if (!opens) continue;
        std::size_t q = p;
        while (q < s.size() && is_blank(s[q])) ++q;
        if (s.substr(q, 8) != "VERDICT:") continue;
        if (auto value = verdict_at(s, q)) return value;
    }
    return std::nullopt;
}

namespace {

std::optional<std::string> verdict_in_value(const json::value& value, bool content_or_text) {
    if (value.is_string()) return verdict_in_string(value.as_string(), content_or_text);
    if (value.is_array()) {
        for (const json::value& element : value.as_array())
            if (auto found = verdict_in_value(element, false)) return found;
    }
    if (value.is_object()) {
        for (const auto& member : value.as_object())
            if (auto found = verdict_in_value(member.value(),
                                              member.key() == "content" || member.key() == "text"))
                return found;
    }
    return std::nullopt;
}

bool is_id_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// The raw line holds a whole `toolu_[A-Za-z0-9_]+` token equal to `id` (regex search semantics:
// leftmost, longest, one after another).
bool names_id(std::string_view raw, std::string_view id) {
    std::size_t i = 0;
    while ((i = raw.find("toolu_", i)) != std::string_view::npos) {
        std::size_t end = i + 6;
        while (end < raw.size() && is_id_char(raw[end])) ++end;
        if (end == i + 6) {
            i += 6;
            continue;
        }
        if (raw.substr(i, end - i) == id) return true;
        i = end;
    }
    return false;
}

// `type` is `agent`, bare or behind one `[A-Za-z0-9_.-]+:` prefix.
bool is_agent(std::string_view type, std::string_view agent) {
    if (type == agent) return true;
    if (type.size() <= agent.size() + 1 || !type.ends_with(agent)) return false;
    const std::string_view prefix = type.substr(0, type.size() - agent.size());
    if (prefix.back() != ':' || prefix.size() < 2) return false;
    for (char c : prefix.substr(0, prefix.size() - 1))
        if (!(is_id_char(c) || c == '.' || c == '-')) return false;
    return true;
}

struct Dispatch {
    std::size_t line = 0;
    std::string agent;
    std::string id; // empty: none
    std::string prompt;
};

std::vector<Dispatch> dispatches_on(const Line& line, const std::vector<std::string_view>& agents) {
    std::vector<Dispatch> found;
    for (const ToolUse& use : tool_uses(line)) {
        if (use.name != "Agent" && use.name != "Task") continue;
        const std::string type = input_string(use, "subagent_type");
        for (std::string_view agent : agents) {
            if (!is_agent(type, agent)) continue;
            found.push_back({line.number, std::string(agent),
                             use.id.starts_with("toolu_") ? use.id : std::string(),
                             input_string(use, "prompt")});
        }
    }
    return found;
}

struct VerdictLine {
    std::size_t line = 0;
    std::string value;
    std::optional<long long> timestamp;
};

// SPEC §4 rev. 4: a dispatch whose own tool_result, on a later live line, is an error
// ("is_error": true) is no dispatch.
bool dispatch_failed(const std::vector<Line>& lines, const Dispatch& dispatch) {
    if (dispatch.id.empty()) return false;
    for (const Line& line : lines) {
        if (line.number <= dispatch.line || !line.live) continue;
        const json::value* message = line.object.if_contains("message");
        if (message == nullptr || !message->is_object()) continue;
        const json::value* content = message->as_object().if_contains("content");
        if (content == nullptr || !content->is_array()) continue;
        for (const json::value& block : content->as_array()) {
            if (!block.is_object()) continue;
            const json::object& result = block.as_object();
            const json::value* type = result.if_contains("type");
            const json::value* error = result.if_contains("is_error");
            const json::value* id = result.if_contains("tool_use_id");
            if (type && type->is_string() && type->as_string() == "tool_result" && error &&
                error->is_bool() && error->as_bool() && id && id->is_string() &&
                id->as_string() == dispatch.id)
                return true;
        }
    }
    return false;
}

// A tool_result on the line that is an error ("is_error": true).
bool holds_error_result(const Line& line) {
    const json::value* message = line.object.if_contains("message");
    if (message == nullptr || !message->is_object()) return false;
    const json::value* content = message->as_object().if_contains("content");
    if (content == nullptr || !content->is_array()) return false;
    for (const json::value& block : content->as_array()) {
        if (!block.is_object()) continue;
        const json::value* type = block.as_object().if_contains("type");
        const json::value* error = block.as_object().if_contains("is_error");
        if (type && type->is_string() && type->as_string() == "tool_result" && error &&
            error->is_bool() && error->as_bool())
            return true;
    }
    return false;
}

// A verdict line (SPEC §4): never an async launch's echo, nor (rev. 4) a failed call's error.
std::optional<VerdictLine> verdict_line(const Line& line) {
    if (!line.live || line.raw.find("\"status\":\"async_launched\"") != std::string::npos ||
        holds_error_result(line))
        return std::nullopt;
    auto value = verdict_in_value(json::value(line.object), false);
    if (!value) return std::nullopt;
    VerdictLine verdict{line.number, *value, std::nullopt};
    if (auto stamp = string_at(line.object, "timestamp"))
        verdict.timestamp = parse_timestamp(*stamp);
    return verdict;
}

std::optional<long long> mtime_of(const std::string& path) {
    if (!regular_file(path)) return std::nullopt;
    boost::system::error_code ec;
    const std::time_t t = fs::last_write_time(path, ec);
    if (ec) return std::nullopt;
    return static_cast<long long>(t);
}

struct Plan {
    std::size_t write_line = 0;
    std::string path;
    std::optional<std::string> text; // nullopt: missing, not regular, unreadable
};

// The single reviewer (step 4).
GateDecision single_reviewer(const std::vector<Line>& lines, const Plan& plan,
                             std::string_view agent, GateDecision decision) {
    std::optional<Dispatch> open;
    bool any_dispatch = false;
    std::optional<VerdictLine> latest;
    for (const Line& line : lines) {
        if (line.number <= plan.write_line) continue;
        const std::vector<Dispatch> dispatches = dispatches_on(line, {agent});
        if (!dispatches.empty()) {
            for (const Dispatch& dispatch : dispatches) {
                if (dispatch_failed(lines, dispatch)) continue;
                open = dispatch;
                any_dispatch = true;
            }
            continue;
        }
        const auto verdict = verdict_line(line);
        if (!verdict || !open) continue;
        if (!open->id.empty() && !names_id(line.raw, open->id)) continue;
        latest = verdict;
        open.reset();
        decision.why.push_back("pair: verdict " + verdict->value + " on line " +
                               std::to_string(verdict->line));
    }
    if (!any_dispatch)
        decision.step = "review the plan";
    else if (!latest)
        decision.step = "let the review finish";
    else if (latest->value == "DENIED")
        decision.step = "grant the permission";
    else if (latest->value == "FAIL")
        decision.step = "fix the findings";
    else if (const auto mtime = mtime_of(plan.path);
             mtime && latest->timestamp && *mtime > *latest->timestamp + 2)
        decision.step = "re-review";
    return decision;
}

// A task reviewer's `tasks: T<a>-T<b>` line: ^\s*tasks:\s*T(\d+)\s*-\s*T(\d+)\s*$.
std::optional<std::pair<std::size_t, std::size_t>> task_range(std::string_view prompt) {
    const auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
    };
    for (const std::string& line : split_lines(prompt)) {
        std::size_t i = 0;
        const auto skip = [&] {
            while (i < line.size() && space(line[i])) ++i;
        };
        const auto number = [&]() -> std::optional<std::size_t> {
            const std::size_t from = i;
            std::size_t n = 0;
            while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
                n = std::min<std::size_t>(n * 10 + static_cast<std::size_t>(line[i] - '0'),
                                          std::size_t{1} << 40);
                ++i;
            }
            if (i == from) return std::nullopt;
            return n;
        };
        skip();
        if (line.compare(i, 6, "tasks:") != 0) continue;
        i += 6;
        skip();
        if (i >= line.size() || line[i] != 'T') continue;
        ++i;
        const auto a = number();
        if (!a) continue;
        skip();
        if (i >= line.size() || line[i] != '-') continue;
        ++i;
        skip();
        if (i >= line.size() || line[i] != 'T') continue;
        ++i;
        const auto b = number();
        if (!b) continue;
        skip();
        if (i != line.size()) continue;
        if (*a >= 1 && *a <= *b) return std::make_pair(*a, *b);
    }
    return std::nullopt;
}

constexpr std::string_view spec_reviewer = "planner-spec-review";
constexpr std::string_view graph_reviewer = "planner-graph-review";
constexpr std::string_view task_reviewer = "planner-task-review";

// The review set (step 5).
GateDecision review_set(const std::vector<Line>& lines, const Plan& plan, std::size_t n,
                        GateDecision decision) {
    struct Tracked {
        Dispatch dispatch;
        std::optional<std::pair<std::size_t, std::size_t>> tasks;
        std::optional<VerdictLine> verdict;
    };
    std::vector<Tracked> tracked;
    for (const Line& line : lines) {
        if (line.number <= plan.write_line) continue;
        const auto dispatches = dispatches_on(line, {spec_reviewer, graph_reviewer, task_reviewer});
        if (!dispatches.empty()) {
            for (const Dispatch& d : dispatches)
                if (!dispatch_failed(lines, d))
                    tracked.push_back(
                        {d, d.agent == task_reviewer ? task_range(d.prompt) : std::nullopt,
                         std::nullopt});
            continue;
        }
        const auto verdict = verdict_line(line);
        if (!verdict) continue;
        Tracked* target = nullptr;
        bool names_tracked = false;
        for (Tracked& t : tracked) {
            if (t.dispatch.id.empty() || !names_id(line.raw, t.dispatch.id)) continue;
            names_tracked = true;
            if (!t.verdict && target == nullptr) target = &t;
        }
        if (target == nullptr && !names_tracked) {
            for (Tracked& t : tracked)
                if (!t.verdict && t.dispatch.id.empty()) {
                    target = &t;
                    break;
                }
        }
        if (target != nullptr) target->verdict = verdict;
    }
    // The deciding pair of a part: the one whose verdict line is latest.
    const auto deciding = [&](auto covers) -> const Tracked* {
        const Tracked* best = nullptr;
        for (const Tracked& t : tracked)
            if (t.verdict && covers(t) &&
                (best == nullptr || t.verdict->line > best->verdict->line))
                best = &t;
        return best;
    };
    const auto running = [&](auto covers) {
        for (const Tracked& t : tracked)
            if (!t.verdict && covers(t)) return true;
        return false;
    };
    const auto member = [](std::string_view agent) {
        return [agent](const Tracked& t) { return t.dispatch.agent == agent; };
    };
    const auto task = [](std::size_t k) {
        return [k](const Tracked& t) {
            return t.dispatch.agent == task_reviewer && t.tasks && t.tasks->first <= k &&
                   k <= t.tasks->second;
        };
    };
    std::vector<const Tracked*> decided;
    bool all_missing_running = true;
    for (std::string_view agent : {spec_reviewer, graph_reviewer}) {
        if (const Tracked* d = deciding(member(agent))) {
            decided.push_back(d);
        } else {
            decision.missing.push_back("viber:" + std::string(agent));
            all_missing_running = all_missing_running && running(member(agent));
        }
    }
    std::size_t run_start = 0;
    for (std::size_t k = 1; k <= n + 1; ++k) {
        const Tracked* d = k <= n ? deciding(task(k)) : nullptr;
        const bool missing = k <= n && d == nullptr;
        if (d != nullptr) decided.push_back(d);
        if (missing) {
            all_missing_running = all_missing_running && running(task(k));
            if (run_start == 0) run_start = k;
        } else if (run_start != 0) {
            decision.missing.push_back("viber:" + std::string(task_reviewer) + " for T" +
                                       std::to_string(run_start) + "-T" + std::to_string(k - 1));
            run_start = 0;
        }
    }
    if (!decision.missing.empty()) {
        decision.step = all_missing_running ? "let the review finish" : "review the plan";
        return decision;
    }
    decision.missing.clear();
    const auto any = [&](std::string_view value) {
        for (const Tracked* d : decided)
            if (d->verdict->value == value) return true;
        return false;
    };
    if (any("DENIED")) {
        decision.step = "grant the permission";
        return decision;
    }
    if (any("FAIL")) {
        decision.step = "fix the findings";
        return decision;
    }
    const Tracked* earliest = nullptr;
    for (const Tracked* d : decided)
        if (earliest == nullptr || d->verdict->line < earliest->verdict->line) earliest = d;
    const auto mtime = mtime_of(plan.path);
    if (earliest != nullptr && mtime && earliest->verdict->timestamp &&
        *mtime > *earliest->verdict->timestamp + 2)
        decision.step = "re-review";
    return decision;
}

bool switch_on(std::string_view config_output) {
    constexpr std::string_view key = "planning.plain-plan-review: ";
    std::size_t matching = 0;
    bool on = false;
    for (const std::string& line : split_lines(config_output)) {
        if (!line.starts_with(key)) continue;
        ++matching;
        on = line == "planning.plain-plan-review: true";
    }
    return matching == 1 && on;
}

// The git top level of `cwd` (a `.git` entry in it or above), else `cwd`.
std::string repository_root(const std::string& cwd) {
    boost::system::error_code ec;
    fs::path dir(cwd);
    while (!dir.empty()) {
        if (fs::exists(dir / ".git", ec)) return dir.string();
        if (dir == dir.parent_path()) break;
        dir = dir.parent_path();
    }
    return cwd;
}

} // namespace

GateDecision gate_decision(const GateInput& input) {
    GateDecision decision;
    const auto lines = read_transcript(input.transcript_path);
    if (!lines) {
        decision.why.push_back("no transcript");
        return decision;
    }
    const std::size_t start = episode_start(*lines);
    decision.why.push_back("episode start " + std::to_string(start));

    Plan plan;
    for (const Line& line : *lines)
        for (const ToolUse& use : tool_uses(line)) {
            if (use.name != "Write" && use.name != "Edit") continue;
            const std::string path = input_string(use, "file_path");
            if (!arms_plan_path(path)) continue;
            plan.write_line = line.number;
            plan.path = path;
        }
    decision.why.push_back("plan write on line " + std::to_string(plan.write_line) + ": " +
                           plan.path);
    if (plan.write_line == 0 || plan.write_line <= start) return decision;
    if (!regular_file(plan.path) && input.cwd && regular_file(*input.cwd + "/" + plan.path))
        plan.path = *input.cwd + "/" + plan.path;
    plan.text = read_whole(plan.path);

    const bool owns_episode = signal_in_episode(*lines, start, planner_skills, decision.why);
    const bool planner = owns_episode && (!plan.text || planner_frontmatter(*plan.text));
    if (planner) {
        const std::size_t tasks = plan.text ? task_count(*plan.text) : 0;
        decision.why.push_back("planner plan, " + std::to_string(tasks) + " tasks");
        if (tasks > 12) {
            decision.route = "set";
            return review_set(*lines, plan, tasks, decision);
        }
        decision.route = "planner";
        return single_reviewer(*lines, plan, "planner-review", decision);
    }
    boost::system::error_code ec;
    if (!input.cwd || !fs::is_directory(*input.cwd, ec) || !switch_on(input.config_output)) {
        decision.why.push_back("plain plan, not gated");
        return decision;
    }
    decision.route = "plain";
    if (plan.text) {
        decision.file_count = plan_files(*plan.text, repository_root(*input.cwd), plan.path).size();
        if (decision.file_count > 8) {
            decision.step = "narrow the plan";
            return decision;
        }
    }
    return single_reviewer(*lines, plan, "plain-plan-review", decision);
}

bool hints_print(const HintsInput& input) {
    if (input.permission_mode != "plan") return false;
    std::string content = input.content;
    while (!content.empty() && content.back() == '\n') content.pop_back();
    if (content.empty()) return false;
    const auto lines = read_transcript(input.transcript_path);
    if (!lines) return true;
    const std::size_t start = episode_start(*lines);
    std::vector<std::string> why;
    if (signal_in_episode(*lines, start, hint_skills, why)) return false;
    for (const Line& line : *lines) {
        if (line.number <= start || !line.live || !string_content_from_user(line.object)) continue;
        const std::string_view text = message_content(line.object)->as_string();
        if (text.starts_with("<command-message>viber:intent</command-message>") ||
            text.starts_with("<command-message>viber:fixer</command-message>"))
            return false;
    }
    return true;
}

// ---- timestamps ----

namespace {

long long days_from_civil(long long y, long long m, long long d) {
    y -= m <= 2 ? 1 : 0;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const long long yoe = y - era * 400;
    const long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

} // namespace

std::optional<long long> parse_timestamp(std::string_view s) {
    const auto digits = [&](std::size_t at, std::size_t n) -> std::optional<long long> {
        if (at + n > s.size()) return std::nullopt;
        long long v = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (s[i] < '0' || s[i] > '9') return std::nullopt;
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    // YYYY-MM-DDTHH:MM:SS
    if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return std::nullopt;
    const auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
    const auto hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2);
    if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
    std::size_t i = 19;
    if (i < s.size() && s[i] == '.') {
        ++i;
        const std::size_t from = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == from) return std::nullopt;
    }
    long long offset = 0;
    if (i < s.size() && s[i] == 'Z') {
        ++i;
    } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
        const long long sign = s[i] == '+' ? 1 : -1;
        const auto oh = digits(i + 1, 2);
        const auto om = digits(i + 4, 2);
        if (!oh || !om || s[i + 3] != ':') return std::nullopt;
        offset = sign * (*oh * 3600 + *om * 60);
        i += 6;
    }
    if (i != s.size()) return std::nullopt;
    return days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second -
           offset;
}

// ---- the plain plan file limit (step 3) ----

namespace {

std::string lexically_normal(std::string_view absolute) {
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i <= absolute.size()) {
        std::size_t end = absolute.find('/', i);
        if (end == std::string_view::npos) end = absolute.size();
        const std::string_view part = absolute.substr(i, end - i);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.emplace_back(part);
        }
        i = end + 1;
    }
    std::string out;
    for (const std::string& part : parts) out += "/" + part;
    return out.empty() ? "/" : out;
}

bool is_alpha(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// A drive spelling (`C:`, `C:/x`, `C:\x`) as `/c/x`; backslashes of such a token read as `/`.
std::string drive_as_slash(std::string token) {
    if (token.size() >= 2 && is_alpha(token[0]) && token[1] == ':' &&
        (token.size() == 2 || token[2] == '/' || token[2] == '\\')) {
        std::replace(token.begin(), token.end(), '\\', '/');
        const char drive = static_cast<char>(token[0] | 0x20);
        return "/" + std::string(1, drive) + token.substr(2);
    }
    return token;
}

std::string canonical(const std::string& token, const std::string& root) {
    const std::string spelled = drive_as_slash(token);
    if (!spelled.empty() && spelled[0] == '/') return lexically_normal(spelled);
    return lexically_normal(root + "/" + spelled);
}

bool path_shaped(std::string_view token) {
    const std::size_t slash = token.rfind('/');
    if (slash == std::string_view::npos) return false;
    const std::string_view last = token.substr(slash + 1);
    for (std::size_t i = 0; i < last.size(); ++i) {
        const std::size_t after = last.size() - i - 1;
        if (last[i] == '.' && after >= 1 && after <= 10) return true;
    }
    return false;
}

bool is_url(std::string_view token) {
    if (token.empty() || !is_alpha(token[0])) return false;
    std::size_t i = 1;
    while (i < token.size() && (is_alpha(token[i]) || (token[i] >= '0' && token[i] <= '9') ||
                                token[i] == '+' || token[i] == '.' || token[i] == '-'))
        ++i;
    return token.substr(i, 3) == "://";
}

} // namespace

std::set<std::string> plan_files(std::string_view text, const std::string& root_in,
                                 const std::string& plan_path) {
    const std::string root = canonical(root_in, "/");
    const std::string own = canonical(plan_path, root);
    std::set<std::string> files;
    constexpr std::string_view whitespace = " \t\n\r\v\f";
    constexpr std::string_view leading = "`'\"([{<";
    constexpr std::string_view trailing = "`'\")]}>.,;:";
    std::size_t i = 0;
    while (i < text.size()) {
        if (whitespace.find(text[i]) != std::string_view::npos) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && whitespace.find(text[end]) == std::string_view::npos) ++end;
        std::string_view token = text.substr(i, end - i);
        i = end;
        while (!token.empty() && leading.find(token.front()) != std::string_view::npos)
            token.remove_prefix(1);
        while (!token.empty() && trailing.find(token.back()) != std::string_view::npos)
            token.remove_suffix(1);
        if (token.empty() || is_url(token)) continue;
        const std::string spelled = drive_as_slash(std::string(token));
        const std::string path = canonical(std::string(token), root);
        if (root == "/" ? path == "/" : !path.starts_with(root + "/")) continue;
        const std::string relative = path.substr(root == "/" ? 1 : root.size() + 1);
        bool temp = false;
        for (std::size_t at = 0; at <= relative.size();) {
            std::size_t stop = relative.find('/', at);
            if (stop == std::string::npos) stop = relative.size();
            if (relative.substr(at, stop - at) == ".temp") temp = true;
            at = stop + 1;
        }
        if (temp || path == own) continue;
        if (path_shaped(spelled) || regular_file(path)) files.insert(path);
    }
    return files;
}

} // namespace viber::model
