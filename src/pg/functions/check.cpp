// clarify.check(sql): what the gate would decide for one statement, without running it.
// Planning folds IMMUTABLE functions and estimators call operators, so planning runs code: here
// it runs read-only, as a security-restricted operation, and refuses any function written by
// someone other than the caller or a superuser (an agent's function must not run with the
// rights of the DBA or the app dry-running the agent's SQL). The caller's privilege checks
// apply before anything is reported.
#include "pg/pg.hpp"
#include "pg/plan/entity/lookup.hpp"
#include "pg/functions/check.hpp"
#include "pg/executor/hooks.hpp"
#include "pg/executor/governed_reads.hpp"
#include "pg/executor/decision_path.hpp"
#include "pg/executor/question_rounds.hpp"
#include "pg/plan/time_quals.hpp"
#include "pg/boundary.hpp"
#include "pg/compat.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "core/render/payload.hpp"
#include "pg/plan/read_set.hpp"
#include "pg/settings.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "commands/copy.h"
#include "commands/defrem.h"
#include "commands/prepare.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

#include <algorithm>

namespace clarify::pg {

namespace {

needs_fmgr_hook_type prev_needs_fmgr_hook = nullptr;
fmgr_hook_type prev_fmgr_hook = nullptr;
bool planning_for_check = false;
Oid check_caller = InvalidOid;  // who called check(), while it plans

// Whether calling fn while check() plans would run someone else's code: not built in, owned by
// neither the caller nor a superuser.
bool foreign_code(Oid fn, Oid *owner) {
    if (fn < FirstNormalObjectId) return false;
    HeapTuple tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
    if (!HeapTupleIsValid(tuple)) return true;
    *owner = ((Form_pg_proc)GETSTRUCT(tuple))->proowner;
    ReleaseSysCache(tuple);
    return *owner != check_caller && !superuser_arg(*owner);
}

// The role check() plans as (catalog: pg_clarify--1.1.sql): it must hold no privileges beyond
// PUBLIC's, so a function the guard below cannot see (its call information cached earlier in the
// session) still runs with none of the caller's rights.
Oid planning_role() {
    Oid role = get_role_oid("clarify_check", true);
    if (!OidIsValid(role))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("clarify.check() needs the role clarify_check"),
                        errhint("Run ALTER EXTENSION pg_clarify UPDATE as a superuser.")));
    CatCList *memberships = SearchSysCacheList1(AUTHMEMMEMROLE, ObjectIdGetDatum(role));
    int n = memberships->n_members;
    ReleaseSysCacheList(memberships);
    if (superuser_arg(role) || n > 0)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("clarify.check() does not plan as clarify_check: the role has been "
                               "given privileges"),
                        errhint("Make clarify_check a NOSUPERUSER role that is a member of no "
                                "role.")));
    return role;
}

extern "C" bool check_needs_fmgr_hook(Oid fn) {
    if (prev_needs_fmgr_hook && prev_needs_fmgr_hook(fn)) return true;
    return planning_for_check && fn >= FirstNormalObjectId;
}

extern "C" void check_fmgr_hook(FmgrHookEventType event, FmgrInfo *flinfo, Datum *arg) {
    Oid owner = InvalidOid;
    if (event == FHET_START && planning_for_check && foreign_code(flinfo->fn_oid, &owner))
        ereport(
            ERROR,
            (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
             errmsg("clarify.check() does not run %s, owned by %s, while planning the statement",
                    format_procedure_qualified(flinfo->fn_oid), GetUserNameFromId(owner, true)),
             errdetail("Planning would evaluate that function with your privileges."),
             errhint("Ask its owner, or a role with no more privileges than its owner, to "
                     "check the statement.")));
    if (prev_fmgr_hook) prev_fmgr_hook(event, flinfo, arg);
}

struct PlannedCheck {
    List *stmts;         // PlannedStmt *, one per query the statement rewrites into
    ReadSet copy_reads;  // COPY table TO: the copied columns
    bool has_copy_reads;
    Oid copy_relation;  // and what the caller must be allowed to select
    Bitmapset *copy_selected;
};

// The planner checks the privileges on views itself (as the current user, unless a view's entry
// names another): those checks stay the caller's while the planning role plans.
bool keep_caller_view_checks(Node *node, void *caller) {
    if (!node) return false;
    if (IsA(node, Query)) {
        check_views_as((Query *)node, *(Oid *)caller);
        return query_tree_walker((Query *)node, WALKER(keep_caller_view_checks), caller, 0);
    }
    return expression_tree_walker(node, WALKER(keep_caller_view_checks), caller);
}

// Plans as the planning role, security-restricted; the caller's identity is back afterwards.
PlannedStmt *plan_unprivileged(Query *query, const char *sql) {
    Oid role = planning_role();
    Oid caller = GetUserId();
    keep_caller_view_checks((Node *)query, &caller);
    Oid user;
    int sec;
    GetUserIdAndSecContext(&user, &sec);
    PlannedStmt *volatile planned = nullptr;
    PG_TRY();
    {
        SetUserIdAndSecContext(role,
                               sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
        planned = pg_plan_query(query, sql, CURSOR_OPT_PARALLEL_OK, nullptr);
    }
    PG_FINALLY();
    { SetUserIdAndSecContext(user, sec); }
    PG_END_TRY();
    return planned;
}

void add_planned(PlannedCheck *out, Query *query, const char *sql);

// A utility statement that runs a query (CREATE TABLE AS, DECLARE, EXPLAIN ANALYZE) holds it
// analysed but not rewritten: views are expanded here, as executing it would.
void add_rewritten(PlannedCheck *out, Query *query, const char *sql) {
    List *rewritten = QueryRewrite((Query *)copyObjectImpl(query));
    ListCell *lc;
    foreach (lc, rewritten) add_planned(out, lfirst_node(Query, lc), sql);
}

void add_planned(PlannedCheck *out, Query *query, const char *sql) {
    CHECK_FOR_INTERRUPTS();
    if (query->commandType != CMD_UTILITY) {
        out->stmts = lappend(out->stmts, plan_unprivileged(query, sql));
        return;
    }
    Node *utility = query->utilityStmt;
    Node *inner = nullptr;
    if (IsA(utility, ExecuteStmt)) {
        // A prepared statement: its queries as they were analysed and rewritten at PREPARE.
        PreparedStatement *prepared = FetchPreparedStatement(((ExecuteStmt *)utility)->name, true);
        ListCell *lc;
        foreach (lc, prepared->plansource->query_list)
            add_planned(out, (Query *)copyObjectImpl(lfirst(lc)), sql);
        return;
    }
    if (IsA(utility, CreateTableAsStmt)) {
        inner = ((CreateTableAsStmt *)utility)->query;
    } else if (IsA(utility, DeclareCursorStmt)) {
        inner = ((DeclareCursorStmt *)utility)->query;
    } else if (IsA(utility, ExplainStmt)) {
        ExplainStmt *explain = (ExplainStmt *)utility;
        ListCell *lc;
        foreach (lc, explain->options) {
            DefElem *opt = (DefElem *)lfirst(lc);
            if (strcmp(opt->defname, "analyze") == 0 && defGetBoolean(opt)) inner = explain->query;
        }
    }
    // Plain EXPLAIN reads nothing; other utility statements run no query of the statement's.
    if (inner && IsA(inner, Query)) add_rewritten(out, (Query *)inner, sql);
}

// The columns COPY table TO copies, checked against the caller's privileges as COPY does.
void add_copy_reads(PlannedCheck *out, CopyStmt *copy) {
    Oid relid = RangeVarGetRelid(copy->relation, AccessShareLock, false);
    int n = 0;
    ColumnRead *reads = (ColumnRead *)palloc(sizeof(ColumnRead) * (list_length(copy->attlist) + 1));
    Bitmapset *selected = nullptr;
    if (copy->attlist) {
        ListCell *lc;
        foreach (lc, copy->attlist) {
            AttrNumber attnum = get_attnum(relid, strVal(lfirst(lc)));
            if (attnum == InvalidAttrNumber)
                ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                                errmsg("column \"%s\" does not exist", strVal(lfirst(lc)))));
            reads[n].relation = relid;
            reads[n++].attnum = attnum;
            selected = bms_add_member(selected, attnum - FirstLowInvalidHeapAttributeNumber);
        }
    } else {
        reads[n].relation = relid;
        reads[n++].attnum = 0;
        Relation rel = table_open(relid, AccessShareLock);
        TupleDesc desc = RelationGetDescr(rel);
        for (int a = 0; a < desc->natts; ++a)
            if (!TupleDescAttr(desc, a)->attisdropped)
                selected = bms_add_member(selected, a + 1 - FirstLowInvalidHeapAttributeNumber);
        table_close(rel, AccessShareLock);
    }
    out->copy_relation = relid;
    out->copy_selected = selected;
    out->copy_reads = ReadSet{reads, n};
    out->has_copy_reads = true;
}

// Plans (without running) the one statement in sql, every query its rules rewrite it into (none
// for DO INSTEAD NOTHING, several for DO ALSO), unwrapping the utility statements that run a
// query: CREATE TABLE AS, DECLARE CURSOR, EXPLAIN ANALYZE, COPY.
void plan_for_check(PlannedCheck *out, const char *sql) {
    List *raw = pg_parse_query(sql);
    if (list_length(raw) != 1)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("clarify.check() takes exactly one statement, got %d", list_length(raw))));
    RawStmt *raw_stmt = linitial_node(RawStmt, raw);
    if (IsA(raw_stmt->stmt, CopyStmt)) {
        CopyStmt *copy = (CopyStmt *)raw_stmt->stmt;
        if (copy->is_from) return;
        if (!copy->query) {
            add_copy_reads(out, copy);
            return;
        }
        RawStmt *inner = makeNode(RawStmt);
        inner->stmt = copy->query;
        inner->stmt_location = -1;
        raw_stmt = inner;
    }
    List *queries = pg_analyze_and_rewrite_fixedparams(raw_stmt, sql, nullptr, 0, nullptr);
    ListCell *lc;
    foreach (lc, queries) add_planned(out, lfirst_node(Query, lc), sql);
}

// Plans read-only, as a security-restricted operation, refusing foreign functions; all of it
// undone whether planning succeeds or fails.
void plan_restricted(PlannedCheck *out, const char *sql) {
    Oid user;
    int sec;
    GetUserIdAndSecContext(&user, &sec);
    bool read_only = XactReadOnly;
    bool was_planning = planning_for_check;
    Oid caller = check_caller;
    PG_TRY();
    {
        SetUserIdAndSecContext(user, sec | SECURITY_RESTRICTED_OPERATION);
        XactReadOnly = true;
        planning_for_check = true;
        check_caller = user;
        plan_for_check(out, sql);
    }
    PG_FINALLY();
    {
        planning_for_check = was_planning;
        check_caller = caller;
        XactReadOnly = read_only;
        SetUserIdAndSecContext(user, sec);
    }
    PG_END_TRY();
}

// The caller's SELECT privileges on what the plan reads, as executing it would check them
// (raises the permission error); the gate itself does not decide this check.
void check_plan_privileges(PlannedStmt *stmt) {
    GateBypass bypass;
    pg_guard([&] { check_select_privileges(stmt); });
}

// The same for COPY relation TO: SELECT on the columns in `selected` (selectedCols' offsets).
void check_copy_privileges(Oid relation, Bitmapset *selected) {
    GateBypass bypass;
    pg_guard([&] { check_select_privilege(relation, selected); });
}

}  // namespace

bool check_is_planning() {
    return planning_for_check;
}

void install_check() {
    prev_needs_fmgr_hook = needs_fmgr_hook;
    needs_fmgr_hook = check_needs_fmgr_hook;
    prev_fmgr_hook = fmgr_hook;
    fmgr_hook = check_fmgr_hook;
}

namespace {

// What the gate would decide for sql, as the roles `ctx_of` gives, under the current record.
struct CheckedDecision {
    Decision decision;
    bool governed = false;
};

// The segments of every statement of a checked text, sorted and without duplicates.
void merge_segments(SegmentFacts &into, const SegmentFacts &more) {
    into.applied.insert(into.applied.end(), more.applied.begin(), more.applied.end());
    into.scanned.insert(into.scanned.end(), more.scanned.begin(), more.scanned.end());
    std::sort(into.applied.begin(), into.applied.end());
    into.applied.erase(std::unique(into.applied.begin(), into.applied.end()), into.applied.end());
    std::sort(into.scanned.begin(), into.scanned.end());
    into.scanned.erase(std::unique(into.scanned.begin(), into.scanned.end()), into.scanned.end());
}

// `checking` (check(), not replay()): the entity names are looked up as the caller, and the
// round the statement would be is read from the audit without counting one
// (docs/reference.md, "Entities" and "Clarification budget").
template <typename ContextOf>
CheckedDecision decide_for_check(const std::shared_ptr<const Catalog> &catalog, const char *sql,
                                 ContextOf ctx_of, bool checking) {
    PlannedCheck planned = {};
    pg_guard([&] { plan_restricted(&planned, sql); });
    GovernedReads read;
    std::vector<AggregateUse> aggregates;
    TimeFacts time;
    SegmentFacts segments;
    std::vector<EntityName> names;
    if (planned.has_copy_reads) {
        check_copy_privileges(planned.copy_relation, planned.copy_selected);
        read = governed_reads(*catalog, planned.copy_reads);
    }
    for (int i = 0; i < pg_guard([&] { return list_length(planned.stmts); }); ++i) {
        PlannedStmt *stmt = static_cast<PlannedStmt *>(list_nth(planned.stmts, i));
        check_plan_privileges(stmt);
        PlanFacts facts = plan_facts(*catalog, stmt);
        for (const GovernedColumn *c : facts.read)
            if (std::find(read.begin(), read.end(), c) == read.end()) read.push_back(c);
        aggregates.insert(aggregates.end(), facts.aggregates.begin(), facts.aggregates.end());
        merge_segments(segments, facts.segments);
        if (catalog->has_time_policies() && !facts.read.empty()) {
            const TimeQuals *quals = pg_guard([&] { return find_time_quals(*catalog, stmt); });
            TimeFacts stmt_time = time_facts_of(catalog, facts.read, StatementTime{quals, nullptr});
            for (auto &r : stmt_time.ranges) time.ranges.push_back(std::move(r));
            if (!stmt_time.windows.empty()) time.windows = std::move(stmt_time.windows);
            for (const ColumnKey &key : stmt_time.date_columns) time.date_columns.push_back(key);
            if (stmt_time.clock) {
                time.session_zone = std::move(stmt_time.session_zone);
                time.clock = stmt_time.clock;
            }
        }
        // The names it filters by (parameters unbound name nothing), looked up as the caller.
        if (checking && !catalog->entities().empty()) {
            const EntityQuals *quals = pg_guard([&] { return find_entity_quals(*catalog, stmt); });
            for (EntityName &n : evaluate_entity_quals(*catalog, quals, nullptr))
                if (std::find(names.begin(), names.end(), n) == names.end())
                    names.push_back(std::move(n));
        }
    }
    std::vector<EntityLookup> entities = lookup_entities(names);
    CheckedDecision out;
    DecideOptions options = decide_options(catalog);
    options.segments = &segments;
    AgentContext ctx = ctx_of(*catalog);
    out.decision = decide(*catalog, ctx, current_record(), read, aggregates, time, options);
    add_entity_outcomes(out.decision, entities);
    std::optional<Rounds> counted =
        checking && enforcement == static_cast<int>(Enforcement::Enforce)
            ? rounds_for(out.decision, current_record().question_id)
            : std::nullopt;
    if (counted && counted->exhausted) {
        options.budget_spent = true;
        out.decision = decide(*catalog, ctx, current_record(), read, aggregates, time, options);
        add_entity_outcomes(out.decision, entities);  // never assumed (§19)
    }
    if (counted) out.decision.rounds = *counted;
    out.governed = !read.empty() || !entities.empty() ||
                   segments_decide(*catalog, current_record(), current_mentions(catalog), segments);
    return out;
}

std::shared_ptr<const Catalog> catalog_for_check() {
    std::shared_ptr<const Catalog> catalog = governance_catalog();
    if (!catalog)
        throw ReportedError(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                            "pg_clarify is not installed in this database");
    return catalog;
}

}  // namespace

std::string check_statement(const char *sql) {
    std::shared_ptr<const Catalog> catalog = catalog_for_check();
    CheckedDecision checked = decide_for_check(
        catalog, sql, [](const Catalog &c) { return agent_context(c); }, true);
    std::string out = check_json(*catalog, checked.decision, current_record().question_id,
                                 session_is_gated(), checked.governed);
    // What enforce would do, whatever the mode; the mode beside it (docs/reference.md, check()).
    out.insert(out.size() - 1, std::string(",\"enforcement\":\"") +
                                   to_string(static_cast<Enforcement>(enforcement)) + "\"");
    return out;
}

ReplayedDecision replay_statement(const char *sql, Oid session_role, Oid acting_role) {
    std::shared_ptr<const Catalog> catalog = catalog_for_check();
    CheckedDecision checked = decide_for_check(
        catalog, sql,
        [&](const Catalog &c) { return agent_context_for(c, session_role, acting_role); },
        false);  // the audited agent's rows are not the caller's: its names are not looked up
    ReplayedDecision out;
    out.state = to_string(checked.decision.state);
    out.detail = check_json(*catalog, checked.decision, current_record().question_id, true,
                            checked.governed);
    return out;
}

}  // namespace clarify::pg
