// fail_open_test.cpp: plan-gate on a transcript it cannot read (docs/contract.md,
// docs/plan-gate.md): no path, a path that is no string, a missing file, a FIFO, a directory,
// /dev/zero, a dangling link, garbage, each allows (exit 0, nothing printed) where the intact
// transcript denies; and an empty cwd is no cwd. Broken payloads are the suite's
// (tests/integration/suite/fail_open_test.cpp, whose body arms plan-gate the same way).
#define BOOST_TEST_MODULE plan_gate_fail_open
#include "gate_fixture.hpp"
#include "support/platform.hpp"

#include <boost/test/unit_test.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace plan_gate_test;

namespace {

// A transcript that would deny (a planner plan, no review) when the gate can read it.
TranscriptBuilder armed(const Gate& gate) {
    const std::string plan = gate.plan(".claude/plans/p.md", planner_plan);
    TranscriptBuilder t;
    planner_episode(t);
    t.write_file(plan, planner_plan);
    return t;
}

json::object payload_with_transcript(const Gate& gate, const TranscriptBuilder& t,
                                     std::string path) {
    json::object payload = gate.payload(t);
    payload["transcript_path"] = std::move(path);
    return payload;
}

} // namespace

BOOST_AUTO_TEST_CASE(control_the_armed_transcript_denies) {
    Gate gate;
    require_deny(gate.ask(armed(gate)), "Next step: review the plan.");
}

BOOST_AUTO_TEST_CASE(no_transcript_path_allows) {
    Gate gate;
    json::object payload = gate.payload(armed(gate));
    payload.erase("transcript_path");
    require_allow(gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(transcript_path_not_a_string_allows) {
    Gate gate;
    json::object payload = gate.payload(armed(gate));
    payload["transcript_path"] = 42;
    require_allow(gate.ask(payload));
}

BOOST_AUTO_TEST_CASE(missing_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask(payload_with_transcript(gate, t, gate.scratch() / "nope.jsonl")));
}

BOOST_AUTO_TEST_CASE(fifo_transcript_allows_without_blocking,
                     *viber::testing::posix_only("a FIFO")) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    const std::string fifo = gate.scratch() / "fifo.jsonl";
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const Answer answer = gate.ask(payload_with_transcript(gate, t, fifo));
    require_allow(answer);
}

BOOST_AUTO_TEST_CASE(directory_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask(payload_with_transcript(gate, t, gate.scratch().mkdir("dir.jsonl"))));
}

BOOST_AUTO_TEST_CASE(dev_zero_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    require_allow(gate.ask(payload_with_transcript(gate, t, "/dev/zero")));
}

BOOST_AUTO_TEST_CASE(dangling_link_transcript_allows,
                     *viber::testing::posix_only("a symlink made by a test")) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    const std::string link = gate.scratch() / "dangling.jsonl";
    BOOST_REQUIRE(::symlink((gate.scratch() / "nothing-here").c_str(), link.c_str()) == 0);
    require_allow(gate.ask(payload_with_transcript(gate, t, link)));
}

BOOST_AUTO_TEST_CASE(garbage_transcript_allows) {
    Gate gate;
    const TranscriptBuilder t = armed(gate);
    std::string garbage;
    for (int i = 0; i < 1000; ++i)
        garbage += "\x01\xff{\"type\":\"assistant\", broken \\\" VERDICT: PASS plans/x.md\n";
    garbage += std::string(100000, '\0');
    const std::string path = gate.scratch().write("garbage.jsonl", garbage);
    require_allow(gate.ask(payload_with_transcript(gate, t, path)));
}

BOOST_AUTO_TEST_CASE(empty_cwd_is_no_cwd, *viber::testing::needs_bash()) {
    Gate gate;
    gate.config(switch_on_script);
    const std::string plan = gate.plan(".claude/plans/p.md", plain_plan);
    TranscriptBuilder t;
    plain_episode(t);
    t.write_file(plan, plain_plan);
    json::object payload = gate.payload(t);
    payload["cwd"] = "";
    require_allow(gate.ask(payload));
    payload["cwd"] = 7;
    require_allow(gate.ask(payload));
}
