// trace.hpp: what a decision read and each step it took, collected for `--explain` only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber {

// In hook mode a Trace is off and every call below returns at once; a decision still guards
// each step with `if (trace.on())` so that building the text costs nothing on the hot path.
class Trace {
public:
    Trace() = default; // off: hook mode
    static Trace explaining() { return Trace(true); }

    bool on() const noexcept { return on_; }

    // Something the decision read: a payload key, a file and its size, an environment variable.
    void read(std::string what) {
        if (on_) reads_.push_back(std::move(what));
    }
    // A file the decision read (or tried to): its role, its path and its size, or why it was
    // not read.
    void read_file(std::string_view role, std::string_view path,
                   const std::optional<std::string>& bytes) {
        if (!on_) return;
        std::string line(role);
        line += ": ";
        line += path;
        line +=
            bytes ? " (" + std::to_string(bytes->size()) + " bytes)"
                  : std::string(" (not read: missing, not a regular file, unreadable or too big)");
        reads_.push_back(std::move(line));
    }
    // One step of the decision: a transcript line, the words a guard found, the rule it broke.
    void step(std::string what) {
        if (on_) steps_.push_back(std::move(what));
    }

    const std::vector<std::string>& reads() const noexcept { return reads_; }
    const std::vector<std::string>& steps() const noexcept { return steps_; }

private:
    explicit Trace(bool on) : on_(on) {}
    bool on_ = false;
    std::vector<std::string> reads_;
    std::vector<std::string> steps_;
};

} // namespace viber
