// plan_gate.cpp: the plan-gate hook: a plan leaves plan mode only with the review it needs (its
// Contract opens main.cpp).
//
// The gate arms on the last plan write inside the plan-mode episode (docs/plan-gate.md, step 1),
// picks the review the plan needs (step 2: planner-review, the review set of step 5, or, when the
// project switched it on, plain-plan-review after the file limit of step 3) and allows only when
// the latest dispatch/verdict pair of that review is a PASS that no later write to the plan voided
// (step 4).
#include "plan-gate/plan_gate.hpp"

#include "common/io/files.hpp"
#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/io/plugin_paths.hpp"
#include "common/os/git.hpp"
#include "common/os/os.hpp"
#include "common/os/paths.hpp"
#include "common/text/lines.hpp"
#include "plan-gate/config_switch.hpp"
#include "plan-gate/file_limit.hpp"
#include "plan-gate/pairing.hpp"
#include "plan-gate/pairing_window.hpp"
#include "plan-gate/reasons.hpp"
#include "plan-gate/review_set.hpp"

#include <algorithm>
#include <array>
#include <ctime>
#include <utility>

namespace viber::plan_gate {

namespace json = boost::json;
using transcript::Dispatch;
using transcript::Scan;
using transcript::Verdict;
using transcript::VerdictLine;

const std::array<transcript::PairedAgent, 5> paired_agents{{
    {.name = planner_reviewer, .tag = pairing::tag_of(pairing::PairRule::single_reviewer)},
    {.name = plain_reviewer, .tag = pairing::tag_of(pairing::PairRule::single_reviewer)},
    {.name = spec_reviewer, .tag = pairing::tag_of(pairing::PairRule::review_set)},
    {.name = graph_reviewer, .tag = pairing::tag_of(pairing::PairRule::review_set)},
    {.name = task_reviewer,
     .tag = pairing::tag_of(pairing::PairRule::review_set),
     .prompt_line = task_range_line},
}};

std::span<const transcript::PairedAgent> reviewers_of(Route chosen) {
    const std::span<const transcript::PairedAgent> all(paired_agents);
    switch (chosen) {
    case Route::planner_review:
        return all.subspan(0, 1);
    case Route::plain:
        return all.subspan(1, 1);
    case Route::review_set:
        break;
    }
    return all.subspan(2);
}

const transcript::PlanWrite* armed_plan_write(const Scan& scan) {
    if (!scan.last_plan_write || scan.last_plan_write->line <= scan.episode_start) return nullptr;
    return &*scan.last_plan_write;
}

std::string_view plan_name(std::string_view path) {
    return paths::last_segment(path);
}

namespace {

std::string_view without_cr(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

} // namespace

bool opens_with_planner_frontmatter(std::string_view text) {
    bool first = true;
    bool source = false;
    text::for_each_line(text, [&](std::string_view line) {
        line = without_cr(line);
        if (std::exchange(first, false)) return line == "---";
        source = line.starts_with("source:");
        return !source && line != "---";
    });
    return source;
}

bool planner_owns_plan(const Scan& scan, const Plan& plan) {
    if (!transcript::signal_owns_episode(scan)) return false;
    return !plan.text || opens_with_planner_frontmatter(*plan.text);
}

Route route(const Scan& scan, const Plan& plan) {
    if (!planner_owns_plan(scan, plan)) return Route::plain;
    // A plan the gate cannot read cannot be counted, so it stays with planner-review.
    if (plan.text && count_tasks(*plan.text) > review_set_threshold) return Route::review_set;
    return Route::planner_review;
}

namespace {

std::string line_text(std::size_t line) {
    return std::to_string(line);
}

std::string utc_text(std::int64_t seconds) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    const std::optional<std::tm> tm = os::utc_calendar(t);
    char buffer[32];
    if (!tm || std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &*tm) == 0)
        return std::to_string(seconds);
    return buffer;
}

// The input each reviewer expects (seed 001): the plan path and `refs:`, `memory:`, `input:` for
// planner-review; the plan path and the user's goal for plain-plan-review.
std::string dispatch_with(std::string_view agent, const Plan& plan, const GateInput& input) {
    if (agent == planner_reviewer)
        return "with the plan path " + plan.path + ", `refs: " + input.refs_dir +
               "`, `memory:` set to the planner's resolved config value, and `input:` holding the "
               "confirmed interview summary or bug diagnosis, verbatim.";
    return "with the plan path " + plan.path + " and one sentence stating the user's goal.";
}

constexpr std::string_view wait_for_pass =
    " Wait for `VERDICT: PASS`. Any write to the plan after the PASS voids it, so leave Minor "
    "findings unapplied.";

} // namespace

std::optional<std::string> single_reviewer_refusal(const GateInput& input, const Plan& plan,
                                                   std::string_view agent, Trace& trace) {
    const std::string who = "viber:" + std::string(agent);
    const std::string_view trailer =
        agent == planner_reviewer ? planner_gate_trailer : plain_gate_trailer;
    // "..., then dispatch viber:<agent> again with <its input>. Wait for PASS ..."
    const auto dispatch_again = [&](std::string_view lead) {
        return std::string(lead) + " " + who + " again " + dispatch_with(agent, plan, input) +
               std::string(wait_for_pass) + " ";
    };
    const pairing::SinglePairing pairing =
        pairing::pair_single_reviewer(input.scan, agent, plan.write_line, trace);
    if (trace.on() && pairing.last_dispatch != nullptr && pairing.pair_verdict == nullptr)
        trace.step("viber:" + std::string(agent) + " dispatched on line " +
                   std::to_string(pairing.last_dispatch->line) + ", no verdict line pairs with it");

    if (pairing.last_dispatch == nullptr) {
        // A dispatch that failed (refused, or it could not start) left no review running.
        std::string failed;
        for (const transcript::FailedDispatch& failure : input.scan.failed_dispatches) {
            if (failure.agent == agent && failure.line > plan.write_line)
                failed = " " + failed_dispatch_text(failure);
        }
        return "Next step: review the plan. Plan " + plan.name + " has no " + who +
               " dispatch since it was last written (line " + line_text(plan.write_line) + ")." +
               failed + " Dispatch " + who + " " + dispatch_with(agent, plan, input) +
               std::string(wait_for_pass) + " " + std::string(trailer);
    }

    if (pairing.pair_verdict == nullptr)
        return "Next step: let the review finish. " + who + " was dispatched on line " +
               line_text(pairing.last_dispatch->line) + ", after plan " + plan.name +
               " was written on line " + line_text(plan.write_line) +
               ", and has returned no verdict yet. Wait for its `VERDICT:` line, then exit plan "
               "mode again. " +
               std::string(trailer);

    const std::string pair_lines = "(dispatch on line " + line_text(pairing.pair_dispatch->line) +
                                   ", verdict on line " + line_text(pairing.pair_verdict->line) +
                                   ")";
    switch (pairing.pair_verdict->value) {
    case Verdict::denied:
        return "Next step: grant the permission. " + who + " answered 'VERDICT: DENIED' on plan " +
               plan.name + " " + pair_lines +
               ": its `REASON:` line names the call it was refused." +
               dispatch_again(" Ask the user to allow that call, then dispatch") +
               std::string(trailer);
    case Verdict::fail:
        return "Next step: fix the findings. " + who + " answered 'VERDICT: FAIL' on plan " +
               plan.name + " " + pair_lines + "." +
               dispatch_again(" Fix the plan for each finding, then dispatch") +
               std::string(trailer);
    case Verdict::pass:
        break;
    }
    // The PASS reviewed the plan as it was then: a plan file modified more than 2 s after the
    // verdict line was written has changed since (the 2 s absorb clock and rounding skew). With
    // no timestamp or no plan file there is nothing to compare, and the PASS stands.
    const std::optional<std::int64_t> verdict_time = pairing.pair_verdict->timestamp;
    if (plan.mtime && verdict_time &&
        static_cast<std::int64_t>(*plan.mtime) > *verdict_time + paths::mtime_slack_seconds)
        return "Next step: re-review. Plan " + plan.name + " was modified at " +
               utc_text(*plan.mtime) + ", after " + who + " passed it at " +
               utc_text(*verdict_time) + " " + pair_lines + ": a write after the PASS voids it." +
               dispatch_again(" Dispatch") + std::string(trailer);
    return std::nullopt;
}

std::optional<std::string> decide(const GateInput& input) {
    Trace off;
    return decide(input, off);
}

std::optional<std::string> decide(const GateInput& input, Trace& trace) {
    if (armed_plan_write(input.scan) == nullptr || !input.plan) return std::nullopt;
    const Plan& plan = *input.plan;
    const bool owns_episode = transcript::signal_owns_episode(input.scan);
    const Route chosen = route(input.scan, plan);
    if (trace.on()) {
        trace.step(std::string("owner: ") +
                   (!owns_episode ? "no planner Skill call or entry in the episode: a plain plan"
                    : !plan.text  ? "the planner owns the episode and the plan cannot be read: the "
                                    "planner's"
                    : chosen == Route::plain
                        ? "the planner owns the episode but the plan lacks its frontmatter (`---`, "
                          "then `source:`): a plain plan"
                        : "the planner owns the episode (Skill line " +
                              std::to_string(input.scan.last_signal) + ", entry line " +
                              std::to_string(input.scan.last_signal_entry) +
                              ") and the plan opens with its frontmatter"));
        trace.step("kept after the plan write: " + std::to_string(input.scan.dispatches.size()) +
                   " reviewer dispatches, " + std::to_string(input.scan.verdicts.size()) +
                   " verdict lines that can close one");
    }
    switch (chosen) {
    case Route::review_set: {
        ReviewSetInput set;
        set.plan_path = plan.path;
        set.plan_name = plan.name;
        set.tasks = count_tasks(*plan.text);
        set.plan_write_line = plan.write_line;
        set.refs_dir = input.refs_dir;
        set.plan_mtime = plan.mtime;
        set.dispatches = &input.scan.dispatches;
        set.verdicts = &input.scan.verdicts;
        set.failed = &input.scan.failed_dispatches;
        if (trace.on())
            trace.step("route: the review set (" + std::to_string(set.tasks) +
                       " `<!-- TASK -->` lines, more than " + std::to_string(review_set_threshold) +
                       ")");
        return review_set_refusal(set);
    }
    case Route::planner_review:
        if (trace.on()) trace.step("route: viber:planner-review");
        return single_reviewer_refusal(input, plan, planner_reviewer, trace);
    case Route::plain:
        break;
    }
    if (trace.on())
        trace.step(std::string("config switch: ") +
                   (!input.plain_review_on ? "not consulted"
                    : *input.plain_review_on
                        ? "scripts/config.sh printed `planning.plain-plan-review: true`"
                        : "off (config.sh missing, failed, silent or not exactly `true`)"));
    if (!input.plain_review_on.value_or(false)) return std::nullopt;
    if (trace.on())
        trace.step("file limit: the plan names " + std::to_string(input.counted_files.count) +
                   " repository files (limit " + std::to_string(plain_plan_file_limit) + ")");
    // The file limit comes before any review check: no PASS lifts it.
    if (std::optional<std::string> too_many = file_limit_refusal(input.counted_files, plan.name))
        return too_many;
    if (trace.on()) trace.step("route: viber:plain-plan-review");
    return single_reviewer_refusal(input, plan, plain_reviewer, trace);
}

std::optional<GateInput> gather(const json::object& payload, Trace& trace, const Sources& sources) {
    const std::optional<std::string_view> transcript_path =
        string_field(payload, "transcript_path");
    if (!transcript_path || transcript_path->empty()) return std::nullopt;
    std::optional<std::string> cwd;
    if (const auto field = string_field(payload, "cwd"); field && !field->empty())
        cwd = std::string(*field);

    GateInput input;
    // Pairing is settled once the route says which reviewer decides: a single reviewer reads the
    // dispatch and verdict lines from the end back to its latest pair only.
    input.scan = transcript::scan_file(std::string(*transcript_path),
                                       transcript::Request{.signals = transcript::Signals::planner,
                                                           .plan_writes = true,
                                                           .paired_agents = paired_agents,
                                                           .settle_later = true,
                                                           .byte_limit = sources.transcript_bytes,
                                                           .pairing = pairing_window});
    if (trace.on())
        trace.read("transcript " + std::string(*transcript_path) +
                   (input.scan.readable ? " (" + std::to_string(input.scan.lines) + " lines)"
                                        : " (not a readable regular file: nothing to gate)"));
    if (!input.scan.readable) return std::nullopt;
    if (trace.on()) {
        trace.step(input.scan.episode_start == 0
                       ? std::string("episode: the whole transcript (no permission-mode line "
                                     "leaving plan mode)")
                       : "episode: the lines after line " +
                             std::to_string(input.scan.episode_start));
        trace.step(!input.scan.last_plan_write
                       ? std::string("no plan write (Write or Edit of a .md under a plans "
                                     "directory): nothing to gate")
                       : "last plan write on line " +
                             std::to_string(input.scan.last_plan_write->line) + ": " +
                             input.scan.last_plan_write->file_path +
                             (armed_plan_write(input.scan) == nullptr
                                  ? " (before the episode: nothing to gate)"
                                  : ""));
    }
    const transcript::PlanWrite* write = armed_plan_write(input.scan);
    if (write == nullptr) return input;

    // Outside a planner episode the plan is plain whatever it holds (docs/plan-gate.md, step 2),
    // so config.sh starts before the plan is read: bash starts while the gate reads and counts.
    // Within one, the plan's frontmatter decides, and config.sh starts only once the route says
    // plain. One thread only: a fork beside a running thread is a hazard (an emulated child has
    // been seen to spin after such a fork), and this way none is needed.
    const bool switch_needed_first = !transcript::signal_owns_episode(input.scan);
    std::optional<SwitchQuery> query;
    const auto start_query = [&] {
        if (!sources.plain_review_on && !query && cwd && is_directory(*cwd)) query.emplace(*cwd);
    };
    if (switch_needed_first) start_query();

    Plan plan;
    plan.path = write->file_path;
    if (!is_regular_file(plan.path) && cwd) {
        std::string joined = *cwd + "/" + plan.path;
        if (is_regular_file(joined)) plan.path = std::move(joined);
    }
    plan.name = std::string(plan_name(plan.path));
    plan.write_line = write->line;
    // Outside a planner episode only the file count reads the plan, and it reads the file a piece
    // at a time (count_plan_files): the plan is never held whole.
    if (!switch_needed_first) plan.text = read_regular_file(plan.path);
    plan.mtime = os::mtime_seconds(plan.path);
    if (trace.on())
        trace.read("plan " + plan.path +
                   (switch_needed_first
                        ? std::string(" (a plain plan: only the file count reads it)")
                    : plan.text ? " (" + std::to_string(plan.text->size()) + " bytes)"
                                : std::string(" (missing, not a regular file or unreadable)")));
    input.refs_dir = plugin_root() + "/references";

    const Route chosen = route(input.scan, plan);
    const auto count_files = [&plan](const std::string& root) {
        return count_plan_files(plan.text ? std::optional<std::string_view>(*plan.text)
                                          : std::nullopt,
                                plan.path, root)
            .value_or(FileTally{});
    };
    if (chosen == Route::plain) {
        input.plain_review_on = false;
        start_query();
        if (query) {
            // The files are counted while bash starts, which is most of what a plain plan costs;
            // the count is needed only when the switch is on.
            const std::string root = git_top_level(*cwd).value_or(*cwd);
            FileTally counted = count_files(root);
            const bool on = query->on();
            input.plain_review_on = on;
            if (on) input.counted_files = std::move(counted);
        } else if (sources.plain_review_on.value_or(false) && cwd) {
            // The switch as the caller gave it (config.sh not run), on.
            const std::string root = git_top_level(*cwd).value_or(*cwd);
            input.counted_files = count_files(root);
            input.plain_review_on = true;
        }
    }
    // A line that cannot be read again leaves the pairing unknown: fail open, as on a read error.
    if ((chosen != Route::plain || input.plain_review_on.value_or(false)) &&
        !transcript::settle_pairing(input.scan, reviewers_of(chosen)))
        return std::nullopt;
    input.plan = std::move(plan);
    return input;
}

Decision decide(const HookInput& in, Trace& trace) {
    // No objection prints nothing: an explicit allow would skip Claude Code's own permission
    // flow (docs/plan-gate.md), so every path but a deny, fail-open ones included, is silent.
    if (in.payload == nullptr) return Decision::nothing();
    const std::optional<GateInput> input = gather(*in.payload, trace);
    if (!input) return Decision::nothing();
    std::optional<std::string> reason = decide(*input, trace);
    return reason ? Decision::deny(std::move(*reason)) : Decision::nothing();
}

} // namespace viber::plan_gate
