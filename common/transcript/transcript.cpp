// transcript.cpp: the streaming transcript scanner (docs/transcript.md): the scan loop, the
// episode and the planner's entry wait. What it reads and searches for is in
// transcript_reading.hpp, the line kinds it applies in transcript_lines.hpp, the kernels in
// common/fast/; the dispatch and verdict candidates go to the caller's pairing
// (transcript_candidates.hpp; plan-gate's pairing window).
//
// One pass: read() into a reused buffer, a fused prefilter kernel that finds newlines and every
// needle at once, and Boost.JSON only for the few lines whose needles matter in the current state.
// A line that is not a candidate is never held whole: only its start offset is kept, and a
// candidate that outgrew the buffer is read again with pread() when it ends. After the last plan
// write, a line only pairing can want waits unparsed in a bounded window (its place, not its
// bytes) until the caller says which reviewer decides.
#include "common/transcript/transcript.hpp"

#include "common/fast/buffer.hpp"
#include "common/fast/line_scan.hpp"
#include "common/io/files.hpp"
#include "common/io/payload.hpp"
#include "common/os/os.hpp"
#include "common/transcript/transcript_candidates.hpp"
#include "common/transcript/transcript_lines.hpp"
#include "common/transcript/transcript_reading.hpp"

#include <algorithm>
#include <array>
#include <boost/json/monotonic_resource.hpp>
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
constexpr std::uint32_t pairing_needles = needle_bit(detail::needle_subagent_type) |
                                          needle_bit(detail::needle_verdict) |
                                          needle_bit(detail::needle_tool_error);

class Scanner {
public:
    Scanner(const Request& request, fast::Kernel kernel, std::size_t buffer_size,
            std::size_t window_entries)
        : request_(request), kernel_(fast::resolve(kernel, fast::line_kernels)),
          buffer_size_(buffer_size < 64 ? 64 : buffer_size),
          window_(request_.pairing != nullptr
                      ? request_.pairing(request_, scan_, arena_, buffer_size_, window_entries)
                      : nullptr) {}

    Scan run(Source& source) {
        // Zeros before the data for the kernels' look-behind, then room to align the data. The
        // rest is left as it is: a page of it the reads never reach is never touched.
        buffer_.reset(new char[look_behind + 2 * read_alignment + buffer_size_ + buffer_padding]);
        source_ = &source;
        if (window_) window_->reads_from(source);
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
                if (got < 0) return Scan{};
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
            if (failed_) return Scan{};
            if (at_end) {
                if (buffer_offset_ + filled > line_start_) end_line(filled);
                if (!failed_ && !request_.settle_later && window_ && !window_->absorb_all())
                    failed_ = true;
                if (failed_) return Scan{};
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

    // True when a settle_later scan has pairing left to settle (PairingWindow::pending).
    bool pending() const { return window_ && window_->pending(); }

    // settle_pairing() for the scan this scanner returned.
    bool settle(Scan& scan, std::span<const PairedAgent> agents) {
        scan_ = std::move(scan);
        const bool settled = !window_ || window_->settle(agents);
        scan = std::move(scan_);
        return settled;
    }

private:
    // The needles that can change anything in the current state.
    std::uint32_t wanted() const {
        std::uint32_t mask = always_wanted;
        if (pending_entry_) mask |= entry_needles;
        if (request_.signals == Signals::planner_chain) mask |= chain_needles;
        if (request_.plan_writes) {
            mask |= plan_write_needles;
            // Verdict lines matter only once a kept dispatch could be closed by one: whether one
            // is kept is known only when the window is paired (worth_pairing checks it there).
            if (scan_.last_plan_write && window_ && !request_.paired_agents.empty())
                mask |= pairing_needles;
        }
        return mask;
    }

    // Drops needles whose lines cannot matter, from the raw bytes alone (no parse): `plans` on a
    // line without a file_path, a dispatch naming no paired agent, a verdict line that can close
    // no kept dispatch. `held` is a long line read again (not in the buffer).
    // A line held whole in the buffer kept `plans` only where it lies in a file_path's value
    // (plans_in_file_path); a long line read again may have kept it on less, and keeps it only
    // when it holds a file_path at all.
    std::uint32_t worth_parsing(std::uint32_t relevant, std::string_view held) {
        if ((relevant & plans_bit) != 0 &&
            held.find(needles[detail::needle_file_path].text) == std::string_view::npos)
            relevant &= ~plans_bit;
        return window_ ? window_->worth_pairing(relevant, held) : relevant;
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
        if (relevant != 0 && (relevant & ~pairing_needles) == 0 && !pending_entry_) {
            // Only pairing can want this line: its place is kept, its bytes are not parsed now.
            if (!window_->defer(line, line_start_, length, relevant)) failed_ = true;
            relevant = 0;
        } else if ((relevant & pairing_needles) != 0) {
            // A line parsed now that pairing also reads: the lines before it are paired first.
            if (!window_->absorb_all()) {
                failed_ = true;
                return;
            }
        }
        if (relevant != 0 && !line_dropped_ && window_)
            relevant = window_->worth_pairing(relevant, held);
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
        for_each_content_object(record, [&](const json::object& use) {
            if (string_field(use, "type") == "tool_use")
                tool_use(line, use, plan_write_here, dispatch_here, signal_here, entry_here);
        });

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
            window_->verdict_line(line, bytes, parsed);
        }
        if ((relevant & (1u << detail::needle_tool_error)) && scan_.last_plan_write &&
            !plan_write_here)
            window_->tool_errors(line, record);
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
                scan_.failed_dispatches.clear();
                if (window_) window_->restart();
                plan_write_here = true;
            }
        } else if (request_.plan_writes && scan_.last_plan_write) {
            // Any dispatch makes its line a dispatch, never a verdict line.
            if (const auto type = dispatch_type(use)) {
                dispatch_here = true;
                if (window_) window_->dispatched(line, use, *input, *type);
            }
        }
    }

    const Request request_;
    const fast::Kernel kernel_;
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
    Scan scan_;
    // The caller's pairing (Request::pairing), which fills scan_ with the kept dispatches and
    // verdict lines; nullptr when nothing is paired.
    std::unique_ptr<Candidates> window_;
};

// 64 KiB (os::read_size_for a file of unknown size): every page of the buffer is a fault on a
// short call, and larger reads gain little.
constexpr std::size_t default_buffer_size = os::read_size_for(std::nullopt);

Scan scan_source(std::unique_ptr<Source> source, const Request& request, std::size_t buffer_size,
                 fast::Kernel kernel, std::size_t window_entries) {
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
    run_kernel(fast::resolve(kernel, fast::line_kernels), all_needles, padded.data() + look_behind,
               0, bytes.size(), collector);
    // The last entry is the line after the final newline; it exists only when it holds bytes.
    if (bytes.empty() || bytes.back() == '\n') collector.lines.pop_back();
    return collector.lines;
}

Scan scan_bytes_with(std::string_view bytes, const Request& request, std::size_t buffer_size,
                     Kernel kernel, std::size_t window_entries) {
    try {
        return scan_source(std::make_unique<MemorySource>(bytes), request, buffer_size, kernel,
                           window_entries);
    } catch (...) {
        return Scan{};
    }
}

Scan scan_bytes_with_window(std::string_view bytes, const Request& request,
                            std::size_t window_entries) {
    return scan_bytes_with(bytes, request, default_buffer_size, Kernel::best, window_entries);
}

} // namespace detail

} // namespace viber::transcript
