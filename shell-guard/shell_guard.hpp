// shell_guard.hpp: shell-guard's decision: which rules (R1-R5) a Bash command breaks
// (docs/shell-guard.md). The Contract of the binary opens main.cpp; the rationale of each rule
// opens shell_guard.cpp.
#pragma once

#include "common/io/decision.hpp"
#include "common/io/trace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::shell_guard {

// The rules, numbered as the agents' one-line rules name them.
enum class Rule : std::uint8_t {
    chain = 1,       // R1 a chained command
    git_write = 2,   // R2 git that discards or moves the shared work tree
    remove = 3,      // R3 removing files
    file_write = 4,  // R4 a file write into the work tree outside .temp/
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
    // "R1,R4", or "allow" for the empty set: the corpus's notation (--explain: "R1, R4").
    std::string to_string(std::string_view separator = ",") const;

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

// Where R4 resolves targets: the payload's `cwd` (none: the seed's rule, a relative target outside
// .temp/ is a write and an absolute one is not) and the home directory `~` and `$HOME` expand to.
struct Place {
    std::optional<std::string> cwd;
    std::optional<std::string> home;
    // The work tree: the git top level of cwd, else cwd. Found on first use (it walks up from
    // cwd), so a command without an absolute target costs no file-system call.
    std::optional<std::string> work_tree;
};

// True when writing `target` (a word as the command model gives it) is an R4 write.
bool is_write_target(std::string_view target, Place& place);

// One broken rule where it was found, for --explain.
struct Finding {
    Rule rule;
    std::string command; // the normalised name, or "" for a chain operator or a bare redirection
    std::string words;   // the command's words joined by spaces
    std::string path;    // the wrapper path ("sudo > bash -c")
};

struct Judgement {
    RuleSet broken;
    std::vector<Finding> findings; // the first finding of each broken rule
    // The command model read Options::max_commands commands and stopped: what follows them was
    // not judged, so a command that broke no rule before them is refused (command_cap_reason).
    bool unread = false;
};

// The refusal of a command whose reading ended at the command model's command cap.
inline constexpr std::string_view command_cap_reason =
    "viber guard: this command runs more than 10,000 commands to be read; split it into simpler "
    "commands";

// The rules of `binding` that `command` breaks, read through the command model.
Judgement judge(std::string_view command, RuleSet binding, Place place = {});
RuleSet broken_rules(std::string_view command, RuleSet binding, Place place = {});

// The refusal text: `viber guard:`, then each broken rule in order with its correction.
std::string refusal_reason(RuleSet broken);

// The whole decision for one call: nothing, or the deny.
Decision decide(std::string_view agent_type, std::string_view command, Place place = {},
                Trace* trace = nullptr);

// hook_main's entry, after it dismissed bytes holding no `viber:` and parsed the rest once: reads
// `agent_type`, `cwd` and `tool_input.command`. --explain shows each rule broken with the command,
// its words and its wrapper path.
Decision decide(const HookInput& in, Trace& trace);

} // namespace viber::shell_guard
