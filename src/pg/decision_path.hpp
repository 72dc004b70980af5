// The gate's path for one statement that reads governed columns: decide (cached while nothing it
// depends on moved) → encode the audit entry → submit it to the audit queue → raise the
// clarification error, or QC005 when the decision could not be audited. docs/design.md walks it.
#pragma once

#include "pg.hpp"
#include "audit_record.hpp"
#include "governed_reads.hpp"

#include <memory>

namespace clarify::pg {

// Decides one statement for a gated session and audits the decision (sync: committed before
// anything else happens); throws ReportedError on rejection or when the audit failed.
void decide_statement(const std::shared_ptr<const Catalog> &catalog, const GovernedReads &read,
                      const std::vector<AggregateUse> &aggregates, const PlannedStmt *stmt,
                      const char *source);

// The session's most recent decision, as the audit received it.
struct LastDecision {
    bool present = false;
    AuditRecord audit;
    uint64 template_refresh = 0;     // which refresh of the decision cache audit's fields come from
    const char *audited = "";        // committed, queued, or why it was not audited
    bool refused_unaudited = false;  // QC005: the statement did not run
};
const LastDecision &last_decision();

}  // namespace clarify::pg
