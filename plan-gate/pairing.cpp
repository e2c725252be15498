// pairing.cpp: the two pairing rules on the kept dispatch and verdict lists (docs/plan-gate.md,
// "Pairing"): a single reviewer's, and the review set's members'.
#include "plan-gate/pairing.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace viber::plan_gate::pairing {

namespace {

std::string verdict_text(Verdict value) {
    switch (value) {
    case Verdict::pass:
        return "PASS";
    case Verdict::fail:
        return "FAIL";
    case Verdict::denied:
        return "DENIED";
    }
    return "?";
}

} // namespace

// The single reviewer's rule (SingleReviewer) on the kept lists: the reviewer's dispatches after
// the plan write and the verdict lines after it, in line order.
SinglePairing pair_single_reviewer(const Scan& scan, std::string_view agent, std::size_t write_line,
                                   Trace& trace) {
    SingleReviewer<const Dispatch*, const VerdictLine*> rule;
    std::size_t d = 0;
    std::size_t v = 0;
    const auto next_dispatch = [&]() {
        // A failed dispatch (its own tool_result an error) is no dispatch.
        while (d < scan.dispatches.size() &&
               (scan.dispatches[d].agent != agent || scan.dispatches[d].line <= write_line ||
                scan.dispatches[d].failed))
            ++d;
    };
    next_dispatch();
    while (v < scan.verdicts.size() && scan.verdicts[v].line <= write_line) ++v;
    while (d < scan.dispatches.size() || v < scan.verdicts.size()) {
        const bool dispatch_first =
            d < scan.dispatches.size() &&
            (v >= scan.verdicts.size() || scan.dispatches[d].line <= scan.verdicts[v].line);
        if (dispatch_first) {
            rule.dispatched(&scan.dispatches[d]);
            ++d;
            next_dispatch();
            continue;
        }
        const VerdictLine& verdict = scan.verdicts[v++];
        const auto names = [&](const Dispatch* open) {
            const auto index = static_cast<std::size_t>(open - scan.dispatches.data());
            return std::find(verdict.named_dispatches.begin(), verdict.named_dispatches.end(),
                             index) != verdict.named_dispatches.end();
        };
        if (!rule.closes(rule.open && !(*rule.last)->id.empty(), names)) continue;
        rule.closed_by(&verdict);
        if (trace.on())
            trace.step("viber:" + std::string(agent) + " dispatch on line " +
                       std::to_string((*rule.pair_dispatch)->line) +
                       " paired with the verdict line " + std::to_string(verdict.line) + " (" +
                       verdict_text(verdict.value) + ")");
    }
    return {rule.last.value_or(nullptr), rule.pair_dispatch.value_or(nullptr),
            rule.pair_verdict.value_or(nullptr)};
}

// Pairs verdict lines with tracked dispatches, in line order (docs/plan-gate.md, step 5): a verdict
// naming a tracked dispatch's id pairs with it whatever the order the reviews finish in; a verdict
// naming no tracked id pairs with the earliest open id-less dispatch, as the id-less transcripts of
// older Claude Code versions report results in dispatch order.
std::vector<MemberPairing> pair_review_set(const std::vector<Dispatch>& dispatches,
                                           const std::vector<VerdictLine>& verdicts,
                                           bool (*is_member)(std::string_view agent)) {
    std::vector<MemberPairing> tracked;
    constexpr std::size_t untracked = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> tracked_of(dispatches.size(), untracked);
    for (std::size_t i = 0; i < dispatches.size(); ++i) {
        // A failed dispatch (its own tool_result an error) is no dispatch.
        if (!is_member(dispatches[i].agent) || dispatches[i].failed) continue;
        tracked_of[i] = tracked.size();
        tracked.push_back({&dispatches[i], i, nullptr});
    }
    // Both lists come in line order from the scanner; sorting keeps that a fact here.
    std::stable_sort(tracked.begin(), tracked.end(),
                     [](const MemberPairing& a, const MemberPairing& b) {
                         return a.dispatch->line < b.dispatch->line;
                     });
    for (std::size_t i = 0; i < tracked.size(); ++i) tracked_of[tracked[i].index] = i;
    std::vector<const VerdictLine*> ordered;
    ordered.reserve(verdicts.size());
    for (const VerdictLine& verdict : verdicts) ordered.push_back(&verdict);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const VerdictLine* a, const VerdictLine* b) { return a->line < b->line; });

    // Id-less dispatches close in dispatch order, so the earliest open one is found by a cursor
    // that only moves forward: pairing stays linear however long the transcript.
    std::vector<std::size_t> id_less;
    for (std::size_t i = 0; i < tracked.size(); ++i) {
        if (tracked[i].dispatch->id.empty()) id_less.push_back(i);
    }
    std::size_t next_id_less = 0;

    for (const VerdictLine* verdict : ordered) {
        // Open means dispatched before this line and not yet paired.
        const auto open = [&](const MemberPairing& t) {
            return t.verdict == nullptr && t.dispatch->line < verdict->line;
        };
        bool names_tracked = false;
        MemberPairing* chosen = nullptr;
        for (const std::size_t index : verdict->named_dispatches) {
            if (index >= tracked_of.size() || tracked_of[index] == untracked) continue;
            names_tracked = true;
            MemberPairing& candidate = tracked[tracked_of[index]];
            if (open(candidate) &&
                (chosen == nullptr || candidate.dispatch->line < chosen->dispatch->line)) {
                chosen = &candidate;
            }
        }
        if (!names_tracked) {
            while (next_id_less < id_less.size() &&
                   tracked[id_less[next_id_less]].verdict != nullptr)
                ++next_id_less;
            if (next_id_less < id_less.size() && open(tracked[id_less[next_id_less]])) {
                chosen = &tracked[id_less[next_id_less]];
            }
        }
        if (chosen != nullptr) chosen->verdict = verdict;
    }
    return tracked;
}

} // namespace viber::plan_gate::pairing
