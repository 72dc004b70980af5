#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/time_quals.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/time_windows.hpp"
#include "pg/plan/fixed_value.hpp"
#include "pg/plan/plan_nodes.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "access/genam.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "miscadmin.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/formatting.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
}

#include <algorithm>
#include <cstring>

namespace clarify::pg {

// One condition `column OP value` (or date_trunc(unit, column) = value) on one scan.
struct TimeQual {
    int scan;  // index into TimeQuals::scans
    CompareOp op;
    Expr *value;  // the plan's expression
    Oid value_type;
    bool date_side;  // the column side is a date: bounds fall on midnights
    Interval *unit;  // date_trunc's unit, nullptr otherwise
};

// One scan of a time column: every scan counts, restricted or not.
struct TimeScan {
    Oid relation;
    AttrNumber attnum;
    bool date_column;  // of type date: its rows compare with a window as days (§16)
};

struct TimeQuals {
    int nscans, nquals;
    TimeScan *scans;
    TimeQual *quals;
    int scan_capacity, qual_capacity;
};

namespace {

bool is_instant_type(Oid type) {
    return type == DATEOID || type == TIMESTAMPOID || type == TIMESTAMPTZOID;
}

struct Finder {
    const Catalog *catalog;
    PlannedStmt *stmt;
    TimeQuals *out;
};

void add_scan(TimeQuals *q, Oid relation, AttrNumber attnum) {
    if (q->nscans == q->scan_capacity) {
        q->scan_capacity *= 2;
        q->scans = (TimeScan *)repalloc(q->scans, sizeof(TimeScan) * q->scan_capacity);
    }
    q->scans[q->nscans++] = TimeScan{relation, attnum, get_atttype(relation, attnum) == DATEOID};
}

void add_qual(TimeQuals *q, const TimeQual &qual) {
    if (q->nquals == q->qual_capacity) {
        q->qual_capacity *= 2;
        q->quals = (TimeQual *)repalloc(q->quals, sizeof(TimeQual) * q->qual_capacity);
    }
    q->quals[q->nquals++] = qual;
}

// The column under casts between date, timestamp and timestamptz (which keep its order):
// true when `node` is the scan's column `attnum`. An index-only scan's columns are the index's.
bool is_time_column(Node *node, Index scanrelid, AttrNumber attnum, List *indextlist) {
    for (;;) {
        if (IsA(node, RelabelType)) {
            node = (Node *)((RelabelType *)node)->arg;
        } else if (IsA(node, FuncExpr) && ((FuncExpr *)node)->funcformat != COERCE_EXPLICIT_CALL &&
                   list_length(((FuncExpr *)node)->args) == 1 &&
                   is_instant_type(((FuncExpr *)node)->funcresulttype) &&
                   is_instant_type(exprType((Node *)linitial(((FuncExpr *)node)->args)))) {
            node = (Node *)linitial(((FuncExpr *)node)->args);
        } else {
            break;
        }
    }
    if (!IsA(node, Var)) return false;
    Var *var = (Var *)node;
    if (var->varlevelsup != 0) return false;
    if (var->varno == INDEX_VAR) {
        if (var->varattno < 1 || var->varattno > list_length(indextlist)) return false;
        return is_time_column(
            (Node *)((TargetEntry *)list_nth(indextlist, var->varattno - 1))->expr, scanrelid,
            attnum, nullptr);
    }
    return var->varno == (int)scanrelid && var->varattno == attnum;
}

// A value that can be evaluated before the scan to what the scan will see at every row and every
// FETCH: no column, and nothing whose value may move while the statement runs
// (pg/plan/fixed_value.cpp).
bool evaluable(Node *value) {
    return !contain_var_clause(value) && fixed_for_statement(value);
}

// date_trunc's unit as an interval ("quarter": 3 months); nullptr for a unit it does not know.
Interval *unit_step(Node *unit_node) {
    if (!IsA(unit_node, Const) || ((Const *)unit_node)->constisnull) return nullptr;
    char *given = TextDatumGetCString(((Const *)unit_node)->constvalue);
    char *unit = asc_tolower(given, strlen(given));
    static const char *const names[][2] = {{"microseconds", "1 microsecond"},
                                           {"milliseconds", "1 millisecond"},
                                           {"second", "1 second"},
                                           {"minute", "1 minute"},
                                           {"hour", "1 hour"},
                                           {"day", "1 day"},
                                           {"week", "7 days"},
                                           {"month", "1 month"},
                                           {"quarter", "3 months"},
                                           {"year", "1 year"},
                                           {"decade", "10 years"},
                                           {"century", "100 years"},
                                           {"millennium", "1000 years"}};
    for (const auto &n : names)
        if (strcmp(unit, n[0]) == 0)
            return DatumGetIntervalP(DirectFunctionCall3(interval_in, CStringGetDatum(n[1]),
                                                         ObjectIdGetDatum(InvalidOid),
                                                         Int32GetDatum(-1)));
    return nullptr;
}

std::optional<CompareOp> btree_op(Oid opno) {
    for (int strategy : op_btree_strategies(opno)) {
        switch (strategy) {
            case BTLessStrategyNumber:
                return CompareOp::Less;
            case BTLessEqualStrategyNumber:
                return CompareOp::LessEqual;
            case BTEqualStrategyNumber:
                return CompareOp::Equal;
            case BTGreaterEqualStrategyNumber:
                return CompareOp::GreaterEqual;
            case BTGreaterStrategyNumber:
                return CompareOp::Greater;
            default:
                break;
        }
    }
    return std::nullopt;
}

// One qual of a scan: a comparison of the time column (or date_trunc of it) with a value.
// ORs, <>, IS NOT NULL and other functions of the column are not recognised: they restrict
// nothing.
void read_qual(TimeQuals *q, int scan, Node *qual, Index scanrelid, AttrNumber attnum,
               List *indextlist) {
    if (IsA(qual, BoolExpr) && ((BoolExpr *)qual)->boolop == AND_EXPR) {
        ListCell *lc;
        foreach (lc, ((BoolExpr *)qual)->args)
            read_qual(q, scan, (Node *)lfirst(lc), scanrelid, attnum, indextlist);
        return;
    }
    if (!IsA(qual, OpExpr) || list_length(((OpExpr *)qual)->args) != 2) return;
    OpExpr *op = (OpExpr *)qual;
    std::optional<CompareOp> cmp = btree_op(op->opno);
    if (!cmp) return;
    Node *left = (Node *)linitial(op->args), *right = (Node *)lsecond(op->args);
    for (int side = 0; side < 2; ++side) {
        Node *column = side == 0 ? left : right, *value = side == 0 ? right : left;
        CompareOp oriented = side == 0 ? *cmp : commuted(*cmp);
        if (!is_instant_type(exprType(value)) || !evaluable(value)) continue;
        Interval *unit = nullptr;
        Node *column_side = column;
        if (IsA(column, FuncExpr) &&
            (((FuncExpr *)column)->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ ||
             ((FuncExpr *)column)->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP)) {
            if (oriented != CompareOp::Equal) continue;
            unit = unit_step((Node *)linitial(((FuncExpr *)column)->args));
            if (!unit) continue;
            column_side = (Node *)lsecond(((FuncExpr *)column)->args);
        }
        if (!is_instant_type(exprType(column))) continue;
        if (!is_time_column(column_side, scanrelid, attnum, indextlist)) continue;
        add_qual(q, TimeQual{scan, oriented, (Expr *)value, exprType(value),
                             !unit && exprType(column) == DATEOID, unit});
        return;
    }
}

void read_quals(TimeQuals *q, int scan, List *quals, Index scanrelid, AttrNumber attnum,
                List *indextlist) {
    ListCell *lc;
    foreach (lc, quals) read_qual(q, scan, (Node *)lfirst(lc), scanrelid, attnum, indextlist);
}

// A partial index's predicate holds for every row its scan returns, and the planner leaves out
// the conditions it implies: it restricts the period like them.
void read_index_predicate(TimeQuals *q, int scan, Oid indexid, Index scanrelid, AttrNumber attnum) {
    Relation index = index_open(indexid, AccessShareLock);
    List *predicate = (List *)copyObjectImpl(RelationGetIndexPredicate(index));
    index_close(index, NoLock);
    if (!predicate) return;
    ChangeVarNodes((Node *)predicate, 1, scanrelid, 0);
    read_quals(q, scan, predicate, scanrelid, attnum, nullptr);
}

// The partial indexes whose rows a bitmap scan returns: those of one index scan or of an AND.
void read_bitmap_predicates(TimeQuals *q, int scan, Plan *bitmap, Index scanrelid,
                            AttrNumber attnum) {
    if (!bitmap) return;
    if (IsA(bitmap, BitmapIndexScan)) {
        read_index_predicate(q, scan, ((BitmapIndexScan *)bitmap)->indexid, scanrelid, attnum);
    } else if (IsA(bitmap, BitmapAnd)) {
        ListCell *lc;
        foreach (lc, ((BitmapAnd *)bitmap)->bitmapplans)
            read_bitmap_predicates(q, scan, (Plan *)lfirst(lc), scanrelid, attnum);
    }
}

// The conditions a scan node applies, in its own terms: the qual, and its index conditions.
void read_scan(Finder *f, Scan *scan) {
    if (scan->scanrelid == 0) return;
    RangeTblEntry *rte = rt_fetch(scan->scanrelid, f->stmt->rtable);
    if (rte->rtekind != RTE_RELATION) return;
    for (const ColumnKey &key : f->catalog->time_columns()) {
        if (key.relation != rte->relid) continue;
        TimeQuals *q = f->out;
        add_scan(q, key.relation, key.attnum);
        int index = q->nscans - 1;
        List *indextlist = nullptr;
        read_quals(q, index, scan->plan.qual, scan->scanrelid, key.attnum, nullptr);
        switch (nodeTag(scan)) {
            case T_IndexScan:
                read_quals(q, index, ((IndexScan *)scan)->indexqualorig, scan->scanrelid,
                           key.attnum, nullptr);
                read_index_predicate(q, index, ((IndexScan *)scan)->indexid, scan->scanrelid,
                                     key.attnum);
                break;
            case T_IndexOnlyScan:
                indextlist = ((IndexOnlyScan *)scan)->indextlist;
                read_quals(q, index, scan->plan.qual, scan->scanrelid, key.attnum, indextlist);
                read_quals(q, index, ((IndexOnlyScan *)scan)->recheckqual, scan->scanrelid,
                           key.attnum, indextlist);
                read_index_predicate(q, index, ((IndexOnlyScan *)scan)->indexid, scan->scanrelid,
                                     key.attnum);
                break;
            case T_BitmapHeapScan:
                read_quals(q, index, ((BitmapHeapScan *)scan)->bitmapqualorig, scan->scanrelid,
                           key.attnum, nullptr);
                read_bitmap_predicates(q, index, scan->plan.lefttree, scan->scanrelid, key.attnum);
                break;
            default:
                break;
        }
    }
}

// Every scan of the plan tree (subplans and CTEs are walked from the statement).
void walk(Finder *f, Plan *plan) {
    if (!plan) return;
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::Time);
    if (plan_nodes::is_relation_scan(plan)) read_scan(f, (Scan *)plan);
    using namespace plan_nodes;
    for_each_child(f->stmt, plan, kTree | kAppended | kBitmaps | kSubquery | kCustom,
                   [f](Plan *child) { walk(f, child); });
}

void walk_plans(Finder *f, List *plans) {
    ListCell *lc;
    foreach (lc, plans) walk(f, (Plan *)lfirst(lc));
}

bool contains_extern_param(Node *node, void *) {
    if (!node) return false;
    if (IsA(node, Param) && ((Param *)node)->paramkind == PARAM_EXTERN) return true;
    return expression_tree_walker(node, WALKER(contains_extern_param), nullptr);
}

// The value of one condition as an instant, or false when it restricts nothing.
bool evaluate_value(const TimeQual &qual, EState **estate, ParamListInfo params, Timestamp *at,
                    Timestamp *next) {
    Datum value;
    bool isnull = false;
    if (IsA(qual.value, Const)) {
        isnull = ((Const *)qual.value)->constisnull;
        value = ((Const *)qual.value)->constvalue;
    } else {
        if (!params && contains_extern_param((Node *)qual.value, nullptr)) return false;
        if (!*estate) {
            *estate = CreateExecutorState();
            (*estate)->es_param_list_info = params;
        }
        MemoryContext old = MemoryContextSwitchTo((*estate)->es_query_cxt);
        ExprState *state = ExecInitExpr(qual.value, nullptr);
        MemoryContextSwitchTo(old);
        value = ExecEvalExprSwitchContext(state, GetPerTupleExprContext(*estate), &isnull);
    }
    if (isnull) return false;
    if (qual.unit) {
        Datum end =
            qual.value_type == TIMESTAMPOID
                ? DirectFunctionCall2(timestamp_pl_interval, value, IntervalPGetDatum(qual.unit))
                : DirectFunctionCall2(timestamptz_pl_interval,
                                      qual.value_type == DATEOID
                                          ? DirectFunctionCall1(date_timestamptz, value)
                                          : value,
                                      IntervalPGetDatum(qual.unit));
        Oid end_type = qual.value_type == TIMESTAMPOID ? TIMESTAMPOID : TIMESTAMPTZOID;
        return instant_of(value, qual.value_type, at) && instant_of(end, end_type, next);
    }
    if (!instant_of(value, qual.value_type, at)) return false;
    if (qual.date_side) {
        // A date column holds midnights: the bound moves to the first midnight it admits.
        *next = midnight_at_or_after(*at + 1);
        *at = midnight_at_or_after(*at);
    } else {
        *next = *at + 1;
    }
    return true;
}

}  // namespace

TimeQuals *find_time_quals(const Catalog &catalog, PlannedStmt *stmt) {
    MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(stmt));
    TimeQuals *q = (TimeQuals *)palloc0(sizeof(TimeQuals));
    q->scan_capacity = q->qual_capacity = 4;
    q->scans = (TimeScan *)palloc(sizeof(TimeScan) * q->scan_capacity);
    q->quals = (TimeQual *)palloc(sizeof(TimeQual) * q->qual_capacity);
    Finder f{&catalog, stmt, q};
    walk(&f, stmt->planTree);
    walk_plans(&f, stmt->subplans);
    MemoryContextSwitchTo(old);
    return q->nscans ? q : nullptr;
}

std::vector<std::pair<ColumnKey, TimeRange>> evaluate_time_quals(const TimeQuals *quals,
                                                                 ParamListInfo params) {
    std::vector<std::pair<ColumnKey, TimeRange>> out;
    if (!quals) return out;
    std::vector<TimeRange> scans(quals->nscans);
    EState *estate = nullptr;
    for (int i = 0; i < quals->nquals; ++i) {
        const TimeQual &qual = quals->quals[i];
        struct Bound {
            bool restricts;
            Timestamp at, next;
        };
        Bound b = pg_guard([&] {
            Bound v{};
            v.restricts = evaluate_value(qual, &estate, params, &v.at, &v.next);
            return v;
        });
        if (b.restricts) restrict_range(scans[qual.scan], TimeCondition{qual.op, b.at, b.next});
    }
    if (estate) pg_guard([&] { FreeExecutorState(estate); });
    // Several scans of one relation: the statement reads the rows of each.
    for (int s = 0; s < quals->nscans; ++s) {
        ColumnKey key{quals->scans[s].relation, quals->scans[s].attnum};
        bool merged = false;
        for (auto &entry : out)
            if (entry.first == key) {
                entry.second = hull(entry.second, scans[s]);
                merged = true;
            }
        if (!merged) out.emplace_back(key, scans[s]);
    }
    return out;
}

std::vector<ColumnKey> date_columns_of(const TimeQuals *quals) {
    std::vector<ColumnKey> out;
    for (int s = 0; quals && s < quals->nscans; ++s) {
        ColumnKey key{quals->scans[s].relation, quals->scans[s].attnum};
        if (quals->scans[s].date_column && std::find(out.begin(), out.end(), key) == out.end())
            out.push_back(key);
    }
    return out;
}

}  // namespace clarify::pg
