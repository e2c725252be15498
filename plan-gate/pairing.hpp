// pairing.hpp: plan-gate's pairing (docs/plan-gate.md, "Pairing"): the two rules that pair a
// reviewer's dispatches with verdict lines (a single reviewer's, as steps every reader of it
// takes, and the review set's), and the bookkeeping by which the pairing window keeps only the
// lines they can read.
#pragma once

#include "common/io/trace.hpp"
#include "common/transcript/transcript.hpp"
#include "common/transcript/transcript_lines.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace viber::plan_gate::pairing {

using namespace transcript;
using namespace transcript::internal;

// How plan-gate pairs an agent's dispatches with verdict lines (docs/plan-gate.md, "Pairing"),
// carried in its transcript::PairedAgent::tag. single_reviewer: a dispatch replaces the open one;
// an id is closed only by a line naming it, no id by the next verdict line. review_set: every
// dispatch is tracked; a line closes the earliest open dispatch it names, else, naming no
// tracked id, the earliest open one without id.
enum class PairRule : std::uint8_t { single_reviewer, review_set };
constexpr std::uint8_t tag_of(PairRule rule) {
    return static_cast<std::uint8_t>(rule);
}
constexpr PairRule rule_of(const PairedAgent& agent) {
    return static_cast<PairRule>(agent.tag);
}

// ---------------------------------------------------------------------------------------------
// The single reviewer's rule (docs/plan-gate.md, "Pairing"), fed one reviewer's dispatches and
// the verdict lines in line order: a dispatch opens and replaces any open one; an open dispatch
// with a `toolu_` id is closed only by a verdict line naming that id, so a sibling reviewer's
// verdict or a foreign one cannot answer for it; one without an id is closed by the next verdict
// line; verdict lines while nothing is open pair with nothing. Its state is constant. D and V are
// how a dispatch and a verdict line are held: pointers into the kept lists (pair_single_reviewer),
// or copies (the pairing window's constant state).
template <class D, class V> struct SingleReviewer {
    std::optional<D> last;          // the latest dispatch
    bool open = false;              // `last` is not closed
    std::optional<D> pair_dispatch; // the latest dispatch a verdict line closed
    std::optional<V> pair_verdict;  // ... and that line
    // The dispatch `last` replaced and whether it was open then: `last` failing (its own
    // tool_result an error) makes it the latest again.
    std::optional<D> replaced;
    bool replaced_open = false;

    void dispatched(D dispatch) {
        replaced = std::move(last);
        replaced_open = open;
        last = std::move(dispatch);
        open = true;
    }
    // True when a verdict line closes the open dispatch; `names(last)` says whether the line
    // names the dispatch's id (asked only when it has one).
    template <class Names> bool closes(bool last_has_id, const Names& names) const {
        return open && (!last_has_id || names(*last));
    }
    void closed_by(V verdict) {
        open = false;
        pair_dispatch = last;
        pair_verdict = std::move(verdict);
    }
    // `last` failed: it is no dispatch, and the one it replaced is the latest again, open as it
    // was.
    void failed() {
        last = std::move(replaced);
        open = replaced_open && last.has_value();
        replaced.reset();
        replaced_open = false;
    }
};

// ---------------------------------------------------------------------------------------------
// Pairing bookkeeping: which verdict lines are worth keeping (docs/plan-gate.md, "Pairing")
//
// The caller pairs; the scanner only keeps what pairing can use, so memory and work stay linear
// however many agents a session ran. A dispatch is kept when its agent is one the caller pairs.
// A verdict line is kept only when it can close a kept dispatch under that dispatch's rule: it
// names (by a `toolu_` token, looked up in a hash index) a dispatch that is still closable, or it
// follows an id-less dispatch it may close. Each kept line closes at least one dispatch or
// consumes one id-less dispatch, so the kept lines never outnumber twice the kept dispatches.
class Pairing {
public:
    explicit Pairing(std::span<const PairedAgent> agents)
        : agents_(agents), singles_(agents.size()) {}

    // The paired agent named by a subagent_type, or nullptr.
    const PairedAgent* agent(std::string_view subagent_type) const {
        const std::string_view bare = agent_of(subagent_type);
        for (const PairedAgent& candidate : agents_)
            if (candidate.name == bare) return &candidate;
        return nullptr;
    }

    // True when the raw line holds the name of a paired agent: a dispatch line without one
    // cannot be a kept dispatch (the name is plain ASCII, never escaped).
    bool mentions_agent(std::string_view raw, bool members_only = false) const {
        for (const PairedAgent& candidate : agents_) {
            if (members_only && rule_of(candidate) != PairRule::review_set) continue;
            if (raw.find(candidate.name) != std::string_view::npos) return true;
        }
        return false;
    }

    void restart() { *this = Pairing(agents_); }

    // A kept dispatch, appended to `dispatches` by the caller at index `index`.
    void dispatched(const PairedAgent& agent, std::size_t index, const std::string& id) {
        const std::size_t slot = static_cast<std::size_t>(&agent - agents_.data());
        has_id_.push_back(!id.empty());
        closable_.push_back(!id.empty());
        rule_.push_back(rule_of(agent));
        slot_.push_back(slot);
        failed_.push_back(false);
        same_id_before_.push_back(none);
        replaced_.push_back({});
        if (!id.empty()) {
            auto [it, fresh] = by_id_.try_emplace(id, index);
            if (!fresh) same_id_before_.back() = std::exchange(it->second, index);
        }
        if (rule_of(agent) == PairRule::single_reviewer) {
            // A dispatch replaces the open one of its agent, which can then never close (unless
            // this one fails: failed()).
            replaced_.back() = {singles_[slot].last, singles_[slot].open};
            singles_[slot].dispatched(index);
        } else if (id.empty()) {
            ++id_less_members_;
        }
    }

    // Kept dispatch `index` failed (its own tool_result is an error): it is no dispatch, so it
    // closes nothing, and a single reviewer's dispatch it replaced is open again as it was.
    // Each kept dispatch keeps what it replaced, so failures one after another unwind in turn.
    void failed(std::size_t index) {
        failed_[index] = true;
        if (rule_[index] != PairRule::single_reviewer) {
            closable_[index] = false;
            return;
        }
        Single& single = singles_[slot_[index]];
        if (single.last != index) return;
        single.last = replaced_[index].last;
        single.open = replaced_[index].open;
    }

    // The kept dispatches a raw line names, sorted, into `named`; true when the line may close one
    // of them, or an id-less dispatch, so that it is worth parsing.
    bool may_close(std::string_view raw, std::vector<std::size_t>& named) const {
        named.clear();
        if (closable_.empty()) return false;
        names(raw, named);
        if (id_less_members_ > 0 ||
            std::any_of(singles_.begin(), singles_.end(),
                        [&](const Single& s) { return s.open && !has_id_[*s.last]; }))
            return true;
        return std::any_of(named.begin(), named.end(), [&](std::size_t i) { return closable(i); });
    }

    // The kept dispatches a raw line names by a `toolu_` token, sorted, into `named`.
    void names(std::string_view raw, std::vector<std::size_t>& named) const {
        named.clear();
        for_each_toolu_token(raw, [&](std::string_view token) {
            const auto it = by_id_.find(token);
            if (it == by_id_.end()) return;
            // Ids repeat only in hand-made transcripts; a few repeats are followed, no more.
            std::size_t index = it->second;
            for (int repeat = 0; index != none && repeat < 8;
                 ++repeat, index = same_id_before_[index])
                named.push_back(index);
        });
        std::sort(named.begin(), named.end());
        named.erase(std::unique(named.begin(), named.end()), named.end());
    }

    // A verdict line naming `named`: closes what it closes; false when it closes nothing, so the
    // line need not be kept.
    bool verdict(const std::vector<std::size_t>& named) {
        bool keep = false;
        bool names_member = false;
        std::size_t earliest_member = none;
        for (const std::size_t i : named) {
            // A failed dispatch is no dispatch: a line naming only it names no member.
            if (rule_[i] != PairRule::review_set || failed_[i]) continue;
            names_member = true;
            if (closable_[i] && earliest_member == none) earliest_member = i; // `named` is sorted
        }
        if (earliest_member != none) {
            closable_[earliest_member] = false;
            keep = true;
        }
        for (Single& single : singles_) {
            if (!single.closes(single.open && has_id_[*single.last], [&](std::size_t open) {
                    return std::binary_search(named.begin(), named.end(), open);
                }))
                continue;
            single.closed_by(true);
            keep = true;
        }
        if (!names_member && id_less_members_ > 0) {
            --id_less_members_;
            keep = true;
        }
        return keep;
    }

private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    // A kept dispatch that may still close: a member's not yet closed, a single reviewer's open
    // one, each with an id.
    bool closable(std::size_t i) const {
        if (rule_[i] == PairRule::review_set) return closable_[i];
        const Single& single = singles_[slot_[i]];
        return single.open && single.last == i && has_id_[i];
    }
    std::span<const PairedAgent> agents_;
    // Per single-reviewer agent: its rule on the indexes of its kept dispatches.
    using Single = SingleReviewer<std::size_t, bool>;
    std::vector<Single> singles_;
    std::size_t id_less_members_ = 0; // id-less review-set dispatches not yet consumed
    std::vector<bool> has_id_;        // per kept dispatch
    // Per kept dispatch, read for a member's: has an id and may still close (closable()).
    std::vector<bool> closable_;
    std::vector<PairRule> rule_;    // per kept dispatch
    std::vector<std::size_t> slot_; // per kept dispatch: its agent's index
    std::vector<bool> failed_;      // per kept dispatch: its own tool_result was an error
    // Per kept dispatch: the single reviewer's dispatch it replaced, and whether it was open then.
    struct Replaced {
        std::optional<std::size_t> last;
        bool open = false;
    };
    std::vector<Replaced> replaced_;
    std::vector<std::size_t> same_id_before_; // per kept dispatch: the previous one with its id
    // id -> the latest kept dispatch with it; looked up by the line's string_view tokens.
    struct IdHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view id) const {
            return std::hash<std::string_view>{}(id);
        }
    };
    std::unordered_map<std::string, std::size_t, IdHash, std::equal_to<>> by_id_;
};

// ---------------------------------------------------------------------------------------------
// The pairing rules on the kept lists (the bookkeeping above keeps what they read)

// A single reviewer's latest dispatch after the plan write and its latest closed dispatch/verdict
// pair (docs/plan-gate.md, step 4).
struct SinglePairing {
    const Dispatch* last_dispatch = nullptr;
    const Dispatch* pair_dispatch = nullptr;
    const VerdictLine* pair_verdict = nullptr;
};
SinglePairing pair_single_reviewer(const Scan& scan, std::string_view agent, std::size_t write_line,
                                   Trace& trace);

// A review-set member's dispatch (index: into the dispatches) and, once paired, its verdict.
struct MemberPairing {
    const Dispatch* dispatch = nullptr;
    std::size_t index = 0;
    const VerdictLine* verdict = nullptr;
};
// The dispatches of the agents `is_member` names, in line order, each with its verdict line
// (docs/plan-gate.md, step 5).
std::vector<MemberPairing> pair_review_set(const std::vector<Dispatch>& dispatches,
                                           const std::vector<VerdictLine>& verdicts,
                                           bool (*is_member)(std::string_view agent));

} // namespace viber::plan_gate::pairing
