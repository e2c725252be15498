// shell_analysis.cpp: the command model's findings as owned copies (shell_analysis.hpp).
#include "support/shell_analysis.hpp"

namespace viber::shell {

namespace {

// Collects owned copies.
class Collector final : public CommandSink {
public:
    explicit Collector(Analysis& out) : out_(out) {}

    static OwnedWord own(const Word& w) {
        return {std::string(w.text), w.quoted, w.has_substitution};
    }

    void command(const Command& c) override {
        for (const Redirect& rd : c.redirects)
            out_.redirects.push_back({rd.fd, rd.kind, own(rd.target)});
        if (c.words.empty()) return;
        Invocation inv;
        inv.name = std::string(c.name);
        inv.command_word = own(c.words[0]);
        for (const Word& w : c.args()) inv.args.push_back(own(w));
        for (const Word& w : c.assignments) inv.assignments.push_back(own(w));
        for (const Redirect& rd : c.redirects)
            inv.redirects.push_back({rd.fd, rd.kind, own(rd.target)});
        inv.path = describe_path(c.path);
        inv.depth = c.depth;
        inv.is_wrapper = c.is_wrapper;
        inv.query = c.query;
        inv.fed_by_input = c.fed_by_input;
        inv.via_find = c.via_find;
        inv.stdin_from_pipe = c.stdin_from_pipe;
        inv.stdin_from_heredoc = c.stdin_from_heredoc;
        out_.invocations.push_back(std::move(inv));
    }

    void loop_variable(std::string_view name, bool from_substitution) override {
        out_.loop_variables.emplace_back(std::string(name), from_substitution);
    }

private:
    Analysis& out_;
};

} // namespace

Analysis analyze(std::string_view command, const Options& options) {
    Analysis analysis;
    Collector collector(analysis);
    const Summary summary = read_commands(command, collector, options);
    analysis.chain_operators = summary.chain_operators;
    analysis.reached_depth_cap = summary.reached_depth_cap;
    analysis.reached_expansion_cap = summary.reached_expansion_cap;
    analysis.reached_command_cap = summary.reached_command_cap;
    return analysis;
}

} // namespace viber::shell
