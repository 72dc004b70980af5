// clarify.last_decision()'s JSON: the session's most recent decision as the audit received it.
#pragma once
#include "core/core_guard.hpp"
#include "core/audit/record.hpp"

#include <string>

namespace clarify {

// What the glue knows about the decision beyond its audit record.
struct LastDecisionFacts {
    std::string audited;                    // committed, queued, or why it was not audited
    bool refused_unaudited = false;         // QC005: the statement did not run
    std::string session_role, acting_role;  // names; "" for a role dropped since
    std::string decided_at;                 // as timestamptz prints it
};

std::string last_decision_json(const AuditRecord &audit, const LastDecisionFacts &facts);

}  // namespace clarify
