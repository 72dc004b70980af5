#include "pg.hpp"
#include "grain_union.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

#include <cstdlib>
#include <initializer_list>

namespace clarify::pg::grain {

namespace {

struct BranchFact {
    Oid relation;
    AttrNumber attnum;
    int branch;
    int index;
};

int by_relation(const void *a, const void *b) {
    Oid x = ((const BranchFact *)a)->relation, y = ((const BranchFact *)b)->relation;
    return x < y ? -1 : x > y;
}

}  // namespace

Plan *merged_append(Plan *plan) {
    Plan *child = plan->lefttree;
    if (!child) return nullptr;
    int width = list_length(child->targetlist);
    bool whole = (IsA(plan, Unique) && ((Unique *)plan)->numCols == width) ||
                 (IsA(plan, Agg) && ((Agg *)plan)->aggstrategy != AGG_PLAIN &&
                  ((Agg *)plan)->numCols == width) ||
                 IsA(plan, SetOp);
    if (!whole) return nullptr;
    while (IsA(child, Sort) || IsA(child, IncrementalSort) || IsA(child, Gather) ||
           IsA(child, GatherMerge))
        child = child->lefttree;
    return IsA(child, Append) || IsA(child, MergeAppend) ? child : nullptr;
}

void mark_repeated_branches(AggregateFact *facts, int first, const int *ends, int branches,
                            int room) {
    int n = branches ? ends[branches - 1] - first : 0;
    if (n < 2) return;
    BranchFact *found = (BranchFact *)palloc(sizeof(BranchFact) * n);
    for (int i = 0, branch = 0; i < n; ++i) {
        while (ends[branch] <= first + i) ++branch;
        const AggregateFact &f = facts[first + i];
        found[i] = BranchFact{f.relation, f.attnum, branch, first + i};
    }
    qsort(found, n, sizeof(BranchFact), by_relation);
    for (int lo = 0, hi = 0; lo < n; lo = hi) {
        while (hi < n && found[hi].relation == found[lo].relation) ++hi;
        // A whole-row reference (attnum 0) reads every column.
        for (int i = lo; i < hi; ++i)
            for (int j = i + 1; j < hi; ++j) {
                if (found[i].branch == found[j].branch) continue;
                if (found[i].attnum && found[j].attnum && found[i].attnum != found[j].attnum)
                    continue;
                for (int k : {found[i].index, found[j].index}) {
                    AggregateFact &f = facts[k];
                    if (f.n_via < room) f.via[f.n_via++] = InvalidOid;
                }
            }
    }
}

}  // namespace clarify::pg::grain
