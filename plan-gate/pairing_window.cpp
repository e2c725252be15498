// pairing_window.cpp: plan-gate's pairing window (pairing_window.hpp): how the
// lines kept are read again, paired in order, and walked back for a single reviewer.
#include "plan-gate/pairing_window.hpp"

#include "common/io/payload.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <unordered_map>
#include <utility>

namespace viber::plan_gate::pairing {

namespace json = boost::json;

// True when a settle_later scan has pairing left to settle: candidates waiting in the window,
// or a single reviewer's state from lines parsed as they passed (during the planner's entry
// wait every line is parsed at once, and its dispatches and verdicts reach only that state).
bool PairingWindow::pending() const {
    return !window_.empty() ||
           std::any_of(singles_.begin(), singles_.end(), [](const SingleState& single) {
               return single.last.has_value() || single.failure.has_value();
           });
}

// settle_pairing() for the scan the scanner returned (the scanner's Scan again).
bool PairingWindow::settle(std::span<const PairedAgent> agents) {
    bool settled = true;
    try {
        // The review set pairs verdicts with the earliest open dispatch they name, so it reads
        // every line in order; a single reviewer's latest pair is found from the end, and its
        // lines join the lists last (they renumber the kept dispatches).
        const auto known = [&](const PairedAgent& wanted) { return pairing_.agent(wanted.name); };
        if (std::any_of(agents.begin(), agents.end(), [&](const PairedAgent& wanted) {
                return known(wanted) != nullptr && !compact(*known(wanted));
            }))
            settled = pair_in_order(window_.size(), Who::members);
        for (const PairedAgent& wanted : agents) {
            const PairedAgent* agent = known(wanted);
            if (settled && agent != nullptr && compact(*agent)) settled = settle_single(*agent);
        }
    } catch (...) {
        settled = false;
    }
    window_.clear();
    return settled;
}

std::uint32_t PairingWindow::worth_pairing(std::uint32_t relevant, std::string_view held, Who who) {
    constexpr std::uint32_t subagent = 1u << transcript::detail::needle_subagent_type;
    constexpr std::uint32_t verdict = 1u << transcript::detail::needle_verdict;
    constexpr std::uint32_t tool_error = 1u << transcript::detail::needle_tool_error;
    const bool singles = who == Who::all && request_.settle_later;
    if ((relevant & subagent) && !pairing_.mentions_agent(held, who == Who::members))
        relevant &= ~subagent;
    // An error can undo only a dispatch already kept, and it names its id.
    if ((relevant & tool_error) &&
        (held.find("toolu_") == std::string_view::npos ||
         (scan_.dispatches.empty() &&
          !(singles && std::any_of(singles_.begin(), singles_.end(),
                                   [](const SingleState& s) { return s.open; })))))
        relevant &= ~tool_error;
    if (relevant & verdict) {
        // The parse decides whether the line is a dispatch; only a line that is none can be a
        // verdict line, so this check is for lines with no dispatch left to parse for.
        const bool kept = !scan_.dispatches.empty();
        const auto may_close = [&] {
            if (kept && pairing_.may_close(held, named_)) return true;
            return singles && std::any_of(singles_.begin(), singles_.end(),
                                          [&](const auto& s) { return closes(s, held); });
        };
        if (!(kept || (singles && single_open())) ||
            held.find(R"("status":"async_launched")") != std::string_view::npos ||
            (!(relevant & subagent) && !may_close()))
            relevant &= ~verdict;
    }
    return relevant;
}

// The raw bytes of window line `index` again; nullopt when they cannot be read. A line not
// in `blocks` is read with the window lines next to it in the direction they are visited:
// forward up to line `last`, or back, at most blocks.next bytes (16 KiB, doubling to
// block_size). Each visit in one direction then reads every byte at most once, and a second
// direction has its own Blocks.
std::optional<std::string_view> PairingWindow::raw_line(Blocks& blocks, std::size_t index,
                                                        bool forward, std::size_t last) {
    const Deferred& entry = window_[index];
    const std::uint64_t end = entry.offset() + entry.length();
    if (entry.offset() < blocks.offset || end > blocks.offset + blocks.bytes.size()) {
        std::uint64_t from = entry.offset();
        std::uint64_t to = end;
        if (forward) {
            for (std::size_t j = index + 1; j <= last && j < window_.size(); ++j) {
                const std::uint64_t next = window_[j].offset() + window_[j].length();
                if (next - from > blocks.next) break;
                to = next;
            }
        } else {
            for (std::size_t j = index; j-- > 0;) {
                if (to - window_[j].offset() > blocks.next) break;
                from = window_[j].offset();
            }
        }
        blocks.offset = from;
        blocks.next = std::min(block_size, 2 * blocks.next);
        if (!source_->read_at(blocks.bytes, from, static_cast<std::size_t>(to - from))) {
            blocks.bytes.clear();
            return std::nullopt;
        }
    }
    return std::string_view(blocks.bytes)
        .substr(static_cast<std::size_t>(entry.offset() - blocks.offset), entry.length());
}

// Window line `index` copied into read_back_, ready to parse.
std::optional<std::string_view> PairingWindow::parse_copy(Blocks& blocks, std::size_t index,
                                                          bool forward, std::size_t last) {
    const auto raw = raw_line(blocks, index, forward, last);
    if (!raw) return std::nullopt;
    read_back_.assign(*raw);
    return parse_ready(read_back_);
}

// The trailing CR dropped and lone surrogates rewritten, as on the first read.
std::string_view PairingWindow::parse_ready(std::string& bytes) {
    std::size_t size = bytes.size();
    if (size > 0 && bytes[size - 1] == '\r') --size;
    replace_lone_surrogates(bytes.data(), size);
    return std::string_view(bytes.data(), size);
}

// Absorbs the oldest `count` window lines and drops them from the window; false (and
// failed_) when one cannot be read again or memory runs out.
bool PairingWindow::absorb(std::size_t count) {
    if (failed_) return false;
    count = std::min(count, window_.size());
    try {
        if (request_.settle_later) {
            for (const PairedAgent& agent : request_.paired_agents) {
                if (!compact(agent)) continue;
                auto after = walk_back(agent, count, singles_[slot(agent)]);
                if (!after) return fail();
                singles_[slot(agent)] = std::move(*after);
            }
        }
        if (!pair_in_order(count, request_.settle_later ? Who::members : Who::all)) return fail();
        window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(count));
        if (read_back_.capacity() > buffer_size_) std::string().swap(read_back_);
        ahead_ = Blocks{};
        behind_ = Blocks{};
    } catch (...) {
        return fail();
    }
    return true;
}

// Pairs the oldest `count` window lines in line order for `who`.
bool PairingWindow::pair_in_order(std::size_t count, Who who) {
    constexpr std::uint32_t subagent = 1u << transcript::detail::needle_subagent_type;
    for (std::size_t i = 0; i < count; ++i) {
        const Deferred& entry = window_[i];
        // Without a dispatch it could close, a verdict candidate is not even read.
        if ((entry.needles() & subagent) == 0 && scan_.dispatches.empty() &&
            (who == Who::members || !single_open()))
            continue;
        const auto raw = raw_line(ahead_, i, true, count - 1);
        if (!raw) return false;
        const std::uint32_t relevant = worth_pairing(entry.needles(), *raw, who);
        if (relevant == 0) continue;
        const auto bytes = parse_copy(ahead_, i, true, count - 1);
        if (!bytes) return false;
        pair_line(entry.line(), *bytes, relevant, who);
    }
    return true;
}

// A window line paired as apply() pairs it: its dispatches (the line is then no verdict
// line), else its verdict.
void PairingWindow::pair_line(std::size_t line, std::string_view bytes, std::uint32_t relevant,
                              Who who) {
    json::monotonic_resource arena(arena_.data(), arena_.size());
    // Held in the arena's storage: the parse is moved in, never copied out of the arena.
    json::value parsed(json::storage_ptr{&arena});
    const json::object* record = parse_record(bytes, arena, parsed);
    if (record == nullptr) return;
    bool dispatch_here = false;
    for_each_dispatch(
        *record, [&](const json::object& use, const json::object& input, std::string_view type) {
            dispatch_here = true;
            dispatched(line, use, input, type, who);
        });
    if ((relevant & (1u << transcript::detail::needle_verdict)) && !dispatch_here)
        verdict_line(line, bytes, parsed, who);
    if (relevant & (1u << transcript::detail::needle_tool_error)) tool_errors(line, *record, who);
}

// Parses window line `entry` for what it is to `agent` (read through `blocks`, see raw_line).
bool PairingWindow::role_of(std::size_t entry, const PairedAgent& agent, LineRole& role,
                            Blocks& blocks, bool forward, std::size_t last) {
    role = LineRole{};
    const Deferred& deferred = window_[entry];
    const auto bytes = parse_copy(blocks, entry, forward, last);
    if (!bytes) return false;
    json::monotonic_resource arena(arena_.data(), arena_.size());
    // Held in the arena's storage: the parse is moved in, never copied out of the arena.
    json::value parsed(json::storage_ptr{&arena});
    const json::object* record = parse_record(*bytes, arena, parsed);
    if (record == nullptr) return true;
    for_each_dispatch(*record,
                      [&](const json::object& use, const json::object&, std::string_view type) {
                          role.dispatch_line = true;
                          if (agent_of(type) == agent.name)
                              role.dispatch = new_dispatch(deferred.line(), agent, use);
                      });
    if (deferred.needles() & (1u << transcript::detail::needle_tool_error)) {
        for_each_tool_error(*record, [&](std::string_view id, const json::value& content) {
            role.errors.push_back({std::string(id), deferred.line(), first_line_of(content)});
        });
    }
    if (role.dispatch_line ||
        (deferred.needles() & (1u << transcript::detail::needle_verdict)) == 0)
        return true;
    if (const auto value = verdict_value(*bytes, parsed))
        role.verdict = new_verdict(deferred.line(), *value, *record);
    return true;
}

// A single reviewer's state after the oldest `count` window lines, from its state before
// them, found from the end: its last dispatch there is the first met; the latest pair is the
// last dispatch a verdict line closed (a dispatch replaces the open one), the first verdict
// line after it, before the reviewer's next dispatch, that names its id (any, without one).
// What is parsed: a dispatch candidate whose raw line names the agent (the prefilter's own
// test: the name is plain ASCII), from the end back to the pair, but none after the last
// verdict candidate once the last dispatch is known (nothing after it can close them); a
// verdict candidate only when it could close the dispatch before it (it names its id, or
// the dispatch has none and no earlier candidate was a verdict line). With no pair among the
// lines, the dispatch open before them may be closed by one before their first dispatch, else
// the pair before them stands. A dispatch whose own error result (a line after it, so met first
// from the end) is among the lines is no dispatch: passed over, and named as the reviewer's
// latest failure; the dispatch open before the lines is undone the same way, and the one it
// replaced is open again. nullopt: a line could not be read again.
auto PairingWindow::walk_back(const PairedAgent& agent, std::size_t count,
                              const SingleState& before) -> std::optional<SingleState> {
    constexpr std::uint32_t verdict_needle = 1u << transcript::detail::needle_verdict;
    constexpr std::uint32_t subagent_needle = 1u << transcript::detail::needle_subagent_type;
    constexpr std::uint32_t error_needle = 1u << transcript::detail::needle_tool_error;
    std::size_t last_candidate = count; // the last verdict candidate (count: none)
    for (std::size_t entry = count; entry-- > 0;) {
        if (window_[entry].needles() & verdict_needle) {
            last_candidate = entry;
            break;
        }
    }
    SingleState after = before;
    bool dispatched_here = false;
    bool replaced_pending = false; // the dispatch the last one replaced is not met yet
    bool stopped_early = false;
    bool failure_here = false;
    std::unordered_map<std::string, ToolError> errors; // met so far: lines after the current one
    // The error after `dispatch` that answers its id (Claude Code writes it right after the call,
    // and ids are unique in a session), as the failure it makes.
    const auto failure = [&](const Dispatch& dispatch) -> std::optional<FailedDispatch> {
        if (dispatch.id.empty()) return std::nullopt;
        const auto it = errors.find(dispatch.id);
        if (it == errors.end() || it->second.line <= dispatch.line) return std::nullopt;
        return FailedDispatch{dispatch.line, dispatch.agent, it->second.line, it->second.error};
    };
    // The verdict candidates after the current line, before the reviewer's next dispatch (the
    // latest first), parsed once one could close a dispatch.
    struct Later {
        std::size_t entry = 0;
        bool parsed = false;
        std::optional<VerdictLine> verdict;
    };
    std::vector<Later> later;
    bool readable = true;
    LineRole role;
    LineRole candidate; // a verdict candidate's, parsed while `role` holds a dispatch
    const auto closer = [&](const std::string& id) -> std::optional<VerdictLine> {
        for (auto it = later.rbegin(); it != later.rend(); ++it) {
            // The verdict candidates are read forward, through their own blocks, so the walk
            // back keeps its own.
            const std::size_t latest = later.front().entry;
            if (!id.empty()) {
                const auto raw = raw_line(ahead_, it->entry, true, latest);
                if (!raw) {
                    readable = false;
                    return std::nullopt;
                }
                if (!names(*raw, id)) continue;
            }
            if (!it->parsed) {
                if (!role_of(it->entry, agent, candidate, ahead_, true, latest)) {
                    readable = false;
                    return std::nullopt;
                }
                it->parsed = true;
                it->verdict = std::move(candidate.verdict);
            }
            if (it->verdict) return it->verdict;
        }
        return std::nullopt;
    };
    for (std::size_t entry = count; entry-- > 0;) {
        // Once the last dispatch and the one it replaced are known, no line after the last
        // verdict candidate matters.
        if (dispatched_here && !replaced_pending &&
            (last_candidate == count || entry > last_candidate)) {
            if (last_candidate == count) {
                stopped_early = true;
                break;
            }
            continue;
        }
        const Deferred& deferred = window_[entry];
        bool parsed = false;
        if (deferred.needles() & error_needle) {
            // Errors are read wherever they stand: each may undo a dispatch before it.
            if (!role_of(entry, agent, role, behind_, false)) return std::nullopt;
            parsed = true;
            // From the end, the error nearest after a dispatch is the last one met.
            for (ToolError& error : role.errors) {
                std::string id = error.id;
                errors.insert_or_assign(std::move(id), std::move(error));
            }
        }
        if (!parsed) {
            bool may_dispatch = (deferred.needles() & subagent_needle) != 0;
            if (may_dispatch) {
                const auto raw = raw_line(behind_, entry, false);
                if (!raw) return std::nullopt;
                may_dispatch = raw->find(agent.name) != std::string_view::npos;
            }
            if (!may_dispatch) {
                // Not the reviewer's dispatch: a verdict line or nothing, read when it can matter.
                if (deferred.needles() & verdict_needle) later.push_back({entry, false, {}});
                continue;
            }
            if (!role_of(entry, agent, role, behind_, false)) return std::nullopt;
        }
        if (role.verdict) {
            later.push_back({entry, true, std::move(role.verdict)});
            continue;
        }
        if (!role.dispatch) continue;
        if (auto failed = failure(*role.dispatch)) {
            // No dispatch (SPEC §4, rev. 4): the verdict candidates after it stay with the one
            // before it. The first met is the latest.
            if (!failure_here) after.failure = std::move(failed);
            failure_here = true;
            continue;
        }
        std::optional<VerdictLine> verdict = closer(role.dispatch->id);
        if (!readable) return std::nullopt;
        if (!dispatched_here) {
            dispatched_here = true;
            after.last = role.dispatch;
            after.open = !verdict;
            after.replaced.reset();
            after.replaced_open = false;
            replaced_pending = true;
        } else if (replaced_pending) {
            after.replaced = role.dispatch;
            after.replaced_open = !verdict;
            replaced_pending = false;
        }
        if (verdict) {
            after.pair_dispatch = std::move(role.dispatch);
            after.pair_verdict = std::move(verdict);
            return after;
        }
        later.clear();
    }
    // No pair among the lines: `later` holds the verdict candidates before their first
    // dispatch. The dispatch open before the lines may have failed among them.
    SingleState prior = before;
    if (prior.open && prior.last) {
        if (auto failed = failure(*prior.last)) {
            if (!failure_here) after.failure = std::move(failed);
            prior.failed();
            if (!dispatched_here) {
                after.last = prior.last;
                after.open = prior.open;
                after.replaced.reset();
                after.replaced_open = false;
            }
        }
    }
    bool prior_closed = false;
    if (prior.open) {
        if (std::optional<VerdictLine> verdict = closer(prior.last->id)) {
            if (!dispatched_here) after.open = false;
            after.pair_dispatch = prior.last;
            after.pair_verdict = std::move(verdict);
            prior_closed = true;
        }
        if (!readable) return std::nullopt;
    }
    if (dispatched_here && replaced_pending && !stopped_early) {
        after.replaced = prior.last;
        after.replaced_open = prior.open && !prior_closed;
    }
    return after;
}

// settle_pairing() for single reviewers: the window walked back, and the reviewer's latest
// pair and last dispatch placed in the lists in line order (its other lines left out), so
// pairing the lists in order gives what pairing every line gives.
bool PairingWindow::settle_single(const PairedAgent& agent) {
    auto after = walk_back(agent, window_.size(), singles_[slot(agent)]);
    if (!after) return false;
    singles_[slot(agent)] = *after;
    if (after->failure) record_failure(*after->failure);
    std::vector<Dispatch> add;
    if (after->pair_dispatch) add.push_back(*after->pair_dispatch);
    if (after->last && (!after->pair_dispatch || after->last->line != after->pair_dispatch->line))
        add.push_back(*after->last);
    // Merge by line; the kept verdict lines name dispatches by index, so they follow.
    std::vector<Dispatch> merged;
    merged.reserve(scan_.dispatches.size() + add.size());
    std::vector<std::size_t> moved(scan_.dispatches.size());
    std::vector<std::size_t> added(add.size());
    std::size_t a = 0;
    for (std::size_t d = 0; d <= scan_.dispatches.size(); ++d) {
        while (a < add.size() &&
               (d == scan_.dispatches.size() || add[a].line < scan_.dispatches[d].line)) {
            added[a] = merged.size();
            merged.push_back(std::move(add[a++]));
        }
        if (d == scan_.dispatches.size()) break;
        moved[d] = merged.size();
        merged.push_back(std::move(scan_.dispatches[d]));
    }
    scan_.dispatches = std::move(merged);
    for (VerdictLine& verdict : scan_.verdicts)
        for (std::size_t& index : verdict.named_dispatches) index = moved[index];
    if (!after->pair_verdict) return true;
    VerdictLine verdict = *after->pair_verdict;
    auto at =
        std::lower_bound(scan_.verdicts.begin(), scan_.verdicts.end(), verdict.line,
                         [](const VerdictLine& v, std::size_t line) { return v.line < line; });
    if (at == scan_.verdicts.end() || at->line != verdict.line)
        at = scan_.verdicts.insert(at, std::move(verdict));
    // The line names the pair's dispatch when it closed it by its id.
    if (!after->pair_dispatch->id.empty()) {
        auto& named = at->named_dispatches;
        named.insert(std::upper_bound(named.begin(), named.end(), added[0]), added[0]);
    }
    return true;
}

// A dispatch after the last plan write: kept when its agent is one the caller pairs (a
// settle_later single reviewer's in its constant state, and only when `who` is all).
void PairingWindow::dispatched(std::size_t line, const json::object& use, const json::object& input,
                               std::string_view type, Who who) {
    const PairedAgent* agent = pairing_.agent(type);
    if (agent == nullptr) return;
    if (compact(*agent)) {
        if (who == Who::all) {
            singles_[slot(*agent)].dispatched(new_dispatch(line, *agent, use));
        }
        return;
    }
    Dispatch dispatch = new_dispatch(line, *agent, use);
    if (agent->prompt_line != nullptr) {
        if (const auto prompt = string_field(input, "prompt")) {
            if (const auto wanted = agent->prompt_line(*prompt))
                dispatch.prompt_line = std::string(*wanted);
        }
    }
    pairing_.dispatched(*agent, scan_.dispatches.size(), dispatch.id);
    scan_.dispatches.push_back(std::move(dispatch));
}

void PairingWindow::verdict_line(std::size_t line, std::string_view bytes,
                                 const json::value& parsed, Who who) {
    const auto value = verdict_value(bytes, parsed);
    if (!value) return;
    if (who == Who::all && request_.settle_later) {
        for (SingleState& single : singles_) {
            if (closes(single, bytes))
                single.closed_by(new_verdict(line, *value, parsed.get_object()));
        }
    }
    pairing_.may_close(bytes, named_);
    if (!pairing_.verdict(named_)) return;
    VerdictLine verdict = new_verdict(line, *value, parsed.get_object());
    verdict.named_dispatches = named_;
    scan_.verdicts.push_back(std::move(verdict));
}

// A line's tool_results that are errors: each undoes the dispatch it answers (SPEC §4, rev. 4).
void PairingWindow::tool_errors(std::size_t line, const json::object& record, Who who) {
    for_each_tool_error(record, [&](std::string_view id, const json::value& content) {
        failed(ToolError{std::string(id), line, first_line_of(content)}, who);
    });
}

// The dispatch an error answers is no dispatch: a kept one (the latest before the error with its
// id) is marked failed and closes nothing, a single reviewer's open one gives way to the one it
// replaced.
void PairingWindow::failed(const ToolError& error, Who who) {
    pairing_.names(error.id, named_);
    for (auto it = named_.rbegin(); it != named_.rend(); ++it) {
        Dispatch& dispatch = scan_.dispatches[*it];
        if (dispatch.failed || dispatch.line >= error.line) continue;
        dispatch.failed = true;
        pairing_.failed(*it);
        record_failure({dispatch.line, dispatch.agent, error.line, error.error});
        break;
    }
    if (who != Who::all || !request_.settle_later) return;
    for (SingleState& single : singles_) {
        if (!single.open || !single.last || single.last->id != error.id ||
            single.last->line >= error.line)
            continue;
        single.failure =
            FailedDispatch{single.last->line, single.last->agent, error.line, error.error};
        single.failed();
    }
}

// Keeps the latest failed dispatch of each agent.
void PairingWindow::record_failure(FailedDispatch failure) {
    for (FailedDispatch& known : scan_.failed_dispatches) {
        if (known.agent != failure.agent) continue;
        if (known.line < failure.line) known = std::move(failure);
        return;
    }
    scan_.failed_dispatches.push_back(std::move(failure));
}

} // namespace viber::plan_gate::pairing

namespace viber::plan_gate {

std::unique_ptr<transcript::Candidates> pairing_window(const transcript::Request& request,
                                                       transcript::Scan& scan,
                                                       std::span<unsigned char> arena,
                                                       std::size_t buffer_size,
                                                       std::size_t window_entries) {
    return std::make_unique<pairing::PairingWindow>(request, scan, arena, buffer_size,
                                                    window_entries);
}

} // namespace viber::plan_gate
