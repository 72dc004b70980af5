#include "pg/pg.hpp"
#include "pg/catalog/time_windows.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(clarify_window_bound_check);
}

#include <unordered_map>

namespace clarify::pg {

namespace {

constexpr Timestamp kUnixShift = Timestamp(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

struct BoundContext {
    const char *concept;
    const char *side;
};

void bound_error_context(void *arg) {
    const BoundContext *c = static_cast<const BoundContext *>(arg);
    errcontext("%s of time window \"%s\"", c->side, c->concept);
}

[[noreturn]] void refuse(const char *side, const char *why) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s %s", side, why),
                    errhint("A time window's bounds are SQL expressions of type date or timestamp "
                            "with time zone, e.g. date_trunc('quarter', now()).")));
}

// Parses `expr` as one SQL expression with pg_catalog first on the search path, refusing
// anything but a plain, non-volatile date or timestamptz expression; returns it planned.
Expr *parse_bound(const char *concept, const char *side, const char *expr, Oid *type) {
    BoundContext bc{concept, side};
    ErrorContextCallback callback;
    callback.callback = bound_error_context;
    callback.arg = &bc;
    callback.previous = error_context_stack;
    error_context_stack = &callback;
    int level = NewGUCNestLevel();
    set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
                      GUC_ACTION_SAVE, true, 0, false);
    StringInfoData sql;
    initStringInfo(&sql);
    appendStringInfo(&sql, "SELECT (%s)", expr);
    List *raw = raw_parser(sql.data, RAW_PARSE_DEFAULT);
    RawStmt *rs = list_length(raw) == 1 ? linitial_node(RawStmt, raw) : nullptr;
    SelectStmt *sel = rs && IsA(rs->stmt, SelectStmt) ? (SelectStmt *)rs->stmt : nullptr;
    if (!sel || sel->op != SETOP_NONE || list_length(sel->targetList) != 1 || sel->fromClause ||
        sel->whereClause || sel->groupClause || sel->havingClause || sel->windowClause ||
        sel->distinctClause || sel->sortClause || sel->limitCount || sel->limitOffset ||
        sel->lockingClause || sel->withClause || sel->intoClause || sel->valuesLists)
        refuse(side, "is not a single SQL expression");
    Query *q = parse_analyze_fixedparams(rs, sql.data, nullptr, 0, nullptr);
    if (q->hasSubLinks || q->hasAggs || q->hasWindowFuncs || q->hasTargetSRFs || q->rtable)
        refuse(side, "must not contain a subquery, an aggregate or a set-returning function");
    Expr *e = linitial_node(TargetEntry, q->targetList)->expr;
    *type = exprType((Node *)e);
    if (*type != DATEOID && *type != TIMESTAMPTZOID)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("%s must be of type date or timestamp with time zone, not %s", side,
                               format_type_be(*type))));
    if (contain_volatile_functions((Node *)e))
        refuse(side, "calls a volatile function: a period must mean the same all statement long");
    Expr *planned = expression_planner(e);
    AtEOXact_GUC(true, level);
    error_context_stack = callback.previous;
    return planned;
}

// Evaluates a planned bound; false when it is NULL or infinite (an open side). `estate` is made
// at the first bound that needs an executor and serves the statement's other bounds.
bool evaluate_bound(Expr *planned, Oid type, EState **estate, Timestamp *out) {
    // A fixed date needs no executor: planning folded it to a constant.
    if (IsA(planned, Const))
        return !((Const *)planned)->constisnull &&
               instant_of(((Const *)planned)->constvalue, type, out);
    if (!*estate) *estate = CreateExecutorState();
    MemoryContext old = MemoryContextSwitchTo((*estate)->es_query_cxt);
    ExprState *state = ExecInitExpr(planned, nullptr);
    MemoryContextSwitchTo(old);
    bool isnull = false;
    Datum value = ExecEvalExprSwitchContext(state, GetPerTupleExprContext(*estate), &isnull);
    return !isnull && instant_of(value, type, out);
}

// Runs `body` with the window's zone (§16) as the session's: the zone pointer is swapped, not the
// TimeZone setting, which pg/executor/time_zone_hold.cpp holds while a dated statement runs.
// PostgreSQL level: raises for a zone the server no longer knows.
template <typename Body>
void in_window_zone(const Concept &c, Body body) {
    pg_tz *saved = session_timezone;
    if (!c.window_time_zone.empty()) {
        pg_tz *zone = pg_tzset(c.window_time_zone.c_str());
        if (!zone)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("time zone \"%s\" of time window \"%s\" is not known",
                                   c.window_time_zone.c_str(), c.id.c_str())));
        session_timezone = zone;
    }
    PG_TRY();
    { body(); }
    PG_FINALLY();
    { session_timezone = saved; }
    PG_END_TRY();
}

// The planned bounds of each window, per catalog: parsed at the first statement that needs them.
struct ParsedWindow {
    Expr *start = nullptr, *end = nullptr;
    Oid start_type = InvalidOid, end_type = InvalidOid;
};
struct WindowCache {
    const Catalog *catalog = nullptr;
    MemoryContext context = nullptr;
    std::unordered_map<std::string, ParsedWindow> parsed;
};
WindowCache window_cache;

const ParsedWindow &parsed_window(const Catalog &catalog, const Concept &c) {
    if (window_cache.catalog != &catalog) {
        window_cache.parsed.clear();
        window_cache.catalog = &catalog;
        if (window_cache.context)
            pg_guard([] { MemoryContextReset(window_cache.context); });
        else
            window_cache.context = pg_guard([] {
                return AllocSetContextCreate(TopMemoryContext, "pg_clarify time windows",
                                             ALLOCSET_SMALL_SIZES);
            });
    }
    auto it = window_cache.parsed.find(c.id);
    if (it != window_cache.parsed.end()) return it->second;
    ParsedWindow w;
    const char *id = c.id.c_str(), *start = c.window_start.c_str(), *end = c.window_end.c_str();
    pg_guard([&] {
        MemoryContext old = MemoryContextSwitchTo(window_cache.context);
        PG_TRY();
        {
            // A timestamptz literal is read when parsed: in the window's zone too.
            in_window_zone(c, [&] {
                w.start = parse_bound(id, "window_start", start, &w.start_type);
                w.end = parse_bound(id, "window_end", end, &w.end_type);
            });
        }
        PG_FINALLY();
        { MemoryContextSwitchTo(old); }
        PG_END_TRY();
    });
    return window_cache.parsed.emplace(c.id, w).first->second;
}

}  // namespace

bool instant_of(Datum value, Oid type, Timestamp *out) {
    TimestampTz ts;
    if (type == DATEOID) {
        if (DATE_NOT_FINITE(DatumGetDateADT(value))) return false;
        ts = DatumGetTimestampTz(DirectFunctionCall1(date_timestamptz, value));
    } else if (type == TIMESTAMPOID) {
        if (TIMESTAMP_NOT_FINITE(DatumGetTimestamp(value))) return false;
        ts = DatumGetTimestampTz(DirectFunctionCall1(timestamp_timestamptz, value));
    } else if (type == TIMESTAMPTZOID) {
        ts = DatumGetTimestampTz(value);
    } else {
        return false;
    }
    if (TIMESTAMP_NOT_FINITE(ts)) return false;
    *out = ts + kUnixShift;
    return true;
}

Timestamp midnight_at_or_after(Timestamp unix_micros) {
    Datum ts = TimestampTzGetDatum(unix_micros - kUnixShift);
    Datum day = DirectFunctionCall1(timestamptz_date, ts);
    TimestampTz midnight = DatumGetTimestampTz(DirectFunctionCall1(date_timestamptz, day));
    if (midnight + kUnixShift < unix_micros)
        midnight = DatumGetTimestampTz(
            DirectFunctionCall1(date_timestamptz, DateADTGetDatum(DatumGetDateADT(day) + 1)));
    return midnight + kUnixShift;
}

std::vector<std::pair<std::string, TimeRange>> bound_windows(
    const std::shared_ptr<const Catalog> &catalog, const ResolutionRecord &record,
    const std::vector<std::string> &mentioned) {
    std::vector<std::pair<std::string, TimeRange>> out;
    std::vector<std::string> ids;
    for (const Binding &b : record.bindings) ids.push_back(b.concept_id);
    for (const std::string &term : mentioned)
        for (const std::string &id : catalog->candidates(term)) ids.push_back(id);
    for (const std::string &id : ids) {
        const Concept *c = catalog->concept(id);
        if (!c || c->kind != ConceptKind::TimeWindow) continue;
        bool seen = false;
        for (const auto &entry : out) seen = seen || entry.first == c->id;
        if (seen) continue;
        const ParsedWindow &w = parsed_window(*catalog, *c);
        struct Bounds {
            bool has_start, has_end;
            Timestamp start, end;
        };
        Bounds bounds = pg_guard([&] {
            Bounds v{};
            EState *estate = nullptr;
            in_window_zone(*c, [&] {
                v.has_start = evaluate_bound(w.start, w.start_type, &estate, &v.start);
                v.has_end = evaluate_bound(w.end, w.end_type, &estate, &v.end);
            });
            if (estate) FreeExecutorState(estate);
            return v;
        });
        TimeRange range;
        if (bounds.has_start) range.start = bounds.start;
        if (bounds.has_end) range.end = bounds.end;
        out.emplace_back(c->id, range);
    }
    return out;
}

}  // namespace clarify::pg

// clarify.window_bound_check(concept, side, expression): the catalog trigger's check that a
// bound parses as one date or timestamptz expression, calls no volatile function and evaluates.
extern "C" Datum clarify_window_bound_check(PG_FUNCTION_ARGS) {
    using namespace clarify::pg;
    const char *concept = text_to_cstring(PG_GETARG_TEXT_PP(0));
    const char *side = text_to_cstring(PG_GETARG_TEXT_PP(1));
    const char *expr = text_to_cstring(PG_GETARG_TEXT_PP(2));
    Oid type = InvalidOid;
    Expr *planned = parse_bound(concept, side, expr, &type);
    clarify::Timestamp at = 0;
    BoundContext bc{concept, side};
    ErrorContextCallback callback{error_context_stack, bound_error_context, &bc};
    error_context_stack = &callback;
    EState *estate = nullptr;
    bool finite = evaluate_bound(planned, type, &estate, &at);
    if (estate) FreeExecutorState(estate);
    error_context_stack = callback.previous;
    if (!finite)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("%s of time window \"%s\" evaluates to NULL or infinity", side, concept),
                 errhint("A time window is bounded on both sides.")));
    PG_RETURN_VOID();
}
