// transcript.cpp: the streaming transcript scanner (docs/transcript.md): the scan loop, the
// episode and the planner's entry wait. What it reads and searches for is in
// transcript_reading.hpp, the line kinds it applies in transcript_lines.hpp, the pairing's
// bookkeeping in transcript_pairing.hpp, the kernels in common/fast/.
//
// One pass: read() into a reused buffer, a fused prefilter kernel that finds newlines and every
// needle at once, and Boost.JSON only for the few lines whose needles matter in the current state.
// A line that is not a candidate is never held whole: only its start offset is kept, and a
// candidate that outgrew the buffer is read again with pread() when it ends. After the last plan
// write, a line only pairing can want waits unparsed in a bounded window (its place, not its
// bytes) until the caller says which reviewer decides.
#include "common/transcript.hpp"

#include "common/fast/buffer.hpp"
#include "common/fast/line_scan.hpp"
#include "common/files.hpp"
#include "common/os.hpp"
#include "common/payload.hpp"
#include "common/transcript_lines.hpp"
#include "common/transcript_pairing.hpp"
#include "common/transcript_reading.hpp"

#include <algorithm>
#include <array>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <unordered_map>
#include <utility>

namespace viber::transcript {

namespace json = boost::json;
using namespace internal;

namespace {

// ---------------------------------------------------------------------------------------------
// The scanner

constexpr std::uint32_t plans_bit = needle_bit(detail::needle_plans);
constexpr std::uint32_t pairing_needles =
    needle_bit(detail::needle_subagent_type) | needle_bit(detail::needle_verdict);

class Scanner {
private:
    // A window line in 16 bytes: a session that dispatched 20,000 agents after its plan write
    // keeps 40,000, and each page of them is a fault. Its number and the offset of its first byte
    // take 48 bits each (a line's number is at most its offset plus one, and 2^48 bytes are far
    // more than a hook reads before its deadline), its length (without the newline, at most
    // longest_parsed_line) 27 split over both words, and its needles (of pairing_needles) 2.
    class Deferred {
    public:
        static constexpr std::uint64_t most = (std::uint64_t{1} << 48) - 1; // a line or offset
        Deferred(std::size_t line, std::uint64_t offset, std::size_t length, std::uint32_t needles)
            : first_(offset | std::uint64_t{length} << 48),
              second_(line | std::uint64_t{length >> 16} << 48 |
                      std::uint64_t{needles >> detail::needle_subagent_type} << 59) {}
        std::size_t line() const { return static_cast<std::size_t>(second_ & most); }
        std::uint64_t offset() const { return first_ & most; }
        std::size_t length() const {
            return static_cast<std::size_t>(first_ >> 48 | (second_ >> 48 & 0x7ff) << 16);
        }
        std::uint32_t needles() const {
            return static_cast<std::uint32_t>(second_ >> 59) << detail::needle_subagent_type;
        }

    private:
        std::uint64_t first_;
        std::uint64_t second_;
    };
    static_assert(longest_parsed_line < std::size_t{1} << 27);
    static_assert(detail::needle_verdict == detail::needle_subagent_type + 1);

    // Which paired agents a pass over lines pairs: all of them, or (a settle_later window, whose
    // single reviewers are walked back instead) the review-set members.
    enum class Who { all, members };

    // A single reviewer's pairing in constant space (settle_later; docs/plan-gate.md, "Pairing"):
    // a dispatch replaces the open one; an open dispatch with an id is closed by the first verdict
    // line naming it, one without by the next verdict line.
    struct SingleReviewer {
        std::optional<Dispatch> last; // its latest dispatch
        bool open = false;            // `last` is not closed
        std::optional<Dispatch> pair_dispatch;
        std::optional<VerdictLine> pair_verdict;
    };

public:
    Scanner(const Request& request, fast::LineKernel kernel, std::size_t buffer_size,
            std::size_t window_entries)
        : request_(request), kernel_(fast::resolve(kernel)),
          buffer_size_(buffer_size < 64 ? 64 : buffer_size),
          window_capacity_(window_entries < 2 ? 2 : window_entries),
          singles_(request.paired_agents.size()), pairing_(request.paired_agents) {}

    Scan run(Source& source) {
        // Zeros before the data for the kernels' look-behind, then room to align the data. The
        // rest is left as it is: a page of it the reads never reach is never touched.
        buffer_.reset(new char[look_behind + 2 * read_alignment + buffer_size_ + buffer_padding]);
        source_ = &source;
        char* const front = buffer_.get() + look_behind;
        char* const data =
            front + (read_alignment - reinterpret_cast<std::uintptr_t>(front) % read_alignment);
        std::memset(buffer_.get(), 0, static_cast<std::size_t>(data - buffer_.get()));
        std::size_t filled = 0;  // bytes of the buffer holding file data
        std::size_t scanned = 0; // buffer bytes already through the kernel
        std::size_t lead = 0;    // buffer bytes before the data held (see below)
        bool at_end = false;
        for (;;) {
            while (!at_end && filled < lead + buffer_size_) {
                const long got = source.read_some(data + filled, lead + buffer_size_ - filled);
                if (got < 0) return failed();
                if (got == 0) at_end = true;
                filled += static_cast<std::size_t>(got);
            }
            std::memset(data + filled, 0, buffer_padding);
            // A needle that starts near the end of the data read so far may continue in the next
            // read: those last bytes are scanned again after it.
            const std::size_t scan_to =
                at_end ? filled : (filled > longest_needle - 1 ? filled - (longest_needle - 1) : 0);
            data_ = data;
            // The kernel stops after a line that changed the wanted needles; it goes on from there
            // with the new ones.
            while (scanned < scan_to && !failed_) {
                kernel_needles_ = wanted();
                scanned = run_kernel(kernel_, kernel_needles_, data, scanned, scan_to, *this);
            }
            if (failed_) return failed();
            if (at_end) {
                if (buffer_offset_ + filled > line_start_) end_line(filled);
                if (!failed_ && !request_.settle_later) absorb(window_.size());
                if (failed_) return failed();
                buffer_.reset(); // only the window's places outlive the scan
                scan_.readable = true;
                return std::move(scan_);
            }
            // Keep the unscanned tail (with the look-behind before it), and the current line while
            // it is short enough to be worth keeping; a longer one is dropped and read again only
            // if it turns out a candidate.
            std::size_t keep = scanned - look_behind;
            if (!line_dropped_) {
                const std::size_t line_at = static_cast<std::size_t>(line_start_ - buffer_offset_);
                if (scanned - line_at > buffer_size_ / 2) {
                    line_dropped_ = true;
                } else {
                    keep = line_at;
                }
            }
            // buffer_offset_ stays a multiple of read_alignment, so each read copies between the
            // same offsets in a cache line of the file and of the buffer (the OS copies mutually
            // aligned bytes noticeably faster); the kept bytes keep their offset in the line.
            const std::size_t rest = filled - keep;
            lead = keep % read_alignment;
            std::memmove(data + lead, data + keep, rest);
            std::memset(data, 0, lead); // a stale byte must not complete a needle
            buffer_offset_ += keep - lead;
            filled = lead + rest;
            scanned = scanned - keep + lead;
        }
    }

    // Kernel callbacks. A newline is rare next to the bytes between: its work stays out of line,
    // so the flattened kernels hold only the scan.
    // True while the needles wanted stay those the kernel looks for.
    bool newline(std::size_t at) {
        end_line(at);
        return wanted() == kernel_needles_;
    }
    void hit(std::size_t at, unsigned needle) {
        if (needle == detail::needle_plans && (hits_ & plans_bit) == 0 && !plans_in_file_path(at))
            return;
        hits_ |= 1u << needle;
    }

    // True when a settle_later scan has pairing left to settle: candidates waiting in the window,
    // or a single reviewer's state from lines parsed as they passed (during the planner's entry
    // wait every line is parsed at once, and its dispatches and verdicts reach only that state).
    bool pending() const {
        return !window_.empty() ||
               std::any_of(singles_.begin(), singles_.end(),
                           [](const SingleReviewer& single) { return single.last.has_value(); });
    }

    // settle_pairing() for the scan this scanner returned.
    bool settle(Scan& scan, std::span<const PairedAgent> agents) {
        scan_ = std::move(scan);
        bool settled = true;
        try {
            // The review set pairs verdicts with the earliest open dispatch they name, so it reads
            // every line in order; a single reviewer's latest pair is found from the end, and its
            // lines join the lists last (they renumber the kept dispatches).
            const auto known = [&](const PairedAgent& wanted) {
                return pairing_.agent(wanted.name);
            };
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
        scan = std::move(scan_);
        return settled;
    }

private:
    Scan failed() {
        Scan none;
        none.readable = false;
        return none;
    }

    // The needles that can change anything in the current state.
    std::uint32_t wanted() const {
        std::uint32_t mask = always_wanted;
        if (pending_entry_) {
            mask |= (1u << detail::needle_permission_mode_key) |
                    (1u << detail::needle_enter_plan_mode) | (1u << detail::needle_string_content);
        }
        if (request_.signals == Signals::planner_chain)
            mask |= 1u << detail::needle_command_message;
        if (request_.plan_writes) {
            mask |= plan_write_needles;
            // Verdict lines matter only once a kept dispatch could be closed by one: whether one
            // is kept is known only when the window is paired (worth_pairing checks it there).
            if (scan_.last_plan_write && !request_.paired_agents.empty()) mask |= pairing_needles;
        }
        return mask;
    }

    // Drops needles whose lines cannot matter, from the raw bytes alone (no parse): `plans` on a
    // line without a file_path, a dispatch naming no paired agent, a verdict line that can close
    // no kept dispatch. `held` is a long line read again (not in the buffer).
    std::uint32_t worth_parsing(std::uint32_t relevant, std::string_view held) {
        return worth_pairing(worth_parsing_signals(relevant, held, false), held, Who::all);
    }

    // A line held whole in the buffer kept `plans` only where it lies in a file_path's value
    // (plans_in_file_path); a long line read again (`in_buffer` false) may have kept it on less,
    // and keeps it only when it holds a file_path at all.
    std::uint32_t worth_parsing_signals(std::uint32_t relevant, std::string_view held,
                                        bool in_buffer) const {
        if ((relevant & plans_bit) == 0 || in_buffer) return relevant;
        return held.find(needles[detail::needle_file_path].text) != std::string_view::npos
                   ? relevant
                   : relevant & ~plans_bit;
    }

    // The index of the last `"` in text[from, to), or npos (the string around a `plans` mostly
    // opens a path's length before it).
    static std::size_t last_quote(const char* text, std::size_t from, std::size_t to) {
        while (to > from)
            if (text[--to] == '"') return to;
        return std::string_view::npos;
    }

    // For the kernel's `plans` at buffer index `at`: false when it cannot lie in the value of a
    // "file_path" key, the only place a plan write's path is read from. Every string a JSON line
    // holds is quoted, so the string around `at` opens at the last unescaped quote before it, and
    // it is a file_path's value when `"file_path"` and a colon come right before that quote. A
    // session whose dispatch prompts all name the plan file has `plans` on every dispatch line:
    // this keeps those lines from being parsed, or searched again whole, for a file_path.
    // Linear in the line: a later `plans` on the same line searches back only to the one before
    // it (found in no file_path's value, or the search would not run), whose string holds it when
    // no unescaped quote lies between them.
    [[gnu::noinline]] bool plans_in_file_path(std::size_t at) {
        if (line_dropped_) return true; // the line's start is gone: checked when read again
        const std::size_t line_at = static_cast<std::size_t>(line_start_ - buffer_offset_);
        const std::size_t from = plans_searched_ > line_start_
                                     ? static_cast<std::size_t>(plans_searched_ - buffer_offset_)
                                     : line_at;
        plans_searched_ = buffer_offset_ + at;
        const char* const line = data_ + line_at;
        // True when the byte at index `i` of the line follows an odd run of backslashes.
        const auto escaped = [&](std::size_t i) {
            std::size_t run = 0;
            while (i > run && line[i - run - 1] == '\\') ++run;
            return run % 2 == 1;
        };
        std::size_t quote = at - line_at;
        for (;;) {
            quote = last_quote(line, from - line_at, quote);
            if (quote == std::string_view::npos) return false; // in the string searched before
            if (!escaped(quote)) break;
        }
        std::size_t i = quote;
        const auto skip_space = [&] {
            while (i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t' || line[i - 1] == '\r')) --i;
        };
        skip_space();
        if (i == 0 || line[i - 1] != ':') return false;
        --i;
        skip_space();
        constexpr std::string_view key = "\"file_path\"";
        return i >= key.size() && std::memcmp(line + i - key.size(), key.data(), key.size()) == 0;
    }

    std::uint32_t worth_pairing(std::uint32_t relevant, std::string_view held, Who who) {
        constexpr std::uint32_t subagent = 1u << detail::needle_subagent_type;
        constexpr std::uint32_t verdict = 1u << detail::needle_verdict;
        const bool singles = who == Who::all && request_.settle_later;
        if ((relevant & subagent) && !pairing_.mentions_agent(held, who == Who::members))
            relevant &= ~subagent;
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

    // The line that ends at buffer index `at` (a newline, or the end of the data).
    [[gnu::noinline]] void end_line(std::size_t at) {
        if (failed_) return;
        const std::size_t line = ++scan_.lines;
        const std::uint64_t end = buffer_offset_ + at;
        const auto length = static_cast<std::size_t>(end - line_start_);
        std::uint32_t relevant = hits_ & wanted();
        // A line past the cap is never read back: memory stays bounded whatever the file holds.
        if (length > longest_parsed_line) relevant = 0;
        const std::string_view held =
            line_dropped_ ? std::string_view()
                          : std::string_view(data_ + (line_start_ - buffer_offset_), length);
        if (relevant != 0 && !line_dropped_) relevant = worth_parsing_signals(relevant, held, true);
        if (relevant != 0 && (relevant & ~pairing_needles) == 0 && !pending_entry_) {
            // Only pairing can want this line: its place is kept, its bytes are not parsed now.
            defer(line, line_start_, length, relevant);
            relevant = 0;
        } else if ((relevant & pairing_needles) != 0) {
            // A line parsed now that pairing also reads: the lines before it are paired first.
            absorb(window_.size());
            if (failed_) return;
        }
        if (relevant != 0 && !line_dropped_) relevant = worth_pairing(relevant, held, Who::all);
        if (relevant != 0) {
            try {
                char* bytes = nullptr;
                if (line_dropped_) {
                    if (!source_->read_at(long_line_, line_start_, length)) {
                        failed_ = true;
                        return;
                    }
                    relevant = worth_parsing(relevant, long_line_);
                    bytes = long_line_.data();
                } else {
                    bytes = data_ + (line_start_ - buffer_offset_);
                }
                std::size_t size = length;
                if (size > 0 && bytes[size - 1] == '\r') --size;
                if (relevant != 0) {
                    // Same length: the line is rewritten where it lies.
                    replace_lone_surrogates(bytes, size);
                    apply(line, std::string_view(bytes, size), relevant);
                }
                if (line_dropped_) std::string().swap(long_line_);
            } catch (...) {
                // bad_alloc on a huge line, or anything else: nothing safe can be said.
                failed_ = true;
                return;
            }
        }
        hits_ = 0;
        line_dropped_ = false;
        line_start_ = end + 1;
    }

    // ---- The pairing window
    //
    // After the last plan write, a line that only pairing can want (a dispatch or verdict
    // candidate, no other needle in the current state) is not parsed as it passes: its number,
    // place and needles are kept in a bounded window. The window is absorbed (its oldest half
    // when full, all of it before a line parsed for another reason that pairing also reads, and
    // at the end of a scan that does not settle later) and settled when the caller says which
    // agents it pairs. Absorbing pairs the lines in order, with the checks and parse each would
    // have had when read, except that with settle_later a single reviewer keeps constant state
    // (SingleReviewer) found from the end of the lines (walk_back). A plan write empties it all.

    bool compact(const PairedAgent& agent) const {
        return request_.settle_later && agent.rule == PairRule::single_reviewer;
    }
    std::size_t slot(const PairedAgent& agent) const {
        return static_cast<std::size_t>(&agent - request_.paired_agents.data());
    }
    bool single_open() const {
        return std::any_of(singles_.begin(), singles_.end(),
                           [](const SingleReviewer& s) { return s.open; });
    }
    static bool names(std::string_view raw, const std::string& id) {
        bool named = false;
        for_each_toolu_token(raw, [&](std::string_view token) { named = named || token == id; });
        return named;
    }
    // True when a verdict line with this raw text closes `single`'s open dispatch.
    static bool closes(const SingleReviewer& single, std::string_view raw) {
        return single.open && (single.last->id.empty() || names(raw, single.last->id));
    }

    void defer(std::size_t line, std::uint64_t offset, std::size_t length, std::uint32_t needles) {
        // A line numbered at most its offset plus one fits a Deferred with it; past 2^48 bytes
        // the scan says nothing.
        if (offset >= Deferred::most) {
            fail();
            return;
        }
        if (window_.size() >= window_capacity_) {
            if (!absorb(window_capacity_ / 2)) return;
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

    // The raw bytes of window line `index` again; nullopt when they cannot be read. A line not
    // in `blocks` is read with the window lines next to it in the direction they are visited:
    // forward up to line `last`, or back, at most blocks.next bytes (16 KiB, doubling to
    // block_size). Each visit in one direction then reads every byte at most once, and a second
    // direction has its own Blocks.
    std::optional<std::string_view> raw_line(Blocks& blocks, std::size_t index, bool forward,
                                             std::size_t last = 0) {
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
    std::optional<std::string_view> parse_copy(Blocks& blocks, std::size_t index, bool forward,
                                               std::size_t last = 0) {
        const auto raw = raw_line(blocks, index, forward, last);
        if (!raw) return std::nullopt;
        read_back_.assign(*raw);
        return parse_ready(read_back_);
    }

    // The trailing CR dropped and lone surrogates rewritten, as on the first read.
    static std::string_view parse_ready(std::string& bytes) {
        std::size_t size = bytes.size();
        if (size > 0 && bytes[size - 1] == '\r') --size;
        replace_lone_surrogates(bytes.data(), size);
        return std::string_view(bytes.data(), size);
    }

    // Absorbs the oldest `count` window lines and drops them from the window; false (and
    // failed_) when one cannot be read again or memory runs out.
    bool absorb(std::size_t count) {
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
            if (!pair_in_order(count, request_.settle_later ? Who::members : Who::all))
                return fail();
            window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(count));
            if (read_back_.capacity() > buffer_size_) std::string().swap(read_back_);
            ahead_ = Blocks{};
            behind_ = Blocks{};
        } catch (...) {
            return fail();
        }
        return true;
    }

    bool fail() {
        failed_ = true;
        return false;
    }

    // Pairs the oldest `count` window lines in line order for `who`.
    bool pair_in_order(std::size_t count, Who who) {
        constexpr std::uint32_t subagent = 1u << detail::needle_subagent_type;
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

    // Parses one line into `arena` and `parsed` (which uses the same storage, so the result is
    // moved, not copied); nullptr when it is not a live JSON object.
    static const json::object* parse_record(std::string_view bytes, json::monotonic_resource& arena,
                                            json::value& parsed) {
        json::parse_options options;
        options.max_depth = 10000;
        options.allow_invalid_utf8 = true;
        boost::system::error_code ec;
        parsed = json::parse(bytes, ec, json::storage_ptr(&arena), options);
        if (ec || !parsed.is_object()) return nullptr; // not JSON: not an event
        const json::object& record = parsed.get_object();
        // Replays whole messages; never a live event.
        if (string_field(record, "type") == "api-request-blob") return nullptr;
        return &record;
    }

    // A window line paired as apply() pairs it: its dispatches (the line is then no verdict
    // line), else its verdict.
    void pair_line(std::size_t line, std::string_view bytes, std::uint32_t relevant, Who who) {
        json::monotonic_resource arena(arena_.data(), arena_.size());
        // Held in the arena's storage: the parse is moved in, never copied out of the arena.
        json::value parsed(json::storage_ptr{&arena});
        const json::object* record = parse_record(bytes, arena, parsed);
        if (record == nullptr) return;
        bool dispatch_here = false;
        for_each_dispatch(*record, [&](const json::object& use, const json::object& input,
                                       std::string_view type) {
            dispatch_here = true;
            dispatched(line, use, input, type, who);
        });
        if ((relevant & (1u << detail::needle_verdict)) && !dispatch_here)
            verdict_line(line, bytes, parsed, who);
    }

    // Calls visit(use, input, subagent_type) for each dispatch on the line (any agent's) in order.
    template <class Visit> static void for_each_dispatch(const json::object& record, Visit visit) {
        const json::object* message = object_field(record, "message");
        if (message == nullptr) return;
        const auto* content = message->if_contains("content");
        if (content == nullptr || !content->is_array()) return;
        for (const auto& element : content->get_array()) {
            if (!element.is_object()) continue;
            const json::object& use = element.get_object();
            if (string_field(use, "type") != "tool_use") continue;
            if (const auto type = dispatch_type(use))
                visit(use, *object_field(use, "input"), *type);
        }
    }

    // The subagent_type of a tool_use named Agent or Task, when it has one.
    static std::optional<std::string_view> dispatch_type(const json::object& use) {
        const auto name = string_field(use, "name");
        if (!name || (*name != "Agent" && *name != "Task")) return std::nullopt;
        const json::object* input = object_field(use, "input");
        return input != nullptr ? string_field(*input, "subagent_type") : std::nullopt;
    }

    // What one window line is to a single reviewer.
    struct LineRole {
        bool dispatch_line = false;         // a dispatch of any agent: never a verdict line
        std::optional<Dispatch> dispatch;   // the reviewer's last dispatch on it
        std::optional<VerdictLine> verdict; // when it is a verdict line
    };

    // Parses window line `entry` for what it is to `agent` (read through `blocks`, see raw_line).
    bool role_of(std::size_t entry, const PairedAgent& agent, LineRole& role, Blocks& blocks,
                 bool forward, std::size_t last = 0) {
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
        if (role.dispatch_line || (deferred.needles() & (1u << detail::needle_verdict)) == 0)
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
    // the pair before them stands. nullopt: a line could not be read again.
    std::optional<SingleReviewer> walk_back(const PairedAgent& agent, std::size_t count,
                                            const SingleReviewer& before) {
        constexpr std::uint32_t verdict_needle = 1u << detail::needle_verdict;
        constexpr std::uint32_t subagent_needle = 1u << detail::needle_subagent_type;
        std::size_t last_candidate = count; // the last verdict candidate (count: none)
        for (std::size_t entry = count; entry-- > 0;) {
            if (window_[entry].needles() & verdict_needle) {
                last_candidate = entry;
                break;
            }
        }
        SingleReviewer after = before;
        bool dispatched_here = false;
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
            if (dispatched_here && (last_candidate == count || entry > last_candidate)) {
                if (last_candidate == count) break;
                continue;
            }
            const Deferred& deferred = window_[entry];
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
            if (role.verdict) {
                later.push_back({entry, true, std::move(role.verdict)});
                continue;
            }
            if (!role.dispatch) continue;
            std::optional<VerdictLine> verdict = closer(role.dispatch->id);
            if (!readable) return std::nullopt;
            if (!dispatched_here) {
                dispatched_here = true;
                after.last = role.dispatch;
                after.open = !verdict;
            }
            if (verdict) {
                after.pair_dispatch = std::move(role.dispatch);
                after.pair_verdict = std::move(verdict);
                return after;
            }
            later.clear();
        }
        // No pair among the lines: `later` holds the verdict candidates before their first
        // dispatch.
        if (before.open) {
            if (std::optional<VerdictLine> verdict = closer(before.last->id)) {
                if (!dispatched_here) after.open = false;
                after.pair_dispatch = before.last;
                after.pair_verdict = std::move(verdict);
            }
            if (!readable) return std::nullopt;
        }
        return after;
    }

    // settle_pairing() for single reviewers: the window walked back, and the reviewer's latest
    // pair and last dispatch placed in the lists in line order (its other lines left out), so
    // pairing the lists in order gives what pairing every line gives.
    bool settle_single(const PairedAgent& agent) {
        auto after = walk_back(agent, window_.size(), singles_[slot(agent)]);
        if (!after) return false;
        singles_[slot(agent)] = *after;
        std::vector<Dispatch> add;
        if (after->pair_dispatch) add.push_back(*after->pair_dispatch);
        if (after->last &&
            (!after->pair_dispatch || after->last->line != after->pair_dispatch->line))
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

    void apply(std::size_t line, std::string_view bytes, std::uint32_t relevant) {
        // A small arena for the parse; the monotonic resource also makes destruction trivial,
        // so a deeply nested value is never torn down recursively.
        json::monotonic_resource arena(arena_.data(), arena_.size());
        json::value parsed(json::storage_ptr{&arena});
        const json::object* parsed_record = parse_record(bytes, arena, parsed);
        if (parsed_record == nullptr) return;
        const json::object& record = *parsed_record;

        if (shows_plan_mode_ended(record)) scan_.episode_start = line;

        bool plan_write_here = false;
        bool dispatch_here = false;
        bool signal_here = false;
        bool entry_here = false;
        if (const json::object* message = object_field(record, "message")) {
            if (const auto* content = message->if_contains("content");
                content != nullptr && content->is_array()) {
                for (const auto& element : content->get_array()) {
                    if (!element.is_object()) continue;
                    const json::object& use = element.get_object();
                    if (string_field(use, "type") != "tool_use") continue;
                    tool_use(line, use, plan_write_here, dispatch_here, signal_here, entry_here);
                }
            }
        }

        const auto user_content = user_string_content(record);
        if (request_.signals == Signals::planner_chain && user_content &&
            is_typed_chain_command(*user_content)) {
            scan_.last_signal = line;
            scan_.last_signal_entry = 0;
            pending_entry_ = false;
        }
        // A line after the signal that ends the wait for its entry (the signal's own line, or the
        // entry's, ends nothing).
        if (pending_entry_ && !signal_here && !entry_here &&
            (string_field(record, "permissionMode") == "plan" || user_content.has_value())) {
            pending_entry_ = false;
        }

        if ((relevant & (1u << detail::needle_verdict)) && scan_.last_plan_write &&
            !plan_write_here && !dispatch_here) {
            verdict_line(line, bytes, parsed, Who::all);
        }
    }

    void tool_use(std::size_t line, const json::object& use, bool& plan_write_here,
                  bool& dispatch_here, bool& signal_here, bool& entry_here) {
        const auto name = string_field(use, "name");
        if (!name) return;
        const json::object* input = object_field(use, "input");
        if (*name == "Skill") {
            const auto skill = input != nullptr ? string_field(*input, "skill") : std::nullopt;
            if (skill && is_skill_signal(*skill, request_.signals)) {
                scan_.last_signal = line;
                scan_.last_signal_entry = 0;
                pending_entry_ = true;
                signal_here = true;
                entry_here = false;
            }
        } else if (*name == "EnterPlanMode") {
            if (pending_entry_) {
                scan_.last_signal_entry = line;
                pending_entry_ = false;
                entry_here = true;
            }
        } else if (request_.plan_writes && (*name == "Write" || *name == "Edit")) {
            const auto path = input != nullptr ? string_field(*input, "file_path") : std::nullopt;
            if (path && is_plan_path(*path)) {
                // The last matching file_path on the line wins; dispatches and verdicts restart.
                scan_.last_plan_write = PlanWrite{line, std::string(*path)};
                scan_.dispatches.clear();
                scan_.verdicts.clear();
                window_.clear();
                singles_.assign(singles_.size(), SingleReviewer{});
                pairing_.restart();
                plan_write_here = true;
            }
        } else if (request_.plan_writes && scan_.last_plan_write) {
            // Any dispatch makes its line a dispatch, never a verdict line.
            if (const auto type = dispatch_type(use)) {
                dispatch_here = true;
                dispatched(line, use, *input, *type, Who::all);
            }
        }
    }

    static Dispatch new_dispatch(std::size_t line, const PairedAgent& agent,
                                 const json::object& use) {
        Dispatch dispatch;
        dispatch.line = line;
        dispatch.agent = std::string(agent.name);
        if (const auto id = string_field(use, "id"); id && starts_with(*id, "toolu_"))
            dispatch.id = std::string(*id);
        return dispatch;
    }

    static VerdictLine new_verdict(std::size_t line, Verdict value, const json::object& record) {
        VerdictLine verdict;
        verdict.line = line;
        verdict.value = value;
        if (const auto stamp = string_field(record, "timestamp"))
            verdict.timestamp = parse_timestamp(*stamp);
        return verdict;
    }

    // A dispatch after the last plan write: kept when its agent is one the caller pairs (a
    // settle_later single reviewer's in its constant state, and only when `who` is all).
    void dispatched(std::size_t line, const json::object& use, const json::object& input,
                    std::string_view type, Who who) {
        const PairedAgent* agent = pairing_.agent(type);
        if (agent == nullptr) return;
        if (compact(*agent)) {
            if (who == Who::all) {
                SingleReviewer& single = singles_[slot(*agent)];
                single.last = new_dispatch(line, *agent, use);
                single.open = true;
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

    // The verdict of a line that is no dispatch: none on an async launch, which echoes the prompt
    // (and the prompt may well quote the verdict format).
    static std::optional<Verdict> verdict_value(std::string_view bytes, const json::value& parsed) {
        if (bytes.find(R"("status":"async_launched")") != std::string_view::npos)
            return std::nullopt;
        return first_verdict(parsed);
    }

    void verdict_line(std::size_t line, std::string_view bytes, const json::value& parsed,
                      Who who) {
        const auto value = verdict_value(bytes, parsed);
        if (!value) return;
        if (who == Who::all && request_.settle_later) {
            for (SingleReviewer& single : singles_) {
                if (!closes(single, bytes)) continue;
                single.open = false;
                single.pair_dispatch = single.last;
                single.pair_verdict = new_verdict(line, *value, parsed.get_object());
            }
        }
        pairing_.may_close(bytes, named_);
        if (!pairing_.verdict(named_)) return;
        VerdictLine verdict = new_verdict(line, *value, parsed.get_object());
        verdict.named_dispatches = named_;
        scan_.verdicts.push_back(std::move(verdict));
    }

    const Request request_;
    const fast::LineKernel kernel_;
    std::uint32_t kernel_needles_ = 0; // the needles the kernel looks for in this stretch
    const std::size_t buffer_size_;
    std::unique_ptr<char[]> buffer_;
    std::array<unsigned char, 16 * 1024> arena_; // uninitialised: untouched pages cost nothing
    Source* source_ = nullptr;
    char* data_ = nullptr;             // buffer_'s first cache-line boundary
    std::uint64_t buffer_offset_ = 0;  // file offset of data_[0], a multiple of read_alignment
    std::uint64_t line_start_ = 0;     // file offset of the current line's first byte
    bool line_dropped_ = false;        // the current line's start is no longer in the buffer
    std::uint64_t plans_searched_ = 0; // file offset: the line's `plans` before it are checked
    std::uint32_t hits_ = 0;           // needles found in the current line
    bool pending_entry_ = false;       // the last signal still waits for its EnterPlanMode
    bool failed_ = false;
    std::string long_line_;
    std::string read_back_; // a window line read again, to parse
    Blocks ahead_;          // window lines read again in line order (raw_line)
    Blocks behind_;         // ... and from the end back
    const std::size_t window_capacity_;
    std::vector<Deferred> window_;
    std::vector<SingleReviewer> singles_; // settle_later: per paired agent (single reviewers')
    Pairing pairing_;
    std::vector<std::size_t> named_; // reused: the kept dispatches a verdict line names
    Scan scan_;
};

// 64 KiB (os::read_size_for a file of unknown size): every page of the buffer is a fault on a
// short call, and larger reads gain little.
constexpr std::size_t default_buffer_size = os::read_size_for(std::nullopt);

Scan scan_source(std::unique_ptr<Source> source, const Request& request, std::size_t buffer_size,
                 fast::LineKernel kernel, std::size_t window_entries) {
    try {
        auto scanner = std::make_unique<Scanner>(request, kernel, buffer_size, window_entries);
        Scan scan = scanner->run(*source);
        if (scan.readable && scanner->pending())
            scan.pending = std::make_shared<PendingPairing>(std::move(source), std::move(scanner));
        return scan;
    } catch (...) {
        return Scan{};
    }
}

} // namespace

// The scanner of a settle_later scan, kept with its source until the caller settles.
class PendingPairing {
public:
    PendingPairing(std::unique_ptr<Source> source, std::unique_ptr<Scanner> scanner)
        : source_(std::move(source)), scanner_(std::move(scanner)) {}
    bool settle(Scan& scan, std::span<const PairedAgent> agents) {
        return scanner_->settle(scan, agents);
    }

private:
    std::unique_ptr<Source> source_; // read by scanner_
    std::unique_ptr<Scanner> scanner_;
};

// ---------------------------------------------------------------------------------------------
// Public functions

Scan scan_file(const std::string& path, const Request& request) {
    try {
        auto source = std::make_unique<FileSource>(path, request.byte_limit);
        if (!source->open()) return Scan{};
        const std::size_t buffer_size = os::read_size_for(source->size());
        return scan_source(std::move(source), request, buffer_size, detail::Kernel::best,
                           detail::default_pairing_window);
    } catch (...) {
        return Scan{};
    }
}

Scan scan_bytes(std::string_view bytes, const Request& request) {
    return detail::scan_bytes_with(bytes, request, default_buffer_size, detail::Kernel::best);
}

bool settle_pairing(Scan& scan, std::span<const PairedAgent> agents) {
    if (!scan.pending) return true;
    const std::shared_ptr<PendingPairing> pending = std::move(scan.pending);
    return pending->settle(scan, agents);
}

bool signal_owns_episode(const Scan& scan) {
    return (scan.last_signal != 0 && scan.last_signal > scan.episode_start) ||
           (scan.last_signal_entry != 0 && scan.last_signal_entry > scan.episode_start);
}

namespace detail {

std::string_view needle_text(Needle needle) {
    return needles.at(needle).text;
}

std::vector<std::uint32_t> line_hits(std::string_view bytes, Kernel kernel) {
    struct Collector {
        std::vector<std::uint32_t> lines{0};
        bool newline(std::size_t) {
            lines.push_back(0);
            return true;
        }
        void hit(std::size_t, unsigned needle) { lines.back() |= 1u << needle; }
    } collector;
    // Zeros before (the kernels' look-behind) and after (their over-read).
    std::string padded(look_behind, '\0');
    padded.append(bytes);
    padded.append(buffer_padding, '\0');
    run_kernel(fast::resolve(kernel), all_needles, padded.data() + look_behind, 0, bytes.size(),
               collector);
    // The last entry is the line after the final newline; it exists only when it holds bytes.
    if (bytes.empty() || bytes.back() == '\n') collector.lines.pop_back();
    return collector.lines;
}

Scan scan_bytes_with(std::string_view bytes, const Request& request, std::size_t buffer_size,
                     Kernel kernel) {
    try {
        return scan_source(std::make_unique<MemorySource>(bytes), request, buffer_size, kernel,
                           default_pairing_window);
    } catch (...) {
        return Scan{};
    }
}

Scan scan_bytes_with_window(std::string_view bytes, const Request& request,
                            std::size_t window_entries) {
    try {
        return scan_source(std::make_unique<MemorySource>(bytes), request, default_buffer_size,
                           Kernel::best, window_entries);
    } catch (...) {
        return Scan{};
    }
}

} // namespace detail

} // namespace viber::transcript
