// transcript.cpp: the streaming transcript scanner (docs/transcript.md) and the shared definitions
// it applies.
//
// One pass: read() into a reused buffer, a fused prefilter kernel that finds newlines and every
// needle at once, and Boost.JSON only for the few lines whose needles matter in the current state.
// A line that is not a candidate is never held whole: only its start offset is kept, and a
// candidate that outgrew the buffer is read again with pread() when it ends. After the last plan
// write, a line only pairing can want waits unparsed in a bounded window (its place, not its
// bytes) until the caller says which reviewer decides.
#include "common/transcript.hpp"

#include "common/cpu.hpp"
#include "common/files.hpp"
#include "common/os.hpp"
#include "common/payload.hpp"
#include "common/simd.hpp"

#include <algorithm>
#include <array>
#include <bit>
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

namespace {

// ---------------------------------------------------------------------------------------------
// The prefilter

// Each needle is found by two of its bytes, chosen to be rare in transcripts (an uppercase letter,
// `_`, `-`, `>`, or a pair rare together), compared a whole vector of positions at a time (16 with
// SSE2, 32 with AVX2, 64 with AVX-512BW); a memcmp then confirms the match. A vector kernel looks
// for the first probe byte at each position itself, so every needle shares that one load (with
// the newline compare), and for the second `second - first` bytes on: adjacent probe bytes share
// the second load too. Unaligned loads, more than compares, are what a block costs.
struct NeedleSpec {
    std::string_view text;
    unsigned first;  // offset of the first probe byte
    unsigned second; // offset of the second probe byte, after the first
};

constexpr std::array<NeedleSpec, detail::needle_count> needles{{
    {"permission-mode", 10, 11}, // "-m"
    {"permissionMode", 9, 10},   // "nM"
    {"\"Skill\"", 1, 2},         // "Sk"
    {"EnterPlanMode", 4, 5},     // "rP"
    {"\"content\":\"", 7, 8},    // "t\""
    {"file_path", 0, 4},         // 'f' ... '_' (shares the load of `plans` and `subagent_type`)
    {"subagent_type", 4, 8},     // 'g' ... '_' ("_t" opens tool_use_id and *_tokens)
    {"VERDICT:", 0, 1},          // "VE"
    {"<command-message>viber:", 16, 17}, // ">v"
    {"plans", 0, 4},                     // 'p' ... 's' (no pair of adjacent bytes is rare)
    {"plan_mode_exit", 9, 11},           // '_' ... 'x'
}};

// A vector kernel confirms a needle this many bytes before the position it found: the buffer keeps
// that much before its first unscanned byte, zero where no data is.
constexpr std::size_t look_behind = [] {
    std::size_t most = 0;
    for (const auto& n : needles) most = n.first > most ? n.first : most;
    return most;
}();
static_assert([] {
    for (const auto& n : needles)
        if (n.second <= n.first || n.second >= n.text.size()) return false;
    return true;
}());

constexpr std::size_t longest_needle = [] {
    std::size_t longest = 0;
    for (const auto& n : needles) longest = n.text.size() > longest ? n.text.size() : longest;
    return longest;
}();

// Bytes past the data that the kernels may read: the widest probe offset plus one 64-byte vector,
// and a full needle for the confirming memcmp. They are zero, and no needle holds a zero byte.
constexpr std::size_t buffer_padding = 128;
static_assert(buffer_padding >= 16 + 64 + longest_needle);
// A buffer index and the file offset it holds are equal modulo this (a cache line).
constexpr std::size_t read_alignment = 64;

inline bool confirm(const char* at, std::size_t needle) {
    const auto& text = needles[needle].text;
    return std::memcmp(at, text.data(), text.size()) == 0;
}

// Scans positions [from, to) of `data` (readable up to to + buffer_padding) and reports, in
// position order, every newline (sink.newline(i)) and every start of a needle in `Mask`
// (sink.hit(i, needle)). sink.newline returns false when the needles it wants change after that
// line: the kernel then stops and returns the position after the newline, else it returns `to`.
// The portable kernel: a table from a byte to the needles that open with it keeps the per-byte
// work to one lookup on the common path.
template <std::uint32_t Mask, class Sink>
std::size_t kernel_scalar(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    std::array<std::uint32_t, 256> opens{};
    for (std::size_t k = 0; k < needles.size(); ++k) {
        if ((Mask >> k) & 1u) opens[static_cast<unsigned char>(needles[k].text[0])] |= 1u << k;
    }
    for (std::size_t i = from; i < to; ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if (c == '\n') {
            if (!sink.newline(i)) return i + 1;
            continue;
        }
        for (std::uint32_t maybe = opens[c]; maybe != 0; maybe &= maybe - 1) {
            const auto k = static_cast<unsigned>(__builtin_ctz(maybe));
            if (confirm(data + i, k)) sink.hit(i, k);
        }
    }
    return to;
}

// The vector types of the wider kernels pass only between functions flattened into one, so their
// calling convention never matters.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// A block of positions where the vector kernel found events, as `V::bits` gives them: every event,
// the newlines, and each wanted needle's probe matches.
struct EventBlock {
    std::size_t block;
    std::uint64_t events;
    std::uint64_t newlines;
    std::uint64_t per_needle[detail::needle_count];
};

// The vector kernel hands its event blocks to the sink this many at a time: no vector register
// survives a call, so each call out of the loop saves and reloads every pinned splat, and a
// transcript has an event (a newline at least) in most blocks of a short line.
constexpr std::size_t event_batch = 16;
// handle_events() when every event was handled.
constexpr std::size_t events_handled = static_cast<std::size_t>(-1);

// Hands the events of `count` event blocks to the sink in position order: sink.newline(i) for a
// newline, sink.hit(i, needle) for a needle its memcmp confirms. Returns events_handled, or the
// position after a newline for which sink.newline returned false (the events after it are left).
// Out of line and in general-purpose registers: the vector loop stays small, and calls into the
// sink are made with no vector register live.
template <std::uint32_t Mask, unsigned per_byte, class Sink>
[[gnu::noinline]] std::size_t handle_events(const char* data, const EventBlock* blocks,
                                            std::size_t count, Sink& sink) {
    constexpr std::uint64_t lane_ones = (std::uint64_t{1} << per_byte) - 1;
    constexpr auto wanted = [](std::size_t k) { return ((Mask >> k) & 1u) != 0; };
    for (std::size_t b = 0; b < count; ++b) {
        const EventBlock& found = blocks[b];
        std::uint64_t events = found.events;
        while (events != 0) {
            const auto bit = static_cast<unsigned>(__builtin_ctzll(events));
            const unsigned lane = bit / per_byte;
            events &= ~(lane_ones << (lane * per_byte));
            const std::size_t pos = found.block + lane;
            if ((found.newlines >> bit) & 1u) {
                if (!sink.newline(pos)) return pos + 1;
                continue;
            }
            // Unrolled, so each confirming memcmp has a constant size and is inlined.
#pragma GCC unroll 16
            for (std::size_t k = 0; k < needles.size(); ++k) {
                if (wanted(k) && ((found.per_needle[k] >> bit) & 1u) &&
                    confirm(data + pos - needles[k].first, k))
                    sink.hit(pos - needles[k].first, static_cast<unsigned>(k));
            }
        }
    }
    return events_handled;
}

// The vector kernel, one template over the vector width `V` (common/simd.hpp): splats of the probe
// bytes, pinned so that none is rebuilt inside the loop, compared with unaligned loads; `bits`
// turns a compare result into a 64-bit mask of `bits_per_byte` set bits per matching position.
// Only the needles in `Mask` are looked for: a hook never pays for a needle it cannot want.
// Positions are those of the first probe byte: the kernel reads `look_behind` bytes before `from`.
// Blocks with events are gathered and handed on event_batch at a time (handle_events); a sink
// that stops the kernel at a newline leaves the blocks gathered after it to the next call.
template <class V, std::uint32_t Mask, class Sink>
inline std::size_t kernel_vector(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    using Bytes = typename V::Bytes;
    using Lanes = typename V::Lanes;
    constexpr std::size_t width = V::width;
    constexpr unsigned per_byte = V::bits_per_byte;
    const Bytes newline = V::pin(V::splat('\n'));
    constexpr auto wanted = [](std::size_t k) { return ((Mask >> k) & 1u) != 0; };
    Bytes first_byte[detail::needle_count];
    Bytes second_byte[detail::needle_count];
    // Only the needles looked for: a pinned splat is never dropped, and a short call (one line
    // searched for one needle) would pay for them all.
#pragma GCC unroll 16
    for (std::size_t k = 0; k < needles.size(); ++k) {
        if (!wanted(k)) continue;
        first_byte[k] = V::pin(V::splat(needles[k].text[needles[k].first]));
        second_byte[k] = V::pin(V::splat(needles[k].text[needles[k].second]));
    }
    EventBlock gathered[event_batch];
    std::size_t count = 0;
    for (std::size_t block = from; block < to; block += width) {
        const char* at = data + block;
        Lanes match[detail::needle_count];
        const Bytes head = V::load(at);
        Lanes any = V::eq(head, newline); // newlines count as events too
        const Lanes newline_lanes = any;
        // Unrolled, every probe offset and byte is a constant and shared loads are merged.
#pragma GCC unroll 16
        for (std::size_t k = 0; k < needles.size(); ++k) {
            if (!wanted(k)) continue;
            match[k] = V::both(
                V::eq(head, first_byte[k]),
                V::eq(V::load(at + (needles[k].second - needles[k].first)), second_byte[k]));
            any = V::either(any, match[k]);
        }
        if (V::none(any)) continue;
        EventBlock& found = gathered[count++];
        found.block = block;
        found.events = V::bits(any);
        if (to - block < width) found.events &= (std::uint64_t{1} << ((to - block) * per_byte)) - 1;
        found.newlines = V::bits(newline_lanes);
#pragma GCC unroll 16
        for (std::size_t k = 0; k < needles.size(); ++k)
            if (wanted(k)) found.per_needle[k] = V::bits(match[k]);
        if (count == event_batch) {
            V::leave();
            const std::size_t stop = handle_events<Mask, per_byte>(data, gathered, count, sink);
            if (stop != events_handled) return stop;
            count = 0;
        }
    }
    V::leave();
    const std::size_t stop = handle_events<Mask, per_byte>(data, gathered, count, sink);
    return stop != events_handled ? stop : to;
}

#if VIBER_SIMD_X86
// x86-64 only: SSE2 is in every x86-64 CPU; AVX2 and AVX-512BW are chosen at run time. Each kernel
// entry is flattened so the template and the operations (common/simd.hpp) are compiled into one
// function for that target (the sink's end of line is kept out of line, see Scanner::end_line).
template <std::uint32_t Mask, class Sink>
__attribute__((flatten)) std::size_t kernel_sse2(const char* data, std::size_t from, std::size_t to,
                                                 Sink& sink) {
    return kernel_vector<simd::Sse2, Mask>(data, from, to, sink);
}
#if VIBER_SIMD_WIDE
template <std::uint32_t Mask, class Sink>
__attribute__((target("avx2"), flatten)) std::size_t kernel_avx2(const char* data, std::size_t from,
                                                                 std::size_t to, Sink& sink) {
    return kernel_vector<simd::Avx2, Mask>(data, from, to, sink);
}
template <std::uint32_t Mask, class Sink>
__attribute__((target("avx512f,avx512bw"), flatten)) std::size_t
kernel_avx512(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    return kernel_vector<simd::Avx512, Mask>(data, from, to, sink);
}
#endif
#endif

#if VIBER_SIMD_NEON
// NEON is in every aarch64 CPU.
template <std::uint32_t Mask, class Sink>
__attribute__((flatten)) std::size_t kernel_neon(const char* data, std::size_t from, std::size_t to,
                                                 Sink& sink) {
    return kernel_vector<simd::Neon, Mask>(data, from, to, sink);
}
#endif

detail::Kernel resolve(detail::Kernel kernel) {
    if (kernel != detail::Kernel::best && detail::kernel_supported(kernel)) return kernel;
    if (detail::kernel_supported(detail::Kernel::avx512)) return detail::Kernel::avx512;
    if (detail::kernel_supported(detail::Kernel::avx2)) return detail::Kernel::avx2;
    if (detail::kernel_supported(detail::Kernel::sse2)) return detail::Kernel::sse2;
    if (detail::kernel_supported(detail::Kernel::neon)) return detail::Kernel::neon;
    return detail::Kernel::scalar;
}

template <std::uint32_t Mask, class Sink>
std::size_t run_kernel_for(detail::Kernel kernel, const char* data, std::size_t from,
                           std::size_t to, Sink& sink) {
    switch (kernel) {
#if VIBER_SIMD_WIDE
    case detail::Kernel::avx512:
        return kernel_avx512<Mask>(data, from, to, sink);
    case detail::Kernel::avx2:
        return kernel_avx2<Mask>(data, from, to, sink);
#endif
#if VIBER_SIMD_X86
    case detail::Kernel::sse2:
        return kernel_sse2<Mask>(data, from, to, sink);
#endif
#if VIBER_SIMD_NEON
    case detail::Kernel::neon:
        return kernel_neon<Mask>(data, from, to, sink);
#endif
    default:
        return kernel_scalar<Mask>(data, from, to, sink);
    }
}

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
constexpr std::uint32_t dispatch_needles = needle_bit(detail::needle_subagent_type);
constexpr std::uint32_t verdict_needles = needle_bit(detail::needle_verdict);
constexpr std::uint32_t all_needles = (1u << detail::needle_count) - 1;

constexpr std::uint32_t hints_set = always_wanted | chain_needles;
constexpr std::uint32_t gate_set = always_wanted | plan_write_needles;
constexpr std::uint32_t gate_dispatch_set = gate_set | dispatch_needles;
constexpr std::uint32_t gate_verdict_set = gate_dispatch_set | verdict_needles;

// Runs the kernel compiled for the first of `Sets` that holds `wanted` (all needles when none
// does); returns what the kernel returns.
template <std::uint32_t... Sets, class Sink>
std::size_t run_kernel_in(detail::Kernel kernel, std::uint32_t wanted, const char* data,
                          std::size_t from, std::size_t to, Sink& sink) {
    std::size_t next = to;
    const bool ran = (((wanted & ~Sets) == 0 &&
                       (next = run_kernel_for<Sets>(kernel, data, from, to, sink), true)) ||
                      ...);
    return ran ? next : run_kernel_for<all_needles>(kernel, data, from, to, sink);
}

template <class Sink>
std::size_t run_kernel(detail::Kernel kernel, std::uint32_t wanted, const char* data,
                       std::size_t from, std::size_t to, Sink& sink) {
    return run_kernel_in<hints_set, hints_set | entry_needles, gate_set, gate_set | entry_needles,
                         gate_dispatch_set, gate_dispatch_set | entry_needles, gate_verdict_set,
                         gate_verdict_set | entry_needles>(kernel, wanted, data, from, to, sink);
}
#pragma GCC diagnostic pop

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

// ---------------------------------------------------------------------------------------------
// The shared definitions, on parsed lines

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool is_skill_signal(std::string_view skill, Signals signals) {
    if (starts_with(skill, "viber:")) skill.remove_prefix(6);
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
    return starts_with(content, "<command-message>viber:intent</command-message>") ||
           starts_with(content, "<command-message>viber:fixer</command-message>");
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

bool is_token_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// Calls visit(token) for each `toolu_` token of `line` (see toolu_tokens), in one pass.
template <class Visit> void for_each_toolu_token(std::string_view line, Visit visit) {
    constexpr std::string_view prefix = "toolu_";
    std::size_t at = line.find(prefix);
    while (at != std::string_view::npos) {
        std::size_t end = at + prefix.size();
        while (end < line.size() && is_token_byte(line[end])) ++end;
        visit(line.substr(at, end - at));
        // A token holds no other `toolu_` start worth a lookup of its own: a longer token
        // containing one is another id.
        at = line.find(prefix, end);
    }
}

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
        : agents_(agents), latest_(agents.size(), none), waiting_(agents.size(), false) {}

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
            if (members_only && candidate.rule != PairRule::review_set) continue;
            if (raw.find(candidate.name) != std::string_view::npos) return true;
        }
        return false;
    }

    void restart() { *this = Pairing(agents_); }

    // A kept dispatch, appended to `dispatches` by the caller at index `index`.
    void dispatched(const PairedAgent& agent, std::size_t index, const std::string& id) {
        const std::size_t slot = static_cast<std::size_t>(&agent - agents_.data());
        closable_.push_back(!id.empty());
        rule_.push_back(agent.rule);
        same_id_before_.push_back(none);
        if (!id.empty()) {
            auto [it, fresh] = by_id_.try_emplace(id, index);
            if (!fresh) same_id_before_.back() = std::exchange(it->second, index);
        }
        if (agent.rule == PairRule::single_reviewer) {
            // A dispatch replaces the open one of its agent, which can then never close.
            if (latest_[slot] != none) closable_[latest_[slot]] = false;
            latest_[slot] = index;
            waiting_[slot] = id.empty();
        } else if (id.empty()) {
            ++id_less_members_;
        }
    }

    // The kept dispatches a raw line names, sorted, into `named`; true when the line may close one
    // of them, or an id-less dispatch, so that it is worth parsing.
    bool may_close(std::string_view raw, std::vector<std::size_t>& named) const {
        named.clear();
        if (closable_.empty()) return false;
        names(raw, named);
        if (id_less_members_ > 0 ||
            std::find(waiting_.begin(), waiting_.end(), true) != waiting_.end())
            return true;
        return std::any_of(named.begin(), named.end(), [&](std::size_t i) { return closable_[i]; });
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
            if (rule_[i] != PairRule::review_set) continue;
            names_member = true;
            if (closable_[i] && earliest_member == none) earliest_member = i; // `named` is sorted
        }
        if (earliest_member != none) {
            closable_[earliest_member] = false;
            keep = true;
        }
        for (std::size_t slot = 0; slot < latest_.size(); ++slot) {
            const std::size_t open = latest_[slot];
            if (open != none && closable_[open] &&
                std::binary_search(named.begin(), named.end(), open)) {
                closable_[open] = false;
                keep = true;
            }
            // The verdict line after an id-less dispatch closes it, whatever it names.
            if (waiting_[slot]) {
                waiting_[slot] = false;
                keep = true;
            }
        }
        if (!names_member && id_less_members_ > 0) {
            --id_less_members_;
            keep = true;
        }
        return keep;
    }

private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::span<const PairedAgent> agents_;
    std::vector<std::size_t> latest_; // per single-reviewer agent: its latest dispatch
    std::vector<bool> waiting_;       // ... which has no id and no verdict line after it yet
    std::size_t id_less_members_ = 0; // id-less review-set dispatches not yet consumed
    std::vector<bool> closable_;      // per kept dispatch: has an id and may still close
    std::vector<PairRule> rule_;      // per kept dispatch
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
    Scanner(const Request& request, detail::Kernel kernel, std::size_t buffer_size,
            std::size_t window_entries)
        : request_(request), kernel_(resolve(kernel)),
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

    // The index of the last `"` in text[from, to), or npos: 8 bytes at a time back from `to` (the
    // string around a `plans` mostly opens a path's length before it). In general-purpose
    // registers, whatever state the vector registers are in when a kernel's events reach it: a
    // legacy SSE instruction while a kernel's wide registers are dirty costs a state transition
    // each time, which once made this search slower than the whole kernel.
    static std::size_t last_quote(const char* text, std::size_t from, std::size_t to) {
        if constexpr (std::endian::native == std::endian::little) {
            constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
            for (; to - from >= 8; to -= 8) {
                std::uint64_t word;
                std::memcpy(&word, text + to - 8, 8);
                word ^= 0x2222222222222222ull; // a quote becomes a zero byte
                // The high bit of each byte that is zero, exactly (no carry crosses a byte).
                const std::uint64_t zero = ~(((word & low7) + low7) | word | low7);
                if (zero != 0)
                    return to - 8 + (63 - static_cast<unsigned>(__builtin_clzll(zero))) / 8;
            }
        }
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
                os::reserve_on_huge_pages(window_, window_capacity_);
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
    const detail::Kernel kernel_;
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
                 detail::Kernel kernel, std::size_t window_entries) {
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
        std::optional<Verdict> value;
        const std::string_view rest = text.substr(i);
        if (starts_with(rest, "PASS")) {
            value = Verdict::pass;
            i += 4;
        } else if (starts_with(rest, "FAIL")) {
            value = Verdict::fail;
            i += 4;
        } else if (starts_with(rest, "DENIED")) {
            value = Verdict::denied;
            i += 6;
        } else {
            continue;
        }
        if (i < text.size() && text[i] == '`') ++i;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
        if (i == text.size() || text[i] == '\n' || text[i] == '<') return value;
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

namespace detail {

bool kernel_supported(Kernel kernel) {
    switch (kernel) {
    case Kernel::scalar:
    case Kernel::best:
        return true;
    case Kernel::sse2:
        return VIBER_SIMD_X86 != 0;
    case Kernel::neon:
        return VIBER_SIMD_NEON != 0;
    case Kernel::avx2:
#if VIBER_SIMD_WIDE
        return cpu::has_avx2();
#else
        return false;
#endif
    case Kernel::avx512:
#if VIBER_SIMD_WIDE
        return cpu::has_avx512bw();
#else
        return false;
#endif
    }
    return false;
}

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
    run_kernel(resolve(kernel), all_needles, padded.data() + look_behind, 0, bytes.size(),
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
