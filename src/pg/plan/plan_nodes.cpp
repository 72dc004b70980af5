#include "pg/pg.hpp"
#include "pg/plan/plan_nodes.hpp"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
}

namespace clarify::pg::plan_nodes {

ScanKind scan_kind(const Plan *plan) {
    switch (nodeTag(plan)) {
        case T_SeqScan:
        case T_SampleScan:
        case T_IndexScan:
        case T_IndexOnlyScan:
        case T_BitmapHeapScan:
        case T_TidScan:
        case T_TidRangeScan:
            return ScanKind::Relation;
        case T_BitmapIndexScan:
            return ScanKind::BitmapIndex;
        case T_ForeignScan:
        case T_CustomScan:
            return ScanKind::ForeignOrCustom;
        case T_SubqueryScan:
            return ScanKind::Subquery;
        case T_CteScan:
            return ScanKind::Cte;
        case T_FunctionScan:
        case T_TableFuncScan:
        case T_ValuesScan:
            return ScanKind::Computed;
        case T_NamedTuplestoreScan:
        case T_WorkTableScan:
            return ScanKind::Tuplestore;
        default:
            return ScanKind::None;
    }
}

bool is_relation_scan(const Plan *plan) {
    switch (scan_kind(plan)) {
        case ScanKind::Relation:
            return true;
        case ScanKind::ForeignOrCustom:
            return ((const Scan *)plan)->scanrelid > 0;
        default:
            return false;
    }
}

bool is_join(const Plan *plan) {
    return IsA(plan, NestLoop) || IsA(plan, HashJoin) || IsA(plan, MergeJoin);
}

Plan *scanned_subplan(PlannedStmt *stmt, Plan *plan) {
    if (IsA(plan, SubqueryScan)) return ((SubqueryScan *)plan)->subplan;
    if (IsA(plan, CteScan)) return subplan_of(stmt, ((CteScan *)plan)->ctePlanId);
    return nullptr;
}

Expr *strip_relabels(Expr *e) {
    while (e && IsA(e, RelabelType)) e = ((RelabelType *)e)->arg;
    return e;
}

Var *plain_var(Expr *e) {
    e = strip_relabels(e);
    return e && IsA(e, Var) ? (Var *)e : nullptr;
}

List *node_quals(Plan *plan) {
    List *quals = list_copy(plan->qual);
    switch (nodeTag(plan)) {
        case T_IndexScan:
            quals = list_concat(quals, ((IndexScan *)plan)->indexqualorig);
            break;
        case T_IndexOnlyScan:
            quals = list_concat(quals, ((IndexOnlyScan *)plan)->indexqual);
            break;
        case T_BitmapHeapScan:
            quals = list_concat(quals, ((BitmapHeapScan *)plan)->bitmapqualorig);
            break;
        case T_HashJoin:
            quals = list_concat(quals, ((HashJoin *)plan)->hashclauses);
            quals = list_concat(quals, ((Join *)plan)->joinqual);
            break;
        case T_MergeJoin:
            quals = list_concat(quals, ((MergeJoin *)plan)->mergeclauses);
            quals = list_concat(quals, ((Join *)plan)->joinqual);
            break;
        case T_NestLoop:
            quals = list_concat(quals, ((Join *)plan)->joinqual);
            break;
        default:
            break;
    }
    return quals;
}

bool equality_sides(Node *qual, Expr **left, Expr **right) {
    if (!IsA(qual, OpExpr) || list_length(((OpExpr *)qual)->args) != 2) return false;
    OpExpr *op = (OpExpr *)qual;
    Oid left_type = exprType((Node *)linitial(op->args));
    if (!op_mergejoinable(op->opno, left_type) && !op_hashjoinable(op->opno, left_type))
        return false;
    *left = (Expr *)linitial(op->args);
    *right = (Expr *)lsecond(op->args);
    return true;
}

List *appended_plans(const Plan *plan) {
    if (IsA(plan, Append)) return ((const Append *)plan)->appendplans;
    if (IsA(plan, MergeAppend)) return ((const MergeAppend *)plan)->mergeplans;
    return NIL;
}

Plan *subplan_of(PlannedStmt *stmt, int plan_id) {
    if (plan_id < 1 || plan_id > list_length(stmt->subplans)) return nullptr;
    return (Plan *)list_nth(stmt->subplans, plan_id - 1);
}

}  // namespace clarify::pg::plan_nodes
