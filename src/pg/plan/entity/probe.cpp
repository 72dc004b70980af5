#include "pg/pg.hpp"
#include "pg/plan/entity/probe.hpp"
#include "pg/compat.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/varlena.h"
}

namespace clarify::pg {

namespace {

// How `col::text` renders one column: its output function, or its cast function to text (bool,
// bpchar, inet, name, "char", xml: find_coercion_pathway).
struct Render {
    AttrNumber attnum;
    Oid func;
    bool cast;
    Oid collation;
};

constexpr int kRenders = 16;
constexpr int kChoices = 16;

// Per session, the index that serves one relation's name column under one match rule (InvalidOid:
// none, the SQL answers) and its columns' renderings. Cleared by the relcache callback of the
// relation or the index (an index created, dropped, a column's type changed) and on a cast change.
struct Choice {
    Oid relation;  // InvalidOid: a free entry
    AttrNumber name_attnum;
    bool case_insensitive;
    Oid index;
    int renders;
    Render render[kRenders];
};

Choice choices[kChoices];
int next_choice = 0;
uint64 generation = 0;  // counts invalidations: a choice read before one is not trusted after
bool callbacks_registered = false;

void on_relcache(Datum, Oid relid) {
    ++generation;
    for (Choice &c : choices)
        if (relid == InvalidOid || c.relation == relid || c.index == relid) c.relation = InvalidOid;
}

void on_cast(Datum, int, uint32) {
    ++generation;
    for (Choice &c : choices) c.renders = 0;
}

void debug_query(const char *why) {
    elog(DEBUG1, "pg_clarify: entity lookup by query (%s)", why);
}

bool text_column(Relation heap, AttrNumber attnum) {
    if (attnum <= 0 || attnum > RelationGetNumberOfAttributes(heap)) return false;
    Form_pg_attribute att = TupleDescAttr(RelationGetDescr(heap), attnum - 1);
    return !att->attisdropped && (att->atttypid == TEXTOID || att->atttypid == VARCHAROID) &&
           att->attcollation == DEFAULT_COLLATION_OID;
}

// lower(<the name column>) as the case-insensitive SQL computes it: lower(text) in the default
// collation, over the column itself (a varchar one under its relabel to text).
bool lower_of(Node *expr, AttrNumber attnum) {
    if (!expr || !IsA(expr, FuncExpr)) return false;
    FuncExpr *f = castNode(FuncExpr, expr);
    if (f->funcid != F_LOWER_TEXT || list_length(f->args) != 1 ||
        f->inputcollid != DEFAULT_COLLATION_OID)
        return false;
    Node *arg = static_cast<Node *>(linitial(f->args));
    while (IsA(arg, RelabelType)) arg = reinterpret_cast<Node *>(castNode(RelabelType, arg)->arg);
    return IsA(arg, Var) && castNode(Var, arg)->varattno == attnum &&
           castNode(Var, arg)->varlevelsup == 0;
}

// Whether the index finds every row the SQL's `name = $1` (case-insensitive: lower(name::text) =
// lower($1)) finds, by the same operator in the same collation: valid, ready, whole, btree.
bool serves(Relation index, AttrNumber name_attnum, bool case_insensitive) {
    Form_pg_index form = index->rd_index;
    if (index->rd_rel->relam != BTREE_AM_OID || !form->indisvalid || !form->indisready ||
        !form->indislive || form->indcheckxmin || form->indnkeyatts < 1 ||
        !heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, nullptr))
        return false;
    if (index->rd_indcollation[0] != DEFAULT_COLLATION_OID || index->rd_opcintype[0] != TEXTOID ||
        get_opfamily_member(index->rd_opfamily[0], TEXTOID, TEXTOID, BTEqualStrategyNumber) !=
            TextEqualOperator)
        return false;
    AttrNumber first = form->indkey.values[0];
    if (!case_insensitive) return first == name_attnum;
    if (first != 0) return false;
    List *exprs = RelationGetIndexExpressions(index);
    return exprs != NIL && lower_of(static_cast<Node *>(linitial(exprs)), name_attnum);
}

Oid choose_index(Relation heap, AttrNumber name_attnum, bool case_insensitive) {
    if (!text_column(heap, name_attnum)) return InvalidOid;
    List *indexes = RelationGetIndexList(heap);
    Oid chosen = InvalidOid;
    ListCell *lc;
    foreach (lc, indexes) {
        Relation index = index_open(lfirst_oid(lc), AccessShareLock);
        bool ok = serves(index, name_attnum, case_insensitive);
        index_close(index, NoLock);
        if (ok) {
            chosen = lfirst_oid(lc);
            break;
        }
    }
    list_free(indexes);
    return chosen;
}

Choice *choice_for(Relation heap, AttrNumber name_attnum, bool case_insensitive) {
    Oid relid = RelationGetRelid(heap);
    for (Choice &c : choices)
        if (c.relation == relid && c.name_attnum == name_attnum &&
            c.case_insensitive == case_insensitive)
            return &c;
    uint64 before = generation;
    Oid index = choose_index(heap, name_attnum, case_insensitive);
    if (generation != before) return nullptr;  // invalidated while choosing: not kept
    Choice &c = choices[next_choice];
    next_choice = (next_choice + 1) % kChoices;
    c = Choice{relid, name_attnum, case_insensitive, index, 0, {}};
    return &c;
}

// How the SQL's `col::text` renders the column; false: not a column the probe renders.
bool render_of(Relation heap, AttrNumber attnum, Render *r) {
    if (attnum <= 0 || attnum > RelationGetNumberOfAttributes(heap)) return false;
    Form_pg_attribute att = TupleDescAttr(RelationGetDescr(heap), attnum - 1);
    // ORDER BY key::text sorts in the key's collation: the probe sorts in the default one.
    if (att->attisdropped ||
        (OidIsValid(att->attcollation) && att->attcollation != DEFAULT_COLLATION_OID))
        return false;
    Oid func = InvalidOid;
    bool varlena = false;
    switch (find_coercion_pathway(TEXTOID, att->atttypid, COERCION_EXPLICIT, &func)) {
        case COERCION_PATH_RELABELTYPE:
        case COERCION_PATH_COERCEVIAIO:
            getTypeOutputInfo(att->atttypid, &func, &varlena);
            *r = Render{attnum, func, false, att->attcollation};
            return true;
        case COERCION_PATH_FUNC:
            if (get_func_nargs(func) != 1) return false;
            *r = Render{attnum, func, true, att->attcollation};
            return true;
        default:
            return false;
    }
}

const Render *cached_render(Choice *c, Relation heap, AttrNumber attnum, Render *scratch) {
    for (int i = 0; i < c->renders; ++i)
        if (c->render[i].attnum == attnum) return &c->render[i];
    if (!render_of(heap, attnum, scratch)) return nullptr;
    if (c->renders < kRenders) c->render[c->renders++] = *scratch;
    return scratch;
}

char *rendered(const Render &r, TupleTableSlot *slot) {
    bool isnull = false;
    Datum d = slot_getattr(slot, r.attnum, &isnull);
    if (isnull) return nullptr;
    if (!r.cast) return OidOutputFunctionCall(r.func, d);
    return TextDatumGetCString(OidFunctionCall1Coll(r.func, r.collation, d));
}

// NULLs last, then text in the default collation: ORDER BY 2, 1 of the SQL.
int compare_text(const char *a, const char *b) {
    if (!a || !b) return a ? -1 : (b ? 1 : 0);
    return varstr_cmp(a, static_cast<int>(strlen(a)), b, static_cast<int>(strlen(b)),
                      DEFAULT_COLLATION_OID);
}

int compare_rows(const void *x, const void *y, void *arg) {
    const LookupRows *rows = static_cast<const LookupRows *>(arg);
    char **a = rows->values + *static_cast<const int *>(x) * rows->width;
    char **b = rows->values + *static_cast<const int *>(y) * rows->width;
    int by_name = compare_text(a[1], b[1]);
    return by_name != 0 ? by_name : compare_text(a[0], b[0]);
}

void sort_rows(LookupRows *rows) {
    if (rows->count < 2) return;
    int n = static_cast<int>(rows->count);
    int *order = static_cast<int *>(palloc(sizeof(int) * n));
    for (int i = 0; i < n; ++i) order[i] = i;
    qsort_arg(order, n, sizeof(int), compare_rows, rows);
    char **sorted = static_cast<char **>(palloc0(sizeof(char *) * (n * rows->width + 1)));
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < rows->width; ++c)
            sorted[(i * rows->width) + c] = rows->values[(order[i] * rows->width) + c];
    rows->values = sorted;
}

// The columns the SQL selects, rendered: key, name, the readable details. False: one is not.
bool renders_of(Choice *c, Relation heap, const Entity &e, const bool *readable, Render *out,
                int *width) {
    int n = 0;
    const Render *r = cached_render(c, heap, e.key_attnum, &out[n]);
    if (!r) return false;
    out[n++] = *r;
    if (!(r = cached_render(c, heap, e.name_attnum, &out[n]))) return false;
    out[n++] = *r;
    for (size_t i = 0; i < e.detail_attnums.size(); ++i) {
        if (!readable[i]) continue;
        if (!(r = cached_render(c, heap, e.detail_attnums[i], &out[n]))) return false;
        out[n++] = *r;
    }
    *width = n;
    return true;
}

// The index scan: at most max_options + 1 rows; false when it found that many (truncated).
bool scan(Relation heap, Relation index, const char *value, const Render *renders, int limit,
          LookupRows *rows) {
    ScanKeyData key;
    ScanKeyEntryInitialize(&key, 0, 1, BTEqualStrategyNumber, TEXTOID, DEFAULT_COLLATION_OID,
                           F_TEXTEQ, CStringGetTextDatum(value));
    IndexScanDesc desc = CLARIFY_INDEX_BEGINSCAN(heap, index, GetActiveSnapshot(), 1);
    index_rescan(desc, &key, 1, nullptr, 0);
    TupleTableSlot *slot = table_slot_create(heap, nullptr);
    rows->count = 0;
    rows->values = static_cast<char **>(palloc0(sizeof(char *) * (limit * rows->width + 1)));
    bool all = true;
    while (index_getnext_slot(desc, ForwardScanDirection, slot)) {
        CHECK_FOR_INTERRUPTS();
        if (rows->count == static_cast<uint64>(limit)) {
            all = false;
            break;
        }
        char **row = rows->values + rows->count * rows->width;
        for (int c = 0; c < rows->width; ++c) row[c] = rendered(renders[c], slot);
        ++rows->count;
    }
    ExecDropSingleTupleTableSlot(slot);
    index_endscan(desc);
    return all && rows->count < static_cast<uint64>(limit);
}

}  // namespace

bool probe_entity(const Entity &e, bool case_insensitive, const char *value, const bool *readable,
                  LookupRows *rows) {
    if (!callbacks_registered) {
        CacheRegisterRelcacheCallback(on_relcache, PointerGetDatum(nullptr));
        CacheRegisterSyscacheCallback(CASTSOURCETARGET, on_cast, PointerGetDatum(nullptr));
        callbacks_registered = true;
    }
    Oid relid = static_cast<Oid>(e.relation);
    if (check_enable_rls(relid, InvalidOid, false) != RLS_NONE) {
        debug_query("row-level security");
        return false;
    }
    if (!ActiveSnapshotSet()) return false;
    // Catalog reads below may take invalidations: after one, the index is checked once opened.
    uint64 before = generation;
    Relation heap = table_open(relid, AccessShareLock);  // the statement holds it already
    // Inheritance children are rows of the SQL's FROM too; a partitioned table has no index here.
    Choice *choice = heap->rd_rel->relkind == RELKIND_RELATION && !heap->rd_rel->relhassubclass
                         ? choice_for(heap, e.name_attnum, case_insensitive)
                         : nullptr;
    Render renders[kRenders * 2];
    int width = 0;
    const char *why = !choice || !OidIsValid(choice->index) ? "no index serves it"
                      : 2 + e.detail_attnums.size() > static_cast<size_t>(kRenders) * 2 ||
                              !renders_of(choice, heap, e, readable, renders, &width)
                          ? "a column not rendered or sorted as text in the default collation"
                          : nullptr;
    if (why) {
        table_close(heap, NoLock);
        debug_query(why);
        return false;
    }
    Oid index_oid = choice->index;
    Relation index = index_open(index_oid, AccessShareLock);
    // Opening it may have read invalidations: the index must still be the one chosen.
    if (generation != before &&
        (index->rd_index->indrelid != relid || !serves(index, e.name_attnum, case_insensitive))) {
        index_close(index, NoLock);
        table_close(heap, NoLock);
        debug_query("index changed");
        return false;
    }
    LookupRows found{0, width, nullptr};
    bool all = scan(heap, index, value, renders, e.max_options + 1, &found);
    elog(DEBUG1, "pg_clarify: entity lookup by index %s", RelationGetRelationName(index));
    index_close(index, NoLock);
    table_close(heap, NoLock);
    if (!all) {
        debug_query("more than max_options matches");
        return false;
    }
    sort_rows(&found);
    *rows = found;
    return true;
}

}  // namespace clarify::pg
