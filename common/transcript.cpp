// transcript.cpp: the streaming transcript scanner of SPEC §3 and the shared definitions it applies.
//
// One pass: read() into a reused buffer, a fused prefilter kernel that finds newlines and every
// needle at once, and Boost.JSON only for the few lines whose needles matter in the current state.
// A line that is not a candidate is never held whole: only its start offset is kept, and a
// candidate that outgrew the buffer is read again with pread() when it ends.
#include "common/transcript.hpp"

#include "common/files.hpp"
#include "common/os.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define VIBER_HAVE_SSE2 1
#else
#define VIBER_HAVE_SSE2 0
#endif

namespace viber::transcript {

namespace json = boost::json;

namespace {

// ---------------------------------------------------------------------------------------------
// The prefilter

// Each needle is found by two of its bytes, chosen to be rare in transcript JSON (an uppercase
// letter, `_`, `-`, `<`), compared a whole vector of positions at a time (16 with SSE2, 32 with
// AVX2, 64 with AVX-512BW); a memcmp then confirms the match.
struct NeedleSpec {
    std::string_view text;
    unsigned first;  // offset of the first probe byte
    unsigned second; // offset of the second probe byte
};

constexpr std::array<NeedleSpec, detail::needle_count> needles{{
    {"permission-mode", 10, 11},          // "-m"
    {"permissionMode", 9, 10},            // "nM"
    {"\"Skill\"", 1, 6},                  // 'S' ... '"'
    {"EnterPlanMode", 4, 5},              // "rP"
    {"\"content\":\"", 1, 9},             // 'c' ... ':'
    {"file_path", 4, 5},                  // "_p"
    {"subagent_type", 8, 9},              // "_t"
    {"VERDICT:", 0, 1},                   // "VE"
    {"<command-message>viber:", 0, 16},   // '<' ... '>'
}};

constexpr std::size_t longest_needle = [] {
    std::size_t longest = 0;
    for (const auto& n : needles) longest = n.text.size() > longest ? n.text.size() : longest;
    return longest;
}();

// Bytes past the data that the kernels may read: the widest probe offset plus one 64-byte vector,
// and a full needle for the confirming memcmp. They are zero, and no needle holds a zero byte.
constexpr std::size_t buffer_padding = 128;
static_assert(buffer_padding >= 16 + 64 + longest_needle);

inline bool confirm(const char* at, std::size_t needle) {
    const auto& text = needles[needle].text;
    return std::memcmp(at, text.data(), text.size()) == 0;
}

// Scans positions [from, to) of `data` (readable up to to + buffer_padding) and reports, in
// position order, every newline (sink.newline(i)) and every needle start (sink.hit(i, needle)).
template <class Sink>
void kernel_scalar(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    // A table from a byte to the needles that open with it keeps the per-byte work to one lookup
    // on the common path.
    std::array<std::uint32_t, 256> opens{};
    for (std::size_t k = 0; k < needles.size(); ++k) {
        opens[static_cast<unsigned char>(needles[k].text[0])] |= 1u << k;
    }
    for (std::size_t i = from; i < to; ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if (c == '\n') {
            sink.newline(i);
            continue;
        }
        for (std::uint32_t maybe = opens[c]; maybe != 0; maybe &= maybe - 1) {
            const auto k = static_cast<unsigned>(__builtin_ctz(maybe));
            if (confirm(data + i, k)) sink.hit(i, k);
        }
    }
}

#if VIBER_HAVE_SSE2
template <class Sink>
void kernel_sse2(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    const __m128i newline = _mm_set1_epi8('\n');
    __m128i first_byte[detail::needle_count];
    __m128i second_byte[detail::needle_count];
    for (std::size_t k = 0; k < needles.size(); ++k) {
        first_byte[k] = _mm_set1_epi8(needles[k].text[needles[k].first]);
        second_byte[k] = _mm_set1_epi8(needles[k].text[needles[k].second]);
    }
    const auto load = [](const char* at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at)); };
    for (std::size_t block = from; block < to; block += 16) {
        const char* at = data + block;
        __m128i match[detail::needle_count];
        __m128i any = _mm_setzero_si128();
        // Unrolled, every probe offset and byte is a constant and shared loads are merged.
#pragma GCC unroll 16
        for (std::size_t k = 0; k < needles.size(); ++k) {
            match[k] = _mm_and_si128(_mm_cmpeq_epi8(load(at + needles[k].first), first_byte[k]),
                                     _mm_cmpeq_epi8(load(at + needles[k].second), second_byte[k]));
            any = _mm_or_si128(any, match[k]);
        }
        auto newlines = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(load(at), newline)));
        auto candidates = static_cast<std::uint32_t>(_mm_movemask_epi8(any));
        if (to - block < 16) {
            const std::uint32_t in_range = (1u << (to - block)) - 1;
            newlines &= in_range;
            candidates &= in_range;
        }
        if ((newlines | candidates) == 0) continue;
        std::array<std::uint32_t, detail::needle_count> per_needle{};
        if (candidates != 0) {
            for (std::size_t k = 0; k < needles.size(); ++k) {
                per_needle[k] = static_cast<std::uint32_t>(_mm_movemask_epi8(match[k]));
            }
        }
        std::uint32_t events = newlines | candidates;
        while (events != 0) {
            const auto j = static_cast<unsigned>(__builtin_ctz(events));
            events &= events - 1;
            const std::size_t pos = block + j;
            if ((newlines >> j) & 1u) {
                sink.newline(pos);
                continue;
            }
            for (std::size_t k = 0; k < needles.size(); ++k) {
                if (((per_needle[k] >> j) & 1u) && confirm(data + pos, k)) sink.hit(pos, static_cast<unsigned>(k));
            }
        }
    }
}
// The same kernel 32 positions at a time, chosen at run time on CPUs that have AVX2.
template <class Sink>
__attribute__((target("avx2"))) void kernel_avx2(const char* data, std::size_t from, std::size_t to, Sink& sink) {
    const __m256i newline = _mm256_set1_epi8('\n');
    __m256i first_byte[detail::needle_count];
    __m256i second_byte[detail::needle_count];
    for (std::size_t k = 0; k < needles.size(); ++k) {
        first_byte[k] = _mm256_set1_epi8(needles[k].text[needles[k].first]);
        second_byte[k] = _mm256_set1_epi8(needles[k].text[needles[k].second]);
    }
    for (std::size_t block = from; block < to; block += 32) {
        const char* at = data + block;
        __m256i match[detail::needle_count];
        __m256i any = _mm256_setzero_si256();
#pragma GCC unroll 16
        for (std::size_t k = 0; k < needles.size(); ++k) {
            const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + needles[k].first));
            const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + needles[k].second));
            match[k] = _mm256_and_si256(_mm256_cmpeq_epi8(a, first_byte[k]), _mm256_cmpeq_epi8(b, second_byte[k]));
            any = _mm256_or_si256(any, match[k]);
        }
        const __m256i here = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
        auto newlines = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(here, newline)));
        auto candidates = static_cast<std::uint32_t>(_mm256_movemask_epi8(any));
        if (to - block < 32) {
            const std::uint32_t in_range = (std::uint32_t{1} << (to - block)) - 1;
            newlines &= in_range;
            candidates &= in_range;
        }
        if ((newlines | candidates) == 0) continue;
        std::uint32_t per_needle[detail::needle_count] = {};
        if (candidates != 0) {
            for (std::size_t k = 0; k < needles.size(); ++k) {
                per_needle[k] = static_cast<std::uint32_t>(_mm256_movemask_epi8(match[k]));
            }
        }
        std::uint32_t events = newlines | candidates;
        while (events != 0) {
            const auto j = static_cast<unsigned>(__builtin_ctz(events));
            events &= events - 1;
            const std::size_t pos = block + j;
            if ((newlines >> j) & 1u) {
                sink.newline(pos);
                continue;
            }
            for (std::size_t k = 0; k < needles.size(); ++k) {
                if (((per_needle[k] >> j) & 1u) && confirm(data + pos, k)) sink.hit(pos, static_cast<unsigned>(k));
            }
        }
    }
}

bool cpu_has_avx2() { return __builtin_cpu_supports("avx2"); }

// 64 positions at a time with AVX-512BW, whose compares yield bit masks directly.
template <class Sink>
__attribute__((target("avx512f,avx512bw"))) void kernel_avx512(const char* data, std::size_t from, std::size_t to,
                                                                Sink& sink) {
    const __m512i newline = _mm512_set1_epi8('\n');
    __m512i first_byte[detail::needle_count];
    __m512i second_byte[detail::needle_count];
    for (std::size_t k = 0; k < needles.size(); ++k) {
        first_byte[k] = _mm512_set1_epi8(needles[k].text[needles[k].first]);
        second_byte[k] = _mm512_set1_epi8(needles[k].text[needles[k].second]);
    }
    for (std::size_t block = from; block < to; block += 64) {
        const char* at = data + block;
        std::uint64_t match[detail::needle_count];
        std::uint64_t candidates = 0;
#pragma GCC unroll 16
        for (std::size_t k = 0; k < needles.size(); ++k) {
            const __m512i a = _mm512_loadu_si512(at + needles[k].first);
            const __m512i b = _mm512_loadu_si512(at + needles[k].second);
            match[k] = _mm512_cmpeq_epi8_mask(a, first_byte[k]) & _mm512_cmpeq_epi8_mask(b, second_byte[k]);
            candidates |= match[k];
        }
        std::uint64_t newlines = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(at), newline);
        if (to - block < 64) {
            const std::uint64_t in_range = (std::uint64_t{1} << (to - block)) - 1;
            newlines &= in_range;
            candidates &= in_range;
        }
        std::uint64_t events = newlines | candidates;
        while (events != 0) {
            const auto j = static_cast<unsigned>(__builtin_ctzll(events));
            events &= events - 1;
            const std::size_t pos = block + j;
            if ((newlines >> j) & 1u) {
                sink.newline(pos);
                continue;
            }
            for (std::size_t k = 0; k < needles.size(); ++k) {
                if (((match[k] >> j) & 1u) && confirm(data + pos, k)) sink.hit(pos, static_cast<unsigned>(k));
            }
        }
    }
}

bool cpu_has_avx512bw() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }
#endif


detail::Kernel resolve(detail::Kernel kernel) {
    if (kernel != detail::Kernel::best && detail::kernel_supported(kernel)) return kernel;
    if (detail::kernel_supported(detail::Kernel::avx512)) return detail::Kernel::avx512;
    if (detail::kernel_supported(detail::Kernel::avx2)) return detail::Kernel::avx2;
    return VIBER_HAVE_SSE2 ? detail::Kernel::sse2 : detail::Kernel::scalar;
}

template <class Sink>
void run_kernel(detail::Kernel kernel, const char* data, std::size_t from, std::size_t to, Sink& sink) {
#if VIBER_HAVE_SSE2
    if (kernel == detail::Kernel::avx512) {
        kernel_avx512(data, from, to, sink);
        return;
    }
    if (kernel == detail::Kernel::avx2) {
        kernel_avx2(data, from, to, sink);
        return;
    }
    if (kernel == detail::Kernel::sse2) {
        kernel_sse2(data, from, to, sink);
        return;
    }
#endif
    (void)kernel;
    kernel_scalar(data, from, to, sink);
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

class FileSource final : public Source {
public:
    explicit FileSource(os::File& file) : file_(file) {}
    long read_some(char* into, std::size_t size) override { return file_.read_some(into, size); }
    bool read_at(std::string& into, std::uint64_t offset, std::size_t size) override {
        into.resize(size);
        return file_.read_exact_at(into.data(), size, offset);
    }

private:
    os::File& file_;
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

const json::object* object_at(const json::object& obj, std::string_view key) {
    const auto* v = obj.if_contains(key);
    return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

std::optional<std::string_view> string_at(const json::object& obj, std::string_view key) {
    const auto* v = obj.if_contains(key);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return std::string_view(v->get_string().data(), v->get_string().size());
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool is_skill_signal(std::string_view skill, Signals signals) {
    if (starts_with(skill, "viber:")) skill.remove_prefix(6);
    if (skill == "planner") return true;
    return signals == Signals::planner_chain && (skill == "intent" || skill == "fixer");
}

// A line whose message.content is a string and whose message.role, if present, is "user": a typed
// prompt, a task notification or a command message.
std::optional<std::string_view> user_string_content(const json::object& record) {
    const json::object* message = object_at(record, "message");
    if (message == nullptr) return std::nullopt;
    const auto content = string_at(*message, "content");
    if (!content) return std::nullopt;
    if (const auto* role = message->if_contains("role")) {
        if (!role->is_string() || role->get_string() != "user") return std::nullopt;
    }
    return content;
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
            if (auto v = verdict_in_string(std::string_view(s.data(), s.size()), item.content_or_text)) return v;
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

// ---------------------------------------------------------------------------------------------
// The scanner

class Scanner {
public:
    Scanner(const Request& request, detail::Kernel kernel, std::size_t buffer_size)
        : request_(request), kernel_(resolve(kernel)), buffer_size_(buffer_size < 64 ? 64 : buffer_size) {}

    Scan run(Source& source) {
        buffer_.assign(buffer_size_ + buffer_padding, '\0');
        source_ = &source;
        char* const data = buffer_.data();
        std::size_t filled = 0;    // bytes of the buffer holding file data
        std::size_t scanned = 0;   // buffer bytes already through the kernel
        bool at_end = false;
        for (;;) {
            while (!at_end && filled < buffer_size_) {
                const long got = source.read_some(data + filled, buffer_size_ - filled);
                if (got < 0) return failed();
                if (got == 0) at_end = true;
                filled += static_cast<std::size_t>(got);
            }
            std::memset(data + filled, 0, buffer_padding);
            // A needle that starts near the end of the data read so far may continue in the next
            // read: those last bytes are scanned again after it.
            const std::size_t scan_to =
                at_end ? filled : (filled > longest_needle - 1 ? filled - (longest_needle - 1) : 0);
            if (scan_to > scanned) {
                data_ = data;
                run_kernel(kernel_, data, scanned, scan_to, *this);
                scanned = scan_to;
            }
            if (failed_) return failed();
            if (at_end) {
                if (buffer_offset_ + filled > line_start_) end_line(filled);
                if (failed_) return failed();
                scan_.readable = true;
                return std::move(scan_);
            }
            // Keep the unscanned tail, and the current line while it is short enough to be worth
            // keeping; a longer one is dropped and read again only if it turns out a candidate.
            std::size_t keep = scanned;
            if (!line_dropped_) {
                const std::size_t line_at = static_cast<std::size_t>(line_start_ - buffer_offset_);
                if (scanned - line_at > buffer_size_ / 2) {
                    line_dropped_ = true;
                } else {
                    keep = line_at;
                }
            }
            std::memmove(data, data + keep, filled - keep);
            buffer_offset_ += keep;
            filled -= keep;
            scanned -= keep;
        }
    }

    // Kernel callbacks.
    void newline(std::size_t at) { end_line(at); }
    void hit(std::size_t, unsigned needle) { hits_ |= 1u << needle; }

private:
    Scan failed() {
        Scan none;
        none.readable = false;
        return none;
    }

    // The needles that can change anything in the current state.
    std::uint32_t wanted() const {
        std::uint32_t mask = (1u << detail::needle_permission_mode_type) | (1u << detail::needle_skill);
        if (pending_entry_) {
            mask |= (1u << detail::needle_permission_mode_key) | (1u << detail::needle_enter_plan_mode) |
                    (1u << detail::needle_string_content);
        }
        if (request_.signals == Signals::planner_chain) mask |= 1u << detail::needle_command_message;
        if (request_.plan_writes) {
            mask |= 1u << detail::needle_file_path;
            if (scan_.last_plan_write) {
                mask |= (1u << detail::needle_subagent_type) | (1u << detail::needle_verdict);
            }
        }
        return mask;
    }

    // The line that ends at buffer index `at` (a newline, or the end of the data).
    void end_line(std::size_t at) {
        if (failed_) return;
        const std::size_t line = ++scan_.lines;
        const std::uint64_t end = buffer_offset_ + at;
        std::uint32_t relevant = hits_ & wanted();
        // Every Read, Write and Edit carries file_path; only one naming a `plans` segment can be a
        // plan write, so a line held in the buffer without those bytes is not worth a parse.
        if (relevant == (1u << detail::needle_file_path) && !line_dropped_) {
            const std::string_view held(data_ + (line_start_ - buffer_offset_), static_cast<std::size_t>(end - line_start_));
            if (!os::contains_bytes(held, "plans")) relevant = 0;
        }
        if (relevant != 0) {
            try {
                std::string_view bytes;
                if (line_dropped_) {
                    if (!source_->read_at(long_line_, line_start_, static_cast<std::size_t>(end - line_start_))) {
                        failed_ = true;
                        return;
                    }
                    bytes = long_line_;
                } else {
                    bytes = std::string_view(data_ + (line_start_ - buffer_offset_),
                                             static_cast<std::size_t>(end - line_start_));
                }
                if (!bytes.empty() && bytes.back() == '\r') bytes.remove_suffix(1);
                apply(line, bytes);
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

    void apply(std::size_t line, std::string_view bytes) {
        // A small arena for the parse; the monotonic resource also makes destruction trivial,
        // so a deeply nested value is never torn down recursively.
        json::monotonic_resource arena(arena_.data(), arena_.size());
        json::parse_options options;
        options.max_depth = 10000;
        options.allow_invalid_utf8 = true;
        boost::system::error_code ec;
        json::value parsed = json::parse(bytes, ec, json::storage_ptr(&arena), options);
        if (ec || !parsed.is_object()) return; // not JSON: not an event
        const json::object& record = parsed.get_object();
        const auto type = string_at(record, "type");
        if (type == "api-request-blob") return; // replays whole messages; never a live event

        if (type == "permission-mode" && string_at(record, "permissionMode") != "plan") {
            scan_.episode_start = line;
        }

        bool plan_write_here = false;
        bool dispatch_here = false;
        bool signal_here = false;
        bool entry_here = false;
        if (const json::object* message = object_at(record, "message")) {
            if (const auto* content = message->if_contains("content"); content != nullptr && content->is_array()) {
                for (const auto& element : content->get_array()) {
                    if (!element.is_object()) continue;
                    const json::object& use = element.get_object();
                    if (string_at(use, "type") != "tool_use") continue;
                    tool_use(line, use, plan_write_here, dispatch_here, signal_here, entry_here);
                }
            }
        }

        const auto user_content = user_string_content(record);
        if (request_.signals == Signals::planner_chain && user_content && is_typed_chain_command(*user_content)) {
            scan_.last_signal = line;
            scan_.last_signal_entry = 0;
            pending_entry_ = false;
        }
        // A line after the signal that ends the wait for its entry (the signal's own line, or the
        // entry's, ends nothing).
        if (pending_entry_ && !signal_here && !entry_here &&
            (string_at(record, "permissionMode") == "plan" || user_content.has_value())) {
            pending_entry_ = false;
        }

        if (request_.plan_writes && scan_.last_plan_write && !plan_write_here && !dispatch_here) {
            verdict_line(line, bytes, parsed);
        }
    }

    void tool_use(std::size_t line, const json::object& use, bool& plan_write_here, bool& dispatch_here,
                  bool& signal_here, bool& entry_here) {
        const auto name = string_at(use, "name");
        if (!name) return;
        const json::object* input = object_at(use, "input");
        if (*name == "Skill") {
            const auto skill = input != nullptr ? string_at(*input, "skill") : std::nullopt;
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
            const auto path = input != nullptr ? string_at(*input, "file_path") : std::nullopt;
            if (path && is_plan_path(*path)) {
                // The last matching file_path on the line wins; dispatches and verdicts restart.
                scan_.last_plan_write = PlanWrite{line, std::string(*path)};
                scan_.dispatches.clear();
                scan_.verdicts.clear();
                plan_write_here = true;
            }
        } else if (request_.plan_writes && (*name == "Agent" || *name == "Task")) {
            const auto type = input != nullptr ? string_at(*input, "subagent_type") : std::nullopt;
            if (type && scan_.last_plan_write) {
                Dispatch dispatch;
                dispatch.line = line;
                dispatch.agent = std::string(agent_of(*type));
                if (const auto id = string_at(use, "id"); id && starts_with(*id, "toolu_")) dispatch.id = std::string(*id);
                if (const auto prompt = string_at(*input, "prompt")) dispatch.prompt = std::string(*prompt);
                scan_.dispatches.push_back(std::move(dispatch));
                dispatch_here = true;
            }
        }
    }

    void verdict_line(std::size_t line, std::string_view bytes, const json::value& parsed) {
        // An async launch echoes the prompt, which may well quote the verdict format.
        if (bytes.find(R"("status":"async_launched")") != std::string_view::npos) return;
        const auto value = first_verdict(parsed);
        if (!value) return;
        VerdictLine verdict;
        verdict.line = line;
        verdict.value = *value;
        if (const auto stamp = string_at(parsed.get_object(), "timestamp")) verdict.timestamp = parse_timestamp(*stamp);
        for (std::size_t i = 0; i < scan_.dispatches.size(); ++i) {
            const std::string& id = scan_.dispatches[i].id;
            if (!id.empty() && bytes.find(id) != std::string_view::npos) verdict.named_dispatches.push_back(i);
        }
        scan_.verdicts.push_back(std::move(verdict));
    }

    const Request request_;
    const detail::Kernel kernel_;
    const std::size_t buffer_size_;
    std::vector<char> buffer_;
    std::array<unsigned char, 16 * 1024> arena_{};
    Source* source_ = nullptr;
    const char* data_ = nullptr;
    std::uint64_t buffer_offset_ = 0; // file offset of buffer_[0]
    std::uint64_t line_start_ = 0;    // file offset of the current line's first byte
    bool line_dropped_ = false;       // the current line's start is no longer in the buffer
    std::uint32_t hits_ = 0;          // needles found in the current line
    bool pending_entry_ = false;      // the last signal still waits for its EnterPlanMode
    bool failed_ = false;
    std::string long_line_;
    Scan scan_;
};

// 64 KiB: every page of the buffer is a fault on a short call, and larger reads gain little.
constexpr std::size_t default_buffer_size = 64 * 1024;

Scan scan_source(Source& source, const Request& request, std::size_t buffer_size, detail::Kernel kernel) {
    try {
        auto scanner = std::make_unique<Scanner>(request, kernel, buffer_size);
        return scanner->run(source);
    } catch (...) {
        return Scan{};
    }
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Public functions

Scan scan_file(const std::string& path, const Request& request) {
    os::File file = os::File::open_regular(path);
    if (!file) return Scan{};
    FileSource source(file);
    return scan_source(source, request, default_buffer_size, detail::Kernel::best);
}

Scan scan_bytes(std::string_view bytes, const Request& request) {
    return detail::scan_bytes_with(bytes, request, default_buffer_size, detail::Kernel::best);
}

bool signal_owns_episode(const Scan& scan) {
    return (scan.last_signal != 0 && scan.last_signal > scan.episode_start) ||
           (scan.last_signal_entry != 0 && scan.last_signal_entry > scan.episode_start);
}

bool is_plan_path(std::string_view path) {
    constexpr std::string_view ending = ".md";
    if (path.size() < ending.size() || path.substr(path.size() - ending.size()) != ending) return false;
    const auto is_separator = [](char c) { return c == '/' || c == '\\'; };
    for (std::size_t at = path.find("plans"); at != std::string_view::npos; at = path.find("plans", at + 1)) {
        const std::size_t after = at + 5;
        if (at > 0 && is_separator(path[at - 1]) && after < path.size() && is_separator(path[after])) return true;
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

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

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
    if (text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':') return std::nullopt;
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
            offset = (zone == '+' ? 1 : -1) * static_cast<std::int64_t>(*off_hours * 3600 + *off_minutes * 60);
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
    for (std::size_t at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
        const bool anchored = (at == 0 && content_or_text_key) || (at > 0 && text[at - 1] == '\n') ||
                              (at >= result_tag.size() && text.substr(at - result_tag.size(), result_tag.size()) == result_tag);
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

std::string_view agent_of(std::string_view subagent_type) {
    const std::size_t colon = subagent_type.find(':');
    if (colon == std::string_view::npos || colon == 0) return subagent_type;
    for (std::size_t i = 0; i < colon; ++i) {
        const char c = subagent_type[i];
        const bool allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                             c == '.' || c == '-';
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
        return VIBER_HAVE_SSE2 != 0;
    case Kernel::avx2:
#if VIBER_HAVE_SSE2
        return cpu_has_avx2();
#else
        return false;
#endif
    case Kernel::avx512:
#if VIBER_HAVE_SSE2
        return cpu_has_avx512bw();
#else
        return false;
#endif
    }
    return false;
}

std::string_view needle_text(Needle needle) { return needles.at(needle).text; }

std::vector<std::uint32_t> line_hits(std::string_view bytes, Kernel kernel) {
    struct Collector {
        std::vector<std::uint32_t> lines{0};
        void newline(std::size_t) { lines.push_back(0); }
        void hit(std::size_t, unsigned needle) { lines.back() |= 1u << needle; }
    } collector;
    std::string padded(bytes);
    padded.append(buffer_padding, '\0');
    run_kernel(resolve(kernel), padded.data(), 0, bytes.size(), collector);
    // The last entry is the line after the final newline; it exists only when it holds bytes.
    if (bytes.empty() || bytes.back() == '\n') collector.lines.pop_back();
    return collector.lines;
}

Scan scan_bytes_with(std::string_view bytes, const Request& request, std::size_t buffer_size, Kernel kernel) {
    MemorySource source(bytes);
    return scan_source(source, request, buffer_size, kernel);
}

} // namespace detail

} // namespace viber::transcript
