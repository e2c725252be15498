// output_test.cpp: the exact JSON text of every answer shape of docs/contract.md, and writing it
// out.
#define BOOST_TEST_MODULE output
#include "common/io/output.hpp"
#include "common/os/os.hpp"
#include "common/text/utf8.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <string>
#include <thread>
#include <unistd.h>

using viber::to_line;

namespace {

// Points stdout at a pipe for the lifetime of the object, restoring it after.
struct CapturedStdout {
    int saved = -1;
    int read_end = -1;
    CapturedStdout() {
        int fds[2];
        BOOST_REQUIRE(::pipe(fds) == 0);
        saved = ::dup(STDOUT_FILENO);
        ::dup2(fds[1], STDOUT_FILENO);
        ::close(fds[1]);
        read_end = fds[0];
    }
    void restore() {
        if (saved >= 0) {
            ::dup2(saved, STDOUT_FILENO);
            ::close(saved);
            saved = -1;
        }
    }
    ~CapturedStdout() {
        restore();
        if (read_end >= 0) ::close(read_end);
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(pretool_deny_carries_its_reason) {
    BOOST_TEST(
        to_line(viber::pretool_deny("viber guard: no")) ==
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
        "\"permissionDecisionReason\":\"viber guard: no\"}}\n");
}

BOOST_AUTO_TEST_CASE(quotes_backslashes_newlines_and_control_characters_are_escaped) {
    const std::string reason = std::string("a \"q\" \\ b\nc\td\re") + '\x01' + '\x1f' + "</x>";
    BOOST_TEST(
        to_line(viber::pretool_deny(reason)) ==
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
        "\"permissionDecisionReason\":\"a \\\"q\\\" \\\\ b\\nc\\td\\re\\u0001\\u001f</x>\"}}\n");
}

BOOST_AUTO_TEST_CASE(utf8_text_passes_through) {
    BOOST_TEST(to_line(viber::block_stop("caf\xC3\xA9 \xE2\x86\x92")) ==
               "{\"decision\":\"block\",\"reason\":\"caf\xC3\xA9 \xE2\x86\x92\"}\n");
}

BOOST_AUTO_TEST_CASE(additional_context_shape) {
    BOOST_TEST(
        to_line(viber::additional_context("UserPromptSubmit", "line 1\nline 2")) ==
        "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":"
        "\"line 1\\nline 2\"}}\n");
}

BOOST_AUTO_TEST_CASE(session_start_with_context) {
    BOOST_TEST(to_line(viber::session_start(std::string_view("manifest"), "viber loaded 1.0.0")) ==
               "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":"
               "\"manifest\"},"
               "\"systemMessage\":\"viber loaded 1.0.0\"}\n");
}

BOOST_AUTO_TEST_CASE(session_start_without_context_holds_the_event_name_alone) {
    BOOST_TEST(to_line(viber::session_start(std::nullopt, "viber loaded dev")) ==
               "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\"},\"systemMessage\":"
               "\"viber loaded dev\"}\n");
}

BOOST_AUTO_TEST_CASE(session_start_system_message_is_top_level) {
    const auto answer =
        boost::json::parse(to_line(viber::session_start(std::string_view("m"), "banner")));
    const auto& top = answer.as_object();
    BOOST_TEST(top.at("systemMessage").as_string() == "banner");
    BOOST_TEST(!top.at("hookSpecificOutput").as_object().contains("systemMessage"));
}

BOOST_AUTO_TEST_CASE(block_stop_shape) {
    BOOST_TEST(to_line(viber::block_stop("end with the verdict")) ==
               "{\"decision\":\"block\",\"reason\":\"end with the verdict\"}\n");
}

BOOST_AUTO_TEST_CASE(a_line_is_one_line) {
    const std::string line = to_line(viber::block_stop("a\nb\nc"));
    BOOST_TEST(line.find('\n') == line.size() - 1);
}

BOOST_AUTO_TEST_CASE(write_stdout_writes_everything) {
    const std::string line(2u << 20, 'z'); // past any pipe buffer: short writes are retried
    std::string got;
    {
        CapturedStdout captured;
        std::thread reader([&] {
            char buffer[65536];
            for (;;) {
                const ssize_t n = ::read(captured.read_end, buffer, sizeof buffer);
                if (n <= 0) break;
                got.append(buffer, static_cast<std::size_t>(n));
            }
        });
        BOOST_TEST(viber::os::write_stdout(line));
        captured.restore(); // closes the last write end: the reader sees EOF
        reader.join();
    }
    BOOST_TEST(got.size() == line.size());
    BOOST_TEST((got == line));
}

BOOST_AUTO_TEST_CASE(write_stdout_to_a_closed_reader_returns) {
    std::signal(SIGPIPE, SIG_IGN); // as hook_main does
    CapturedStdout captured;
    ::close(captured.read_end);
    captured.read_end = -1;
    // EPIPE: nobody is left to tell; the write must neither block, throw nor kill the process.
    BOOST_CHECK_NO_THROW(viber::os::write_stdout("{\"decision\":\"block\"}\n"));
}

BOOST_AUTO_TEST_SUITE(writer_guarantees)

BOOST_AUTO_TEST_CASE(invalid_utf8_in_any_text_is_printed_as_replacement_characters) {
    const std::string line = to_line(viber::pretool_deny("plan \xFF\xC3.md"));
    BOOST_TEST(line.find("plan \xEF\xBF\xBD\xEF\xBF\xBD.md") != std::string::npos, line);
    const std::string banner =
        to_line(viber::session_start(std::string_view("ctx\x80"), "viber loaded \xFE"));
    BOOST_TEST(banner.find("ctx\xEF\xBF\xBD") != std::string::npos, banner);
    BOOST_TEST(banner.find("viber loaded \xEF\xBF\xBD") != std::string::npos, banner);
    // What is printed parses as strict JSON (no invalid UTF-8 allowed).
    boost::system::error_code ec;
    (void)boost::json::parse(banner, ec);
    BOOST_TEST(!ec.failed());
}

BOOST_AUTO_TEST_CASE(a_text_at_the_cap_is_printed_whole) {
    const std::string text(viber::text_cap, 'x');
    BOOST_TEST(viber::capped(text) == text);
    std::string two_byte;
    for (std::size_t i = 0; i < viber::text_cap; ++i) two_byte += "\xC3\xA9";
    BOOST_TEST(viber::capped(two_byte) == two_byte); // characters count, not bytes
}

BOOST_AUTO_TEST_CASE(a_longer_text_is_cut_at_a_line_end_and_says_how_much_was_left_out) {
    std::string text;
    for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i % 10) + " abc\n"; // 11 each
    const std::string out = viber::capped(text);
    BOOST_TEST(viber::utf8::code_points(out) <= viber::text_cap);
    const std::size_t note = out.rfind("\n[... ");
    BOOST_TEST_REQUIRE(note != std::string::npos);
    const std::string kept = out.substr(0, note);
    // Cut at a line end: what is kept is whole lines of the original.
    BOOST_TEST(text.compare(0, kept.size(), kept) == 0);
    BOOST_TEST(text[kept.size()] == '\n');
    const std::string left_out = std::to_string(text.size() - kept.size());
    BOOST_TEST(out.substr(note) == "\n[... " + left_out + " more characters left out]");
}

BOOST_AUTO_TEST_CASE(a_long_line_without_line_ends_is_cut_at_a_character_boundary) {
    std::string text;
    for (int i = 0; i < 12000; ++i) text += "\xE2\x82\xAC"; // one character, three bytes
    const std::string out = viber::capped(text);
    BOOST_TEST(viber::utf8::is_valid(out));
    BOOST_TEST(viber::utf8::code_points(out) <= viber::text_cap);
    const std::size_t note = out.find("\n[... ");
    BOOST_TEST_REQUIRE(note != std::string::npos);
    const std::size_t kept = viber::utf8::code_points(out.substr(0, note));
    BOOST_TEST(out.substr(note) ==
               "\n[... " + std::to_string(12000 - kept) + " more characters left out]");
}

BOOST_AUTO_TEST_CASE(every_answer_shape_is_capped_by_the_writer) {
    const std::string huge(30000, 'r');
    for (const boost::json::value& answer : {viber::pretool_deny(huge), viber::block_stop(huge),
                                             viber::additional_context("UserPromptSubmit", huge),
                                             viber::session_start(std::string_view(huge), huge)}) {
        const std::string line = to_line(answer);
        BOOST_TEST(line.size() < 2 * viber::text_cap + 400, line.size());
        BOOST_TEST(line.find("20064 more characters left out") != std::string::npos);
    }
}

BOOST_AUTO_TEST_SUITE_END()
