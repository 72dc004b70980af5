#include "pg/pg.hpp"
#include "pg/plan/grain/relations.hpp"
#include "pg/plan/plan_nodes.hpp"

extern "C" {
#include "catalog/partition.h"
#include "miscadmin.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
}

namespace clarify::pg::grain {

namespace {

struct Relations {
    int n;
    Oid relation[kRelationsNamed];
};

void merge(Relations *into, const Relations *from, int room) {
    for (int i = 0; i < from->n && into->n < room; ++i) {
        bool known = false;
        for (int j = 0; j < into->n && !known; ++j) known = into->relation[j] == from->relation[i];
        if (!known) into->relation[into->n++] = from->relation[i];
    }
}

const Relations *relations_of(PlannedStmt *stmt, walk_budget::Memo *memo, Plan *plan);

void relations_below(PlannedStmt *stmt, walk_budget::Memo *memo, Plan *plan, Relations *r) {
    if (plan_nodes::is_relation_scan(plan)) {
        RangeTblEntry *rte = rt_fetch(((Scan *)plan)->scanrelid, stmt->rtable);
        if (rte->rtekind != RTE_RELATION) return;
        Oid relid = rte->relid;
        while (get_rel_relispartition(relid)) relid = get_partition_parent(relid, true);
        r->relation[r->n++] = relid;
        return;
    }
    using namespace plan_nodes;
    for_each_child(stmt, plan, kTree | kAppended | kSubquery | kCte, [&](Plan *child) {
        merge(r, relations_of(stmt, memo, child), kRelationsNamed);
    });
}

const Relations *relations_of(PlannedStmt *stmt, walk_budget::Memo *memo, Plan *plan) {
    static const Relations none = {};
    if (!plan) return &none;
    check_stack_depth();
    walk_budget::step(walk_budget::Kind::Grain);
    if (void *known = walk_budget::memo_get(memo, plan, 0)) return (const Relations *)known;
    Relations *r = (Relations *)palloc0(sizeof(Relations));
    relations_below(stmt, memo, plan, r);
    walk_budget::memo_put(memo, plan, 0, r);
    return r;
}

}  // namespace

void relations_under(PlannedStmt *stmt, walk_budget::Memo *memo, Plan *plan, Oid *out, int *n,
                     int room) {
    Relations r = {};
    for (int i = 0; i < *n && i < kRelationsNamed; ++i) r.relation[r.n++] = out[i];
    if (r.n >= room) return;
    merge(&r, relations_of(stmt, memo, plan), room);
    for (int i = *n; i < r.n; ++i) out[i] = r.relation[i];
    *n = r.n;
}

}  // namespace clarify::pg::grain
