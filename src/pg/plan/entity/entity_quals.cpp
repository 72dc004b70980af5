#include "pg/pg.hpp"
#include "pg/plan/entity/entity_quals.hpp"
#include "pg/compat.hpp"
#include "pg/boundary.hpp"
#include "pg/plan/fixed_value.hpp"
#include "pg/plan/plan_nodes.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "catalog/pg_operator.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

#include <cstring>

namespace clarify::pg {

namespace {

// How a value names: as it is, each element of an array, or a LIKE pattern (a name only when
// it holds no wildcard).
enum class ValueKind { Scalar, Array, Pattern };

}  // namespace

// One value compared with an entity's name column on one scan.
struct EntityValue {
    int scan;  // index into EntityQuals::scans
    Expr *value;
    ValueKind kind;
    bool case_insensitive;
    // Filled on the first execution that evaluates it, in the plan's memory context: the
    // expression's state (not a Const) and the output function of its type (not an array).
    ExprState *state;
    Oid output;
};

// One scan of an entity's relation that filters its name.
struct EntityScan {
    int entity;  // index into Catalog::entities()
    bool key_filtered;
};

struct EntityQuals {
    int nscans, nvalues, scan_capacity, value_capacity;
    EntityScan *scans;
    EntityValue *values;
    ExprContext *econtext;  // evaluates the values' states, reset after each execution
};

namespace {

void add_value(EntityQuals *q, const EntityValue &v) {
    if (q->nvalues == q->value_capacity) {
        q->value_capacity *= 2;
        q->values = (EntityValue *)repalloc(q->values, sizeof(EntityValue) * q->value_capacity);
    }
    q->values[q->nvalues++] = v;
}

struct ScanContext {
    EntityQuals *q;
    int scan;
    Index scanrelid;
    List *indextlist;  // an index-only scan's columns, nullptr otherwise
};

// The scan's column `attnum` under casts, COLLATE and (setting *ci) lower() or upper().
bool is_column(Node *node, const ScanContext &c, AttrNumber attnum, bool *ci) {
    for (;;) {
        if (IsA(node, RelabelType)) {
            node = (Node *)((RelabelType *)node)->arg;
        } else if (IsA(node, CoerceViaIO)) {
            node = (Node *)((CoerceViaIO *)node)->arg;
        } else if (IsA(node, CollateExpr)) {
            node = (Node *)((CollateExpr *)node)->arg;
        } else if (IsA(node, FuncExpr) && list_length(((FuncExpr *)node)->args) == 1) {
            FuncExpr *f = (FuncExpr *)node;
            if (f->funcid == F_LOWER_TEXT || f->funcid == F_UPPER_TEXT)
                *ci = true;
            else if (f->funcformat == COERCE_EXPLICIT_CALL)
                return false;
            node = (Node *)linitial(f->args);
        } else {
            break;
        }
    }
    if (!IsA(node, Var) || ((Var *)node)->varlevelsup != 0) return false;
    Var *var = (Var *)node;
    if (var->varno == INDEX_VAR) {
        if (c.indextlist == NIL || var->varattno < 1 || var->varattno > list_length(c.indextlist))
            return false;
        ScanContext table = c;
        table.indextlist = nullptr;
        return is_column((Node *)((TargetEntry *)list_nth(c.indextlist, var->varattno - 1))->expr,
                         table, attnum, ci);
    }
    return var->varno == (int)c.scanrelid && var->varattno == attnum;
}

// Known before the scan, and the same at every row: no column, no subquery's result.
bool evaluable(Node *value) {
    return !contain_var_clause(value) && fixed_for_statement(value);
}

bool is_equality(Oid opno, Oid left_type) {
    return op_mergejoinable(opno, left_type) || op_hashjoinable(opno, left_type);
}

// LIKE (~~) or ILIKE (~~*) of a built-in type; *ci set for ILIKE.
bool is_like(Oid opno, bool *ci) {
    if (opno >= FirstNormalObjectId) return false;
    char *name = get_opname(opno);
    if (!name) return false;
    if (strcmp(name, "~~*") == 0) *ci = true;
    return strcmp(name, "~~") == 0 || strcmp(name, "~~*") == 0;
}

bool read_condition(Node *qual, const ScanContext &c, AttrNumber name);

// `name = v`, `name LIKE v`: the value added, true; false when `qual` is no such comparison.
bool read_comparison(OpExpr *op, const ScanContext &c, AttrNumber name) {
    if (list_length(op->args) != 2) return false;
    Node *left = (Node *)linitial(op->args), *right = (Node *)lsecond(op->args);
    bool ci = false;
    if (is_like(op->opno, &ci)) {
        if (!is_column(left, c, name, &ci) || !evaluable(right)) return false;
        add_value(c.q, EntityValue{c.scan, (Expr *)right, ValueKind::Pattern, ci});
        return true;
    }
    if (!is_equality(op->opno, exprType(left))) return false;
    for (int side = 0; side < 2; ++side) {
        Node *column = side == 0 ? left : right, *value = side == 0 ? right : left;
        ci = false;
        if (!is_column(column, c, name, &ci) || !evaluable(value)) continue;
        add_value(c.q, EntityValue{c.scan, (Expr *)value, ValueKind::Scalar, ci});
        return true;
    }
    return false;
}

// `name IN (…)`, `name = ANY(array)`.
bool read_any(ScalarArrayOpExpr *sa, const ScanContext &c, AttrNumber name) {
    if (!sa->useOr || list_length(sa->args) != 2) return false;
    Node *left = (Node *)linitial(sa->args), *right = (Node *)lsecond(sa->args);
    bool ci = false;
    if (!is_equality(sa->opno, exprType(left)) || !is_column(left, c, name, &ci)) return false;
    if (IsA(right, ArrayExpr)) {
        ListCell *lc;
        foreach (lc, ((ArrayExpr *)right)->elements)
            if (!evaluable((Node *)lfirst(lc))) return false;
        foreach (lc, ((ArrayExpr *)right)->elements)
            add_value(c.q, EntityValue{c.scan, (Expr *)lfirst(lc), ValueKind::Scalar, ci});
        return true;
    }
    if (!evaluable(right)) return false;
    add_value(c.q, EntityValue{c.scan, (Expr *)right, ValueKind::Array, ci});
    return true;
}

// A condition naming entities: a comparison, an IN, or an OR of only such conditions (an OR
// with any other arm restricts nothing to a name: its values are taken back).
bool read_condition(Node *qual, const ScanContext &c, AttrNumber name) {
    check_stack_depth();
    if (IsA(qual, OpExpr)) return read_comparison((OpExpr *)qual, c, name);
    if (IsA(qual, ScalarArrayOpExpr)) return read_any((ScalarArrayOpExpr *)qual, c, name);
    if (!IsA(qual, BoolExpr)) return false;
    BoolExpr *b = (BoolExpr *)qual;
    if (b->boolop == AND_EXPR) {
        bool any = false;
        ListCell *lc;
        foreach (lc, b->args) any = read_condition((Node *)lfirst(lc), c, name) || any;
        return any;
    }
    if (b->boolop != OR_EXPR) return false;
    int saved = c.q->nvalues;
    ListCell *lc;
    foreach (lc, b->args) {
        if (read_condition((Node *)lfirst(lc), c, name)) continue;
        c.q->nvalues = saved;
        return false;
    }
    return true;
}

// `key = v` with v known before the scan.
bool filters_key(List *quals, const ScanContext &c, AttrNumber key) {
    ListCell *lc;
    foreach (lc, quals) {
        Node *qual = (Node *)lfirst(lc);
        if (IsA(qual, BoolExpr) && ((BoolExpr *)qual)->boolop == AND_EXPR) {
            if (filters_key(((BoolExpr *)qual)->args, c, key)) return true;
            continue;
        }
        Expr *left, *right;
        if (!plan_nodes::equality_sides(qual, &left, &right)) continue;
        bool ci = false;
        if ((is_column((Node *)left, c, key, &ci) && !ci && evaluable((Node *)right)) ||
            (is_column((Node *)right, c, key, &ci) && !ci && evaluable((Node *)left)))
            return true;
    }
    return false;
}

void read_list(List *quals, const ScanContext &c, AttrNumber name) {
    ListCell *lc;
    foreach (lc, quals) read_condition((Node *)lfirst(lc), c, name);
}

// The conditions a scan applies: its filter and its index conditions, in its own terms.
void read_scan(const Catalog &catalog, PlannedStmt *stmt, EntityQuals *q, Scan *scan) {
    if (scan->scanrelid == 0) return;
    RangeTblEntry *rte = rt_fetch(scan->scanrelid, stmt->rtable);
    if (rte->rtekind != RTE_RELATION || !catalog.has_entity(rte->relid)) return;
    List *quals = scan->plan.qual, *indextlist = nullptr;
    switch (nodeTag(scan)) {
        case T_IndexScan:
            quals = list_concat_copy(quals, ((IndexScan *)scan)->indexqualorig);
            break;
        case T_IndexOnlyScan:
            indextlist = ((IndexOnlyScan *)scan)->indextlist;
            quals = list_concat_copy(quals, ((IndexOnlyScan *)scan)->recheckqual);
            break;
        case T_BitmapHeapScan:
            quals = list_concat_copy(quals, ((BitmapHeapScan *)scan)->bitmapqualorig);
            break;
        default:
            break;
    }
    const std::vector<Entity> &entities = catalog.entities();
    for (size_t i = 0; i < entities.size(); ++i) {
        const Entity &e = entities[i];
        if (e.relation != rte->relid) continue;
        if (q->nscans == q->scan_capacity) {
            q->scan_capacity *= 2;
            q->scans = (EntityScan *)repalloc(q->scans, sizeof(EntityScan) * q->scan_capacity);
        }
        ScanContext c{q, q->nscans, scan->scanrelid, indextlist};
        int before = q->nvalues;
        read_list(quals, c, e.name_attnum);
        if (q->nvalues == before) continue;  // no name filtered: not kept
        q->scans[q->nscans++] = EntityScan{(int)i, filters_key(quals, c, e.key_attnum)};
    }
}

void walk(const Catalog &catalog, PlannedStmt *stmt, EntityQuals *q, Plan *plan) {
    if (!plan) return;
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::Entity);
    if (plan_nodes::is_relation_scan(plan)) read_scan(catalog, stmt, q, (Scan *)plan);
    using namespace plan_nodes;
    for_each_child(stmt, plan, kTree | kAppended | kBitmaps | kSubquery | kCustom,
                   [&](Plan *child) { walk(catalog, stmt, q, child); });
}

bool contains_extern_param(Node *node, void *) {
    if (!node) return false;
    if (IsA(node, Param) && ((Param *)node)->paramkind == PARAM_EXTERN) return true;
    return expression_tree_walker(node, WALKER(contains_extern_param), nullptr);
}

// Whether a LIKE pattern holds a wildcard or an escape: then it is a set, not a name.
bool is_pattern(const char *text) {
    return strpbrk(text, "%_\\") != nullptr;
}

}  // namespace

namespace {

bool reads_entity_relation(const Catalog &catalog, List *rtable) {
    ListCell *lc;
    foreach (lc, rtable) {
        RangeTblEntry *rte = (RangeTblEntry *)lfirst(lc);
        if (rte->rtekind == RTE_RELATION && catalog.has_entity(rte->relid)) return true;
    }
    return false;
}

void walk_plans(const Catalog &catalog, PlannedStmt *stmt, EntityQuals *q, List *plans) {
    ListCell *lc;
    foreach (lc, plans) walk(catalog, stmt, q, (Plan *)lfirst(lc));
}

}  // namespace

EntityQuals *find_entity_quals(const Catalog &catalog, PlannedStmt *stmt) {
    if (!reads_entity_relation(catalog, stmt->rtable)) return nullptr;
    MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(stmt));
    EntityQuals *q = (EntityQuals *)palloc0(sizeof(EntityQuals));
    q->scan_capacity = q->value_capacity = 4;
    q->scans = (EntityScan *)palloc(sizeof(EntityScan) * q->scan_capacity);
    q->values = (EntityValue *)palloc(sizeof(EntityValue) * q->value_capacity);
    walk(catalog, stmt, q, stmt->planTree);
    walk_plans(catalog, stmt, q, stmt->subplans);
    MemoryContextSwitchTo(old);
    return q->nscans ? q : nullptr;
}

namespace {

// The texts one value names (palloc'd C strings in a List); NIL when it names nothing (NULL, a
// parameter not bound, a pattern with wildcards). The expression's state and its output function
// are kept with the plan (built once, evaluated per execution with its parameters).
List *value_texts(EntityQuals *q, EntityValue &v, ParamListInfo params) {
    Datum value;
    bool isnull = false;
    if (IsA(v.value, Const)) {
        isnull = ((Const *)v.value)->constisnull;
        value = ((Const *)v.value)->constvalue;
    } else {
        if (!params && contains_extern_param((Node *)v.value, nullptr)) return NIL;
        if (!q->econtext || !v.state) {
            MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(q));
            if (!q->econtext) q->econtext = CreateStandaloneExprContext();
            if (!v.state) v.state = ExecInitExpr(v.value, nullptr);
            MemoryContextSwitchTo(old);
        }
        q->econtext->ecxt_param_list_info = params;
        value = ExecEvalExprSwitchContext(v.state, q->econtext, &isnull);
    }
    if (isnull) return NIL;
    List *out = NIL;
    Oid output;
    bool varlena;
    if (v.kind == ValueKind::Array) {
        ArrayType *array = DatumGetArrayTypeP(value);
        Oid element = ARR_ELEMTYPE(array);
        int16 len;
        bool byval;
        char align;
        get_typlenbyvalalign(element, &len, &byval, &align);
        getTypeOutputInfo(element, &output, &varlena);
        Datum *items;
        bool *nulls;
        int n;
        deconstruct_array(array, element, len, byval, align, &items, &nulls, &n);
        for (int i = 0; i < n; ++i)
            if (!nulls[i]) out = lappend(out, OidOutputFunctionCall(output, items[i]));
        return out;
    }
    if (!OidIsValid(v.output)) getTypeOutputInfo(exprType((Node *)v.value), &v.output, &varlena);
    char *text = OidOutputFunctionCall(v.output, value);
    if (v.kind == ValueKind::Pattern && is_pattern(text)) return NIL;
    return list_make1(text);
}

}  // namespace

std::vector<EntityName> evaluate_entity_quals(const Catalog &catalog, const EntityQuals *quals,
                                              ParamListInfo params) {
    std::vector<EntityName> out;
    if (!quals) return out;
    const std::vector<Entity> &entities = catalog.entities();
    // The per-plan caches of value_texts are filled here: the plan's conditions stay as found.
    EntityQuals *q = const_cast<EntityQuals *>(quals);
    for (int i = 0; i < q->nvalues; ++i) {
        EntityValue &v = q->values[i];
        const EntityScan &scan = q->scans[v.scan];
        if (scan.key_filtered) continue;
        List *texts = pg_guard([&] { return value_texts(q, v, params); });
        if (texts == NIL) continue;  // names nothing
        int n = pg_guard([&] { return list_length(texts); });
        for (int t = 0; t < n; ++t) {
            EntityName name;
            name.entity = &entities[scan.entity];
            name.value = pg_guard([&] { return (const char *)list_nth(texts, t); });
            name.case_insensitive = v.case_insensitive || name.entity->case_insensitive;
            bool seen = false;
            for (const EntityName &o : out) seen = seen || o == name;
            if (!seen) out.push_back(std::move(name));
        }
    }
    if (q->econtext)
        pg_guard([&] {
            ResetExprContext(q->econtext);
            q->econtext->ecxt_param_list_info = nullptr;
        });
    return out;
}

}  // namespace clarify::pg
