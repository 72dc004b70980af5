#include "core/render/last_decision_json.hpp"

#include <nlohmann/json.hpp>

namespace clarify {

std::string last_decision_json(const AuditRecord &a, const LastDecisionFacts &facts) {
    using nlohmann::json;
    auto text_or_null = [](const std::string &t) { return t.empty() ? json(nullptr) : json(t); };
    json payload = a.payload.empty() ? json(nullptr) : json::parse(a.payload);
    if (payload.is_object()) payload["decision_id"] = std::to_string(a.decision_id);
    bool allowed = a.allowed && !facts.refused_unaudited;
    State state = facts.refused_unaudited ? State::AuditUnavailable : a.state;
    json out = {{"decision_id", std::to_string(a.decision_id)},
                {"decision", allowed ? "allowed" : "rejected"},
                {"state", to_string(state)},
                {"gate_decision", a.allowed && !a.would_reject ? "allowed" : "rejected"},
                {"enforcement", to_string(a.enforcement)},
                {"status", status_of(a.allowed && !a.would_reject ? State::Resolved : a.state)},
                {"question_id", text_or_null(a.question_id)},
                {"reason", a.reason},
                {"columns", json::parse(a.columns)},
                {"bindings", json::parse(with_entity_bindings_json(a.bindings, a.entity_bindings))},
                {"slots", payload.is_object() ? payload["slots"] : json::array()},
                {"payload", payload},
                {"record", a.record.empty() ? json(nullptr) : json::parse(a.record)},
                {"statement", a.statement},
                {"query_id", a.query_id},
                {"pid", a.pid},
                {"audited", facts.audited},
                {"session_role", facts.session_role},
                {"acting_role", facts.acting_role},
                {"decided_at", facts.decided_at}};
    return out.dump();
}

}  // namespace clarify
