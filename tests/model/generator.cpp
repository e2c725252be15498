// generator.cpp: random sessions in every shape SPEC §3 lists (see generator.hpp).
#include "model/generator.hpp"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <ctime>
#include <optional>

namespace viber::model {

namespace json = boost::json;

std::uint64_t Rng::next() {
    // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

const std::vector<std::pair<std::string, std::string>>& project_files() {
    static const std::vector<std::pair<std::string, std::string>> files = {
        {"Makefile", "all:\n"},           {"README", "read me\n"},     {"docs/LICENSE", "MIT\n"},
        {"src/a.ts", "export {}\n"},      {"src/b.ts", "export {}\n"}, {".temp/notes", "x\n"},
        {"scripts/build", "#!/bin/sh\n"},
    };
    return files;
}

namespace {

std::string iso(long long seconds, std::string_view zone, bool millis) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
#ifdef _WIN32
    gmtime_s(&tm, &t);
#else
    gmtime_r(&t, &tm);
#endif
    char buffer[40];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
    return std::string(buffer) + (millis ? ".123" : "") + std::string(zone);
}

class Session {
public:
    Session(Rng& rng, const std::string& project, Case& c) : rng_(rng), project_(project), c_(c) {}

    Rng& rng() { return rng_; }
    void shape(std::string s) {
        if (std::find(c_.shapes.begin(), c_.shapes.end(), s) == c_.shapes.end())
            c_.shapes.push_back(std::move(s));
    }

    void raw(std::string line) {
        const bool cr = crlf_ || rng_.chance(0.03);
        lines_.push_back(std::move(line) + (cr ? "\r" : ""));
    }
    void add(json::object record) {
        if (!record.contains("timestamp") && rng_.chance(0.5))
            record["timestamp"] =
                iso(base_epoch - 600 + static_cast<long long>(lines_.size()), "Z", true);
        raw(json::serialize(record));
    }
    void maybe_noise() {
        if (rng_.chance(0.15)) noise();
    }

    std::string text() const {
        std::string out;
        for (std::size_t i = 0; i < lines_.size(); ++i) {
            out += lines_[i];
            if (i + 1 < lines_.size() || !no_final_newline_) out += "\n";
        }
        return out;
    }
    void set_crlf(bool crlf) { crlf_ = crlf; }
    void set_no_final_newline(bool v) { no_final_newline_ = v; }
    // A clean review: every answer a real verdict naming its own dispatch, so the later refusals
    // (DENIED, FAIL, the mtime) and the allow are reached often.
    void set_clean(bool clean) { clean_ = clean; }
    bool clean() const { return clean_; }

    std::string fresh_id() { return "toolu_01" + std::to_string(next_id_++) + "Q"; }

    // ---- line shapes ----

    void noise() {
        switch (rng_.below(11)) {
        case 0:
            raw("");
            shape("blank line");
            break;
        case 1:
            raw("this is not json {\"type\":\"user\"");
            shape("non-JSON line");
            break;
        case 2:
            raw("[1,2,3]");
            break;
        case 3:
            add({{"type", "system"},
                 {"subtype", "compact_boundary"},
                 {"content", "Conversation compacted"}});
            break;
        case 4:
            add({{"type", "assistant"},
                 {"message",
                  {{"role", "assistant"},
                   {"content",
                    json::array{{{"type", "text"}, {"text", "Let me look at the code."}}}}}}});
            break;
        case 5:
            long_line();
            break;
        case 6:
            blob();
            break;
        case 7:
            add({{"type", "progress"},
                 {"data", {{"type", "hook_progress"}, {"hookEvent", "PreToolUse"}}}});
            break;
        case 8:
            attachment(rng_.chance(0.5) ? "plan_mode" : "todo_reminder");
            break;
        case 9:
            add({{"type", "assistant"},
                 {"message",
                  {{"role", "assistant"}, {"content", "a string answer from the assistant"}}}});
            shape("assistant string content");
            break;
        default:
            meta_array();
            break;
        }
    }

    void long_line() {
        std::string text(70000 + rng_.below(60000), 'x');
        for (std::size_t i = 0; i < text.size(); i += 1 + rng_.below(90)) text[i] = ' ';
        if (rng_.chance(0.3)) text += " VERDICT: PASS mid-line, not a verdict";
        add({{"type", "assistant"},
             {"message",
              {{"role", "assistant"},
               {"content", json::array{{{"type", "text"}, {"text", text}}}}}}});
        shape("long line");
    }

    // A replay of a whole message, or another record Claude Code keeps for itself (2.1.3xx's
    // bookkeeping): skipped by every scan.
    void blob() {
        json::object element;
        switch (rng_.below(4)) {
        case 0:
            element = {{"type", "tool_use"},
                       {"id", "toolu_blob1"},
                       {"name", "Skill"},
                       {"input", {{"skill", "viber:planner"}}}};
            break;
        case 1:
            element = {{"type", "tool_result"},
                       {"tool_use_id", last_dispatch_id_},
                       {"content", "VERDICT: PASS"}};
            break;
        case 2:
            element = {
                {"type", "tool_use"},
                {"name", "Write"},
                {"input", {{"file_path", project_ + "/.claude/plans/blob.md"}, {"content", "x"}}}};
            break;
        default:
            element = {{"type", "tool_use"}, {"name", "EnterPlanMode"}, {"input", json::object{}}};
            break;
        }
        static const std::vector<std::string> types{
            "api-request-blob", "api-request-blob",  "queue-operation",
            "api-request",      "api-request-shape", "tools-used",
            "atis-latch",       "last-prompt",       "cost-state"};
        const std::string type = rng_.pick(types);
        json::object record{{"type", type}, {"message", {{"content", json::array{element}}}}};
        if (rng_.chance(0.3)) record["permissionMode"] = rng_.chance(0.5) ? "plan" : "default";
        add(std::move(record));
        shape(type);
    }

    // A task notification queued before it is delivered (2.1.3xx): the queue-operation record
    // carries the reviewer's whole answer, and counts for nothing.
    void queued_notification(const std::string& id, std::string_view value) {
        add({{"type", "queue-operation"},
             {"operation", "enqueue"},
             {"timestamp", "2026-12-01T10:00:00.000Z"},
             {"content",
              "<task-notification>\n<tool-use-id>" + (id.empty() ? "toolu_none" : id) +
                  "</tool-use-id>\n<status>completed</status>\n<result>Review.\nVERDICT: " +
                  std::string(value) + "\n</result>\n</task-notification>"}});
        shape("queued notification");
    }

    // A dispatch whose own tool_result is an error (refused, or it could not start): no dispatch.
    void failed(const std::string& id) {
        json::object result{{"type", "tool_result"},
                            {"is_error", true},
                            {"tool_use_id", id.empty() ? "toolu_none" : id}};
        if (rng_.chance(0.5)) {
            result["content"] = "Auto mode is unavailable: its safety check does not run for this "
                                "session, so Agent was not run.\nRetrying won't help.";
        } else {
            result["content"] =
                json::array{{{"type", "text"},
                             {"text", "The user doesn't want to proceed with this tool use."}}};
        }
        add({{"type", "user"},
             {"message", {{"role", "user"}, {"content", json::array{result}}}},
             {"toolUseResult", "Error: the call was not run"}});
        shape("failed dispatch");
    }

    void permission_mode(std::string_view mode) {
        add({{"type", "permission-mode"}, {"permissionMode", mode}, {"sessionId", "s"}});
        shape("permission-mode record " + std::string(mode));
    }

    // A typed prompt: string content, role user (or none), an optional top-level permissionMode.
    void prompt(std::string_view mode, std::string_view text = "plan the feature") {
        json::object message{{"content", text}};
        if (rng_.chance(0.85)) message = {{"role", "user"}, {"content", text}};
        json::object record{{"type", "user"}, {"message", message}};
        if (!mode.empty()) record["permissionMode"] = mode;
        add(std::move(record));
        shape("typed prompt" + (mode.empty() ? std::string() : " mode " + std::string(mode)));
    }

    void command(std::string_view skill) {
        add({{"type", "user"},
             {"message",
              {{"role", "user"},
               {"content", "<command-message>" + std::string(skill) +
                               "</command-message>\n<command-name>/" + std::string(skill) +
                               "</command-name>"}}}});
        shape("typed command " + std::string(skill));
    }

    void meta_array() {
        add({{"type", "user"},
             {"isMeta", true},
             {"message",
              {{"role", "user"},
               {"content",
                json::array{{{"type", "text"}, {"text", "Base directory for this skill: /x"}}}}}}});
        shape("isMeta array line");
    }

    void meta_string(std::string_view mode) {
        json::object record{{"type", "user"},
                            {"isMeta", true},
                            {"message",
                             {{"role", "user"},
                              {"content", "<local-command-caveat>Caveat</local-command-caveat>"}}}};
        if (!mode.empty()) record["permissionMode"] = mode;
        add(std::move(record));
        shape("isMeta string line");
    }

    void attachment(std::string_view type) {
        json::object inner{{"type", type}};
        if (type == "plan_mode_exit") inner["planFilePath"] = project_ + "/.claude/plans/old.md";
        if (type == "plan_mode") inner["reminderType"] = "full";
        add({{"type", "attachment"}, {"attachment", inner}});
        shape("attachment " + std::string(type));
    }

    void tool_use(std::string_view name, json::object input, std::string_view id) {
        json::object use{{"type", "tool_use"}};
        if (!id.empty()) use["id"] = id;
        use["name"] = name;
        use["input"] = std::move(input);
        add({{"type", "assistant"},
             {"message", {{"role", "assistant"}, {"content", json::array{use}}}}});
    }

    void skill(std::string_view name) {
        const std::string id = fresh_id();
        tool_use("Skill", {{"skill", name}}, id);
        shape("Skill " + std::string(name));
        if (rng_.chance(0.6)) {
            add({{"type", "user"},
                 {"message",
                  {{"role", "user"},
                   {"content",
                    json::array{{{"type", "tool_result"},
                                 {"tool_use_id", id},
                                 {"content", "Launching skill: " + std::string(name)}}}}}}});
        }
    }

    void enter_plan_mode() {
        tool_use("EnterPlanMode", json::object{}, fresh_id());
        shape("EnterPlanMode");
    }

    void write(const std::string& path, bool edit) {
        std::string content = "# Plan\n";
        if (rng_.chance(0.1)) {
            content = "{\"name\":\"Skill\",\"input\":{\"skill\":\"viber:planner\"}}";
            shape("write quoting a Skill call");
        }
        if (rng_.chance(0.03)) {
            content = "VERDICT: PASS\n";
            shape("write whose content opens with a verdict");
        }
        if (edit) {
            tool_use("Edit", {{"file_path", path}, {"old_string", "a"}, {"new_string", content}},
                     fresh_id());
        } else {
            tool_use("Write", {{"file_path", path}, {"content", content}}, fresh_id());
        }
        shape(std::string(edit ? "Edit " : "Write ") + "path");
    }

    // A dispatch; returns its id ("" when it has none that counts).
    std::string dispatch(const std::string& agent, const std::string& prompt) {
        std::string id;
        const std::size_t kind = rng_.below(10);
        if (kind < 7)
            id = fresh_id();
        else if (kind == 7)
            id = "call_" + std::to_string(next_id_++);
        const std::string tool = rng_.chance(0.8) ? "Agent" : "Task";
        tool_use(tool, {{"subagent_type", agent}, {"description", "review"}, {"prompt", prompt}},
                 id);
        shape(tool + " dispatch " + agent +
              (id.starts_with("toolu_") ? " with id" : " without id"));
        last_dispatch_id_ = id.starts_with("toolu_") ? id : "toolu_none";
        return id.starts_with("toolu_") ? id : std::string();
    }

    // The text of a reviewer's answer.
    std::string answer_text(std::string_view value) {
        const std::string v(value);
        const std::vector<std::size_t> real = {0, 1, 2, 3, 4, 8, 13};
        switch (clean_ ? rng_.pick(real) : rng_.below(14)) {
        case 0:
            return "## Plan Review\n\nVERDICT: " + v + "\n\nFindings: none.";
        case 1:
            shape("indented verdict");
            return "## Plan Review\n   VERDICT: " + v;
        case 2:
            shape("tab-indented verdict");
            return "\tVERDICT: " + v + "\n";
        case 3:
            shape("backticked verdict");
            return "Review.\nVERDICT: `" + v + "`\n";
        case 4:
            shape("verdict with trailing CR");
            return "VERDICT: " + v + " \r\nmore";
        case 5:
            shape("decoy then verdict");
            return "VERDICT: PASS is not warranted here.\nVERDICT: " + v;
        case 6:
            shape("decoy only");
            return "VERDICT: PASS is not warranted";
        case 7:
            shape("no space verdict");
            return "VERDICT:" + v;
        case 8:
            shape("verdict before <");
            return "VERDICT: " + v + "<br>";
        case 9:
            shape("mid-line verdict");
            return "Summary VERDICT: " + v;
        case 10:
            shape("lowercase value");
            return "VERDICT: pass";
        case 11:
            shape("denied with reason");
            return "VERDICT: DENIED\nREASON: Bash(rm -rf .temp/x) was refused";
        case 12:
            shape("PASSED");
            return "VERDICT: PASSED";
        default:
            return "VERDICT: " + v;
        }
    }

    // A verdict timestamp near the plan's mtime, in one of several spellings, or none.
    std::optional<std::string> verdict_timestamp() {
        const long long at = base_epoch + static_cast<long long>(rng_.below(9)) - 2;
        switch (rng_.below(9)) {
        case 0:
            shape("timestamp without fraction");
            return iso(at, "Z", false);
        case 1:
            shape("timestamp with +02:00");
            return iso(at + 7200, "+02:00", true);
        case 2:
            shape("timestamp with -05:30");
            return iso(at - 19800, "-05:30", false);
        case 3:
            shape("timestamp without zone");
            return iso(at, "", true);
        case 4:
            shape("unparseable timestamp");
            return std::string("yesterday");
        case 5:
            shape("no timestamp");
            return std::nullopt;
        default:
            return iso(at, "Z", true);
        }
    }

    void verdict(const std::string& id, std::string_view value, const std::string& agent) {
        // Which id the answer names: the dispatch's, a longer one holding it, another, or none.
        std::string ref = id;
        const std::size_t which = clean_ ? 0 : rng_.below(10);
        if (which == 7) {
            ref = id.empty() ? "toolu_01ZZ" : id + "B";
            shape("verdict naming a longer id");
        } else if (which == 8) {
            ref = "toolu_09other";
            shape("verdict naming another id");
        } else if (which == 9 || id.empty())
            ref.clear();
        const std::string text = answer_text(value);
        const auto stamp = verdict_timestamp();
        json::object record{{"type", "user"}};
        switch (clean_ ? rng_.below(4) : rng_.below(6)) {
        case 0: { // tool_result, string content
            json::object result{{"type", "tool_result"}};
            if (!ref.empty()) result["tool_use_id"] = ref;
            result["content"] = text;
            record["message"] = {{"role", "user"}, {"content", json::array{result}}};
            shape("verdict as string tool_result");
            break;
        }
        case 1:
        case 2: { // array of text blocks, repeated under toolUseResult
            json::array blocks{
                {{"type", "text"}, {"text", text}},
                {{"type", "text"},
                 {"text",
                  "agentId: a1f (use SendMessage to continue)\n<usage>total_tokens: 1</usage>"}}};
            json::object result{{"type", "tool_result"}};
            if (!ref.empty()) result["tool_use_id"] = ref;
            result["content"] = blocks;
            record["message"] = {{"role", "user"}, {"content", json::array{result}}};
            record["toolUseResult"] = {
                {"status", "completed"}, {"agentType", agent}, {"content", blocks}};
            shape("verdict as array of text blocks");
            break;
        }
        case 3: { // a task notification
            std::string body = "<task-notification>\n";
            if (!ref.empty()) body += "<tool-use-id>" + ref + "</tool-use-id>\n";
            body += "<status>completed</status>\n<summary>Agent done</summary>\n<result>" +
                    (rng_.chance(0.5) ? text : "Review done.\n" + text + "\n") +
                    "</result>\n</task-notification>";
            record["message"] = {{"role", "user"}, {"content", body}};
            shape("task notification");
            break;
        }
        case 4: { // a background launch echoing a prompt that quotes a verdict: no verdict
            json::object result{
                {"tool_use_id", ref.empty() ? "toolu_01async" : ref},
                {"type", "tool_result"},
                {"content",
                 json::array{{{"type", "text"}, {"text", "Async agent launched successfully."}}}}};
            record["message"] = {{"role", "user"}, {"content", json::array{result}}};
            record["toolUseResult"] = {{"isAsync", true},
                                       {"status", "async_launched"},
                                       {"agentId", "a1"},
                                       {"prompt", "Review it.\n" + text}};
            shape("async launch echo");
            break;
        }
        default: { // an assistant text block quoting the answer
            record = {{"type", "assistant"},
                      {"message",
                       {{"role", "assistant"},
                        {"content",
                         json::array{{{"type", "text"},
                                      {"text", text + (ref.empty() ? "" : "\n(" + ref + ")")}}}}}}};
            shape("verdict in assistant text");
            break;
        }
        }
        if (stamp) record["timestamp"] = *stamp;
        add(std::move(record));
    }

private:
    Rng& rng_;
    std::string project_;
    Case& c_;
    std::vector<std::string> lines_;
    bool crlf_ = false;
    bool no_final_newline_ = false;
    bool clean_ = false;
    int next_id_ = 1;
    std::string last_dispatch_id_ = "toolu_none";
};

std::string spelled_agent(Rng& rng, std::string_view agent, Session& s) {
    const std::string a(agent);
    switch (s.clean() ? (rng.chance(0.5) ? 0 : 6) : rng.below(12)) {
    case 0:
    case 1:
    case 2:
        return a;
    case 3:
        s.shape("agent with another prefix");
        return "other-plugin.v2_x:" + a;
    case 4:
        s.shape("agent with a bad prefix");
        return "bad prefix:" + a;
    case 5:
        s.shape("agent look-alike");
        return "viber:" + a + "er";
    default:
        return "viber:" + a;
    }
}

const std::vector<std::string> values = {"PASS", "PASS", "PASS", "FAIL", "DENIED"};

} // namespace

std::string generate_plan_text(Rng& rng, const std::string& project, const std::string& plan_path,
                               std::vector<std::string>& shapes) {
    std::string text;
    switch (rng.below(9)) {
    case 0:
    case 1:
    case 2:
        text = "---\nsource: interview\n---\n";
        shapes.push_back("frontmatter");
        break;
    case 3:
        text = "---\r\ntitle: x\r\nsource: bug\r\n---\r\n";
        shapes.push_back("CRLF frontmatter");
        break;
    case 4:
        text = "\xEF\xBB\xBF---\nsource: interview\n---\n";
        shapes.push_back("BOM frontmatter");
        break;
    case 5:
        text = "---\n source: indented\n---\n";
        shapes.push_back("indented source");
        break;
    case 6:
        text = "---\ntitle: x\n---\nsource: after\n";
        shapes.push_back("source after frontmatter");
        break;
    default:
        shapes.push_back("no frontmatter");
        break;
    }
    text += "# Plan\n\nThe goal, in prose.\n";
    const std::vector<std::size_t> task_counts = {0, 3, 12, 13, 13, 14, 17, 20, 27};
    const std::size_t tasks = rng.pick(task_counts);
    std::size_t counted = 0;
    for (std::size_t t = 0; counted < tasks; ++t) {
        switch (rng.below(12)) {
        case 0:
            text += "<!-- TASK -->\r\n";
            ++counted;
            break;
        case 1:
            text += " <!-- TASK -->\n";
            break; // not exactly the marker
        case 2:
            text += "<!-- TASK --> extra\n";
            break;
        default:
            text += "<!-- TASK -->\n";
            ++counted;
            break;
        }
        text += "## Task " + std::to_string(t + 1) + "\nDo part " + std::to_string(t + 1) + ".\n";
    }
    if (tasks > 0) shapes.push_back(std::to_string(tasks) + " task lines");

    // File names in every spelling the file limit reads.
    const std::string own_relative =
        plan_path.starts_with(project + "/") ? plan_path.substr(project.size() + 1) : plan_path;
    const std::vector<std::string> words = {
        "src/a.ts",
        "src/b.ts",
        "lib/c.cpp",
        "./src/a.ts",
        "src//a.ts",
        "src/../src/a.ts",
        "`src/d.py`",
        "(src/e.rs)",
        "[src/f.go]",
        "src/g.h,",
        "src/h.md:",
        "'src/i.json'",
        "\"src/j.yaml\".",
        "|src/k.ts|",
        "docs/LICENSE",
        "Makefile",
        "README",
        "NOTES",
        "scripts/build",
        "src/noext",
        "src/x.verylongextension",
        "src/y.abcdefghij",
        "src/z.abcdefghijk",
        "src/w.",
        project + "/src/a.ts",
        project + "/src/l.ts",
        project + "//src/./m.ts",
        "/c/other/x.ts",
        "C:/other/y.ts",
        "C:\\other\\z.ts",
        "/tmp/elsewhere/q.ts",
        project + "/.temp/t.ts",
        ".temp/u.ts",
        "src/.temp/v.ts",
        "../outside/w.ts",
        plan_path,
        own_relative,
        "https://example.com/a/b.ts",
        "file:///x/y.ts",
        "a.ts",
        "src/",
        "{src/n.tsx}",
        "<src/o.vue>",
        "src/p.ts;",
        "src/q.ts...",
        "`src/r.ts`,",
        "x.y/z.w",
        project,
        project + "/",
        "src/a.ts|",
        "|",
        "--",
        ".",
        "..",
        "/",
        "src/s.t.u",
        "C:",
        "c:\\",
        "/c/",
    };
    const std::size_t count = rng.below(4) == 0 ? 0 : rng.below(16);
    for (std::size_t i = 0; i < count; ++i) {
        std::string word =
            rng.chance(0.3) ? "src/gen" + std::to_string(rng.below(12)) + ".ts" : rng.pick(words);
        const std::vector<std::string> joiners = {" ", "\n", "\t", "\r\n", "  ", "\n- ", " | "};
        text += word + rng.pick(joiners);
    }
    if (count > 0) shapes.push_back(std::to_string(count) + " file words");
    text += "\nDone.\n";
    return text;
}

Case generate_case(std::uint64_t seed, const std::string& project) {
    Case c;
    c.seed = seed;
    Rng rng(seed);
    Session s(rng, project, c);
    s.set_crlf(rng.chance(0.08));
    if (rng.chance(0.08)) s.shape("CRLF line ends");
    s.set_no_final_newline(rng.chance(0.1));

    // What the session is about: a planner plan, a plain plan, or anything at all.
    const std::size_t flavor = rng.below(10);
    const bool planner = flavor < 5;
    const bool anything = flavor == 9;

    // The plan file: where it lies and how the transcript spells its path.
    const std::string slug = "plan-" + std::to_string(rng.below(1000));
    std::string written; // the path the plan write names
    switch (rng.below(10)) {
    case 0:
    case 1:
    case 2:
    case 3:
        c.plan_path = project + "/.claude/plans/" + slug + ".md";
        written = c.plan_path;
        break;
    case 4:
        c.plan_path = project + "/work/plans/" + slug + ".md";
        written = "work/plans/" + slug + ".md";
        s.shape("relative plan path");
        break;
    case 5:
        c.plan_path = project + "/home/.claude/plans/" + slug + ".md";
        written = project + "/home//.claude//plans//" + slug + ".md";
        s.shape("plan path with separator runs");
        break;
    case 6:
        written = "C:\\Users\\me\\repo\\plans\\" + slug + ".md";
        s.shape("Windows plan path");
        break;
    case 7:
        written = project + "/.claude/plans/" + slug + ".md";
        s.shape("missing plan file");
        break;
    default:
        c.plan_path = project + "/.claude/plans/" + slug + ".md";
        written = c.plan_path;
        break;
    }
    if (!c.plan_path.empty()) {
        c.plan_text = generate_plan_text(rng, project, c.plan_path, c.shapes);
        c.plan_mtime = base_epoch + static_cast<long long>(rng.below(9)) - 2;
    }
    std::size_t tasks = 0;
    for (std::size_t i = c.plan_text.find("<!-- TASK -->"); i != std::string::npos;
         i = c.plan_text.find("<!-- TASK -->", i + 1))
        ++tasks;
    const bool set = planner && tasks > 12;

    const std::vector<std::string> decoys = {
        project + "/myplans/x.md", "plans/x.md",
        project + "/plans/x.MD",   project + "/plans/x.txt",
        project + "/src/main.cpp", "/repo/.claude/plans/other.md",
        "D:\\plans\\y.md"};
    const std::vector<std::string> planner_names = {"viber:planner", "viber:planner", "planner"};
    const std::vector<std::string> other_skills = {
        "xyz:planner", "viber:intent", "intent",   "viber:fixer",
        "fixer",       "viber:other",  "plannerx", "viber:planner-review"};
    const auto signal = [&] { return planner ? rng.pick(planner_names) : rng.pick(other_skills); };

    // An earlier episode: its plan approved and built.
    if (rng.chance(0.3)) {
        s.shape("earlier episode");
        s.prompt(rng.chance(0.5) ? "plan" : "");
        if (rng.chance(0.5)) s.skill(signal());
        s.write(project + "/.claude/plans/old.md", false);
        s.dispatch(planner ? "viber:planner-review" : "viber:plain-plan-review", "review it");
        s.verdict("", "PASS", "viber:planner-review");
        switch (rng.below(5)) {
        case 0:
            s.permission_mode(rng.chance(0.5) ? "default" : "acceptEdits");
            break;
        case 1:
            s.prompt(rng.chance(0.5) ? "default" : "acceptEdits", "build it");
            break;
        case 2:
            s.attachment("plan_mode_exit");
            break;
        case 3:
            s.meta_string("default");
            break;
        default:
            break;
        }
    }
    s.maybe_noise();

    // How the session enters plan mode and meets the planner.
    switch (rng.below(5)) {
    case 0: // records
        s.shape("entry by records");
        if (rng.chance(0.8)) s.permission_mode(rng.chance(0.8) ? "default" : "acceptEdits");
        s.prompt("");
        s.maybe_noise();
        if (rng.chance(0.8)) s.skill(signal());
        s.maybe_noise();
        if (rng.chance(0.7)) s.enter_plan_mode();
        if (rng.chance(0.5)) s.permission_mode("plan");
        break;
    case 1: // what Claude Code 2.1 writes when the session is already in plan mode
        s.shape("entry as the real client writes it");
        s.prompt(rng.chance(0.85) ? "plan" : "");
        s.maybe_noise();
        if (rng.chance(0.85)) s.skill(signal());
        if (rng.chance(0.7)) s.meta_array();
        if (rng.chance(0.7)) s.attachment("plan_mode");
        break;
    case 2: // the old mode flushed between the Skill call and its EnterPlanMode
        s.shape("mode flushed during the entry wait");
        s.prompt("");
        s.skill(signal());
        if (rng.chance(0.5))
            s.permission_mode("default");
        else
            s.prompt("default", "go on");
        if (rng.chance(0.3)) s.meta_string(rng.chance(0.5) ? "plan" : "");
        if (rng.chance(0.2)) s.prompt("", "wait");
        s.enter_plan_mode();
        break;
    case 3: // a typed chain command (plan-hints) or a typed /viber:planner (nothing)
        s.prompt(rng.chance(0.5) ? "plan" : "");
        s.command(rng.pick(std::vector<std::string>{"viber:intent", "viber:fixer", "viber:planner",
                                                    "xyz:intent"}));
        if (rng.chance(0.5)) s.skill(signal());
        break;
    default: { // anything, in any order
        s.shape("random entry");
        for (std::size_t i = 0, n = 2 + rng.below(6); i < n; ++i) {
            switch (rng.below(9)) {
            case 0:
                s.permission_mode(rng.pick(std::vector<std::string>{
                    "default", "plan", "acceptEdits", "bypassPermissions"}));
                break;
            case 1:
                s.prompt(rng.pick(std::vector<std::string>{"", "plan", "default", "acceptEdits"}));
                break;
            case 2:
            case 3:
                s.skill(rng.chance(0.6) ? rng.pick(planner_names) : rng.pick(other_skills));
                break;
            case 4:
                s.enter_plan_mode();
                break;
            case 5:
                s.attachment(rng.chance(0.5) ? "plan_mode" : "plan_mode_exit");
                break;
            case 6:
                s.meta_string(rng.pick(std::vector<std::string>{"", "plan", "default"}));
                break;
            case 7:
                s.meta_array();
                break;
            default:
                s.noise();
                break;
            }
        }
        break;
    }
    }
    s.maybe_noise();

    // The plan writes: decoys, and the plan (the last arming write decides).
    for (std::size_t i = 0, n = 1 + rng.below(3); i < n; ++i) {
        if (i + 1 < n || rng.chance(0.12))
            s.write(rng.pick(decoys), rng.chance(0.3));
        else
            s.write(written, rng.chance(0.3));
        s.maybe_noise();
    }
    if (rng.chance(0.1)) s.skill(signal()); // a Skill call after the write

    // The review.
    const std::string reviewer = planner ? "planner-review" : "plain-plan-review";
    const bool clean = rng.chance(0.4);
    s.set_clean(clean);
    if (clean) s.shape("clean review");
    const auto value = [&]() -> std::string {
        return clean && rng.chance(0.8) ? "PASS" : rng.pick(values);
    };
    if (set && rng.chance(0.85)) {
        s.shape("review set");
        struct Sent {
            std::string id;
            std::string agent;
        };
        std::vector<Sent> sent;
        const auto send = [&](std::string_view member, const std::string& prompt) {
            const std::string agent = spelled_agent(rng, member, s);
            sent.push_back({s.dispatch(agent, prompt), agent});
            if (!clean && rng.chance(0.12)) s.failed(sent.back().id);
            s.maybe_noise();
        };
        if (clean || rng.chance(0.9))
            send("planner-spec-review", written + "\nrefs: /r\ninput: summary");
        if (clean || rng.chance(0.9))
            send("planner-graph-review", written + "\nrefs: /r\nmemory: true");
        for (std::size_t a = 1; a <= tasks; a += 8) {
            if (!clean && rng.chance(0.1)) continue;
            std::size_t b = std::min(a + 7, tasks);
            if (rng.chance(0.1)) b = tasks + 3; // past n
            std::string line = "tasks: T" + std::to_string(a) + "-T" + std::to_string(b);
            switch (clean ? 5 : rng.below(6)) {
            case 0:
                line = "  tasks:T" + std::to_string(a) + " - T" + std::to_string(b) + "  ";
                s.shape("spaced tasks line");
                break;
            case 1:
                line = "no tasks line";
                s.shape("task reviewer without tasks");
                break;
            case 2:
                line = "tasks: T" + std::to_string(b) + "-T" + std::to_string(a);
                break; // a > b when b > a
            default:
                break;
            }
            send("planner-task-review", written + "\nrefs: /r\n" + line);
        }
        if (!clean && rng.chance(0.2))
            send(rng.chance(0.5) ? "planner-review" : "planner-task-review", "tasks: T1-T4");
        // The answers, in any order, some missing, some repeated.
        std::vector<std::size_t> order(sent.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
        for (std::size_t i : order) {
            if (!clean && rng.chance(0.1)) continue;
            // Sometimes the answer names another member's id (a verdict pairs by the id it names).
            const std::string& id =
                !clean && rng.chance(0.1) ? sent[rng.below(sent.size())].id : sent[i].id;
            s.verdict(id, value(), sent[i].agent);
            s.maybe_noise();
            if (rng.chance(0.1)) s.verdict(sent[i].id, value(), sent[i].agent);
        }
    } else {
        for (std::size_t round = 0, rounds = clean ? 1 + rng.below(2) : rng.below(4);
             round < rounds; ++round) {
            const std::string agent =
                anything && rng.chance(0.3)
                    ? rng.pick(std::vector<std::string>{"planner-review", "plain-plan-review",
                                                        "viber:task-coder"})
                    : spelled_agent(rng, reviewer, s);
            const std::string id = s.dispatch(agent, written + "\nGoal: the feature.");
            if (!clean && rng.chance(0.2)) {
                s.failed(id);
                if (rng.chance(0.7)) continue; // nothing runs: the agent must dispatch again
            }
            s.maybe_noise();
            if (rng.chance(0.2)) s.verdict(id, "PASS", agent); // maybe an async echo, maybe not
            if (!clean && rng.chance(0.15)) s.queued_notification(id, value());
            if (!clean && rng.chance(0.15)) continue; // still running
            s.verdict(id, value(), agent);
            s.maybe_noise();
            if (rng.chance(0.1)) s.verdict(id, value(), agent); // a late second answer
        }
    }
    s.set_clean(false);

    // What may come after the review.
    switch (rng.below(12)) {
    case 0:
        s.write(written, true);
        s.shape("plan written after the review");
        break;
    case 1:
        s.permission_mode("default");
        break;
    case 2:
        s.prompt("default", "thanks");
        break;
    case 3:
        s.attachment("plan_mode_exit");
        break;
    case 4:
        s.prompt("plan", "one more thing");
        break;
    case 5:
        s.prompt("", "one more thing");
        break;
    case 6:
        s.skill(signal());
        break;
    case 7:
        s.command(rng.chance(0.5) ? "viber:fixer" : "viber:intent");
        break;
    default:
        break;
    }
    s.maybe_noise();

    c.transcript = s.text();
    c.transcript_present = !rng.chance(0.02);
    c.cwd_present = !rng.chance(0.05);
    switch (rng.below(8)) {
    case 0:
        c.config_output = "memory: true\nplanning.plain-plan-review: false\n";
        break;
    case 1:
        c.config_output = "planning.plain-plan-review: true \n";
        break;
    case 2:
        c.config_output = "planning.plain-plan-review: true\nplanning.plain-plan-review: true\n";
        break;
    case 3:
        c.config_output = "memory: true\n";
        break;
    default:
        c.config_output = "memory: true\nplanning.plain-plan-review: true\nplanning.other: false\n";
        break;
    }
    c.hints_mode =
        rng.chance(0.8) ? "plan" : rng.pick(std::vector<std::string>{"default", "acceptEdits"});
    return c;
}

} // namespace viber::model
