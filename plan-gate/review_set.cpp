// review_set.cpp: the review set that gates planner plans of more than 12 tasks (docs/plan-gate.md,
// step 5).
//
// A planner plan past 12 tasks is too large for one planner-review: three agents share it, each
// reading only its own part (seed 001). planner-spec-review reviews the specification half,
// planner-graph-review the task graph, and planner-task-review one slice of at most 8 tasks named
// by its `tasks: T<a>-T<b>` prompt line. The plan passes only when the latest verdict for each
// member and for every task is a PASS no older than the plan file.
#include "plan-gate/review_set.hpp"

#include "common/os/paths.hpp"
#include "common/text/ascii.hpp"
#include "common/text/lines.hpp"
#include "plan-gate/pairing.hpp"
#include "plan-gate/reasons.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace viber::plan_gate {

namespace {

using transcript::Dispatch;
using transcript::Verdict;
using transcript::VerdictLine;

// A task reviewer reviews one slice of at most this many consecutive tasks (seed 001).
constexpr std::size_t task_slice = 8;

// A verdict no older than the plan: a write later than this voids every PASS.
using viber::paths::mtime_slack_seconds;

using ascii::is_digit;
using ascii::is_space;
using text::for_each_line;

// A run of decimal digits, read without overflow: leading zeros dropped, and values past what a
// size_t holds saturate (no plan has that many tasks), while `digits` keeps the exact order.
struct Number {
    std::string_view digits; // without leading zeros; empty means 0
    std::size_t value = 0;
};

Number read_number(std::string_view run) {
    std::size_t first = 0;
    while (first < run.size() && run[first] == '0') ++first;
    Number number{run.substr(first), 0};
    for (const char c : number.digits) {
        const std::size_t digit = static_cast<std::size_t>(c - '0');
        if (number.value > (std::numeric_limits<std::size_t>::max() - digit) / 10) {
            number.value = std::numeric_limits<std::size_t>::max();
            break;
        }
        number.value = number.value * 10 + digit;
    }
    return number;
}

bool less_or_equal(const Number& a, const Number& b) {
    if (a.digits.size() != b.digits.size()) return a.digits.size() < b.digits.size();
    return a.digits <= b.digits;
}

// `^\s*tasks:\s*T(\d+)\s*-\s*T(\d+)\s*$` over one line, by hand: no std::regex on prompts.
std::optional<std::pair<Number, Number>> match_range_line(std::string_view line) {
    std::size_t at = 0;
    const auto skip_spaces = [&] {
        while (at < line.size() && is_space(line[at])) ++at;
    };
    const auto take = [&](std::string_view word) {
        if (line.substr(at, word.size()) != word) return false;
        at += word.size();
        return true;
    };
    const auto digits = [&]() -> std::optional<Number> {
        const std::size_t from = at;
        while (at < line.size() && is_digit(line[at])) ++at;
        if (at == from) return std::nullopt;
        return read_number(line.substr(from, at - from));
    };
    skip_spaces();
    if (!take("tasks:")) return std::nullopt;
    skip_spaces();
    if (!take("T")) return std::nullopt;
    const auto first = digits();
    if (!first) return std::nullopt;
    skip_spaces();
    if (!take("-")) return std::nullopt;
    skip_spaces();
    if (!take("T")) return std::nullopt;
    const auto last = digits();
    if (!last) return std::nullopt;
    skip_spaces();
    if (at != line.size()) return std::nullopt;
    return std::pair{*first, *last};
}

bool is_member(std::string_view agent) {
    return agent == spec_reviewer || agent == graph_reviewer || agent == task_reviewer;
}

// One tracked member dispatch and, once paired, its verdict.
struct Tracked {
    const Dispatch* dispatch = nullptr;
    std::size_t index = 0; // into the dispatches vector
    std::optional<std::pair<std::size_t, std::size_t>>
        tasks;                            // task reviewers: the range, clipped later
    const VerdictLine* verdict = nullptr; // null while open
};

// The tracked member dispatches, paired (pairing::pair_review_set), each task reviewer's with its
// range.
std::vector<Tracked> pair_verdicts(const std::vector<Dispatch>& dispatches,
                                   const std::vector<VerdictLine>& verdicts) {
    std::vector<Tracked> tracked;
    for (const pairing::MemberPairing& member :
         pairing::pair_review_set(dispatches, verdicts, is_member)) {
        Tracked entry{member.dispatch, member.index, std::nullopt, member.verdict};
        if (member.dispatch->agent == task_reviewer)
            entry.tasks = task_range(member.dispatch->prompt_line);
        tracked.push_back(entry);
    }
    return tracked;
}

// A part of the set that needs a verdict: one member, or a run of tasks.
struct Part {
    std::string_view agent;
    std::size_t first = 0; // tasks, task reviewers only
    std::size_t last = 0;
};

std::string task_span(std::size_t first, std::size_t last) {
    return "T" + std::to_string(first) + "-T" + std::to_string(last);
}

std::string describe(const Part& part) {
    std::string text = "viber:" + std::string(part.agent);
    if (part.agent == task_reviewer) text += " for " + task_span(part.first, part.last);
    return text;
}

// A reason names at most this many parts, lines or slices in one list, then says how many more:
// a plan of millions of tasks must not make a reason of megabytes (Claude Code reads at most
// 10,000 characters of it).
constexpr std::size_t listed_items = 16;

std::string more(std::size_t left_out, std::string_view what) {
    return " and " + std::to_string(left_out) + " more " + std::string(what);
}

std::string line_list(const std::vector<std::size_t>& lines) {
    std::string text;
    const std::size_t shown = std::min(lines.size(), listed_items);
    for (std::size_t i = 0; i < shown; ++i) {
        if (i > 0) text += i + 1 == lines.size() ? " and " : ", ";
        text += std::to_string(lines[i]);
    }
    if (shown < lines.size()) text += "," + more(lines.size() - shown, "lines");
    return text;
}

// `describe(item)` of the first listed_items items, joined by `separator`.
template <class Item, class Describe>
std::string bounded_list(const std::vector<Item>& items, std::string_view separator,
                         Describe describe) {
    std::string text;
    const std::size_t shown = std::min(items.size(), listed_items);
    for (std::size_t i = 0; i < shown; ++i) {
        if (i > 0) text += separator;
        text += describe(items[i]);
    }
    if (shown < items.size()) text += std::string(separator) + more(items.size() - shown, "parts");
    return text;
}

// The labelled lines each member expects (seed 001); none of the three takes `scope:`.
std::string dispatch_text(const ReviewSetInput& input, const Part& part) {
    std::string text = "- viber:" + std::string(part.agent) + ", prompt:\n    " + input.plan_path +
                       "\n    refs: " + input.refs_dir + "\n";
    if (part.agent == spec_reviewer) {
        text += "    input: <the confirmed interview summary or bug diagnosis, verbatim>\n";
    } else if (part.agent == graph_reviewer) {
        text += "    memory: <the planner's resolved config value>\n";
    } else {
        text += "    tasks: " + task_span(part.first, part.last) + "\n";
    }
    return text;
}

// Task runs cut into dispatchable slices of at most 8 tasks; the first listed_items are written
// out, the rest counted (each is the same prompt with the next `tasks:` slice).
std::string dispatch_block(const ReviewSetInput& input, const std::vector<Part>& parts) {
    std::string text = "Dispatch, each with exactly these labelled prompt lines (none of them "
                       "takes a scope line):\n";
    std::size_t written = 0;
    std::size_t left_out = 0;
    for (const Part& part : parts) {
        if (part.agent != task_reviewer) {
            if (written < listed_items) {
                text += dispatch_text(input, part);
                ++written;
            } else {
                ++left_out;
            }
            continue;
        }
        for (std::size_t first = part.first; first <= part.last; first += task_slice) {
            if (written == listed_items) {
                // Counted, not walked: the slices left in this run, then in the runs after it.
                left_out += (part.last - first) / task_slice + 1;
                break;
            }
            text += dispatch_text(
                input, {task_reviewer, first, std::min(part.last, first + task_slice - 1)});
            ++written;
            if (part.last - first < task_slice) break; // no overflow past the largest task
        }
    }
    if (left_out > 0)
        text += "- and " + std::to_string(left_out) +
                " more viber:planner-task-review dispatches, the same way, one for each next slice "
                "of " +
                std::to_string(task_slice) + " tasks\n";
    return text;
}

std::string closing(const ReviewSetInput& input) {
    return "Wait for VERDICT: PASS from each of them before calling ExitPlanMode again. Any "
           "write to " +
           input.plan_name +
           " after the PASSes voids them, so Minor findings stay unapplied. A "
           "viber:planner-review PASS counts for nothing on a plan of more than 12 tasks. " +
           std::string(planner_gate_trailer);
}

std::string opening(const ReviewSetInput& input) {
    return "The plan " + input.plan_name + " has " + std::to_string(input.tasks) +
           " tasks, so it needs the viber planner's review set, whose task reviewers together "
           "cover every task T1-T" +
           std::to_string(input.tasks) + ". ";
}

std::vector<Part> whole_set(std::size_t tasks) {
    return {{spec_reviewer, 0, 0}, {graph_reviewer, 0, 0}, {task_reviewer, 1, tasks}};
}

// A group of tasks (or one member) sharing one deciding pair, for the messages.
struct Decided {
    Part part;
    const Tracked* pair = nullptr;
};

std::string pair_lines(const Tracked& pair) {
    return "dispatch line " + std::to_string(pair.dispatch->line) + ", verdict line " +
           std::to_string(pair.verdict->line);
}

} // namespace

std::size_t count_tasks(std::string_view plan_text) {
    constexpr std::string_view marker = "<!-- TASK -->";
    std::size_t tasks = 0;
    for_each_line(plan_text, [&](std::string_view line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line == marker) ++tasks;
        return true;
    });
    return tasks;
}

std::optional<std::string_view> task_range_line(std::string_view prompt) {
    std::optional<std::string_view> found;
    for_each_line(prompt, [&](std::string_view line) {
        const auto match = match_range_line(line);
        if (match && !match->first.digits.empty() && less_or_equal(match->first, match->second)) {
            found = line;
            return false;
        }
        return true;
    });
    return found;
}

std::optional<std::pair<std::size_t, std::size_t>> task_range(std::string_view prompt) {
    const std::optional<std::string_view> line = task_range_line(prompt);
    if (!line) return std::nullopt;
    const auto match = match_range_line(*line);
    return std::pair{match->first.value, match->second.value};
}

std::optional<std::string> review_set_refusal(const ReviewSetInput& input) {
    static const std::vector<Dispatch> no_dispatches;
    static const std::vector<VerdictLine> no_verdicts;
    const auto& dispatches = input.dispatches != nullptr ? *input.dispatches : no_dispatches;
    const auto& verdicts = input.verdicts != nullptr ? *input.verdicts : no_verdicts;
    const std::size_t n = input.tasks;

    const std::vector<Tracked> tracked = pair_verdicts(dispatches, verdicts);

    // The deciding pair per member and per task is the one whose verdict line is latest: walk
    // the pairs latest first and give each only the tasks no later pair took. `next_open[t]`
    // skips over decided tasks, so every task is decided once whatever the ranges overlap.
    std::vector<const Tracked*> paired;
    for (const Tracked& pair : tracked) {
        if (pair.verdict != nullptr) paired.push_back(&pair);
    }
    std::stable_sort(paired.begin(), paired.end(), [](const Tracked* a, const Tracked* b) {
        return a->verdict->line > b->verdict->line;
    });
    // The deciding pair of each member and task (1-based), the first met.
    const Tracked* spec = nullptr;
    const Tracked* graph = nullptr;
    std::vector<const Tracked*> task(n + 2);
    std::vector<std::size_t> next_open(n + 2);
    for (std::size_t t = 0; t < next_open.size(); ++t) next_open[t] = t;
    const auto find_open = [&](std::size_t t) {
        std::size_t root = t;
        while (next_open[root] != root) root = next_open[root];
        while (next_open[t] != root) t = std::exchange(next_open[t], root);
        return root;
    };
    for (const Tracked* pair : paired) {
        const std::string_view agent = pair->dispatch->agent;
        if (agent == spec_reviewer) {
            if (spec == nullptr) spec = pair;
        } else if (agent == graph_reviewer) {
            if (graph == nullptr) graph = pair;
        } else if (pair->tasks && pair->tasks->first <= n) {
            const std::size_t last = std::min(pair->tasks->second, n);
            for (std::size_t t = find_open(pair->tasks->first); t <= last; t = find_open(t + 1)) {
                task[t] = pair;
                next_open[t] = t + 1;
            }
        }
    }

    // Every member and run of tasks with its deciding pair (null when missing), in set order.
    std::vector<Decided> decided{{{spec_reviewer, 0, 0}, spec}, {{graph_reviewer, 0, 0}, graph}};
    for (std::size_t t = 1; t <= n; ++t) {
        Decided& last = decided.back();
        if (last.part.agent == task_reviewer && last.pair == task[t] && last.part.last + 1 == t) {
            last.part.last = t;
        } else {
            decided.push_back({{task_reviewer, t, t}, task[t]});
        }
    }

    // (a) Missing: name only what has no verdict yet. A part is still running when an open
    // dispatch of its member (for a task: one whose range holds it) was sent after the plan write;
    // `open_cover` counts the open task dispatches holding each task, by prefix sums over ranges.
    std::vector<long long> open_cover(n + 2, 0);
    std::vector<const Tracked*> open_members;
    for (const Tracked& pair : tracked) {
        if (pair.verdict != nullptr) continue;
        open_members.push_back(&pair);
        if (pair.dispatch->agent == task_reviewer && pair.tasks && pair.tasks->first <= n) {
            ++open_cover[pair.tasks->first];
            --open_cover[std::min(pair.tasks->second, n) + 1];
        }
    }
    for (std::size_t t = 1; t <= n; ++t) open_cover[t] += open_cover[t - 1];
    const auto running_member = [&](std::string_view agent) {
        return std::any_of(open_members.begin(), open_members.end(),
                           [&](const Tracked* pair) { return pair->dispatch->agent == agent; });
    };
    std::vector<Part> missing; // named in the reason
    std::vector<Part> to_send; // missing and not running: what to dispatch now
    std::vector<std::size_t> running_lines;
    const auto add_run = [](std::vector<Part>& parts, std::string_view agent, std::size_t t) {
        if (!parts.empty() && parts.back().agent == agent && agent == task_reviewer &&
            parts.back().last + 1 == t) {
            parts.back().last = t;
        } else {
            parts.push_back({agent, t, t});
        }
    };
    const auto check = [&](std::string_view agent, std::size_t t, const Tracked* decider) {
        if (decider != nullptr) return;
        add_run(missing, agent, t);
        const bool running = agent == task_reviewer ? open_cover[t] > 0 : running_member(agent);
        if (!running) add_run(to_send, agent, t);
    };
    check(spec_reviewer, 0, spec);
    check(graph_reviewer, 0, graph);
    for (std::size_t t = 1; t <= n; ++t) check(task_reviewer, t, task[t]);
    // The open dispatches working on a missing part, named by line.
    std::vector<std::size_t> missing_upto(n + 1, 0); // missing tasks among 1..t
    for (std::size_t t = 1; t <= n; ++t)
        missing_upto[t] = missing_upto[t - 1] + (task[t] == nullptr ? 1 : 0);
    for (const Tracked* pair : open_members) {
        const std::string_view agent = pair->dispatch->agent;
        bool works_on_missing = false;
        if (agent == spec_reviewer) {
            works_on_missing = spec == nullptr;
        } else if (agent == graph_reviewer) {
            works_on_missing = graph == nullptr;
        } else if (pair->tasks && pair->tasks->first <= n) {
            const std::size_t last = std::min(pair->tasks->second, n);
            works_on_missing = missing_upto[last] > missing_upto[pair->tasks->first - 1];
        }
        if (works_on_missing) running_lines.push_back(pair->dispatch->line);
    }
    if (!missing.empty()) {
        std::sort(running_lines.begin(), running_lines.end());
        running_lines.erase(std::unique(running_lines.begin(), running_lines.end()),
                            running_lines.end());
        const std::string names = bounded_list(missing, ", ", describe);
        const std::string since =
            "since the plan write on line " + std::to_string(input.plan_write_line);
        const std::string running =
            running_lines.empty() ? std::string()
                                  : "line" + std::string(running_lines.size() > 1 ? "s " : " ") +
                                        line_list(running_lines);
        if (to_send.empty()) {
            return "Next step: let the review finish. " + opening(input) + "No verdict yet " +
                   since + " from: " + names + "; their dispatches on " + running +
                   " are still running. Wait for their verdicts, then call ExitPlanMode again. " +
                   closing(input);
        }
        std::string reason = "Next step: review the plan. " + opening(input) + "No verdict yet " +
                             since + " from: " + names + ".";
        if (!running_lines.empty()) {
            reason += " The dispatches on " + running + " are still running; dispatch the rest.";
        }
        // A member whose dispatch failed (refused, or it could not start) has no review running:
        // say so, or the agent would wait for it.
        if (input.failed != nullptr) {
            for (const transcript::FailedDispatch& failure : *input.failed) {
                if (!is_member(failure.agent) ||
                    std::none_of(to_send.begin(), to_send.end(),
                                 [&](const Part& part) { return part.agent == failure.agent; }))
                    continue;
                reason += " " + failed_dispatch_text(failure);
            }
        }
        return reason + "\n" + dispatch_block(input, to_send) + closing(input);
    }

    const auto refusal_with = [&](Verdict value, std::string_view next_step, std::string_view what,
                                  std::string_view then) -> std::optional<std::string> {
        std::vector<const Decided*> with_value;
        for (const Decided& entry : decided)
            if (entry.pair->verdict->value == value) with_value.push_back(&entry);
        if (with_value.empty()) return std::nullopt;
        const std::string names = bounded_list(with_value, "; ", [](const Decided* entry) {
            return describe(entry->part) + " (" + pair_lines(*entry->pair) + ")";
        });
        return std::string(next_step) + " " + opening(input) + std::string(what) + names + ". " +
               std::string(then) + "\n" + dispatch_block(input, whole_set(n)) + closing(input);
    };

    // (b) DENIED: the reviewer could not run a tool it needed; only the user can allow it.
    if (auto reason = refusal_with(
            Verdict::denied, "Next step: grant the permission.",
            "The latest verdict is 'VERDICT: DENIED' for: ",
            "The reviewer's REASON: line names the call it was refused: ask the user to allow it, "
            "then dispatch the whole set again.")) {
        return reason;
    }
    // (c) FAIL: the findings are fixed in the plan, which voids every verdict of the set.
    if (auto reason = refusal_with(Verdict::fail, "Next step: fix the findings.",
                                   "The latest verdict is 'VERDICT: FAIL' for: ",
                                   "Fix the plan for each finding; the fix is a write that voids "
                                   "every PASS of the set, so dispatch the whole set again.")) {
        return reason;
    }

    // (d) Every deciding verdict is a PASS; a plan written after the earliest of them voids them.
    if (input.plan_mtime) {
        const Tracked* earliest = nullptr;
        for (const Decided& entry : decided) {
            if (earliest == nullptr || entry.pair->verdict->line < earliest->verdict->line)
                earliest = entry.pair;
        }
        if (earliest != nullptr && earliest->verdict->timestamp &&
            static_cast<std::int64_t>(*input.plan_mtime) >
                *earliest->verdict->timestamp + mtime_slack_seconds) {
            return "Next step: re-review. " + opening(input) +
                   "The plan file was modified after the earliest PASS of the set (verdict line " +
                   std::to_string(earliest->verdict->line) +
                   "), which voids every PASS of the set: dispatch the whole set again.\n" +
                   dispatch_block(input, whole_set(n)) + closing(input);
        }
    }
    return std::nullopt;
}

} // namespace viber::plan_gate
