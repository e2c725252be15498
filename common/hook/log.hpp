// log.hpp: the troubleshooting log (docs/contract.md, "The troubleshooting log"): one JSON line
// per hook call appended to the file VIBER_HOOKS_LOG names.
#pragma once

#include "common/io/decision.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace viber {

// The environment variable naming the log; unset or empty: no log and no file opened.
inline constexpr const char* log_variable = "VIBER_HOOKS_LOG";

// The log keeps this many characters of the reason.
inline constexpr std::size_t log_reason_characters = 200;

// The log keeps at most this many bytes of the payload (cut at a character boundary).
inline constexpr std::size_t log_payload_bytes = std::size_t{64} * 1024;

// The payload as the log keeps it: its first 64 KiB, taken before the payload is parsed (the
// parse decodes long strings in place).
struct LoggedPayload {
    std::string bytes;
    bool cut = false; // the payload was longer: `bytes` is its head
    bool read = true; // false: stdin was not read in full (a bound passed)
};

// What the log keeps of stdin's bytes (nullopt: the bounded read failed).
LoggedPayload logged_payload(const std::optional<std::string>& stdin_bytes);

struct LogEntry {
    std::string_view hook;
    std::chrono::system_clock::time_point time;
    std::int64_t micros = 0;
    DecisionKind decision = DecisionKind::none;
    std::string_view reason;
    const LoggedPayload* payload = nullptr; // null: no payload member
};

// One compact JSON object and "\n": hook, time (ISO-8601 UTC, milliseconds), micros, decision,
// reason (its first 200 characters, cut at a character boundary, invalid UTF-8 replaced), and
// `payload`: the payload as a JSON value when its kept bytes parse as JSON, else as a string
// (invalid UTF-8 replaced), with `"payload_cut":true` when only its first 64 KiB are kept and
// `"payload_read":false` when stdin was not read in full.
std::string log_line(const LogEntry& entry);

// Why the log at `path` cannot be written (a directory, not a regular file, a missing or
// unwritable directory, an unwritable file), or nullopt when it looks writable. Nothing is opened
// or created: --explain says it without writing, hook mode after a failed append.
std::optional<std::string> log_unwritable(const std::string& path);

} // namespace viber
