// fail_open_test.cpp: plan-hints on every bad input exits 0, in bounded time, printing nothing
// when the payload is unusable and the hints when only the transcript is odd (an unreadable
// transcript counts as no signal).
#define BOOST_TEST_MODULE integration_plan_hints_fail_open
#include "support/platform.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/transcript_builder.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace json = boost::json;
using namespace viber::testing;

namespace {

constexpr std::string_view hints_line =
    R"({"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"the rules"}})"
    "\n";

struct Fixture {
    PluginTree tree{"plan-hints"};
    Fixture() { tree.write("hooks/content/plan-hints.md", "the rules\n"); }

    RunResult run(const std::string& stdin_bytes, StdinMode mode = StdinMode::bytes) const {
        RunOptions options;
        options.stdin_bytes = stdin_bytes;
        options.stdin_mode = mode;
        options.env.emplace("CLAUDE_PLUGIN_ROOT", std::nullopt);
        options.timeout = std::chrono::milliseconds(10000);
        return run_process(tree.binary(), options);
    }
};

std::string plan_payload(std::string_view transcript_path, std::string_view prompt = "x") {
    return json::serialize(json::object{{"transcript_path", transcript_path},
                                        {"permission_mode", "plan"},
                                        {"hook_event_name", "UserPromptSubmit"},
                                        {"prompt", prompt}});
}

void expect(const RunResult& r, std::string_view out) {
    BOOST_TEST(!r.timed_out);
    BOOST_TEST(r.signal == 0);
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(r.out == out);
}

} // namespace

BOOST_AUTO_TEST_CASE(unusable_payloads_print_nothing) {
    Fixture f;
    const std::string good = plan_payload(f.tree / "none.jsonl");
    for (const std::string& bad :
         {std::string(), std::string("   \n"), std::string("not json"),
          std::string("[") + good + "]", good.substr(0, good.size() - 1), good + "x",
          std::string("null"), std::string("\"plan\""), std::string("\xEF\xBB\xBF"),
          std::string("{\"permission_mode\":\"plan\"") + std::string(40, '['),
          std::string(1, '\0') + good}) {
        expect(f.run(bad), "");
    }
}

BOOST_AUTO_TEST_CASE(a_bom_before_the_payload_is_stripped) {
    Fixture f;
    expect(f.run("\xEF\xBB\xBF" + plan_payload(f.tree / "none.jsonl")), hints_line);
}

BOOST_AUTO_TEST_CASE(a_20_mb_payload_is_read_whole) {
    Fixture f;
    expect(f.run(plan_payload(f.tree / "none.jsonl", std::string(20u << 20, 'p'))), hints_line);
}

BOOST_AUTO_TEST_CASE(a_payload_over_the_cap_prints_nothing) {
    Fixture f;
    expect(f.run(plan_payload(f.tree / "none.jsonl", std::string((64u << 20) + 10, 'p'))), "");
}

BOOST_AUTO_TEST_CASE(held_open_stdin_ends_in_bounded_time) {
    Fixture f;
    expect(f.run(plan_payload(f.tree / "none.jsonl"), StdinMode::held_open), "");
    expect(f.run("", StdinMode::held_open), "");
}

BOOST_AUTO_TEST_CASE(transcript_path_absent_or_not_a_string_counts_as_no_signal) {
    Fixture f;
    expect(f.run(R"({"permission_mode":"plan"})"), hints_line);
    expect(f.run(R"({"permission_mode":"plan","transcript_path":42})"), hints_line);
    expect(f.run(R"({"permission_mode":"plan","transcript_path":""})"), hints_line);
}

BOOST_AUTO_TEST_CASE(odd_transcripts_count_as_no_signal, *viber::testing::posix_only("a FIFO")) {
    Fixture f;
    const std::string fifo = f.tree / "fifo";
    BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string dangling = f.tree / "dangling";
    BOOST_TEST_REQUIRE(::symlink((f.tree / "nowhere").c_str(), dangling.c_str()) == 0);
    const std::string dir = f.tree.mkdir("a-directory");
    for (const std::string& path :
         {f.tree / "missing.jsonl", fifo, dir, std::string("/dev/zero"), dangling}) {
        expect(f.run(plan_payload(path)), hints_line);
    }
}

BOOST_AUTO_TEST_CASE(garbage_transcripts_count_as_no_signal) {
    Fixture f;
    std::string binary;
    for (int i = 0; i < 100000; ++i) binary.push_back(static_cast<char>((i * 131 + 7) % 256));
    for (const std::string& garbage :
         {std::string(), binary, std::string(3u << 20, '\n'),
          std::string("{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\","
                      "\"name\":\"Skill\""),
          std::string("\"Skill\" EnterPlanMode permission-mode VERDICT: "
                      "<command-message>viber:intent\n")}) {
        const std::string path = f.tree.write("garbage.jsonl", garbage);
        expect(f.run(plan_payload(path)), hints_line);
    }
}

BOOST_AUTO_TEST_CASE(a_signal_after_garbage_still_counts) {
    Fixture f;
    TranscriptBuilder t;
    t.raw("\xFF\xFE garbage");
    t.permission_mode("default");
    t.raw("{not json");
    t.skill("viber:intent");
    const std::string path = f.tree.write("t.jsonl", t.text());
    expect(f.run(plan_payload(path)), "");
}
