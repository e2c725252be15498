// pairing_window.hpp: plan-gate's pairing window (docs/plan-gate.md, "Pairing"), the transcript
// scanner's Candidates: the dispatch and verdict candidates after the last plan write, kept by
// place and paired when it is known which reviewer decides.
#pragma once

#include "common/fast/buffer.hpp"
#include "common/transcript/transcript.hpp"
#include "common/transcript/transcript_candidates.hpp"
#include "common/transcript/transcript_lines.hpp"
#include "common/transcript/transcript_reading.hpp"
#include "plan-gate/pairing.hpp"

#include <algorithm>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace viber::plan_gate::pairing {

// After the last plan write, a line that only pairing can want (a dispatch or verdict candidate,
// no other needle in the current state) is not parsed as it passes: its number, place and needles
// are kept in a bounded window. The window is absorbed (its oldest half when full, all of it
// before a line parsed for another reason that pairing also reads, and at the end of a scan that
// does not settle later) and settled when the caller says which agents it pairs. Absorbing pairs
// the lines in order, with the checks and parse each would have had when read, except that with
// settle_later a single reviewer keeps constant state (SingleState) found from the end of the
// lines (walk_back). A plan write empties it all.
//
// The scanner owns the window and the Scan it fills: the window adds the kept dispatches and
// verdict lines to that Scan, and reads the lines it kept again from the scanner's source.
class PairingWindow final : public Candidates {
public:
    // `scan` and `arena` are the scanner's: the window parses only between the scanner's lines,
    // so the two share the parse arena.
    PairingWindow(const Request& request, Scan& scan, std::span<unsigned char> arena,
                  std::size_t buffer_size, std::size_t window_entries)
        : request_(request), scan_(scan), arena_(arena), buffer_size_(buffer_size),
          window_capacity_(window_entries < 2 ? 2 : window_entries),
          singles_(request.paired_agents.size()), pairing_(request.paired_agents) {}

    // Where the lines kept are read again from.
    void reads_from(Source& source) override { source_ = &source; }

    // Keeps the place of a line only pairing can want; false when the scan can say nothing (the
    // window could not be absorbed to make room). Inline: the scan calls it for every such line.
    bool defer(std::size_t line, std::uint64_t offset, std::size_t length,
               std::uint32_t needles) override {
        // A line numbered at most its offset plus one fits a Deferred with it; past 2^48 bytes
        // the scan says nothing.
        if (offset >= Deferred::most) return fail();
        if (window_.size() >= window_capacity_) {
            if (!absorb(window_capacity_ / 2)) return false;
        }
        // Reserved in three steps: 4 KiB (a usual session's window, inside the heap the hook
        // already has), 64 KiB, then all of it at once, on huge pages where the OS has them
        // (20,000 dispatches and their verdicts are 640 KB, 160 faults of 4 KiB). Growing by
        // doubling would copy it and touch twice the pages; a page the window never reaches is
        // never touched.
        if (window_.size() == window_.capacity()) {
            if (window_.capacity() < first_window_entries)
                window_.reserve(std::min(window_capacity_, first_window_entries));
            else if (window_.capacity() < second_window_entries)
                window_.reserve(std::min(window_capacity_, second_window_entries));
            else
                fast::reserve_for_writes(window_, window_capacity_);
        }
        window_.emplace_back(line, offset, length, needles);
        return true;
    }

    // Drops needles whose lines cannot matter to pairing, from the raw bytes alone (no parse): a
    // dispatch naming no paired agent, a verdict line that can close no kept dispatch.
    std::uint32_t worth_pairing(std::uint32_t relevant, std::string_view held) override {
        return worth_pairing(relevant, held, Who::all);
    }

    // Pairs every line kept, in order, and empties the window; false when the scan can say
    // nothing.
    bool absorb_all() override { return absorb(window_.size()); }

    // A plan write: dispatches and verdicts restart after it.
    void restart() override {
        window_.clear();
        singles_.assign(singles_.size(), SingleState{});
        pairing_.restart();
    }

    // A dispatch and a verdict line parsed as the scan read them (see the private overloads).
    void dispatched(std::size_t line, const boost::json::object& use,
                    const boost::json::object& input, std::string_view type) override {
        dispatched(line, use, input, type, Who::all);
    }
    void verdict_line(std::size_t line, std::string_view bytes,
                      const boost::json::value& parsed) override {
        verdict_line(line, bytes, parsed, Who::all);
    }
    // A line parsed as the scan read it whose tool_results may be a dispatch's own error.
    void tool_errors(std::size_t line, const boost::json::object& record) override {
        tool_errors(line, record, Who::all);
    }

    bool pending() const override;
    bool settle(std::span<const PairedAgent> agents) override;

private:
    // A window line in 16 bytes: a session that dispatched 20,000 agents after its plan write
    // keeps 40,000, and each page of them is a fault. Its number and the offset of its first byte
    // take 48 bits each (a line's number is at most its offset plus one, and 2^48 bytes are far
    // more than a hook reads before its deadline), its length (without the newline, at most
    // longest_parsed_line) 27 split over both words, and its needles (subagent_type, VERDICT,
    // is_error) 3.
    class Deferred {
    public:
        static constexpr std::uint64_t most = (std::uint64_t{1} << 48) - 1; // a line or offset
        Deferred(std::size_t line, std::uint64_t offset, std::size_t length, std::uint32_t needles)
            : first_(offset | std::uint64_t{length} << 48),
              second_(line | std::uint64_t{length >> 16} << 48 |
                      std::uint64_t{(needles >> transcript::detail::needle_subagent_type) & 7u}
                          << 59) {}
        std::size_t line() const { return static_cast<std::size_t>(second_ & most); }
        std::uint64_t offset() const { return first_ & most; }
        std::size_t length() const {
            return static_cast<std::size_t>(first_ >> 48 | (second_ >> 48 & 0x7ff) << 16);
        }
        std::uint32_t needles() const {
            return static_cast<std::uint32_t>(second_ >> 59)
                   << transcript::detail::needle_subagent_type;
        }

    private:
        std::uint64_t first_;
        std::uint64_t second_;
    };
    static_assert(longest_parsed_line < std::size_t{1} << 27);
    static_assert(transcript::detail::needle_verdict ==
                  transcript::detail::needle_subagent_type + 1);
    static_assert(transcript::detail::needle_tool_error == transcript::detail::needle_verdict + 1);

    // Which paired agents a pass over lines pairs: all of them, or (a settle_later window, whose
    // single reviewers are walked back instead) the review-set members.
    enum class Who { all, members };

    // A single reviewer's rule in constant space (settle_later), and its latest failed dispatch.
    // Found by a walk back, the dispatch `last` replaced is unknown (empty) when the walk stopped
    // before it.
    struct SingleState : SingleReviewer<Dispatch, VerdictLine> {
        std::optional<FailedDispatch> failure;
    };
    // A tool_result that is an error, and the id it answers.
    struct ToolError {
        std::string id;
        std::size_t line = 0;
        std::string error; // the first line of its text
    };

    bool compact(const PairedAgent& agent) const {
        return request_.settle_later && rule_of(agent) == PairRule::single_reviewer;
    }
    std::size_t slot(const PairedAgent& agent) const {
        return static_cast<std::size_t>(&agent - request_.paired_agents.data());
    }
    bool single_open() const {
        return std::any_of(singles_.begin(), singles_.end(),
                           [](const SingleState& s) { return s.open; });
    }
    static bool names(std::string_view raw, const std::string& id) {
        bool named = false;
        for_each_toolu_token(raw, [&](std::string_view token) { named = named || token == id; });
        return named;
    }
    // True when a verdict line with this raw text closes `single`'s open dispatch.
    static bool closes(const SingleState& single, std::string_view raw) {
        return single.closes(single.open && !single.last->id.empty(),
                             [&](const Dispatch& open) { return names(raw, open.id); });
    }

    static constexpr std::size_t first_window_entries = 256;
    static constexpr std::size_t second_window_entries = 4096;

    // Window lines read again, a block of consecutive ones at a time.
    // The first block of a visit is small: a single reviewer's latest pair is mostly among the
    // last lines, and a block's every page is a fault. Each next one is twice as large.
    static constexpr std::size_t first_block_size = 16 * 1024;
    static constexpr std::size_t block_size = 256 * 1024;
    struct Blocks {
        std::string bytes;
        std::uint64_t offset = 0;            // of bytes[0] in the file
        std::size_t next = first_block_size; // the most the next block spans (with more lines)
    };

    bool fail() {
        failed_ = true;
        return false;
    }

    // What one window line is to a single reviewer.
    struct LineRole {
        bool dispatch_line = false;         // a dispatch of any agent: never a verdict line
        std::optional<Dispatch> dispatch;   // the reviewer's last dispatch on it
        std::optional<VerdictLine> verdict; // when it is a verdict line
        std::vector<ToolError> errors;      // its tool_results that are errors
    };

    std::uint32_t worth_pairing(std::uint32_t relevant, std::string_view held, Who who);
    std::optional<std::string_view> raw_line(Blocks& blocks, std::size_t index, bool forward,
                                             std::size_t last = 0);
    std::optional<std::string_view> parse_copy(Blocks& blocks, std::size_t index, bool forward,
                                               std::size_t last = 0);
    static std::string_view parse_ready(std::string& bytes);
    bool absorb(std::size_t count);
    bool pair_in_order(std::size_t count, Who who);
    void pair_line(std::size_t line, std::string_view bytes, std::uint32_t relevant, Who who);
    bool role_of(std::size_t entry, const PairedAgent& agent, LineRole& role, Blocks& blocks,
                 bool forward, std::size_t last = 0);
    std::optional<SingleState> walk_back(const PairedAgent& agent, std::size_t count,
                                         const SingleState& before);
    bool settle_single(const PairedAgent& agent);
    void dispatched(std::size_t line, const boost::json::object& use,
                    const boost::json::object& input, std::string_view type, Who who);
    void verdict_line(std::size_t line, std::string_view bytes, const boost::json::value& parsed,
                      Who who);
    void tool_errors(std::size_t line, const boost::json::object& record, Who who);
    void failed(const ToolError& error, Who who);
    void record_failure(FailedDispatch failure);

    const Request& request_;
    Scan& scan_;
    const std::span<unsigned char> arena_; // the scanner's parse arena
    const std::size_t buffer_size_;
    Source* source_ = nullptr;
    bool failed_ = false;
    std::string read_back_; // a window line read again, to parse
    Blocks ahead_;          // window lines read again in line order (raw_line)
    Blocks behind_;         // ... and from the end back
    const std::size_t window_capacity_;
    std::vector<Deferred> window_;
    std::vector<SingleState> singles_; // settle_later: per paired agent (single reviewers')
    Pairing pairing_;
    std::vector<std::size_t> named_; // reused: the kept dispatches a verdict line names
};

} // namespace viber::plan_gate::pairing

namespace viber::plan_gate {

// The pairing window as the transcript scan's Request::pairing.
std::unique_ptr<transcript::Candidates>
pairing_window(const transcript::Request& request, transcript::Scan& scan,
               std::span<unsigned char> arena, std::size_t buffer_size, std::size_t window_entries);

} // namespace viber::plan_gate
