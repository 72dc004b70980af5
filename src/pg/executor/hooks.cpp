// The gate's executor entry points: ExecutorStart records which statement is starting, and the
// permission check hook decides each statement of a gated session that reads governed columns
// (pg/executor/decision_path.cpp) before it runs. docs/design.md describes the whole path.
#include "pg/pg.hpp"
#include "pg/executor/hooks.hpp"
#include "pg/boundary.hpp"
#include "pg/functions/check.hpp"
#include "pg/compat.hpp"
#include "pg/executor/decision_path.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "pg/executor/governed_reads.hpp"
#include "pg/settings.hpp"
#include "pg/shared_memory.hpp"
#include "pg/executor/time_zone_hold.hpp"
#include "pg/plan/entity/lookup.hpp"
#include "pg/plan/segment/bound_params.hpp"

extern "C" {
#include "access/parallel.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "tcop/tcopprot.h"
#include "utils/inval.h"
}

namespace clarify::pg {

namespace {

ExecutorStart_hook_type prev_executor_start = nullptr;
bool in_audit_writer = false;  // the writer's own statements are not decisions
CheckPermsHook prev_check_perms = nullptr;

// The statement whose ExecutorStart is under way: its plan lets the permission check hook
// trace demand precisely. Saved and restored around nested starts.
PlannedStmt *starting_stmt = nullptr;
QueryDesc *starting_query = nullptr;  // its estate exists by the permission check
const char *starting_text = nullptr;
ParamListInfo starting_params = nullptr;  // bound parameters: a time range may depend on them
bool starting_explain_only = false;
// In a parallel worker: whether the plan starting is the part of the leader's plan the worker
// runs (its output goes back to the leader through a tuple queue). The leader decided that one;
// anything else a worker starts (SQL run by a function) is a statement of its own.
bool starting_leader_part = false;
// Set while clarify.check() applies the caller's privilege checks: not a statement to decide.
bool checking_privileges = false;

void gate_range_table(List *range_table, List *perminfos) {
    if (!session_is_gated()) return;
    std::shared_ptr<const Catalog> catalog = governance_catalog();
    if (!catalog ||
        (catalog->column_count() == 0 && !catalog->has_segments() && catalog->entities().empty()))
        return;

    PlannedStmt *stmt =
        starting_stmt && starting_stmt->rtable == range_table ? starting_stmt : nullptr;
    if (stmt) {
        if (starting_explain_only) return;  // plain EXPLAIN reads nothing
        std::shared_ptr<const PlanFacts> facts = cached_plan_facts(catalog, stmt);
        if (!facts) return;
        // A statement that reads no governed column may still be a decision: its segments, or
        // the entity names it filters by (looked up now: docs/reference.md, "Entities").
        bool segmented =
            segments_decide(*catalog, current_record(), current_mentions(catalog), facts->segments);
        if (facts->read.empty() && !segmented && !facts->entities) return;
        std::vector<EntityLookup> entities =
            lookup_entities(evaluate_entity_quals(*catalog, facts->entities, starting_params));
        if (facts->read.empty() && !segmented && entities.empty()) return;
        decide_statement(catalog, facts->read, facts->aggregates, stmt, starting_text,
                         StatementTime{facts->time, starting_params}, facts->segments, entities);
        // Its periods were read in this TimeZone: the scans must read them in the same.
        if (facts->time && starting_query && starting_query->estate)
            pg_guard([&] { hold_time_zone(starting_query->estate); });
        return;
    }
    bool *watched = watched_entries(*catalog, range_table);
    if (!watched) return;
    ReadSet reads = pg_guard([&] { return range_table_read_set(range_table, perminfos, watched); });
    GovernedReads read = governed_reads(*catalog, reads);
    if (!read.empty())
        decide_statement(catalog, read, {}, nullptr, debug_query_string, StatementTime{});
}

void clarify_executor_start(QueryDesc *query_desc, int eflags) {
    // clarify.check() runs nothing: a function its planning reaches must not run statements
    // (table_to_xml, SQL in a PL/pgSQL function); the gate's own catalog loading excepted.
    if (check_is_planning() && !loading_governance())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("clarify.check() runs no statement while planning one"),
                        errdetail("Planning the statement called a function that runs SQL.")));
    PlannedStmt *saved_stmt = starting_stmt;
    QueryDesc *saved_query = starting_query;
    const char *saved_text = starting_text;
    ParamListInfo saved_params = starting_params;
    bool saved_explain = starting_explain_only;
    bool saved_leader_part = starting_leader_part;
    starting_stmt = query_desc->plannedstmt;
    starting_query = query_desc;
    starting_text = query_desc->sourceText;
    starting_params = query_desc->params;
    starting_explain_only = (eflags & EXEC_FLAG_EXPLAIN_ONLY) != 0;
    starting_leader_part =
        IsParallelWorker() && query_desc->dest && query_desc->dest->mydest == DestTupleQueue;
    PG_TRY();
    {
        if (prev_executor_start)
            prev_executor_start(query_desc, eflags);
        else
            standard_ExecutorStart(query_desc, eflags);
    }
    PG_FINALLY();
    {
        starting_stmt = saved_stmt;
        starting_query = saved_query;
        starting_text = saved_text;
        starting_params = saved_params;
        starting_explain_only = saved_explain;
        starting_leader_part = saved_leader_part;
    }
    PG_END_TRY();
}

bool clarify_check_perms(CLARIFY_CHECK_PERMS_ARGS) {
    if (prev_check_perms && !CLARIFY_CHECK_PERMS_CALL(prev_check_perms)) return false;
    if (!gate_active() || checking_privileges) return true;
    // A parallel worker's share of the leader's plan was decided by the leader.
    if (starting_leader_part && starting_stmt && starting_stmt->rtable == range_table) return true;
    // Changes committed since this transaction last took a lock (a revoked approval, a new
    // agent role) apply to this statement: a lock already held would not have read them.
    AcceptInvalidationMessages();
    if (cached_not_gated(GetSessionUserId(), GetOuterUserId(), GetUserId())) return true;
    cpp_entry([&] { gate_range_table(range_table, CLARIFY_CHECK_PERMS_PERMINFOS); });
    return true;
}

}  // namespace

GateBypass::GateBypass() : saved_(checking_privileges) {
    checking_privileges = true;
}

GateBypass::~GateBypass() {
    checking_privileges = saved_;
}

void mark_audit_writer() {
    in_audit_writer = true;
}

bool gate_active() {
    return gate_enabled && !in_audit_writer && !loading_governance() && !entity_lookup_running();
}

void install_gate() {
    prev_executor_start = ExecutorStart_hook;
    ExecutorStart_hook = clarify_executor_start;
    prev_check_perms = ExecutorCheckPerms_hook;
    ExecutorCheckPerms_hook = clarify_check_perms;
    install_check();
    install_time_zone_hold();
    install_statistics_filter();
    segment::install_segment_planner();
    install_shared_memory();
    install_rejection_log();
}

}  // namespace clarify::pg
