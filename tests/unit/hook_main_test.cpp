// hook_main_test.cpp: hook mode fails open: an exception or bad_alloc in a hook never escapes,
// the hook's fail-open answer goes out instead, and the exit status stays 0.
#define BOOST_TEST_MODULE hook_main
#include <boost/test/unit_test.hpp>

#include "common/hook_main.hpp"
#include "common/output.hpp"
#include "support/scratch.hpp"

#include <boost/json/serialize.hpp>

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace {

struct Outcome {
    int status = -1;
    std::string out;
};

// Runs hook_main in hook mode (no arguments) with stdin from /dev/null and stdout in a file.
Outcome run_hook_mode(const viber::HookInfo& info) {
    viber::testing::ScratchDir dir;
    const std::string out_path = dir / "out";
    std::fflush(stdout);
    const int saved_in = ::dup(0), saved_out = ::dup(1);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0);
    ::dup2(out, 1);
    char name[] = "hook";
    char* argv[] = {name, nullptr};
    Outcome outcome;
    outcome.status = viber::hook_main(1, argv, info);
    ::dup2(saved_in, 0);
    ::dup2(saved_out, 1);
    for (int fd : {in, out, saved_in, saved_out}) ::close(fd);
    std::ifstream file(out_path);
    std::stringstream text;
    text << file.rdbuf();
    outcome.out = text.str();
    return outcome;
}

viber::Decision throws_bad_alloc(const viber::HookInput&, viber::Trace&) {
    throw std::bad_alloc();
}
viber::Decision throws_runtime_error(const viber::HookInput&, viber::Trace&) {
    throw std::runtime_error("broken");
}
// No hook prints an allow: a block stands for any answer a hook prints.
viber::Decision answers(const viber::HookInput&, viber::Trace&) {
    return viber::Decision::block("answer");
}
viber::Decision fail_open_answers() {
    return viber::Decision::block("answer");
}
viber::Decision fail_open_throws() {
    throw std::runtime_error("broken too");
}

const std::string answer_line = R"({"decision":"block","reason":"answer"})" "\n";

} // namespace

BOOST_AUTO_TEST_CASE(bad_alloc_prints_the_fail_open_answer_and_exits_0) {
    const Outcome got = run_hook_mode({"t", "contract", throws_bad_alloc, viber::Prefilter::none, fail_open_answers});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out == answer_line);
}

BOOST_AUTO_TEST_CASE(any_exception_prints_the_fail_open_answer_and_exits_0) {
    const Outcome got = run_hook_mode({"t", "contract", throws_runtime_error, viber::Prefilter::none, fail_open_answers});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out == answer_line);
}

BOOST_AUTO_TEST_CASE(a_throwing_fail_open_prints_nothing_and_exits_0) {
    const Outcome got = run_hook_mode({"t", "contract", throws_bad_alloc, viber::Prefilter::none, fail_open_throws});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(no_fail_open_prints_nothing_and_exits_0) {
    const Outcome got = run_hook_mode({"t", "contract", throws_bad_alloc, viber::Prefilter::none, nullptr});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out.empty(), got.out);
}

BOOST_AUTO_TEST_CASE(the_answer_of_run_is_printed_as_one_line) {
    const Outcome got = run_hook_mode({"t", "contract", answers, viber::Prefilter::none, nullptr});
    BOOST_TEST(got.status == 0);
    BOOST_TEST(got.out == answer_line);
}
