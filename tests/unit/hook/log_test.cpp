// log_test.cpp: the troubleshooting log's line (docs/contract.md, "The troubleshooting log") and
// its append rules.
#define BOOST_TEST_MODULE log
#include "common/hook/log.hpp"
#include "common/os/os.hpp"
#include "common/text/utf8.hpp"
#include "support/platform.hpp"
#include "support/scratch.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace json = boost::json;

using viber::testing::read_file;

namespace {

viber::LogEntry entry(std::string_view reason) {
    return viber::LogEntry{.hook = "shell-guard",
                           .time = std::chrono::system_clock::time_point{} +
                                   std::chrono::milliseconds(1'764'547'200'123),
                           .micros = 412,
                           .decision = viber::DecisionKind::deny,
                           .reason = reason};
}

} // namespace

BOOST_AUTO_TEST_CASE(one_compact_json_line_with_the_five_fields) {
    BOOST_TEST(viber::log_line(entry("viber guard: R3")) ==
               R"({"hook":"shell-guard","time":"2025-12-01T00:00:00.123Z","micros":412,)"
               R"("decision":"deny","reason":"viber guard: R3"})"
               "\n");
}

BOOST_AUTO_TEST_CASE(the_reason_keeps_its_first_200_characters_at_a_character_boundary) {
    std::string reason;
    for (int i = 0; i < 300; ++i) reason += "\xE2\x82\xAC"; // 300 characters, 900 bytes
    const json::value line = json::parse(viber::log_line(entry(reason)));
    const std::string kept(line.at("reason").as_string());
    BOOST_TEST(viber::utf8::code_points(kept) == 200u);
    BOOST_TEST(kept == reason.substr(0, 600));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_in_the_reason_is_replaced) {
    const std::string line = viber::log_line(entry("plan \xFF.md"));
    BOOST_TEST(viber::utf8::is_valid(line));
    BOOST_TEST(line.find("plan \xEF\xBF\xBD.md") != std::string::npos, line);
}

BOOST_AUTO_TEST_CASE(the_payload_is_kept_as_its_object_or_as_a_string) {
    viber::LogEntry line = entry("r");
    const viber::LoggedPayload object = viber::logged_payload(std::string(R"({"a":[1,"x"]})"));
    line.payload = &object;
    const json::object logged = json::parse(viber::log_line(line)).as_object();
    BOOST_TEST(logged.at("payload") == json::parse(R"({"a":[1,"x"]})"));
    BOOST_TEST(!logged.contains("payload_cut"));
    // Not an object, or invalid UTF-8: a string, the bytes repaired.
    for (const std::string& bytes : {std::string("[1,2]"), std::string("{\"a\":\"\xff\"}")}) {
        const viber::LoggedPayload kept = viber::logged_payload(bytes);
        line.payload = &kept;
        const json::object as_string = json::parse(viber::log_line(line)).as_object();
        BOOST_TEST(as_string.at("payload") == json::value(viber::utf8::repaired(bytes)));
    }
    // A stdin not read in full: flagged.
    const viber::LoggedPayload unread = viber::logged_payload(std::nullopt);
    line.payload = &unread;
    BOOST_TEST(json::parse(viber::log_line(line)).at("payload_read") == json::value(false));
}

BOOST_AUTO_TEST_CASE(a_payload_over_64_kib_is_cut_at_a_character_boundary_and_flagged) {
    // 65,535 ASCII bytes then a 3-byte character across the 64 KiB mark.
    std::string bytes(65'535, 'a');
    bytes += "\xE2\x82\xAC";
    bytes += std::string(100, 'b');
    const viber::LoggedPayload cut = viber::logged_payload(bytes);
    BOOST_TEST(cut.cut);
    BOOST_TEST(cut.bytes == std::string(65'535, 'a'));
    viber::LogEntry line = entry("r");
    line.payload = &cut;
    const json::object logged = json::parse(viber::log_line(line)).as_object();
    BOOST_TEST(logged.at("payload_cut") == json::value(true));
    BOOST_TEST(logged.at("payload").as_string().size() == 65'535u);
    // Exactly 64 KiB is kept whole.
    BOOST_TEST(!viber::logged_payload(std::string(65'536, 'a')).cut);
}

BOOST_AUTO_TEST_CASE(every_kind_is_named) {
    BOOST_TEST(viber::to_string(viber::DecisionKind::none) == "none");
    BOOST_TEST(viber::to_string(viber::DecisionKind::deny) == "deny");
    BOOST_TEST(viber::to_string(viber::DecisionKind::block) == "block");
    BOOST_TEST(viber::to_string(viber::DecisionKind::context) == "context");
}

BOOST_AUTO_TEST_CASE(append_creates_then_appends_to_a_regular_file) {
    viber::testing::ScratchDir dir;
    const std::string path = dir / "hooks.log";
    BOOST_TEST(!viber::log_unwritable(path).has_value()); // absent, in a writable directory
    BOOST_TEST(viber::os::append_to_regular_file(path.c_str(), "one\n"));
    BOOST_TEST(viber::os::append_to_regular_file(path.c_str(), "two\n"));
    BOOST_TEST(read_file(path) == "one\ntwo\n");
    BOOST_TEST(!viber::log_unwritable(path).has_value());
}

BOOST_AUTO_TEST_CASE(append_leaves_a_fifo_a_directory_and_a_missing_directory_alone,
                     *viber::testing::posix_only("a FIFO")) {
    viber::testing::ScratchDir dir;
    const std::string fifo = dir / "fifo";
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    BOOST_TEST(!viber::os::append_to_regular_file(fifo.c_str(),
                                                  "x\n")); // at once: no reader, nothing opened
    BOOST_TEST(!viber::os::append_to_regular_file(dir.path().c_str(), "x\n"));
    const std::string nowhere = dir / "no/such/dir/log";
    BOOST_TEST(!viber::os::append_to_regular_file(nowhere.c_str(), "x\n"));
    // Each failure has its reason, found without writing.
    BOOST_TEST(viber::log_unwritable(fifo).value_or("") ==
               "it is not a regular file (a FIFO or a device is never written)");
    BOOST_TEST(viber::log_unwritable(dir.path()).value_or("") == "it is a directory");
    BOOST_TEST(viber::log_unwritable(nowhere).value_or("") ==
               "its directory " + (dir / "no/such/dir") + " does not exist");
    struct stat info {};
    BOOST_TEST(::stat(nowhere.c_str(), &info) != 0);
}
