// payload_test.cpp: the bounded stdin reader, BOM stripping, parsing and top-level key access.
#define BOOST_TEST_MODULE payload
#include "common/io/payload.hpp"
#include "common/os/os.hpp"
#include "support/environment.hpp"
#include "support/scratch.hpp"

#include <atomic>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>

using viber::parse_object;
using viber::read_bounded;
using viber::StdinLimits;
using viber::string_field;
using namespace std::chrono_literals;

namespace {

using viber::testing::IgnoreSigpipe;

// The layer's stream for a C descriptor: the descriptor on POSIX, its HANDLE on Windows.
viber::os::Stream stream_of(int fd) {
#ifdef _WIN32
    return reinterpret_cast<viber::os::Stream>(::_get_osfhandle(fd));
#else
    return fd;
#endif
}

// A pipe whose ends close with the object.
struct Pipe {
    int read_end = -1;
    int write_end = -1;
    Pipe() {
        int fds[2];
        BOOST_REQUIRE(::pipe(fds) == 0);
        read_end = fds[0];
        write_end = fds[1];
    }
    ~Pipe() {
        close_read();
        close_write();
    }
    void close_read() {
        if (read_end >= 0) ::close(read_end);
        read_end = -1;
    }
    void close_write() {
        if (write_end >= 0) ::close(write_end);
        write_end = -1;
    }
    void put(std::string_view bytes) const {
        while (!bytes.empty()) {
            const ssize_t put = ::write(write_end, bytes.data(), bytes.size());
            BOOST_REQUIRE(put > 0);
            bytes.remove_prefix(static_cast<std::size_t>(put));
        }
    }
};

// Reads `bytes` through a pipe closed after them, writing from a thread so a payload larger
// than the pipe buffer does not deadlock.
std::optional<std::string> read_through_pipe(const std::string& bytes,
                                             const StdinLimits& limits = {}) {
    Pipe pipe;
    std::thread writer([&] {
        std::string_view rest = bytes;
        while (!rest.empty()) {
            const ssize_t put = ::write(pipe.write_end, rest.data(), rest.size());
            if (put <= 0) break; // the reader stopped (cap reached)
            rest.remove_prefix(static_cast<std::size_t>(put));
        }
        pipe.close_write();
    });
    auto result = read_bounded(stream_of(pipe.read_end), limits);
    pipe.close_read(); // unblocks a writer the reader gave up on
    writer.join();
    return result;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string nested_arrays(int depth) {
    return "{\"a\":" + std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']') + "}";
}

} // namespace

BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

BOOST_AUTO_TEST_SUITE(read_bounded_reader)

BOOST_AUTO_TEST_CASE(reads_a_pipe_to_eof) {
    const auto got = read_through_pipe("{\"cwd\":\"/repo\"}");
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == "{\"cwd\":\"/repo\"}");
}

BOOST_AUTO_TEST_CASE(empty_pipe_is_empty_bytes_not_a_failure) {
    const auto got = read_through_pipe("");
    BOOST_REQUIRE(got);
    BOOST_TEST(got->empty());
}

BOOST_AUTO_TEST_CASE(reads_a_payload_larger_than_the_pipe_buffer) {
    const std::string big(3u << 20, 'x');
    const auto got = read_through_pipe(big);
    BOOST_REQUIRE(got);
    BOOST_TEST(got->size() == big.size());
    BOOST_TEST((*got == big));
}

BOOST_AUTO_TEST_CASE(reads_a_regular_file) {
    viber::testing::ScratchDir dir;
    const std::string path = dir.write("payload.json", "{\"a\":1}\n");
    const int fd = ::open(path.c_str(), O_RDONLY);
    BOOST_REQUIRE(fd >= 0);
    const auto got = read_bounded(stream_of(fd));
    ::close(fd);
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == "{\"a\":1}\n");
}

BOOST_AUTO_TEST_CASE(strips_one_leading_bom) {
    const auto got = read_through_pipe("\xEF\xBB\xBF{\"a\":1}");
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == "{\"a\":1}");
    const auto twice = read_through_pipe("\xEF\xBB\xBF\xEF\xBB\xBFx");
    BOOST_REQUIRE(twice);
    BOOST_TEST(*twice == "\xEF\xBB\xBFx");
}

BOOST_AUTO_TEST_CASE(a_bom_not_at_the_start_stays) {
    const auto got = read_through_pipe("x\xEF\xBB\xBF");
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == "x\xEF\xBB\xBF");
}

BOOST_AUTO_TEST_CASE(a_payload_at_the_cap_is_read) {
    StdinLimits limits;
    limits.max_bytes = 1000;
    const auto got = read_through_pipe(std::string(1000, 'a'), limits);
    BOOST_REQUIRE(got);
    BOOST_TEST(got->size() == 1000u);
}

BOOST_AUTO_TEST_CASE(a_payload_past_the_cap_fails) {
    StdinLimits limits;
    limits.max_bytes = 1000;
    BOOST_TEST(!read_through_pipe(std::string(1001, 'a'), limits));
}

BOOST_AUTO_TEST_CASE(the_default_cap_is_64_mib) {
    BOOST_TEST(StdinLimits{}.max_bytes == std::size_t{64} << 20);
    BOOST_TEST(StdinLimits{}.idle.count() == 2000);
    BOOST_TEST(StdinLimits{}.total.count() == 8000);
}

BOOST_AUTO_TEST_CASE(a_pipe_held_open_with_no_data_fails_after_the_idle_bound) {
    Pipe pipe;
    StdinLimits limits;
    limits.idle = 300ms;
    const auto start = std::chrono::steady_clock::now();
    const auto got = read_bounded(stream_of(pipe.read_end), limits);
    const double took = seconds_since(start);
    BOOST_TEST(!got);
    BOOST_TEST(took >= 0.25);
    BOOST_TEST(took < 5.0);
}

BOOST_AUTO_TEST_CASE(a_pipe_held_open_after_some_data_fails_too) {
    Pipe pipe;
    pipe.put("{\"cwd\":\"/repo\"}");
    StdinLimits limits;
    limits.idle = 300ms;
    BOOST_TEST(!read_bounded(stream_of(pipe.read_end), limits));
}

BOOST_AUTO_TEST_CASE(a_trickling_writer_is_cut_by_the_total_bound) {
    Pipe pipe;
    StdinLimits limits;
    limits.idle = 1000ms;
    limits.total = 400ms;
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        for (int i = 0; i < 40 && !stop; ++i) {
            if (::write(pipe.write_end, "x", 1) != 1) break;
            std::this_thread::sleep_for(50ms);
        }
    });
    const auto start = std::chrono::steady_clock::now();
    const auto got = read_bounded(stream_of(pipe.read_end), limits);
    const double took = seconds_since(start);
    stop = true;
    pipe.close_read();
    writer.join();
    BOOST_TEST(!got);
    BOOST_TEST(took < 1.5);
}

// A regular file is read into one buffer sized from its length; these read it whole at sizes
// around that length and the cap, and from an offset.
std::optional<std::string> read_file(const std::string& contents, const StdinLimits& limits = {},
                                     long skip = 0) {
    viber::testing::ScratchDir dir;
    const std::string path = dir.write("payload.json", contents);
    const int fd = ::open(path.c_str(), O_RDONLY);
    BOOST_REQUIRE(fd >= 0);
    BOOST_REQUIRE(::lseek(fd, skip, SEEK_SET) == skip);
    auto got = read_bounded(stream_of(fd), limits);
    ::close(fd);
    return got;
}

BOOST_AUTO_TEST_CASE(reads_a_multi_megabyte_regular_file_whole) {
    std::string big;
    for (int i = 0; big.size() < (5u << 20) + 12345; ++i) big += std::to_string(i) + ",";
    const auto got = read_file(big);
    BOOST_REQUIRE(got);
    BOOST_TEST(got->size() == big.size());
    BOOST_TEST((*got == big));
    const auto empty = read_file("");
    BOOST_REQUIRE(empty);
    BOOST_TEST(empty->empty());
}

BOOST_AUTO_TEST_CASE(a_regular_file_is_read_from_the_descriptors_position) {
    const auto got = read_file("skip{\"a\":1}", {}, 4);
    BOOST_REQUIRE(got);
    BOOST_TEST(*got == "{\"a\":1}");
}

BOOST_AUTO_TEST_CASE(a_regular_file_past_the_cap_fails_and_one_at_it_is_read) {
    StdinLimits limits;
    limits.max_bytes = 100000;
    BOOST_TEST(!read_file(std::string(100001, 'a'), limits));
    BOOST_TEST(!read_file(std::string(300000, 'a'), limits));
    const auto at_cap = read_file(std::string(100000, 'a'), limits);
    BOOST_REQUIRE(at_cap);
    BOOST_TEST(at_cap->size() == 100000u);
    // A cap inside a huge-page buffer (from 1 MiB on), and a file read whole into one.
    constexpr std::size_t mib = std::size_t{1} << 20;
    StdinLimits large;
    large.max_bytes = 3 * mib;
    BOOST_TEST(!read_file(std::string(3 * mib + 1, 'a'), large));
    const auto at_large_cap = read_file(std::string(3 * mib, 'a'), large);
    BOOST_REQUIRE(at_large_cap);
    BOOST_TEST(at_large_cap->size() == 3 * mib);
    std::string five(5 * mib + 3, 'f');
    five[12345] = 'x';
    const auto whole = read_file(five, {});
    BOOST_REQUIRE(whole);
    BOOST_TEST((*whole == five));
    // From an offset, only what is left counts.
    const auto rest = read_file(std::string(100010, 'a'), limits, 10);
    BOOST_REQUIRE(rest);
    BOOST_TEST(rest->size() == 100000u);
}

BOOST_AUTO_TEST_CASE(a_pipe_grows_its_buffer_to_any_size_under_the_cap) {
    // Sizes around the buffer's doublings from 64 KiB, and its growth on huge pages from 1 MiB
    // (capacities of k * 2 MiB - 32 bytes, four times larger each time).
    constexpr std::size_t mib = std::size_t{1} << 20;
    for (const std::size_t size :
         {std::size_t{65535}, std::size_t{65536}, std::size_t{65537}, std::size_t{131073}, mib,
          mib + 1, 2 * mib - 32, 2 * mib - 31, 5 * mib + 3, 9 * mib + 1}) {
        std::string bytes(size, 'x');
        bytes.back() = 'y';
        const auto got = read_through_pipe(bytes);
        BOOST_REQUIRE(got);
        BOOST_TEST((*got == bytes), size);
    }
    StdinLimits limits;
    limits.max_bytes = 200000;
    BOOST_TEST(!read_through_pipe(std::string(200001, 'a'), limits));
    const auto at_cap = read_through_pipe(std::string(200000, 'a'), limits);
    BOOST_REQUIRE(at_cap);
    BOOST_TEST(at_cap->size() == 200000u);
    // A cap inside a huge-page buffer: one byte past it still fails.
    limits.max_bytes = 3 * mib;
    BOOST_TEST(!read_through_pipe(std::string(3 * mib + 1, 'a'), limits));
    const auto at_large_cap = read_through_pipe(std::string(3 * mib, 'a'), limits);
    BOOST_REQUIRE(at_large_cap);
    BOOST_TEST(at_large_cap->size() == 3 * mib);
}

BOOST_AUTO_TEST_CASE(a_bad_descriptor_fails) {
    BOOST_TEST(!read_bounded(stream_of(-1)));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bom)

BOOST_AUTO_TEST_CASE(strip_bom_removes_only_a_leading_mark) {
    BOOST_TEST(viber::strip_bom("\xEF\xBB\xBFx") == "x");
    BOOST_TEST(viber::strip_bom("x") == "x");
    BOOST_TEST(viber::strip_bom("") == "");
    BOOST_TEST(viber::strip_bom("\xEF\xBB") == "\xEF\xBB");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(parsing)

BOOST_AUTO_TEST_CASE(an_object_parses) {
    const auto obj = parse_object(" {\"agent_type\":\"viber:task-coder\",\"n\":1} \n");
    BOOST_REQUIRE(obj);
    BOOST_TEST(obj->size() == 2u);
}

BOOST_AUTO_TEST_CASE(an_array_is_not_a_payload) {
    BOOST_TEST(!parse_object("[{\"agent_type\":\"viber:x\"}]"));
}

BOOST_AUTO_TEST_CASE(scalars_are_not_a_payload) {
    BOOST_TEST(!parse_object("\"text\""));
    BOOST_TEST(!parse_object("12"));
    BOOST_TEST(!parse_object("null"));
}

BOOST_AUTO_TEST_CASE(empty_and_blank_are_not_a_payload) {
    BOOST_TEST(!parse_object(""));
    BOOST_TEST(!parse_object(" \n\t"));
}

BOOST_AUTO_TEST_CASE(truncated_json_is_not_a_payload) {
    BOOST_TEST(!parse_object("{\"agent_type\":\"viber:x\""));
    BOOST_TEST(!parse_object("{\"agent_type\":\"viber:"));
    BOOST_TEST(!parse_object("{"));
}

BOOST_AUTO_TEST_CASE(trailing_garbage_is_not_a_payload) {
    BOOST_TEST(!parse_object("{\"a\":1} x"));
    BOOST_TEST(!parse_object("{\"a\":1}{\"b\":2}"));
}

BOOST_AUTO_TEST_CASE(not_json_is_not_a_payload) {
    BOOST_TEST(!parse_object("agent_type=viber:x"));
    BOOST_TEST(!parse_object("{'a':1}"));
}

BOOST_AUTO_TEST_CASE(nesting_within_the_cap_parses) {
    BOOST_TEST(parse_object(nested_arrays(500)).has_value());
}

BOOST_AUTO_TEST_CASE(nesting_past_the_cap_fails_open) {
    BOOST_TEST(!parse_object(nested_arrays(5000)));
    BOOST_TEST(!parse_object(nested_arrays(200000)));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_in_a_string_is_accepted) {
    const auto obj =
        parse_object("{\"command\":\"rm \xFF\xFE x\",\"agent_type\":\"viber:task-coder\"}");
    BOOST_REQUIRE(obj);
    const auto command = string_field(*obj, "command");
    BOOST_REQUIRE(command);
    BOOST_TEST(*command == "rm \xFF\xFE x");
}

BOOST_AUTO_TEST_CASE(escapes_are_decoded) {
    const auto obj = parse_object(R"({"m":"a\nb\u0041\"c"})");
    BOOST_REQUIRE(obj);
    BOOST_TEST(*string_field(*obj, "m") == "a\nbA\"c");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(top_level_keys)

BOOST_AUTO_TEST_CASE(string_field_reads_a_top_level_string) {
    const auto obj = parse_object(R"({"agent_type":"viber:task-coder"})");
    BOOST_REQUIRE(obj);
    BOOST_TEST(*string_field(*obj, "agent_type") == "viber:task-coder");
}

BOOST_AUTO_TEST_CASE(a_key_inside_a_string_value_never_counts) {
    const auto obj = parse_object(R"({"command":"echo \"agent_type\":\"viber:x\""})");
    BOOST_REQUIRE(obj);
    BOOST_TEST(!string_field(*obj, "agent_type"));
}

BOOST_AUTO_TEST_CASE(a_key_in_a_nested_object_never_counts) {
    const auto obj = parse_object(R"({"tool_input":{"agent_type":"viber:x"}})");
    BOOST_REQUIRE(obj);
    BOOST_TEST(!string_field(*obj, "agent_type"));
}

BOOST_AUTO_TEST_CASE(a_non_string_value_is_no_string) {
    const auto obj = parse_object(R"({"a":1,"b":null,"c":["x"],"d":{"x":"y"},"e":true})");
    BOOST_REQUIRE(obj);
    for (const auto* key : {"a", "b", "c", "d", "e", "missing"})
        BOOST_TEST(!string_field(*obj, key));
}

BOOST_AUTO_TEST_CASE(an_empty_string_is_present) {
    const auto obj = parse_object(R"({"a":""})");
    BOOST_REQUIRE(obj);
    const auto a = string_field(*obj, "a");
    BOOST_REQUIRE(a);
    BOOST_TEST(a->empty());
}

BOOST_AUTO_TEST_CASE(is_true_only_for_json_true) {
    const auto obj =
        parse_object(R"({"t":true,"f":false,"s":"true","n":1,"z":null,"in":{"t":true}})");
    BOOST_REQUIRE(obj);
    BOOST_TEST(viber::is_true(*obj, "t"));
    BOOST_TEST(!viber::is_true(*obj, "f"));
    BOOST_TEST(!viber::is_true(*obj, "s"));
    BOOST_TEST(!viber::is_true(*obj, "n"));
    BOOST_TEST(!viber::is_true(*obj, "z"));
    BOOST_TEST(!viber::is_true(*obj, "in"));
    BOOST_TEST(!viber::is_true(*obj, "missing"));
}

BOOST_AUTO_TEST_CASE(contains_finds_raw_bytes) {
    BOOST_TEST(viber::os::contains_bytes(R"({"agent_type":"viber:x"})", "viber:"));
    BOOST_TEST(!viber::os::contains_bytes(R"({"agent_type":"general-purpose"})", "viber:"));
    BOOST_TEST(!viber::os::contains_bytes("viber", "viber:"));
    BOOST_TEST(viber::os::contains_bytes(std::string_view("a\0viber:", 8), "viber:"));
    BOOST_TEST(viber::os::contains_bytes("anything", ""));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bash_commands)

BOOST_AUTO_TEST_CASE(reads_tool_input_command) {
    const auto obj = parse_object(R"({"agent_type":"viber:x","tool_input":{"command":"ls -l"}})");
    BOOST_REQUIRE(obj);
    const auto command = viber::bash_command(*obj);
    BOOST_REQUIRE(command);
    BOOST_TEST(*command == "ls -l");
}

BOOST_AUTO_TEST_CASE(missing_or_mistyped_parts_give_nothing) {
    for (const char* text : {R"({"agent_type":"viber:x"})", R"({"tool_input":"ls"})",
                             R"({"tool_input":{"command":7}})", R"({"tool_input":{}})",
                             R"({"command":"ls"})", R"({"x":{"tool_input":{"command":"ls"}}})"}) {
        const auto obj = parse_object(text);
        BOOST_REQUIRE(obj);
        BOOST_TEST(!viber::bash_command(*obj), text);
    }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- lone surrogates (docs/contract.md, "Payload strings") -------------------------------------

BOOST_AUTO_TEST_SUITE(lone_surrogates)

namespace {
std::string rewritten(std::string text) {
    viber::replace_lone_surrogates(text.data(), text.size());
    return text;
}
// The command string of a parsed Bash payload whose command JSON text is `escaped`; a payload
// that does not parse gives "(unparsed)".
std::string command_of(const std::string& escaped) {
    const auto obj = parse_object(R"({"tool_input":{"command":")" + escaped + R"("}})");
    if (!obj) return "(unparsed)";
    const auto command = viber::bash_command(*obj);
    if (!command) return "(no command)";
    return std::string(*command);
}
const std::string replacement = "\xEF\xBF\xBD"; // U+FFFD in UTF-8
} // namespace

BOOST_AUTO_TEST_CASE(a_lone_high_surrogate_reads_as_the_replacement_character) {
    BOOST_TEST(rewritten(R"("a\ud800b")") == R"("a\uFFFDb")");
    BOOST_TEST(command_of(R"(pkill \ud800 node)") == "pkill " + replacement + " node");
}

BOOST_AUTO_TEST_CASE(a_high_surrogate_followed_by_a_non_low_escape_is_lone) {
    BOOST_TEST(rewritten(R"(\ud800\u0041)") == R"(\uFFFD\u0041)");
    BOOST_TEST(rewritten(R"(\uD800\uD800\uDC00)") == R"(\uFFFD\uD800\uDC00)");
    BOOST_TEST(command_of(R"(\ud800\u0041)") == replacement + "A");
    // At the very end of the bytes, with no room for a pair.
    BOOST_TEST(rewritten(R"(x\udbff)") == R"(x\uFFFD)");
}

BOOST_AUTO_TEST_CASE(a_lone_low_surrogate_reads_as_the_replacement_character) {
    BOOST_TEST(rewritten(R"(\udc00x)") == R"(\uFFFDx)");
    BOOST_TEST(command_of(R"(rm \uDFFF)") == "rm " + replacement);
}

BOOST_AUTO_TEST_CASE(an_escaped_backslash_before_u_is_not_an_escape) {
    BOOST_TEST(rewritten(R"(\\ud800)") == R"(\\ud800)");
    BOOST_TEST(command_of(R"(echo \\ud800)") == R"(echo \ud800)");
    // Three backslashes: an escaped one, then a real escape.
    BOOST_TEST(rewritten(R"(\\\ud800)") == R"(\\\uFFFD)");
}

BOOST_AUTO_TEST_CASE(a_valid_pair_stays) {
    BOOST_TEST(rewritten(R"(\ud83d\ude00)") == R"(\ud83d\ude00)");
    BOOST_TEST(command_of(R"(echo \ud83d\ude00)") == "echo \xF0\x9F\x98\x80");
    BOOST_TEST(viber::replace_lone_surrogates(nullptr, 0) == 0u);
}

BOOST_AUTO_TEST_CASE(invalid_utf8_is_kept_beside_a_rewritten_escape) {
    BOOST_TEST(command_of("\xFF \\ud800") == "\xFF " + replacement);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- long escaped strings: decoded outside Boost.JSON, read exactly as it reads them -----------

BOOST_AUTO_TEST_SUITE(long_escaped_strings)

namespace {
// The reference reading: Boost.JSON on the bytes, as the parse would be without the fast path.
std::optional<boost::json::value> reference(std::string_view bytes) {
    boost::json::parse_options options;
    options.max_depth = 1024;
    options.allow_invalid_utf8 = true;
    boost::system::error_code ec;
    boost::json::value value = boost::json::parse(bytes, ec, {}, options);
    if (ec || !value.is_object()) return std::nullopt;
    return value;
}
void same_as_reference(const std::string& bytes) {
    const auto got = parse_object(bytes);
    const auto want = reference(bytes);
    BOOST_TEST_REQUIRE(got.has_value() == want.has_value());
    if (got) BOOST_TEST((boost::json::value(*got) == *want));
}
std::string long_text(std::string_view line, std::size_t bytes = 200 * 1024) {
    std::string text;
    while (text.size() < bytes) text += line;
    return text;
}
} // namespace

BOOST_AUTO_TEST_CASE(every_escape_reads_as_boost_json_reads_it) {
    const std::string body =
        long_text(R"(a \"quoted\" line\twith \\ and \/ \b\f\r\n \u00e9 \ud83d\ude00 \uFFFD )");
    const std::string bytes = R"({"agent_type":"viber:x","last_assistant_message":")" + body +
                              R"(","list":[")" + body + R"(",{"deep":")" + body + R"("}]})";
    same_as_reference(bytes);
    const auto obj = parse_object(bytes);
    BOOST_REQUIRE(obj);
    const auto message = viber::string_field(*obj, "last_assistant_message");
    BOOST_REQUIRE(message);
    BOOST_TEST(message->starts_with(
        "a \"quoted\" line\twith \\ and / \b\f\r\n \xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBD "));
}

BOOST_AUTO_TEST_CASE(what_boost_json_rejects_stays_rejected) {
    for (const std::string& bad : {std::string(R"(\x)"), std::string(R"(\u12G4)"),
                                   std::string("\x01"), std::string("tab\there")}) {
        const std::string bytes = R"({"m":")" + long_text(R"(line\n)") + bad + R"("})";
        BOOST_TEST(!parse_object(bytes).has_value(), bad);
        same_as_reference(bytes);
    }
}

BOOST_AUTO_TEST_CASE(a_long_key_and_invalid_utf8_read_alike) {
    same_as_reference(R"({")" + long_text(R"(k\n)") + R"(" : "v", "m":")" + long_text("\xFF\\n") +
                      R"("})");
}

BOOST_AUTO_TEST_CASE(a_payload_spelling_the_placeholder_reads_alike) {
    const std::string body = long_text(R"(x\n)");
    same_as_reference(R"({"a":"\u0000viber-lifted:0","m":")" + body + R"("})");
    same_as_reference(R"({"a":"\u0000\u0076iber-lifted:0","m":")" + body + R"("})");
    const auto obj = parse_object(R"({"a":"\u0000\u0076iber-lifted:0","m":")" + body + R"("})");
    BOOST_REQUIRE(obj);
    BOOST_TEST(viber::string_field(*obj, "a")->size() == 15u);
}

BOOST_AUTO_TEST_CASE(truncated_and_trailing_garbage_stay_unparsed) {
    const std::string body = long_text(R"(x\n)");
    BOOST_TEST(!parse_object(R"({"m":")" + body).has_value());
    BOOST_TEST(!parse_object(R"({"m":")" + body + R"("} x)").has_value());
    BOOST_TEST(!parse_object(R"([")" + body + R"("])").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

// ---- long string values of a few kilobytes on: decoded outside Boost.JSON, owned by the value ---

BOOST_AUTO_TEST_SUITE(owned_long_values)

namespace {
// Boost.JSON's reading of `bytes` with lone surrogates read as U+FFFD (docs/contract.md,
// "Payload strings").
std::optional<boost::json::value> reference_of(std::string bytes) {
    viber::replace_lone_surrogates(bytes.data(), bytes.size());
    return long_escaped_strings::reference(bytes);
}
// Parses `bytes` and checks that every value, get_string() included, is what Boost.JSON reads.
void same_as_boost_json(const std::string& bytes) {
    const auto got = parse_object(bytes);
    const auto want = reference_of(bytes);
    BOOST_TEST_REQUIRE(got.has_value() == want.has_value());
    if (got) BOOST_TEST((boost::json::value(*got) == *want));
}
using long_escaped_strings::long_text;
const std::string every_escape =
    R"(a \"quoted\" line\twith \\ and \/ \b\f\r\n \u00e9 \u20AC \ud83d\ude00 \uDBFF\uDFFF \uFFFD \u0041 )";
} // namespace

BOOST_AUTO_TEST_CASE(every_escape_form_reads_as_boost_json_reads_it) {
    const std::string body = long_text(every_escape);
    same_as_boost_json(R"({"agent_type":"viber:x","last_assistant_message":")" + body +
                       R"(","n":1,"t":true,"list":[")" + body + R"(",{"deep":")" + body +
                       R"("}]})");
    const auto obj = parse_object(R"({"m":")" + body + R"("})");
    BOOST_REQUIRE(obj);
    const auto& message = obj->at("m").get_string();
    BOOST_TEST(std::string_view(message.data(), message.size())
                   .starts_with("a \"quoted\" line\twith \\ and / \b\f\r\n \xC3\xA9 \xE2\x82\xAC "
                                "\xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF \xEF\xBF\xBD A "));
}

BOOST_AUTO_TEST_CASE(values_of_mebibytes_read_as_boost_json_reads_them_and_outlive_the_parse) {
    // Past a mebibyte a decoded value's block is sized to huge pages: two such values and a short
    // one, and the result copied, changed and compared after the parse.
    const std::string body = long_text(every_escape, std::size_t{3} << 20);
    const std::string bytes =
        R"({"m":")" + body + R"(","list":[")" + body + R"("],"agent_type":"viber:x"})";
    same_as_boost_json(bytes);
    std::optional<boost::json::object> obj = parse_object(bytes);
    BOOST_REQUIRE(obj);
    const boost::json::value copy(*obj);
    (*obj)["m"] = "short";
    obj->erase("list");
    BOOST_TEST((copy == *reference_of(bytes)));
    BOOST_TEST(obj->at("m").as_string() == "short");
}

BOOST_AUTO_TEST_CASE(lone_surrogates_read_as_the_replacement_character) {
    for (const std::string lone : {R"(\ud800)", R"(\uDC00)", R"(\ud800\u0041)",
                                   R"(\ud800\ud800\udc00)", R"(\udbff\\ud800)", R"(\ud800\n)"}) {
        const std::string body = long_text(R"(x\n)" + lone);
        same_as_boost_json(R"({"m":")" + body + R"(","s":")" + lone + R"("})");
        // At the very end of the value.
        same_as_boost_json(R"({"m":")" + long_text(R"(x\n)") + lone + R"("})");
    }
}

BOOST_AUTO_TEST_CASE(plain_and_late_escaped_values_read_alike) {
    // No escape at all; escapes only past the first 64 KiB; one escape at the very end.
    same_as_boost_json(R"({"m":")" + std::string(300000, 'p') + R"("})");
    same_as_boost_json(R"({"m":")" + std::string(70000, 'p') + long_text(R"(\n\"x)") + R"("})");
    same_as_boost_json(R"({"m":")" + std::string(300000, 'p') + R"(\n"})");
    // Exactly at the in-place threshold (4 KiB) and one byte under it; the same at 64 KiB.
    for (const std::size_t threshold : {std::size_t{4096}, std::size_t{65536}}) {
        same_as_boost_json(R"({"m":")" + std::string(threshold - 2, 'p') + R"(\n"})");
        same_as_boost_json(R"({"m":")" + std::string(threshold - 3, 'p') + R"(\n"})");
    }
}

BOOST_AUTO_TEST_CASE(a_command_of_a_few_kilobytes_is_its_own_text) {
    // A 5 KB value: get_string() is the command itself, never a placeholder.
    const std::string command = "git status && " + std::string(5000, 'x') + R"( \"q\")";
    const auto obj = parse_object(R"({"tool_input":{"command":")" + command + R"("},"n":1})");
    BOOST_REQUIRE(obj);
    const auto& text = obj->at("tool_input").at("command").get_string();
    BOOST_TEST(std::string_view(text.data(), text.size()) ==
               "git status && " + std::string(5000, 'x') + " \"q\"");
}

BOOST_AUTO_TEST_CASE(escapes_at_every_offset_of_a_vector_read_alike) {
    // Plain runs of 0 to 99 bytes between escapes put an escape at every offset of a 16- or
    // 32-byte step, decoded in place (a value) and into a buffer of its own (an array element),
    // from the first escape on, while the decoded text still trails its spelling by little.
    std::mt19937 rng(20261201);
    const std::string escapes[] = {R"(\n)",     R"(\")",           R"(\\)",
                                   R"(\u00e9)", R"(\ud83d\ude00)", R"(\t)"};
    for (int round = 0; round < 4; ++round) {
        std::string body;
        while (body.size() < 150000) {
            body += std::string(rng() % 100, static_cast<char>('a' + rng() % 26));
            body += escapes[rng() % std::size(escapes)];
        }
        same_as_boost_json(R"({"m":")" + body + R"(","a":[")" + body + R"("]})");
    }
}

BOOST_AUTO_TEST_CASE(long_keys_array_elements_and_invalid_utf8_read_alike) {
    same_as_boost_json(R"({")" + long_text(R"(k\n)") + R"(" : "v", "m" :  ")" +
                       long_text("\xFF\\n\xC3") + R"("})");
    same_as_boost_json(R"({"a":[")" + long_text(R"(e\n)") + R"(", ")" + long_text(R"(f\t)") +
                       R"("],"m":")" + long_text(R"(x\n)") + R"("})");
}

BOOST_AUTO_TEST_CASE(what_boost_json_rejects_stays_rejected) {
    for (const std::string& bad :
         {std::string(R"(\x)"), std::string(R"(\u12G4)"), std::string("\x01"),
          std::string("tab\there"), std::string(R"(\)")}) {
        // Past the first 64 KiB of the value (decoded in place by then) and within it.
        const std::string late = R"({"m":")" + long_text(R"(line\n)") + bad + R"("})";
        const std::string early = R"({"m":"a)" + bad + long_text(R"(line\n)") + R"("})";
        for (const std::string& bytes : {late, early}) {
            BOOST_TEST(!parse_object(bytes).has_value(), bad);
            BOOST_TEST(!reference_of(bytes).has_value(), bad);
        }
    }
    const std::string body = long_text(R"(x\n)");
    for (const std::string& bytes :
         {R"({"m":")" + body, R"({"m":")" + body + R"("} x)", R"({"m":")" + body + R"(", })",
          R"({"m":")" + body + R"("})" + "]"}) {
        BOOST_TEST(!parse_object(bytes).has_value());
    }
}

BOOST_AUTO_TEST_CASE(a_payload_spelling_a_placeholder_reads_alike) {
    const std::string body = long_text(R"(x\n)");
    // Spellings that cannot be one of this parse's placeholders, a value and an array element.
    for (const std::string spoof :
         {R"(\u0000viber-lifted:0)", R"(\u0000\u0076iber-lifted:0)", R"(\u0000viber-lifted:0:1:1)",
          R"(\u0000viber-lifted:)", R"(\u0000viber-lifted:9:1:1)"}) {
        same_as_boost_json(R"({"a":")" + spoof + R"(","m":")" + body + R"("})");
        same_as_boost_json(R"({"m":")" + body + R"(","z":[")" + spoof + R"("]})");
        // With invalid UTF-8 and every escape in the long value.
        same_as_boost_json(R"({"a":")" + spoof + R"(","m":")" + long_text(every_escape) +
                           "\xFF\xC3" + R"("})");
    }
}

BOOST_AUTO_TEST_SUITE_END()
