// transcript_prefilter_test.cpp: the raw-byte prefilter: the portable, SSE2, AVX2 and NEON
// kernels find the same needles on the same lines, and all match a plain reference search (a
// kernel this CPU lacks runs as the best one it has).
#define BOOST_TEST_MODULE transcript_prefilter
#include "common/transcript/transcript.hpp"
#include "plan-gate/pairing_window.hpp"

#include <boost/test/unit_test.hpp>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace viber::transcript;
using viber::plan_gate::pairing::PairRule;
using viber::plan_gate::pairing::tag_of;
using namespace viber::transcript::detail;

namespace {

// The obvious search: split at \n, look for each needle with find.
std::vector<std::uint32_t> reference_hits(std::string_view bytes) {
    std::vector<std::uint32_t> lines;
    std::size_t start = 0;
    while (start < bytes.size()) {
        std::size_t end = bytes.find('\n', start);
        const bool last = end == std::string_view::npos;
        if (last) end = bytes.size();
        const std::string_view line = bytes.substr(start, end - start);
        std::uint32_t mask = 0;
        for (unsigned k = 0; k < needle_count; ++k) {
            if (line.find(needle_text(static_cast<Needle>(k))) != std::string_view::npos)
                mask |= 1u << k;
        }
        lines.push_back(mask);
        start = end + 1;
    }
    return lines;
}

// Random text built from needle fragments, near-misses, newlines and noise, so hits land on every
// offset of a 16-byte block and across line ends.
std::string random_text(std::mt19937& rng, std::size_t size) {
    std::vector<std::string> pieces;
    for (unsigned k = 0; k < needle_count; ++k) {
        const std::string n(needle_text(static_cast<Needle>(k)));
        pieces.push_back(n);
        pieces.push_back(n.substr(0, n.size() - 1));
        pieces.push_back(n.substr(1));
    }
    for (const char* extra : {"\n", "\n", "\r\n", "\"", ":", "_", "-", "<", ">", "S", "V", "E", "P",
                              "M", "c", "t", " "}) {
        pieces.emplace_back(extra);
    }
    std::string text;
    std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_int_distribution<int> coin(0, 3);
    while (text.size() < size) {
        if (coin(rng) == 0) {
            text.push_back(static_cast<char>(byte(rng)));
        } else {
            text += pieces[pick(rng)];
        }
    }
    return text;
}

} // namespace

BOOST_AUTO_TEST_CASE(kernels_available_here) {
    BOOST_TEST(kernel_supported(Kernel::portable));
    BOOST_TEST(kernel_supported(Kernel::best));
#if defined(__x86_64__)
    BOOST_TEST(kernel_supported(Kernel::sse2));
    BOOST_TEST(!kernel_supported(Kernel::neon));
#if defined(__clang__)
    // A clang build compiles no AVX2 kernel (common/fast/vector.hpp says why).
    BOOST_TEST(!kernel_supported(Kernel::avx2));
#else
    BOOST_TEST(kernel_supported(Kernel::avx2) == static_cast<bool>(__builtin_cpu_supports("avx2")));
#endif
#elif defined(__aarch64__)
    BOOST_TEST(kernel_supported(Kernel::neon));
    BOOST_TEST(!kernel_supported(Kernel::sse2));
#endif
    // A kernel this CPU (or this build) cannot run is tested as the best one it has: say so, in the
    // test log and on the console, rather than let its agreement checks pass as if it had run.
    for (const auto& [kernel, name] :
         {std::pair{Kernel::sse2, "sse2"}, std::pair{Kernel::avx2, "avx2"},
          std::pair{Kernel::neon, "neon"}}) {
        if (kernel_supported(kernel)) {
            BOOST_TEST_MESSAGE("prefilter kernel " << name << ": run on this CPU");
        } else {
            BOOST_TEST_MESSAGE("prefilter kernel " << name
                                                   << ": NOT RUN, this CPU or this build lacks it "
                                                      "(its checks ran the best kernel instead)");
            std::cout << "note: prefilter kernel " << name
                      << " not run: this CPU or this build lacks it\n";
        }
    }
}

BOOST_AUTO_TEST_CASE(needles_are_the_documented_bytes) {
    BOOST_TEST(needle_text(needle_permission_mode_type) == "permission-mode");
    BOOST_TEST(needle_text(needle_permission_mode_key) == "permissionMode");
    BOOST_TEST(needle_text(needle_skill) == "\"Skill\"");
    BOOST_TEST(needle_text(needle_enter_plan_mode) == "EnterPlanMode");
    BOOST_TEST(needle_text(needle_string_content) == "\"content\":\"");
    BOOST_TEST(needle_text(needle_file_path) == "file_path");
    BOOST_TEST(needle_text(needle_subagent_type) == "subagent_type");
    BOOST_TEST(needle_text(needle_verdict) == "VERDICT:");
    BOOST_TEST(needle_text(needle_command_message) == "<command-message>viber:");
    BOOST_TEST(needle_text(needle_plans) == "plans");
}

BOOST_AUTO_TEST_CASE(every_needle_at_every_block_offset) {
    for (unsigned k = 0; k < needle_count; ++k) {
        const std::string needle(needle_text(static_cast<Needle>(k)));
        for (std::size_t pad = 0; pad < 40; ++pad) {
            const std::string text =
                std::string(pad, 'x') + needle + "\nno\n" + std::string(pad, 'y') + needle;
            const std::vector<std::uint32_t> want{1u << k, 0u, 1u << k};
            BOOST_TEST(line_hits(text, Kernel::portable) == want);
            BOOST_TEST(line_hits(text, Kernel::sse2) == want);
            BOOST_TEST(line_hits(text, Kernel::avx2) == want);
            BOOST_TEST(line_hits(text, Kernel::neon) == want);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_needle_cut_by_a_newline_is_no_hit) {
    const std::string text = "VERD\nICT: \"Skil\nl\"";
    const std::vector<std::uint32_t> want{0u, 0u, 0u};
    BOOST_TEST(line_hits(text, Kernel::portable) == want);
    BOOST_TEST(line_hits(text, Kernel::sse2) == want);
    BOOST_TEST(line_hits(text, Kernel::avx2) == want);
    BOOST_TEST(line_hits(text, Kernel::neon) == want);
}

BOOST_AUTO_TEST_CASE(kernels_agree_with_the_reference_on_random_buffers) {
    std::mt19937 rng(20261130);
    for (int round = 0; round < 300; ++round) {
        const std::string text = random_text(rng, 1 + static_cast<std::size_t>(round) * 37);
        const auto want = reference_hits(text);
        const auto scalar = line_hits(text, Kernel::portable);
        const auto sse2 = line_hits(text, Kernel::sse2);
        BOOST_TEST_REQUIRE(scalar == want, "round " << round);
        BOOST_TEST_REQUIRE(sse2 == want, "round " << round);
        BOOST_TEST_REQUIRE(line_hits(text, Kernel::avx2) == want, "round " << round);
        BOOST_TEST_REQUIRE(line_hits(text, Kernel::neon) == want, "round " << round);
        BOOST_TEST_REQUIRE(line_hits(text, Kernel::best) == want, "round " << round);
    }
}

BOOST_AUTO_TEST_CASE(scanner_agrees_across_buffers_and_kernels_on_random_transcripts) {
    // Random bytes mixed with real-looking lines: whatever the buffer size, the same scan.
    std::mt19937 rng(7);
    const std::vector<std::string> lines{
        R"({"type":"permission-mode","permissionMode":"default"})",
        R"({"type":"permission-mode","permissionMode":"plan"})",
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Skill","input":{"skill":"viber:planner"}}]}})",
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_2","name":"EnterPlanMode","input":{}}]}})",
        R"({"type":"user","message":{"role":"user","content":"go"}})",
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"/r/plans/p.md","content":"x"}}]}})",
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_3","name":"Agent","input":{"subagent_type":"viber:planner-review","prompt":"p"}}]}})",
        R"({"type":"user","timestamp":"2026-10-01T10:00:00Z","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"VERDICT: PASS"}]}})",
        R"({"type":"user","message":{"content":"<command-message>viber:intent</command-message>"}})",
        "",
        "garbage",
        "{\"a\":1}\r"};
    std::uniform_int_distribution<std::size_t> pick(0, lines.size() - 1);
    std::uniform_int_distribution<int> noise(0, 9);
    for (int round = 0; round < 60; ++round) {
        std::string text;
        for (int i = 0; i < 40; ++i) {
            if (noise(rng) == 0) text += random_text(rng, 30);
            text += lines[pick(rng)];
            text += '\n';
        }
        for (const auto signals : {Signals::planner, Signals::planner_chain}) {
            constexpr PairedAgent reviewers[] = {
                {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)}};
            const Request request{.signals = signals,
                                  .plan_writes = true,
                                  .paired_agents = reviewers,
                                  .pairing = viber::plan_gate::pairing_window};
            const Scan a = scan_bytes_with(text, request, 64, Kernel::portable);
            const Scan b = scan_bytes_with(text, request, 1 << 17,
                                           round % 3 == 0   ? Kernel::sse2
                                           : round % 3 == 1 ? Kernel::avx2
                                                            : Kernel::neon);
            BOOST_TEST_REQUIRE(a.lines == b.lines);
            BOOST_TEST_REQUIRE(a.episode_start == b.episode_start);
            BOOST_TEST_REQUIRE(a.last_signal == b.last_signal);
            BOOST_TEST_REQUIRE(a.last_signal_entry == b.last_signal_entry);
            BOOST_TEST_REQUIRE(a.last_plan_write.has_value() == b.last_plan_write.has_value());
            BOOST_TEST_REQUIRE(a.dispatches.size() == b.dispatches.size());
            BOOST_TEST_REQUIRE(a.verdicts.size() == b.verdicts.size());
        }
    }
}

// The kernel looks only for the needles the scan wants after the lines before, and stops after a
// line that changes them: a needle wanted only from the next line on, in the same vector block
// (or the same buffer) as that line, must still be found, by every kernel and buffer size.
BOOST_AUTO_TEST_CASE(needles_wanted_from_the_next_line_on_are_found_right_after_it) {
    const std::string skill =
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Skill","input":{"skill":"viber:planner"}}]}})";
    const std::string entry =
        R"({"message":{"content":[{"type":"tool_use","name":"EnterPlanMode","input":{}}]}})";
    const std::string write =
        R"({"message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"/r/plans/p.md"}}]}})";
    const std::string dispatch =
        R"({"message":{"content":[{"type":"tool_use","id":"toolu_3","name":"Agent","input":{"subagent_type":"viber:planner-review"}}]}})";
    const std::string verdict =
        R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"VERDICT: PASS"}]}})";
    // A Read's file_path without `plans` on the line is no plan write; `plans` alone is nothing.
    const std::string read =
        R"({"message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/r/p.md"}}]}})";
    const std::string plans_alone = R"({"note":"plans"})";
    const std::string text = skill + "\n" + entry + "\n" + write + "\n" + read + "\n" +
                             plans_alone + "\n" + dispatch + "\n" + verdict + "\n";
    constexpr PairedAgent reviewers[] = {
        {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)}};
    for (const auto kernel : {Kernel::portable, Kernel::sse2, Kernel::avx2, Kernel::neon}) {
        for (std::size_t buffer = 64; buffer <= text.size() + 64; buffer += 7) {
            const Scan gate = scan_bytes_with(text,
                                              Request{.signals = Signals::planner,
                                                      .plan_writes = true,
                                                      .paired_agents = reviewers,
                                                      .pairing = viber::plan_gate::pairing_window},
                                              buffer, kernel);
            BOOST_TEST_REQUIRE(gate.lines == 7u);
            BOOST_TEST_REQUIRE(gate.last_signal == 1u, "buffer " << buffer);
            BOOST_TEST_REQUIRE(gate.last_signal_entry == 2u, "buffer " << buffer);
            BOOST_TEST_REQUIRE(gate.last_plan_write.has_value());
            BOOST_TEST_REQUIRE(gate.last_plan_write->line == 3u);
            BOOST_TEST_REQUIRE(gate.dispatches.size() == 1u, "buffer " << buffer);
            BOOST_TEST_REQUIRE(gate.dispatches[0].line == 6u);
            BOOST_TEST_REQUIRE(gate.verdicts.size() == 1u, "buffer " << buffer);
            BOOST_TEST_REQUIRE(gate.verdicts[0].line == 7u);
            const Scan hints =
                scan_bytes_with(text, Request{Signals::planner_chain, false}, buffer, kernel);
            BOOST_TEST_REQUIRE(hints.last_signal == 1u);
            BOOST_TEST_REQUIRE(hints.last_signal_entry == 2u, "buffer " << buffer);
            BOOST_TEST_REQUIRE(!hints.last_plan_write.has_value());
        }
    }
}

// A line holding `plans` but another file_path is read as before: the path decides, not the word.
BOOST_AUTO_TEST_CASE(a_file_path_line_is_parsed_when_plans_is_anywhere_on_it) {
    const std::string quoted =
        R"({"message":{"content":[{"type":"text","text":"the plans"},{"type":"tool_use","name":"Edit","input":{"file_path":"/r/plans/q.md"}}]}})";
    const std::string other =
        R"({"message":{"content":[{"type":"text","text":"the plans"},{"type":"tool_use","name":"Edit","input":{"file_path":"/r/src/q.md"}}]}})";
    for (const auto kernel : {Kernel::portable, Kernel::best}) {
        const Scan a =
            scan_bytes_with(quoted + "\n", Request{Signals::planner, true}, 1 << 16, kernel);
        BOOST_TEST_REQUIRE(a.last_plan_write.has_value());
        BOOST_TEST(a.last_plan_write->file_path == "/r/plans/q.md");
        const Scan b =
            scan_bytes_with(other + "\n", Request{Signals::planner, true}, 1 << 16, kernel);
        BOOST_TEST(!b.last_plan_write.has_value());
    }
}

// A vector kernel finds a needle by a probe byte up to 16 bytes into it and confirms it from its
// start: the scanner keeps those bytes when it refills the buffer, for short lines kept whole and
// for long lines it drops. Every needle, shifted across every refill point, is found by every
// kernel at every buffer size.
BOOST_AUTO_TEST_CASE(needles_straddling_a_refill_are_found_by_every_kernel) {
    for (std::size_t pad = 0; pad < 90; ++pad) {
        const std::string p(pad, 'x');
        const std::string text =
            R"({"pad":")" + p +
            R"(","type":"permission-mode","permissionMode":"default"})"
            "\n" +
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_use","name":"Skill","input":{"skill":"planner"}}]}})"
            "\n" +
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_use","name":"EnterPlanMode","input":{}}]}})"
            "\n" +
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"/r/plans/p.md"}}]}})"
            "\n" +
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_use","id":"toolu_7","name":"Agent","input":{"subagent_type":"planner-review"}}]}})"
            "\n" +
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_7","content":"VERDICT: FAIL"}]}})"
            "\n" +
            R"({"pad":")" + p +
            R"(","type":"user","message":{"content":"<command-message>viber:fixer</command-message>"}})"
            "\n";
        constexpr PairedAgent reviewers[] = {
            {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)}};
        for (const auto kernel : {Kernel::portable, Kernel::sse2, Kernel::avx2, Kernel::neon}) {
            for (std::size_t buffer = 64; buffer < 170; buffer += 3) {
                const Scan gate =
                    scan_bytes_with(text,
                                    Request{.signals = Signals::planner,
                                            .plan_writes = true,
                                            .paired_agents = reviewers,
                                            .pairing = viber::plan_gate::pairing_window},
                                    buffer, kernel);
                BOOST_TEST_REQUIRE(gate.readable);
                BOOST_TEST_REQUIRE(gate.episode_start == 1u, "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.last_signal == 2u, "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.last_signal_entry == 3u,
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.last_plan_write.has_value(),
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.last_plan_write->line == 4u);
                BOOST_TEST_REQUIRE(gate.dispatches.size() == 1u,
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.verdicts.size() == 1u,
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE((gate.verdicts[0].value == Verdict::fail));
                const Scan hints =
                    scan_bytes_with(text, Request{Signals::planner_chain, false}, buffer, kernel);
                BOOST_TEST_REQUIRE(hints.last_signal == 7u, "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(hints.episode_start == 1u);
            }
        }
    }
}

// The kernel finds `file_path` itself, next to `plans`: a line is read for a plan write only when
// it holds both, in either order, also when it is longer than the buffer (read again), and when
// either needle crosses a refill. A dispatch whose prompt names the plan file holds `plans` and no
// file_path: it stays a dispatch, and a Read of a file under plans/ is read but writes nothing.
BOOST_AUTO_TEST_CASE(a_plan_write_line_holds_both_plans_and_file_path_by_every_kernel) {
    for (std::size_t pad = 0; pad < 70; pad += 3) {
        const std::string p(pad, 'x');
        const std::string write =
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"/r/plans/p.md"}}]}})";
        const std::string dispatch =
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_use","id":"toolu_4","name":"Agent","input":{"subagent_type":"planner-review","prompt":"/r/plans/p.md"}}]}})";
        const std::string verdict =
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_4","content":"VERDICT: PASS"}]}})";
        const std::string read =
            R"({"pad":")" + p +
            R"(","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/r/plans/p.md"}}]}})";
        // `plans` first (in a text), then the Edit's file_path.
        const std::string edit =
            R"({"message":{"content":[{"type":"text","text":"the plans )" + p +
            R"("},{"type":"tool_use","name":"Edit","input":{"file_path":"/r/plans/q.md"}}]}})";
        const std::string text = write + "\n" + dispatch + "\n" + verdict + "\n" + read + "\n" +
                                 edit + "\n" + dispatch + "\n" + read + "\n" + verdict + "\n";
        constexpr PairedAgent reviewers[] = {
            {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)}};
        for (const auto kernel : {Kernel::portable, Kernel::sse2, Kernel::avx2, Kernel::neon}) {
            for (const std::size_t buffer : {64u, 97u, 160u, 301u, 1u << 16}) {
                const Scan gate =
                    scan_bytes_with(text,
                                    Request{.signals = Signals::planner,
                                            .plan_writes = true,
                                            .paired_agents = reviewers,
                                            .pairing = viber::plan_gate::pairing_window},
                                    buffer, kernel);
                BOOST_TEST_REQUIRE(gate.readable);
                BOOST_TEST_REQUIRE(gate.last_plan_write.has_value(),
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.last_plan_write->line == 5u,
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.last_plan_write->file_path == "/r/plans/q.md");
                BOOST_TEST_REQUIRE(gate.dispatches.size() == 1u,
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.dispatches[0].line == 6u);
                BOOST_TEST_REQUIRE(gate.verdicts.size() == 1u,
                                   "pad " << pad << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.verdicts[0].line == 8u);
            }
        }
    }
}

// The scanner keeps a line's `plans` only where it lies in the value of a "file_path" key (a
// dispatch whose prompt names the plan file is then never parsed for a plan write): whatever JSON
// allows around and inside that value, every spelling the parse reads as a plan write is still
// one, by every kernel, at buffer sizes that cut the line anywhere and that hold it whole.
BOOST_AUTO_TEST_CASE(a_plan_write_is_found_however_its_file_path_value_is_spelled) {
    const auto write = [](const std::string& before, const std::string& input) {
        return R"({"message":{"content":[)" + before +
               R"({"type":"tool_use","name":"Write","input":{)" + input + "}}]}}";
    };
    struct Spelling {
        std::string line;
        std::string path; // as the parse reads it
    };
    const std::vector<Spelling> spellings{
        // Spaces and tabs around the colon.
        {write("", R"("file_path" :	 "/r/plans/p.md")"), "/r/plans/p.md"},
        // Escaped slashes.
        {write("", R"("file_path":"\/r\/plans\/p.md")"), "/r/plans/p.md"},
        // An escaped quote in the value before `plans`, after one and after three backslashes.
        {write("", R"("file_path":"/r/a\"b/plans/p.md")"), "/r/a\"b/plans/p.md"},
        {write("", R"("file_path":"/r/a\\\"b/plans/p.md")"), "/r/a\\\"b/plans/p.md"},
        // A `#` right after the value's opening quote (one above a zero byte, to a search for the
        // quote a word at a time).
        {write("", R"("file_path":"#/r/plans/p.md")"), "#/r/plans/p.md"},
        // Windows separators, written escaped.
        {write("", R"("file_path":"C:\\r\\plans\\p.md")"), "C:\\r\\plans\\p.md"},
        // A string ending in an escaped backslash just before the key.
        {write("", R"("content":"x\\","file_path":"/r/plans/p.md")"), "/r/plans/p.md"},
        // `plans` twice in a text first (with an escaped quote between), then in the file_path.
        {write(R"({"type":"text","text":"plans \" plans"},)", R"("file_path":"/r/plans/p.md")"),
         "/r/plans/p.md"},
        // `plans` in another key's value and in a key of its own before the file_path.
        {write("", R"("plans":"plans","file_path":"/r/plans/p.md")"), "/r/plans/p.md"},
        // The same path segment twice.
        {write("", R"("file_path":"/r/plans/plans/p.md")"), "/r/plans/plans/p.md"},
    };
    constexpr PairedAgent reviewers[] = {
        {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)}};
    for (const Spelling& spelling : spellings) {
        const std::string text = R"({"pad":"x"})"
                                 "\n" +
                                 spelling.line + "\n";
        for (const auto kernel : {Kernel::portable, Kernel::sse2, Kernel::avx2, Kernel::neon}) {
            for (std::size_t buffer = 64; buffer <= text.size() + 64; buffer += 5) {
                const Scan gate =
                    scan_bytes_with(text,
                                    Request{.signals = Signals::planner,
                                            .plan_writes = true,
                                            .paired_agents = reviewers,
                                            .pairing = viber::plan_gate::pairing_window},
                                    buffer, kernel);
                BOOST_TEST_REQUIRE(gate.readable);
                BOOST_TEST_REQUIRE(gate.last_plan_write.has_value(),
                                   spelling.line << " buffer " << buffer);
                BOOST_TEST_REQUIRE(gate.last_plan_write->line == 2u);
                BOOST_TEST_REQUIRE(gate.last_plan_write->file_path == spelling.path,
                                   spelling.line << " buffer " << buffer);
            }
        }
    }
}
