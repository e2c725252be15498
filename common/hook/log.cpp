// log.cpp: the troubleshooting log: one JSON line per call, appended without blocking.
#include "common/hook/log.hpp"

#include "common/io/output.hpp"
#include "common/io/payload.hpp"
#include "common/os/os.hpp"
#include "common/text/utf8.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cstdio>
#include <optional>
#include <string>

namespace viber {

namespace {

// Civil date and time from the clock alone: gmtime_r would open /etc/localtime on the way.
std::string iso8601_utc(std::chrono::system_clock::time_point time) {
    using namespace std::chrono;
    const auto day = floor<days>(time);
    const year_month_day date{day};
    const hh_mm_ss clock{floor<milliseconds>(time - day)};
    char text[40];
    std::snprintf(
        text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(date.year()),
        static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
        static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
        static_cast<int>(clock.seconds().count()), static_cast<int>(clock.subseconds().count()));
    return text;
}

} // namespace

std::string log_line(const LogEntry& entry) {
    const std::string reason = utf8::repaired(entry.reason);
    const std::string_view head =
        std::string_view(reason).substr(0, utf8::offset_of(reason, log_reason_characters));
    boost::json::object line;
    line["hook"] = entry.hook;
    line["time"] = iso8601_utc(entry.time);
    line["micros"] = entry.micros;
    line["decision"] = to_string(entry.decision);
    line["reason"] = head;
    if (entry.payload != nullptr) {
        const LoggedPayload& payload = *entry.payload;
        // Kept whole and a JSON object, as hook mode parses it: the object itself, so the log
        // line reads as the payload did; anything else as a string.
        std::optional<boost::json::object> object;
        if (!payload.cut && utf8::is_valid(payload.bytes)) object = parse_object(payload.bytes);
        if (object)
            line["payload"] = std::move(*object);
        else
            line["payload"] = utf8::repaired(payload.bytes);
        if (payload.cut) line["payload_cut"] = true;
        if (!payload.read) line["payload_read"] = false;
    }
    std::string text = boost::json::serialize(line);
    text.push_back('\n');
    return text;
}

LoggedPayload logged_payload(const std::optional<std::string>& stdin_bytes) {
    LoggedPayload out;
    if (!stdin_bytes) {
        out.read = false;
        return out;
    }
    const std::string_view bytes = *stdin_bytes;
    if (bytes.size() <= log_payload_bytes) {
        out.bytes = bytes;
        return out;
    }
    // Cut at a character boundary: back over UTF-8 continuation bytes.
    std::size_t end = log_payload_bytes;
    while (end > 0 && (static_cast<unsigned char>(bytes[end]) & 0xC0) == 0x80) --end;
    out.bytes = bytes.substr(0, end);
    out.cut = true;
    return out;
}

std::optional<std::string> log_unwritable(const std::string& path) {
    switch (os::file_kind(path)) {
    case os::FileKind::directory:
        return "it is a directory";
    case os::FileKind::other:
        return "it is not a regular file (a FIFO or a device is never written)";
    case os::FileKind::regular:
        if (!os::is_writable(path)) return "the file is not writable";
        return std::nullopt;
    case os::FileKind::missing:
        break;
    }
#ifdef _WIN32
    const std::size_t slash = path.find_last_of("/\\");
#else
    const std::size_t slash = path.find_last_of('/');
#endif
    const std::string dir = slash == std::string::npos ? std::string(".")
                            : slash == 0               ? path.substr(0, 1)
                                                       : path.substr(0, slash);
    switch (os::file_kind(dir)) {
    case os::FileKind::missing:
        return "its directory " + utf8::repaired(dir) + " does not exist";
    case os::FileKind::directory:
        if (!os::is_writable(dir))
            return "its directory " + utf8::repaired(dir) + " is not writable";
        return std::nullopt;
    default:
        return utf8::repaired(dir) + " is not a directory";
    }
}

} // namespace viber
