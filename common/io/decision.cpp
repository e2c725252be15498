// decision.cpp: building the decisions every hook returns.
#include "common/io/decision.hpp"

#include "common/io/output.hpp"

namespace viber {

std::string_view to_string(DecisionKind kind) {
    switch (kind) {
    case DecisionKind::deny:
        return "deny";
    case DecisionKind::block:
        return "block";
    case DecisionKind::context:
        return "context";
    case DecisionKind::none:
        break;
    }
    return "none";
}

Decision Decision::deny(std::string reason) {
    Decision decision{DecisionKind::deny, std::move(reason), std::nullopt};
    decision.answer = pretool_deny(decision.reason);
    return decision;
}

Decision Decision::block(std::string reason) {
    Decision decision{DecisionKind::block, std::move(reason), std::nullopt};
    decision.answer = block_stop(decision.reason);
    return decision;
}

Decision Decision::context(std::string_view event, std::string context) {
    Decision decision{DecisionKind::context, std::move(context), std::nullopt};
    decision.answer = additional_context(event, decision.reason);
    return decision;
}

} // namespace viber
