// transcript_lines.cpp: the line kinds of a transcript (transcript_lines.hpp), the readers of its
// dispatch and verdict lines, and the public definitions on lines and paths of
// common/transcript.hpp.
#include "common/transcript/transcript_lines.hpp"

#include "common/io/payload.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace viber::transcript {

namespace json = boost::json;

namespace internal {

// Records Claude Code keeps for itself, never an event of the session (SPEC §3): a replay of a
// whole request (api-request-blob), and what 2.1.3xx writes beside its lines. A queue-operation
// carries a prompt or a task notification before it is delivered (its `enqueue` holds a
// background reviewer's whole answer, VERDICT included); the delivered line is the event.
bool is_bookkeeping(std::string_view type) {
    static constexpr std::string_view bookkeeping[] = {
        "api-request-blob", "queue-operation", "api-request", "api-request-shape",
        "tools-used",       "atis-latch",      "last-prompt", "cost-state"};
    return std::find(std::begin(bookkeeping), std::end(bookkeeping), type) != std::end(bookkeeping);
}

bool is_skill_signal(std::string_view skill, Signals signals) {
    if (skill.starts_with("viber:")) skill.remove_prefix(6);
    if (skill == "planner") return true;
    return signals == Signals::planner_chain && (skill == "intent" || skill == "fixer");
}

// A line whose message.content is a string and whose message.role, if present, is "user": a typed
// prompt, a task notification or a command message.
std::optional<std::string_view> user_string_content(const json::object& record) {
    const json::object* message = object_field(record, "message");
    if (message == nullptr) return std::nullopt;
    const auto content = string_field(*message, "content");
    if (!content) return std::nullopt;
    if (const auto* role = message->if_contains("role")) {
        if (!role->is_string() || role->get_string() != "user") return std::nullopt;
    }
    return content;
}

// A line that shows Claude Code out of plan mode, where the episode starts (docs/transcript.md):
// a permission-mode record whose mode is not plan (what older versions write); a typed prompt
// (user, string content, not isMeta) whose top-level permissionMode is present and not plan, and
// a plan_mode_exit attachment (what Claude Code 2.1 writes instead).
bool shows_plan_mode_ended(const json::object& record) {
    const auto type = string_field(record, "type");
    if (type == "permission-mode") return string_field(record, "permissionMode") != "plan";
    if (type == "attachment") {
        const json::object* attachment = object_field(record, "attachment");
        return attachment != nullptr && string_field(*attachment, "type") == "plan_mode_exit";
    }
    if (type != "user") return false;
    const auto mode = string_field(record, "permissionMode");
    if (!mode || *mode == "plan") return false;
    if (const auto* meta = record.if_contains("isMeta");
        meta != nullptr && meta->is_bool() && meta->get_bool())
        return false;
    return user_string_content(record).has_value();
}

bool is_typed_chain_command(std::string_view content) {
    return content.starts_with("<command-message>viber:intent</command-message>") ||
           content.starts_with("<command-message>viber:fixer</command-message>");
}

// The first verdict in document order over every string value of `root`. The walk keeps its own
// stack, so a line nested thousands deep costs heap, not call stack.
std::optional<Verdict> first_verdict(const json::value& root) {
    struct Item {
        const json::value* value;
        bool content_or_text; // the value of a `content` or `text` key
    };
    std::vector<Item> stack{{&root, false}};
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        switch (item.value->kind()) {
        case json::kind::string: {
            const auto& s = item.value->get_string();
            if (auto v =
                    verdict_in_string(std::string_view(s.data(), s.size()), item.content_or_text))
                return v;
            break;
        }
        case json::kind::object: {
            const auto& obj = item.value->get_object();
            // Pushed in reverse so members pop in document order.
            for (auto it = obj.end(); it != obj.begin();) {
                --it;
                const std::string_view key(it->key().data(), it->key().size());
                stack.push_back({&it->value(), key == "content" || key == "text"});
            }
            break;
        }
        case json::kind::array: {
            const auto& arr = item.value->get_array();
            for (auto it = arr.end(); it != arr.begin();) {
                --it;
                stack.push_back({&*it, false});
            }
            break;
        }
        default:
            break;
        }
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Dispatch and verdict lines, as the scan and its pairing window read them

// Parses one line into `arena` and `parsed` (which uses the same storage, so the result is
// moved, not copied); nullptr when it is not a live JSON object.
const json::object* parse_record(std::string_view bytes, json::monotonic_resource& arena,
                                 json::value& parsed) {
    json::parse_options options;
    options.max_depth = 10000;
    options.allow_invalid_utf8 = true;
    boost::system::error_code ec;
    parsed = json::parse(bytes, ec, json::storage_ptr(&arena), options);
    if (ec || !parsed.is_object()) return nullptr; // not JSON: not an event
    const json::object& record = parsed.get_object();
    if (const auto type = string_field(record, "type"); type && is_bookkeeping(*type))
        return nullptr;
    return &record;
}

// The subagent_type of a tool_use named Agent or Task, when it has one.
std::optional<std::string_view> dispatch_type(const json::object& use) {
    const auto name = string_field(use, "name");
    if (!name || (*name != "Agent" && *name != "Task")) return std::nullopt;
    const json::object* input = object_field(use, "input");
    return input != nullptr ? string_field(*input, "subagent_type") : std::nullopt;
}

Dispatch new_dispatch(std::size_t line, const PairedAgent& agent, const json::object& use) {
    Dispatch dispatch;
    dispatch.line = line;
    dispatch.agent = std::string(agent.name);
    if (const auto id = string_field(use, "id"); id && id->starts_with("toolu_"))
        dispatch.id = std::string(*id);
    return dispatch;
}

bool is_error_result(const json::object& element) {
    const auto* is_error = element.if_contains("is_error");
    return string_field(element, "type") == "tool_result" && is_error != nullptr &&
           is_error->is_bool() && is_error->get_bool();
}

bool holds_tool_error(const json::object& record) {
    bool found = false;
    for_each_content_object(
        record, [&](const json::object& element) { found |= is_error_result(element); });
    return found;
}

std::string first_line_of(const json::value& content) {
    std::string_view text;
    if (content.is_string()) {
        text = std::string_view(content.get_string().data(), content.get_string().size());
    } else if (content.is_array()) {
        for (const auto& block : content.get_array()) {
            if (!block.is_object()) continue;
            if (const auto found = string_field(block.get_object(), "text")) {
                text = *found;
                break;
            }
        }
    }
    text = text.substr(0, text.find('\n'));
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    constexpr std::size_t most = 300;
    if (text.size() > most) {
        std::size_t cut = most;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        text = text.substr(0, cut);
    }
    return std::string(text);
}

VerdictLine new_verdict(std::size_t line, Verdict value, const json::object& record) {
    VerdictLine verdict;
    verdict.line = line;
    verdict.value = value;
    if (const auto stamp = string_field(record, "timestamp"))
        verdict.timestamp = parse_timestamp(*stamp);
    return verdict;
}

// The verdict of a line that is no dispatch: none on an async launch, which echoes the prompt
// (and the prompt may well quote the verdict format).
std::optional<Verdict> verdict_value(std::string_view bytes, const json::value& parsed) {
    if (bytes.find(R"("status":"async_launched")") != std::string_view::npos) return std::nullopt;
    // A failed call's error is no reviewer's answer, whatever its text quotes.
    if (bytes.find(R"("is_error":true)") != std::string_view::npos && parsed.is_object() &&
        holds_tool_error(parsed.get_object()))
        return std::nullopt;
    return first_verdict(parsed);
}

} // namespace internal

using internal::for_each_toolu_token;

bool is_plan_path(std::string_view path) {
    constexpr std::string_view ending = ".md";
    if (path.size() < ending.size() || path.substr(path.size() - ending.size()) != ending)
        return false;
    const auto is_separator = [](char c) { return c == '/' || c == '\\'; };
    for (std::size_t at = path.find("plans"); at != std::string_view::npos;
         at = path.find("plans", at + 1)) {
        const std::size_t after = at + 5;
        if (at > 0 && is_separator(path[at - 1]) && after < path.size() &&
            is_separator(path[after]))
            return true;
    }
    return false;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool is_leap(std::int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// Reads exactly `count` digits at `at`.
std::optional<unsigned> digits(std::string_view text, std::size_t at, std::size_t count) {
    if (at + count > text.size()) return std::nullopt;
    unsigned value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        value = value * 10 + static_cast<unsigned>(text[i] - '0');
    }
    return value;
}

} // namespace

std::optional<std::int64_t> parse_timestamp(std::string_view text) {
    // YYYY-MM-DDTHH:MM:SS
    const auto year = digits(text, 0, 4);
    const auto month = digits(text, 5, 2);
    const auto day = digits(text, 8, 2);
    const auto hour = digits(text, 11, 2);
    const auto minute = digits(text, 14, 2);
    const auto second = digits(text, 17, 2);
    if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
    if (text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':')
        return std::nullopt;
    static constexpr unsigned month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (*month < 1 || *month > 12 || *day < 1) return std::nullopt;
    const unsigned days_in_month = month_days[*month - 1] + (*month == 2 && is_leap(*year) ? 1 : 0);
    if (*day > days_in_month || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
    std::size_t at = 19;
    if (at < text.size() && text[at] == '.') {
        const std::size_t fraction = ++at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
        if (at == fraction) return std::nullopt;
    }
    std::int64_t offset = 0;
    if (at < text.size()) {
        const char zone = text[at];
        if (zone == 'Z') {
            ++at;
        } else if (zone == '+' || zone == '-') {
            const auto off_hours = digits(text, at + 1, 2);
            if (!off_hours) return std::nullopt;
            std::optional<unsigned> off_minutes;
            std::size_t next = at + 3;
            if (next < text.size() && text[next] == ':') {
                off_minutes = digits(text, next + 1, 2);
                next += 3;
            } else {
                off_minutes = digits(text, next, 2);
                next += 2;
            }
            if (!off_minutes || *off_hours > 23 || *off_minutes > 59) return std::nullopt;
            offset = (zone == '+' ? 1 : -1) *
                     static_cast<std::int64_t>(*off_hours * 3600 + *off_minutes * 60);
            at = next;
        } else {
            return std::nullopt;
        }
    }
    if (at != text.size()) return std::nullopt;
    const std::int64_t days = days_from_civil(*year, *month, *day);
    return days * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
}

std::optional<Verdict> verdict_in_string(std::string_view text, bool content_or_text_key) {
    constexpr std::string_view marker = "VERDICT:";
    constexpr std::string_view result_tag = "<result>";
    for (std::size_t at = text.find(marker); at != std::string_view::npos;
         at = text.find(marker, at + 1)) {
        // Spaces and tabs may indent the marker wherever it is anchored.
        std::size_t lead = at;
        while (lead > 0 && (text[lead - 1] == ' ' || text[lead - 1] == '\t')) --lead;
        const bool anchored =
            (lead == 0 && content_or_text_key) || (lead > 0 && text[lead - 1] == '\n') ||
            (lead >= result_tag.size() &&
             text.substr(lead - result_tag.size(), result_tag.size()) == result_tag);
        if (!anchored) continue;
        std::size_t i = at + marker.size();
        const std::size_t blanks = i;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        if (i == blanks) continue; // at least one space or tab
        if (i < text.size() && text[i] == '`') ++i;
        constexpr std::pair<std::string_view, Verdict> values[]{
            {"PASS", Verdict::pass}, {"FAIL", Verdict::fail}, {"DENIED", Verdict::denied}};
        const std::string_view rest = text.substr(i);
        const auto* value = std::find_if(std::begin(values), std::end(values),
                                         [&](const auto& v) { return rest.starts_with(v.first); });
        if (value == std::end(values)) continue;
        i += value->first.size();
        if (i < text.size() && text[i] == '`') ++i;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
        if (i == text.size() || text[i] == '\n' || text[i] == '<') return value->second;
    }
    return std::nullopt;
}

std::vector<std::string_view> toolu_tokens(std::string_view line) {
    std::vector<std::string_view> tokens;
    for_each_toolu_token(line, [&](std::string_view token) { tokens.push_back(token); });
    return tokens;
}

std::string_view agent_of(std::string_view subagent_type) {
    const std::size_t colon = subagent_type.find(':');
    if (colon == std::string_view::npos || colon == 0) return subagent_type;
    for (std::size_t i = 0; i < colon; ++i) {
        const char c = subagent_type[i];
        const bool allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                             (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
        if (!allowed) return subagent_type;
    }
    return subagent_type.substr(colon + 1);
}

} // namespace viber::transcript
