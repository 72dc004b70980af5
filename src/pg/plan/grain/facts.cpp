#include "pg/pg.hpp"
#include "pg/plan/grain/trace.hpp"
#include "pg/plan/grain/foreign.hpp"
#include "pg/plan/grain/subplans.hpp"
#include "pg/plan/grain/totals.hpp"
#include "pg/plan/grain/units.hpp"

extern "C" {
#include "parser/parsetree.h"
}

namespace clarify::pg::grain {

void add_fact(Trace *t, const AggregateFact &fact) {
    if (t->count == t->capacity) {
        t->capacity *= 2;
        t->facts = (AggregateFact *)repalloc(t->facts, sizeof(AggregateFact) * t->capacity);
    }
    t->facts[t->count] = fact;
    t->facts[t->count++].serial = t->serial;
}

// A read of range entry `rti` the walk cannot follow to its rows (through `joined`, a join of
// unknown cardinality): column `attnum` (0: every governed column), grouped by `per_value`.
void add_unproven(Trace *t, int rti, AttrNumber attnum, bool joined, const Bitmapset *per_value) {
    if (rti < 1 || rti > list_length(t->stmt->rtable)) return;
    RangeTblEntry *rte = rt_fetch(rti, t->stmt->rtable);
    if (!t->watched[rti - 1] || rte->rtekind != RTE_RELATION || attnum < 0) return;
    AggregateFact fact = {};
    fact.relation = rte->relid;
    fact.attnum = attnum;
    fact.aggregate = t->aggregate;
    fact.distinct = t->distinct;
    fact.via = (Oid *)palloc(sizeof(Oid));
    if (joined) fact.via[fact.n_via++] = InvalidOid;
    fact.per_value = (AttrNumber *)palloc(sizeof(AttrNumber) * (bms_num_members(per_value) + 1));
    int a = -1;
    while ((a = bms_next_member(per_value, a)) >= 0) fact.per_value[fact.n_per_value++] = a;
    add_fact(t, fact);
}

// Charges the steps spent since `before` (of the aggregate's budget) to the statement's too;
// past either the aggregate is unproven.
void charge(Trace *t, int before) {
    t->statement_steps_left -= before - t->steps_left;
    if (t->steps_left < 0 || t->statement_steps_left < 0) t->gave_up = true;
}

namespace {

// The joins and subqueries among the first `joins` on the way that repeat rows of `scan`
// (nullptr: of no single relation, which no outer value picks), and the repeaters, as `via`.
void add_path(Trace *t, AggregateFact *fact, int joins, bool repeated, Scan *scan) {
    fact->via = (Oid *)palloc(sizeof(Oid) * kRoom);
    for (int i = 0; i < joins; ++i) {
        Step *step = (Step *)list_nth(t->path, i);
        // A subquery's rows repeat once per outer row it is evaluated for
        // (pg/plan/grain/subplans.hpp).
        if (step->sub ? scan && !grain::subplan_repeats(&t->proofs, t->path, i, scan)
                      : !grain::join_repeats(&t->proofs, step->join, step->from_outer))
            continue;
        Plan *other = step->sub          ? step->at
                      : step->from_outer ? step->join->righttree
                                         : step->join->lefttree;
        int before = fact->n_via;
        grain::relations_under(t->stmt, t->relations, other, fact->via, &fact->n_via, kRoom);
        if (fact->n_via == before && fact->n_via < kRoom) fact->via[fact->n_via++] = InvalidOid;
    }
    if ((t->gave_up || repeated || t->totals > 0) && fact->n_via < kRoom)
        fact->via[fact->n_via++] = InvalidOid;
}

// Column `attnum` of range entry `rti` read through a foreign or custom scan of no single
// relation (`joined`: of several, by a join the walk cannot follow).
void reach_opaque(Trace *t, int rti, AttrNumber attnum, bool joined) {
    if (rti < 1 || rti > list_length(t->stmt->rtable)) return;
    RangeTblEntry *rte = rt_fetch(rti, t->stmt->rtable);
    if (!t->watched[rti - 1] || rte->rtekind != RTE_RELATION || attnum < 0) return;
    AggregateFact fact = {};
    fact.relation = rte->relid;
    fact.attnum = attnum;
    fact.aggregate = t->aggregate;
    fact.distinct = t->distinct;
    add_path(t, &fact, list_length(t->path), joined || t->repeaters > 0, nullptr);
    fact.per_value = (AttrNumber *)palloc(sizeof(AttrNumber));
    add_fact(t, fact);
}

}  // namespace

// The column's scan: record the aggregate with the joins on its way that may repeat its rows.
void reach_scan(Trace *t, Scan *scan, AttrNumber attnum) {
    RangeTblEntry *rte = rt_fetch(scan->scanrelid, t->stmt->rtable);
    // attnum 0: a whole-row reference reads every column (sum((o).amount) is sum(o.amount)).
    if (rte->rtekind != RTE_RELATION || attnum < 0 || !t->watched[scan->scanrelid - 1]) return;
    // Values handed to a subquery on the way vary with the outer row.
    Bitmapset *fixed_params = t->proofs.loop_params;
    t->proofs.loop_params = grain::with_subquery_params(fixed_params, t->path);
    List *values = NIL;
    Bitmapset *single = grain::scan_single_valued(&t->proofs, scan, &values);
    t->proofs.loop_params = fixed_params;
    int before = t->steps_left;
    Collapse *collapse = grain::collapse_for(&t->proofs, t->collapses, scan, t->route, rte->relid,
                                             single, &t->steps_left);
    charge(t, before);
    int joins = collapse ? collapse->path_length : list_length(t->path);
    int repeaters = collapse ? collapse->repeaters : t->repeaters;
    AggregateFact fact = {};
    fact.relation = rte->relid;
    fact.attnum = attnum;
    fact.aggregate = t->aggregate;
    fact.distinct = t->distinct;
    add_path(t, &fact, joins, repeaters > 0, scan);
    // Grouped by a column of this very scan: another scan of the table holds other values.
    before = t->steps_left;
    Bitmapset *grouped = grain::columns_of_scan(t->grouped, scan, t->route, &t->steps_left);
    charge(t, before);
    grain::record_fixed(&fact, values, grouped);
    single = bms_join(single, grouped);
    fact.per_value = (AttrNumber *)palloc(sizeof(AttrNumber) * (bms_num_members(single) + 1));
    int a = -1;
    while ((a = bms_next_member(single, a)) >= 0) fact.per_value[fact.n_per_value++] = a;
    add_fact(t, fact);
}

// A foreign or custom scan's column: the columns its scan target list entry reads (an expression
// the foreign server computes, a column of a join or an aggregate it computes).
void reach_foreign(Trace *t, Scan *scan, Var *var) {
    bool joined = bms_num_members(grain::opaque_relids(&scan->plan)) > 1;
    List *vars = grain::scan_tlist_vars(scan, var);
    if (vars == NIL && scan->scanrelid == 0) {
        // Not an entry of its scan target list: any column of any relation it reads.
        int rti = -1;
        while ((rti = bms_next_member(grain::opaque_relids(&scan->plan), rti)) >= 0)
            reach_opaque(t, rti, 0, true);
    }
    ListCell *lc;
    foreach (lc, vars) {
        Var *v = (Var *)lfirst(lc);
        if (scan->scanrelid == 0)
            reach_opaque(t, v->varno, v->varattno, joined);
        else if (v->varno == (int)scan->scanrelid)
            reach_scan(t, scan, v->varattno);
    }
}

AggregateFact copy_fact(const AggregateFact &fact) {
    AggregateFact copy = fact;
    copy.via = (Oid *)palloc(sizeof(Oid) * kRoom);
    memcpy(copy.via, fact.via, sizeof(Oid) * fact.n_via);
    return copy;  // per_value is never changed once made: shared
}

}  // namespace clarify::pg::grain
