// clarify.last_decision(): the session's most recent decision, as the audit received it.
#include "pg/pg.hpp"
#include "pg/executor/decision_path.hpp"
#include "pg/boundary.hpp"
#include "pg/executor/hooks.hpp"
#include "core/render/last_decision_json.hpp"

extern "C" {
#include "miscadmin.h"
#include "utils/timestamp.h"
}

namespace clarify::pg {

std::string last_decision_json() {
    const LastDecision &last = last_decision();
    if (!last.present) return {};
    const AuditRecord &a = last.audit;
    struct Names {
        const char *session_role, *acting_role, *decided_at;
    };
    Oid session = a.session_role, acting = a.acting_role;
    TimestampTz at = a.decided_at;
    Names names = pg_guard([&] {
        return Names{GetUserNameFromId(session, true), GetUserNameFromId(acting, true),
                     timestamptz_to_str(at)};
    });
    LastDecisionFacts facts;
    facts.audited = last.audited;
    facts.refused_unaudited = last.refused_unaudited;
    facts.session_role = names.session_role ? names.session_role : "";
    facts.acting_role = names.acting_role ? names.acting_role : "";
    facts.decided_at = names.decided_at;
    return clarify::last_decision_json(a, facts);
}

}  // namespace clarify::pg
