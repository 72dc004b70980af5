// The gate's path for one statement that reads governed columns: decide (cached while nothing it
// depends on moved) → encode the audit entry → submit it to the audit queue → raise the
// clarification error, or QC005 when the decision could not be audited. docs/design.md walks it.
#pragma once

#include "pg/pg.hpp"
#include "core/audit/record.hpp"
#include "pg/executor/governed_reads.hpp"
#include "core/entity/entity.hpp"

extern "C" {
#include "nodes/params.h"
}

#include <memory>

namespace clarify::pg {

// Decides one statement for a gated session and audits the decision (sync: committed before
// anything else happens); throws ReportedError on rejection or when the audit failed.
// What the time rules need of one execution: the plan's conditions on time columns and the
// parameters bound to it.
struct StatementTime {
    const TimeQuals *quals = nullptr;
    ParamListInfo params = nullptr;
};

void decide_statement(const std::shared_ptr<const Catalog> &catalog, const GovernedReads &read,
                      const std::vector<AggregateUse> &aggregates, const PlannedStmt *stmt,
                      const char *source, const StatementTime &time,
                      const SegmentFacts &segments = {},
                      const std::vector<EntityLookup> &entities = {});

// The time facts of one execution (empty unless the read holds a dated measure): the range on
// each time column and the bound windows, evaluated now.
TimeFacts time_facts_of(const std::shared_ptr<const Catalog> &catalog, const GovernedReads &read,
                        const StatementTime &time);

// The session's most recent decision, as the audit received it.
struct LastDecision {
    bool present = false;
    AuditRecord audit;
    uint64 template_refresh = 0;     // which refresh of the decision cache audit's fields come from
    const char *audited = "";        // committed, queued, or why it was not audited
    bool refused_unaudited = false;  // QC005: the statement did not run
};
const LastDecision &last_decision();

// Keeps a rejection's ERROR off the server log, which has its one line (from install_gate).
void install_rejection_log();

}  // namespace clarify::pg
