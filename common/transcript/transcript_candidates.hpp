// transcript_candidates.hpp: what the transcript scanner hands to its caller's pairing
// (docs/plan-gate.md, "Pairing"): after the last plan write, the lines that may be dispatches or
// verdict lines, by place or parsed, as the scan meets them. The scanner keeps no pairing rule of
// its own: it asks this sink which candidates are worth parsing and where to keep them.
#pragma once

#include "common/transcript/transcript.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace viber::transcript {

namespace internal {
class Source;
}

class Candidates {
public:
    virtual ~Candidates() = default;

    // Where the lines kept by place are read again from (the scanner's source).
    virtual void reads_from(internal::Source& source) = 0;
    // Keeps the place of a line only pairing can want; false when the scan can say nothing.
    virtual bool defer(std::size_t line, std::uint64_t offset, std::size_t length,
                       std::uint32_t needles) = 0;
    // The needles of `relevant` worth parsing on the raw line `held` (no parse).
    virtual std::uint32_t worth_pairing(std::uint32_t relevant, std::string_view held) = 0;
    // Pairs every line kept by place, in order; false when the scan can say nothing.
    virtual bool absorb_all() = 0;
    // A plan write: dispatches and verdicts restart after it.
    virtual void restart() = 0;
    // A dispatch (a tool_use of `type`), a verdict line and a line whose tool_results may be a
    // dispatch's own error, parsed as the scan read them.
    virtual void dispatched(std::size_t line, const boost::json::object& use,
                            const boost::json::object& input, std::string_view type) = 0;
    virtual void verdict_line(std::size_t line, std::string_view bytes,
                              const boost::json::value& parsed) = 0;
    virtual void tool_errors(std::size_t line, const boost::json::object& record) = 0;
    // A settle_later scan has pairing left to settle; settle_pairing() for it.
    virtual bool pending() const = 0;
    virtual bool settle(std::span<const PairedAgent> agents) = 0;
};

} // namespace viber::transcript
