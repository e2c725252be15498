// transcript_file_test.cpp: scan_file on real files: only a regular file is read (never blocking on
// a FIFO or reading a device), the file scan matches the in-memory scan, and single lines of tens
// of megabytes, candidate or not, are handled.
#define BOOST_TEST_MODULE transcript_file
#include "common/transcript/transcript.hpp"
#include "plan-gate/pairing_window.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace json = boost::json;
using namespace viber::transcript;
using viber::plan_gate::pairing::PairRule;
using viber::plan_gate::pairing::tag_of;
using viber::testing::ScratchDir;
using viber::testing::TranscriptBuilder;

namespace {

constexpr PairedAgent reviewers[] = {
    {.name = "planner-review", .tag = tag_of(PairRule::single_reviewer)}};
constexpr Request gate{.signals = Signals::planner,
                       .plan_writes = true,
                       .paired_agents = reviewers,
                       .pairing = viber::plan_gate::pairing_window};

// Runs scan_file on another thread and fails the test if it does not return within 10 s.
Scan scan_bounded(const std::string& path, const Request& request) {
    auto future = std::async(std::launch::async, [&] { return scan_file(path, request); });
    BOOST_TEST_REQUIRE((future.wait_for(std::chrono::seconds(10)) == std::future_status::ready),
                       "scan_file hung on " << path);
    return future.get();
}

TranscriptBuilder planner_session() {
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    t.enter_plan_mode();
    t.write_file("/repo/.claude/plans/p.md");
    t.dispatch("viber:planner-review", "toolu_01C");
    t.tool_result("toolu_01C", "VERDICT: PASS", "2026-10-01T10:00:00Z");
    return t;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_regular_file_scans_like_its_bytes) {
    ScratchDir dir;
    const TranscriptBuilder t = planner_session();
    const std::string path = dir.write("t.jsonl", t.text());
    const Scan file = scan_bounded(path, gate);
    const Scan memory = scan_bytes(t.text(), gate);
    BOOST_TEST(file.readable);
    BOOST_TEST(file.lines == memory.lines);
    BOOST_TEST(file.lines == 6u);
    BOOST_TEST(file.episode_start == 1u);
    BOOST_TEST(file.last_signal == 2u);
    BOOST_TEST(file.last_signal_entry == 3u);
    BOOST_TEST_REQUIRE(file.last_plan_write.has_value());
    BOOST_TEST(file.last_plan_write->line == 4u);
    BOOST_TEST(file.dispatches.size() == 1u);
    BOOST_TEST_REQUIRE(file.verdicts.size() == 1u);
    BOOST_TEST(file.verdicts[0].named_dispatches == std::vector<std::size_t>({0}));
}

BOOST_AUTO_TEST_CASE(a_symlink_to_a_regular_file_is_read,
                     *viber::testing::posix_only("a symlink made by a test")) {
    ScratchDir dir;
    const std::string path = dir.write("t.jsonl", planner_session().text());
    const std::string link = dir / "link.jsonl";
    BOOST_TEST_REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
    BOOST_TEST(scan_bounded(link, gate).last_signal == 2u);
}

BOOST_AUTO_TEST_CASE(odd_paths_are_not_readable, *viber::testing::posix_only("a FIFO")) {
    ScratchDir dir;
    const std::string fifo = dir / "fifo";
    BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string dangling = dir / "dangling";
    BOOST_TEST_REQUIRE(::symlink((dir / "nowhere").c_str(), dangling.c_str()) == 0);
    for (const std::string& path :
         {fifo, dir.path(), std::string("/dev/zero"), dangling, dir / "missing", std::string()}) {
        const Scan s = scan_bounded(path, gate);
        BOOST_TEST(!s.readable, path);
        BOOST_TEST(s.lines == 0u, path);
        BOOST_TEST(s.last_signal == 0u, path);
    }
}

BOOST_AUTO_TEST_CASE(an_unreadable_file_is_not_readable,
                     *viber::testing::posix_only("a symlink made by a test")) {
    // /proc/self/mem is a regular file whose read fails, for root too (mode 000 does not stop
    // root, and the tests may run as root).
    ScratchDir dir;
    const std::string path = dir / "t.jsonl";
    BOOST_REQUIRE(::symlink("/proc/self/mem", path.c_str()) == 0);
    BOOST_TEST(!scan_bounded(path, gate).readable);
}

BOOST_AUTO_TEST_CASE(a_30_mb_typed_prompt_ends_a_pending_entry) {
    ScratchDir dir;
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    // Longer than any buffer: read back whole because, while the entry is pending, it is a
    // candidate.
    t.typed_prompt(std::string(30u << 20, 'a'));
    t.enter_plan_mode();
    const std::string path = dir.write("t.jsonl", t.text());
    const Scan s = scan_bounded(path, gate);
    BOOST_TEST(s.readable);
    BOOST_TEST(s.lines == 4u);
    BOOST_TEST(s.last_signal == 2u);
    BOOST_TEST(s.last_signal_entry == 0u);
}

BOOST_AUTO_TEST_CASE(a_30_mb_noise_line_with_no_needle_between_signal_and_entry) {
    ScratchDir dir;
    TranscriptBuilder t;
    t.permission_mode("default");
    t.skill("viber:planner");
    t.add(json::object{{"type", "progress"}, {"data", std::string(30u << 20, 'b')}});
    const auto entry = t.enter_plan_mode();
    const std::string path = dir.write("t.jsonl", t.text());
    const Scan s = scan_bounded(path, gate);
    BOOST_TEST(s.lines == 4u);
    BOOST_TEST(s.last_signal_entry == entry);
}

BOOST_AUTO_TEST_CASE(a_30_mb_candidate_line_is_parsed) {
    ScratchDir dir;
    TranscriptBuilder t;
    t.permission_mode("default");
    t.write_file("/repo/plans/p.md");
    t.dispatch("viber:planner-review", "toolu_big");
    // The verdict sits at the very end of a 30 MB tool result: the line is read back whole.
    const auto verdict = t.tool_result(
        "toolu_big", std::string(30u << 20, 'c') + "\nVERDICT: FAIL\n", "2026-10-01T10:00:00Z");
    t.raw("trailing non-json");
    const std::string path = dir.write("t.jsonl", t.text());
    const Scan s = scan_bounded(path, gate);
    BOOST_TEST(s.readable);
    BOOST_TEST(s.lines == 5u);
    BOOST_TEST_REQUIRE(s.verdicts.size() == 1u);
    BOOST_TEST(s.verdicts[0].line == verdict);
    BOOST_TEST((s.verdicts[0].value == Verdict::fail));
    BOOST_TEST(s.verdicts[0].named_dispatches == std::vector<std::size_t>({0}));
    BOOST_TEST((s.verdicts[0].timestamp == std::optional<std::int64_t>(1790848800)));
}

BOOST_AUTO_TEST_CASE(a_30_mb_skill_line_without_newline_is_parsed) {
    ScratchDir dir;
    TranscriptBuilder t;
    t.permission_mode("default");
    const json::object use{
        {"type", "tool_use"},
        {"name", "Skill"},
        {"input", json::object{{"skill", "viber:intent"}, {"pad", std::string(30u << 20, 'd')}}}};
    t.add(json::object{{"type", "assistant"},
                       {"message", json::object{{"content", json::array{use}}}}});
    std::string text = t.text();
    text.pop_back();
    const std::string path = dir.write("t.jsonl", text);
    const Scan s = scan_bounded(path, {Signals::planner_chain, false});
    BOOST_TEST(s.lines == 2u);
    BOOST_TEST(s.last_signal == 2u);
    BOOST_TEST(signal_owns_episode(s));
}

BOOST_AUTO_TEST_CASE(deeply_nested_line_is_parsed) {
    // Far past Boost.JSON's default depth of 32.
    TranscriptBuilder t;
    t.write_file("/r/plans/p.md");
    t.dispatch("viber:planner-review", "");
    std::string deep = R"({"type":"user","message":{"content":"VERDICT: PASS"},"x":)";
    for (int i = 0; i < 5000; ++i) deep += "[";
    for (int i = 0; i < 5000; ++i) deep += "]";
    deep += "}";
    t.raw(deep);
    const Scan s = scan_bytes(t.text(), gate);
    BOOST_TEST(s.verdicts.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_line_past_64_mib_is_passed_over_unparsed) {
    // A plan write past the cap is never read back, so the earlier one still arms; the lines
    // after it are counted as usual.
    ScratchDir dir;
    TranscriptBuilder t;
    const auto kept = t.write_file("/r/plans/kept.md");
    std::string text = t.text();
    text +=
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"/r/plans/huge.md","content":")";
    text.append(longest_parsed_line, 'h');
    text += "\"}}]}}\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"after\"}}\n";
    const std::size_t after = kept + 2;
    const std::string path = dir.write("t.jsonl", text);
    std::string().swap(text);
    const Scan s = scan_bounded(path, gate);
    BOOST_TEST(s.readable);
    BOOST_TEST(s.lines == after);
    BOOST_REQUIRE(s.last_plan_write.has_value());
    BOOST_TEST(s.last_plan_write->line == kept);
    BOOST_TEST(s.last_plan_write->file_path == "/r/plans/kept.md");
}

// A transcript of up to 2 MiB is read 16 KiB at a time, a larger one 64 KiB at a time; a line
// longer than half the buffer is dropped from it and read again by offset when it is a
// candidate. A plan write, a dispatch and a verdict line longer than that scan at both read
// sizes as the same bytes do in memory.
BOOST_AUTO_TEST_CASE(long_candidate_lines_scan_alike_at_both_read_sizes) {
    for (const std::size_t noise : {std::size_t{0}, std::size_t{3} << 20}) {
        TranscriptBuilder t;
        t.permission_mode("default");
        if (noise > 0) t.tool_result("toolu_noise", std::string(noise, 'n'));
        t.skill("viber:planner");
        t.enter_plan_mode();
        const std::size_t write = t.write_file("/repo/.claude/plans/p.md", std::string(20000, 'w'));
        const std::size_t dispatch =
            t.dispatch("viber:planner-review", "toolu_01L", std::string(40000, 'p'));
        const std::size_t verdict = t.tool_result(
            "toolu_01L", std::string(10000, 'r') + "\nVERDICT: PASS", "2026-10-01T10:00:00Z");
        ScratchDir dir;
        const std::string path = dir.write("t.jsonl", t.text());
        BOOST_TEST_CONTEXT("noise " << noise) {
            BOOST_TEST(((noise == 0) == (t.text().size() <= (std::size_t{2} << 20))));
            const Scan file = scan_bounded(path, gate);
            const Scan memory = scan_bytes(t.text(), gate);
            BOOST_TEST(file.readable);
            BOOST_TEST(file.lines == memory.lines);
            BOOST_TEST(file.lines == t.lines());
            BOOST_TEST_REQUIRE(file.last_plan_write.has_value());
            BOOST_TEST(file.last_plan_write->line == write);
            BOOST_TEST_REQUIRE(file.dispatches.size() == 1u);
            BOOST_TEST(file.dispatches[0].line == dispatch);
            BOOST_TEST_REQUIRE(file.verdicts.size() == 1u);
            BOOST_TEST(file.verdicts[0].line == verdict);
            BOOST_TEST((file.verdicts[0].value == Verdict::pass));
            BOOST_TEST(file.verdicts[0].named_dispatches == std::vector<std::size_t>({0}));
            BOOST_TEST(memory.verdicts.size() == 1u);
            BOOST_TEST(memory.dispatches.size() == 1u);
        }
    }
}
