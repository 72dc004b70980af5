#include "pg/pg.hpp"
#include "pg/plan/segment/predicate.hpp"
#include "pg/compat.hpp"

extern "C" {
#include "catalog/pg_class.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/prep.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
}

namespace clarify::pg::segment {

namespace {

[[noreturn]] void refuse(const char *why) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("segment_predicate %s", why),
                    errhint("A segment's predicate is a boolean SQL expression over its "
                            "relation's columns, e.g. last_order_at >= current_date - 30.")));
}

// Whether the clause reads a system column or a whole row: a segment reads named columns.
bool reads_other_than_columns(Node *node, void *) {
    if (!node) return false;
    if (IsA(node, Var)) return ((Var *)node)->varattno <= 0;
    return expression_tree_walker(node, WALKER(reads_other_than_columns), nullptr);
}

struct Renumber {
    Index varno;
    bool other;  // a Var of another relation or an outer query
};

Node *renumber(Node *node, Renumber *r) {
    if (!node) return nullptr;
    if (IsA(node, Var)) {
        Var *v = (Var *)copyObjectImpl(node);
        if (v->varlevelsup != 0 || v->varno != static_cast<int>(r->varno)) {
            r->other = true;
            return (Node *)v;
        }
        v->varno = 1;
        v->varnosyn = 0;
        v->varattnosyn = 0;
        v->location = -1;
        CLARIFY_CLEAR_NULLING(v);
        return (Node *)v;
    }
    return expression_tree_mutator(node, MUTATOR(renumber), r);
}

// `value OP column` as `column OP' value`, OP' the commutator (none: as it is).
Node *column_first(Node *condition) {
    if (!IsA(condition, OpExpr) || list_length(((OpExpr *)condition)->args) != 2) return condition;
    OpExpr *op = (OpExpr *)condition;
    Node *left = (Node *)linitial(op->args), *right = (Node *)lsecond(op->args);
    if (contain_var_clause(left) || !contain_var_clause(right)) return condition;
    Oid commutator = get_commutator(op->opno);
    if (!OidIsValid(commutator)) return condition;
    OpExpr *swapped = (OpExpr *)copyObjectImpl(op);
    swapped->opno = commutator;
    swapped->opfuncid = InvalidOid;
    swapped->args = list_make2(right, left);
    set_opfuncid(swapped);
    return (Node *)swapped;
}

}  // namespace

Node *parse_predicate(Oid relation, const char *predicate) {
    char *name = get_rel_name(relation);
    char relkind = get_rel_relkind(relation);
    if (!name)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("segment_relation %u does not exist", relation)));
    if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
        relkind != RELKIND_MATVIEW && relkind != RELKIND_FOREIGN_TABLE)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("segment_relation \"%s\" is not a table", name),
                        errhint("A segment filters the rows a scan reads: name a table, a "
                                "materialized view or a foreign table.")));
    int level = NewGUCNestLevel();
    set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
                      GUC_ACTION_SAVE, true, 0, false);
    StringInfoData sql;
    initStringInfo(&sql);
    appendStringInfo(
        &sql, "SELECT 1 FROM %s WHERE (%s\n)",
        quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)), name),
        predicate);
    List *raw = raw_parser(sql.data, RAW_PARSE_DEFAULT);
    RawStmt *rs = list_length(raw) == 1 ? linitial_node(RawStmt, raw) : nullptr;
    SelectStmt *sel = rs && IsA(rs->stmt, SelectStmt) ? (SelectStmt *)rs->stmt : nullptr;
    if (!sel || sel->op != SETOP_NONE || list_length(sel->targetList) != 1 ||
        list_length(sel->fromClause) != 1 || !IsA(linitial(sel->fromClause), RangeVar) ||
        !sel->whereClause || sel->groupClause || sel->havingClause || sel->windowClause ||
        sel->distinctClause || sel->sortClause || sel->limitCount || sel->limitOffset ||
        sel->lockingClause || sel->withClause || sel->intoClause || sel->valuesLists)
        refuse("is not a single SQL expression");
    Query *q = parse_analyze_fixedparams(rs, sql.data, nullptr, 0, nullptr);
    if (q->hasSubLinks || q->hasAggs || q->hasWindowFuncs || q->hasTargetSRFs ||
        list_length(q->rtable) != 1)
        refuse("must not contain a subquery, an aggregate or a set-returning function");
    Node *clause = q->jointree->quals;
    if (contain_volatile_functions(clause))
        refuse("calls a volatile function: a filter must mean the same on every scan");
    if (reads_other_than_columns(clause, nullptr))
        refuse("reads a system column or a whole row: name the relation's columns");
    if (!conjuncts(clause)) refuse("is always true: it filters no row");
    AtEOXact_GUC(true, level);
    return clause;
}

List *conjuncts(Node *clause) {
    Node *folded = eval_const_expressions(nullptr, clause);
    List *ands = make_ands_implicit(canonicalize_qual((Expr *)folded, false));
    List *out = NIL;
    ListCell *lc;
    foreach (lc, ands)
        if (Node *n = normal_condition((Node *)lfirst(lc), 1)) out = lappend(out, n);
    return out;
}

Node *normal_condition(Node *condition, Index varno) {
    Renumber r{varno, false};
    Node *renumbered = renumber(condition, &r);
    if (r.other) return nullptr;
    return column_first(renumbered);
}

}  // namespace clarify::pg::segment
