// transcript_reading.hpp: where the transcript scanner's bytes come from and how they are
// searched: the needles that tell its line kinds apart, the sets of them each state wants, and
// the sources it reads (a file, or memory for tests). Included by the transcript's sources and
// plan-gate's pairing window.
#pragma once

#include "common/fast/line_scan.hpp"
#include "common/os/os.hpp"
#include "common/transcript/transcript.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace viber::transcript::internal {

// ---------------------------------------------------------------------------------------------
// The prefilter

// The needles the line kinds are told apart by, each found by two of its bytes (fast/line_scan.hpp)
// chosen to be rare in transcripts (an uppercase letter, `_`, `-`, `>`, or a pair rare together).
constexpr std::array<fast::LineNeedle, detail::needle_count> needles{{
    {"permission-mode", 10, 11}, // "-m"
    {"permissionMode", 9, 10},   // "nM"
    {"\"Skill\"", 1, 2},         // "Sk"
    {"EnterPlanMode", 4, 5},     // "rP"
    {"\"content\":\"", 7, 8},    // "t\""
    {"file_path", 0, 4},         // 'f' ... '_' (shares the load of `plans` and `subagent_type`)
    {"subagent_type", 4, 8},     // 'g' ... '_' ("_t" opens tool_use_id and *_tokens)
    {"VERDICT:", 0, 1},          // "VE"
    {"\"is_error\":true", 3, 4}, // "_e"
    {"<command-message>viber:", 16, 17}, // ">v"
    {"plans", 0, 4},                     // 'p' ... 's' (no pair of adjacent bytes is rare)
    {"plan_mode_exit", 9, 11},           // '_' ... 'x'
}};
static_assert([] {
    for (const auto& n : needles)
        if (n.second <= n.first || n.second >= n.text.size()) return false;
    return true;
}());

// The read buffer keeps this much before its first unscanned byte and after its last byte, zero
// where no data is (the line scan's buffer contract).
constexpr std::size_t look_behind = fast::look_behind_of(needles);
constexpr std::size_t buffer_padding = fast::line_scan_padding(needles);
constexpr std::size_t longest_needle = [] {
    std::size_t longest = 0;
    for (const auto& n : needles) longest = n.text.size() > longest ? n.text.size() : longest;
    return longest;
}();
// A buffer index and the file offset it holds are equal modulo this (a cache line).
constexpr std::size_t read_alignment = 64;

constexpr std::uint32_t needle_bit(detail::Needle needle) {
    return 1u << needle;
}

// The needles a scan wants in one state (Scanner::wanted), in groups: the kernel is compiled for
// each set the two hooks go through, so a line is searched only for what can change something
// after the lines before it (plan-hints never for a plan write, a dispatch or a verdict; plan-gate
// never for a typed chain command, and for neither dispatches nor verdicts before a plan write).
// A typed prompt's top-level permissionMode and a plan_mode_exit attachment can start the episode
// (Claude Code 2.1 writes them where older versions wrote permission-mode records).
constexpr std::uint32_t always_wanted =
    needle_bit(detail::needle_permission_mode_type) | needle_bit(detail::needle_skill) |
    needle_bit(detail::needle_permission_mode_key) | needle_bit(detail::needle_plan_mode_exit);
constexpr std::uint32_t entry_needles = needle_bit(detail::needle_permission_mode_key) |
                                        needle_bit(detail::needle_enter_plan_mode) |
                                        needle_bit(detail::needle_string_content);
constexpr std::uint32_t chain_needles = needle_bit(detail::needle_command_message);
// A plan write's line holds both `file_path` and `plans` (in its path). The kernel looks for
// `plans`, much the rarer (every Read, Write and Edit carries a file_path, and each needle looked
// for costs every block of every transcript two compares); Scanner::plans_in_file_path keeps one
// only when it lies in the value of a "file_path" key.
constexpr std::uint32_t plan_write_needles = needle_bit(detail::needle_plans);
// A dispatch, and the error result that undoes one.
constexpr std::uint32_t dispatch_needles =
    needle_bit(detail::needle_subagent_type) | needle_bit(detail::needle_tool_error);
constexpr std::uint32_t verdict_needles = needle_bit(detail::needle_verdict);
constexpr std::uint32_t all_needles = (1u << detail::needle_count) - 1;

constexpr std::uint32_t hints_set = always_wanted | chain_needles;
constexpr std::uint32_t gate_set = always_wanted | plan_write_needles;
constexpr std::uint32_t gate_dispatch_set = gate_set | dispatch_needles;
constexpr std::uint32_t gate_verdict_set = gate_dispatch_set | verdict_needles;

// Runs the kernel compiled for the first of `Sets` that holds `wanted` (all needles when none
// does); returns what the kernel returns.
template <std::uint32_t... Sets, class Sink>
std::size_t run_kernel_in(fast::Kernel kernel, std::uint32_t wanted, const char* data,
                          std::size_t from, std::size_t to, Sink& sink) {
    std::size_t next = to;
    const bool ran =
        (((wanted & ~Sets) == 0 &&
          (next = fast::scan_lines<needles, Sets>(kernel, data, from, to, sink), true)) ||
         ...);
    return ran ? next : fast::scan_lines<needles, all_needles>(kernel, data, from, to, sink);
}

template <class Sink>
std::size_t run_kernel(fast::Kernel kernel, std::uint32_t wanted, const char* data,
                       std::size_t from, std::size_t to, Sink& sink) {
    return run_kernel_in<hints_set, hints_set | entry_needles, gate_set, gate_set | entry_needles,
                         gate_dispatch_set, gate_dispatch_set | entry_needles, gate_verdict_set,
                         gate_verdict_set | entry_needles>(kernel, wanted, data, from, to, sink);
}

// ---------------------------------------------------------------------------------------------
// Reading

// Where the bytes come from: a file descriptor, or memory for tests.
class Source {
public:
    virtual ~Source() = default;
    // Like read(2): bytes read, 0 at the end, -1 on error.
    virtual long read_some(char* into, std::size_t size) = 0;
    // Reads exactly `size` bytes at `offset` into `into`; false on error.
    virtual bool read_at(std::string& into, std::uint64_t offset, std::size_t size) = 0;
};

// Every file call of the scanner is in this class (open, read, pread, close), so another OS
// layer replaces this one class.
class FileSource final : public Source {
public:
    // Opens `path` only when it is a regular file (never blocking on a FIFO); open() says.
    // A non-zero `limit` reads only the file's first `limit` bytes (Request::byte_limit).
    explicit FileSource(const std::string& path, std::uint64_t limit = 0)
        : file_(os::File::open_regular(path)), left_(limit), limited_(limit != 0) {}
    bool open() const { return static_cast<bool>(file_); }
    long read_some(char* into, std::size_t size) override {
        if (!limited_) return file_.read_some(into, size);
        if (left_ < size) size = static_cast<std::size_t>(left_);
        if (size == 0) return 0;
        const long got = file_.read_some(into, size);
        if (got > 0) left_ -= static_cast<std::uint64_t>(got);
        return got;
    }
    bool read_at(std::string& into, std::uint64_t offset, std::size_t size) override {
        into.resize(size);
        return file_.read_exact_at(into.data(), size, offset);
    }
    std::optional<std::uint64_t> size() const {
        const std::optional<std::uint64_t> whole = file_.size();
        if (!limited_ || !whole) return whole;
        return std::min(*whole, left_);
    }

private:
    os::File file_;
    std::uint64_t left_ = 0;
    bool limited_ = false;
};

class MemorySource final : public Source {
public:
    explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
    long read_some(char* into, std::size_t size) override {
        const std::size_t n = std::min(size, bytes_.size() - next_);
        std::memcpy(into, bytes_.data() + next_, n);
        next_ += n;
        return static_cast<long>(n);
    }
    bool read_at(std::string& into, std::uint64_t offset, std::size_t size) override {
        if (offset > bytes_.size() || size > bytes_.size() - offset) return false;
        into.assign(bytes_.data() + offset, size);
        return true;
    }

private:
    std::string_view bytes_;
    std::size_t next_ = 0;
};

} // namespace viber::transcript::internal
