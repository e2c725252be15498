// shell_guard.hpp: shell-guard's decision: which rules (R1-R5) a Bash command breaks (SPEC §8).
// The Contract of the binary and the rationale of each rule open shell_guard.cpp.
#pragma once

#include "common/decision.hpp"
#include "common/shell_lexer.hpp"
#include "common/trace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace viber::shell_guard {

// The rules, numbered as the agents' one-line rules name them.
enum class Rule : std::uint8_t {
    chain = 1,       // R1 a chained command
    git_write = 2,   // R2 git stash / checkout / restore / clean
    remove = 3,      // R3 rm
    file_write = 4,  // R4 a file write onto a relative path outside .temp/
    inline_code = 5, // R5 inline or .temp/ interpreter code
};

// A set of rules, kept in rule order.
class RuleSet {
public:
    constexpr RuleSet() = default;
    static constexpr RuleSet all() { return RuleSet(0x1F); }
    constexpr RuleSet& add(Rule rule) {
        bits_ |= bit(rule);
        return *this;
    }
    constexpr bool has(Rule rule) const { return (bits_ & bit(rule)) != 0; }
    constexpr bool empty() const { return bits_ == 0; }
    constexpr bool operator==(const RuleSet&) const = default;
    // "R1,R4", or "allow" for the empty set: the corpus's notation.
    std::string to_string() const;

private:
    explicit constexpr RuleSet(std::uint8_t bits) : bits_(bits) {}
    static constexpr std::uint8_t bit(Rule rule) {
        return static_cast<std::uint8_t>(1u << (static_cast<unsigned>(rule) - 1));
    }
    std::uint8_t bits_ = 0;
};

// The rules that bind a caller, from the payload's top-level agent_type: all five for the coder,
// R2 for the two reviewers, none for anyone else.
RuleSet rules_binding(std::string_view agent_type);

// Where a path written on a command line lands, as far as the guard can tell without expanding.
enum class PathPlace {
    elsewhere,    // absolute (`/x`, `C:/x`), home (`~/x`), a variable's value (`$X/x`), `-`, empty
    under_temp,   // relative and, once `.` and `..` are resolved, inside `.temp/`
    outside_temp, // relative and outside `.temp/` (`x`, `../x`, `.temp/../x`, `$PWD/x`)
};
PathPlace place_of(std::string_view path);
// True when `path` names something inside a `.temp` directory: relative under `.temp/`, or any
// path holding a `.temp` segment (R5's scripts).
bool inside_temp(std::string_view path);

// Rule matchers, pure functions over the lexer's output.
bool is_chain(const shell::Analysis& analysis); // R1
// The word after git's global options: nullopt when there is none or git only prints and exits.
std::optional<std::string_view> git_subcommand(const shell::Invocation& git);
bool runs_git_write(const shell::Invocation& invocation);  // R2
bool runs_rm(const shell::Invocation& invocation);         // R3
bool writes_outside_temp(const shell::Redirect& redirect); // R4, a redirection
// R4, a command writing its file operands: tee, sed -i, perl -i.
bool command_writes_outside_temp(const shell::Invocation& invocation);
bool runs_inline_code(const shell::Invocation& invocation); // R5

// The rules of `binding` that `analysis` breaks. An incomplete analysis breaks none.
RuleSet broken_rules(const shell::Analysis& analysis, RuleSet binding);

// The refusal text: `viber guard:`, then each broken rule in order with its correction.
std::string refusal_reason(RuleSet broken);

// The whole decision for one call: nothing, or the deny.
Decision decide(std::string_view agent_type, std::string_view command);

// hook_main's entry, after it dismissed bytes holding no `viber:` and parsed the rest once.
Decision decide(const HookInput& in, Trace& trace);

} // namespace viber::shell_guard
