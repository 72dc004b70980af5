#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/plan/fixed_value.hpp"

extern "C" {
#include "access/transam.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace clarify::pg {

namespace {

// Stable built-ins whose value cannot change within a statement. The transaction's start: a
// cursor lives within its transaction (WITH HOLD ones run to the end before it commits). Casts,
// arithmetic and comparisons of date, timestamp and timestamptz: stable only through TimeZone,
// which pg/executor/time_zone_hold.cpp holds while the statement or its cursor runs. An allow list:
// any other stable function (transaction ids, statistics, settings, text read as a date) does not
// count.
constexpr Oid kFixedStable[] = {
    F_NOW,  // CURRENT_TIMESTAMP and the like are SQLValueFunctions (fixed_sql_value)
    F_TRANSACTION_TIMESTAMP,
    F_TIMESTAMPTZ_DATE,  // date -> timestamptz
    F_TIMESTAMPTZ_TIMESTAMP,
    F_TIMESTAMPTZ_DATE_TIME,
    F_DATE_TIMESTAMPTZ,  // timestamptz -> date
    F_TIMESTAMP_TIMESTAMPTZ,
    F_TIME_TIMESTAMPTZ,
    F_TIMETZ_TIMESTAMPTZ,
    F_TIMESTAMPTZ_PL_INTERVAL,
    F_TIMESTAMPTZ_MI_INTERVAL,
    F_INTERVAL_PL_TIMESTAMPTZ,
    F_DATE_TRUNC_TEXT_TIMESTAMPTZ,
    F_DATE_PART_TEXT_TIMESTAMPTZ,
    F_EXTRACT_TEXT_TIMESTAMPTZ,
    F_AGE_TIMESTAMPTZ,
    F_AGE_TIMESTAMP,
    F_MAKE_TIMESTAMPTZ_INT4_INT4_INT4_INT4_INT4_FLOAT8,
    F_DATE_LT_TIMESTAMPTZ,
    F_DATE_LE_TIMESTAMPTZ,
    F_DATE_EQ_TIMESTAMPTZ,
    F_DATE_GE_TIMESTAMPTZ,
    F_DATE_GT_TIMESTAMPTZ,
    F_DATE_NE_TIMESTAMPTZ,
    F_TIMESTAMPTZ_LT_DATE,
    F_TIMESTAMPTZ_LE_DATE,
    F_TIMESTAMPTZ_EQ_DATE,
    F_TIMESTAMPTZ_GE_DATE,
    F_TIMESTAMPTZ_GT_DATE,
    F_TIMESTAMPTZ_NE_DATE,
    F_TIMESTAMP_LT_TIMESTAMPTZ,
    F_TIMESTAMP_LE_TIMESTAMPTZ,
    F_TIMESTAMP_EQ_TIMESTAMPTZ,
    F_TIMESTAMP_GE_TIMESTAMPTZ,
    F_TIMESTAMP_GT_TIMESTAMPTZ,
    F_TIMESTAMP_NE_TIMESTAMPTZ,
    F_TIMESTAMPTZ_LT_TIMESTAMP,
    F_TIMESTAMPTZ_LE_TIMESTAMP,
    F_TIMESTAMPTZ_EQ_TIMESTAMP,
    F_TIMESTAMPTZ_GE_TIMESTAMP,
    F_TIMESTAMPTZ_GT_TIMESTAMP,
    F_TIMESTAMPTZ_NE_TIMESTAMP,
};

// Immutable in the catalog, yet reading a setting a statement may change while it runs: the zone
// of AT TIME ZONE may be an abbreviation, which timezone_abbreviations defines.
constexpr Oid kSettingReaders[] = {F_TIMEZONE_TEXT_TIMESTAMPTZ, F_TIMEZONE_TEXT_TIMESTAMP};

bool listed(const Oid *list, size_t n, Oid fn) {
    for (size_t i = 0; i < n; ++i)
        if (list[i] == fn) return true;
    return false;
}

// True for a function whose value may differ between the gate's call and the scan's: the
// database's own code (a "stable" one may answer otherwise at its next call), anything volatile,
// and any stable built-in not on the allow list.
bool unfixed_function(Oid fn, void *) {
    if (fn >= FirstNormalObjectId) return true;
    if (listed(kSettingReaders, lengthof(kSettingReaders), fn)) return true;
    if (func_volatile(fn) == PROVOLATILE_IMMUTABLE) return false;
    return !listed(kFixedStable, lengthof(kFixedStable), fn);
}

// CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP and the like: the transaction's start.
bool fixed_sql_value(const SQLValueFunction *f) {
    switch (f->op) {
        case SVFOP_CURRENT_DATE:
        case SVFOP_CURRENT_TIME:
        case SVFOP_CURRENT_TIME_N:
        case SVFOP_CURRENT_TIMESTAMP:
        case SVFOP_CURRENT_TIMESTAMP_N:
        case SVFOP_LOCALTIME:
        case SVFOP_LOCALTIME_N:
        case SVFOP_LOCALTIMESTAMP:
        case SVFOP_LOCALTIMESTAMP_N:
            return true;
        default:
            return false;
    }
}

bool has_cstring_argument(const FuncExpr *f) {
    ListCell *lc;
    foreach (lc, f->args)
        if (exprType((Node *)lfirst(lc)) == CSTRINGOID) return true;
    return false;
}

// True for a node whose value may move while the statement runs. Node kinds are allowed by name:
// any other (columns, values of other plan nodes, subqueries, text read through DateStyle,
// domains whose checks run code) is not fixed.
bool unfixed(Node *node, void *) {
    if (!node) return false;
    check_stack_depth();
    switch (nodeTag(node)) {
        case T_Const:
        case T_List:
        case T_RelabelType:
        case T_BoolExpr:
        case T_NullTest:
        case T_BooleanTest:
        case T_CaseExpr:
        case T_CaseWhen:
        case T_CaseTestExpr:
        case T_CoalesceExpr:
            break;
        case T_Param:  // the execution's bound parameters stay as bound until it ends
            if (((Param *)node)->paramkind != PARAM_EXTERN) return true;
            break;
        case T_SQLValueFunction:
            if (!fixed_sql_value((SQLValueFunction *)node)) return true;
            break;
        case T_MinMaxExpr:  // compares with its type's btree function
            if (((MinMaxExpr *)node)->minmaxtype >= FirstNormalObjectId) return true;
            break;
        case T_FuncExpr:
            if (has_cstring_argument((FuncExpr *)node)) return true;
            [[fallthrough]];
        case T_OpExpr:
        case T_DistinctExpr:
        case T_NullIfExpr:
            if (check_functions_in_node(node, unfixed_function, nullptr)) return true;
            break;
        default:
            return true;
    }
    return expression_tree_walker(node, WALKER(unfixed), nullptr);
}

}  // namespace

bool fixed_for_statement(Node *value) {
    return !unfixed(value, nullptr);
}

}  // namespace clarify::pg
