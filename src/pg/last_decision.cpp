// clarify.last_decision(): the session's most recent decision, as the audit received it.
#include "pg.hpp"
#include "decision_path.hpp"
#include "boundary.hpp"
#include "gate.hpp"

extern "C" {
#include "miscadmin.h"
#include "utils/timestamp.h"
}

#include <nlohmann/json.hpp>

namespace clarify::pg {

std::string last_decision_json() {
    const LastDecision &last = last_decision();
    if (!last.present) return {};
    const AuditRecord &a = last.audit;
    using nlohmann::json;
    auto text_or_null = [](const std::string &t) { return t.empty() ? json(nullptr) : json(t); };
    json payload = a.payload.empty() ? json(nullptr) : json::parse(a.payload);
    if (payload.is_object()) payload["decision_id"] = std::to_string(a.decision_id);
    bool allowed = a.allowed && !last.refused_unaudited;
    json out = {{"decision_id", std::to_string(a.decision_id)},
                {"decision", allowed ? "allowed" : "rejected"},
                {"state", last.refused_unaudited ? "AUDIT_UNAVAILABLE" : to_string(a.state)},
                {"gate_decision", a.allowed ? "allowed" : "rejected"},
                {"status", a.allowed ? "resolved" : "awaiting_clarification"},
                {"question_id", text_or_null(a.question_id)},
                {"reason", a.reason},
                {"columns", json::parse(a.columns)},
                {"bindings", json::parse(a.bindings)},
                {"slots", payload.is_object() ? payload["slots"] : json::array()},
                {"payload", payload},
                {"record", a.record.empty() ? json(nullptr) : json::parse(a.record)},
                {"statement", a.statement},
                {"query_id", a.query_id},
                {"pid", a.pid},
                {"audited", last.audited}};
    struct Names {
        const char *session_role, *acting_role, *decided_at;
    };
    Oid session = a.session_role, acting = a.acting_role;
    TimestampTz at = a.decided_at;
    Names names = pg_guard([&] {
        return Names{GetUserNameFromId(session, true), GetUserNameFromId(acting, true),
                     timestamptz_to_str(at)};
    });
    out["session_role"] = names.session_role ? names.session_role : "";
    out["acting_role"] = names.acting_role ? names.acting_role : "";
    out["decided_at"] = names.decided_at;
    return out.dump();
}

}  // namespace clarify::pg
