#include "pg/pg.hpp"
#include "pg/plan/grain/union.hpp"
#include "pg/plan/grain/units.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

#include <cstdlib>

namespace clarify::pg::grain {

namespace {

struct BranchFact {
    Oid relation;
    AttrNumber attnum;
    int branch;
    int index;
};

int by_column(const void *a, const void *b) {
    const BranchFact *x = (const BranchFact *)a, *y = (const BranchFact *)b;
    if (x->relation != y->relation) return x->relation < y->relation ? -1 : 1;
    return x->attnum < y->attnum ? -1 : x->attnum > y->attnum;
}

// The first two distinct branches among some facts: enough to tell whether one other than a
// given branch is among them.
struct Branches {
    int first = -1, second = -1;
    void add(int b) {
        if (first < 0)
            first = b;
        else if (b != first && second < 0)
            second = b;
    }
    bool other_than(int b) const {
        return (first >= 0 && first != b) || (second >= 0 && second != b);
    }
};

void mark(AggregateFact &f) {
    f.branches = true;
}

// Orders facts by everything they say: equal facts come together.
int compare_facts(const AggregateFact &x, const AggregateFact &y) {
    auto cmp = [](auto l, auto r) { return l < r ? -1 : l > r; };
    if (int c = cmp(x.relation, y.relation)) return c;
    if (int c = cmp(x.attnum, y.attnum)) return c;
    if (int c = cmp(x.aggregate, y.aggregate)) return c;
    if (int c = cmp(x.distinct, y.distinct)) return c;
    if (int c = cmp(x.branches, y.branches)) return c;
    if (int c = cmp(x.n_via, y.n_via)) return c;
    for (int v = 0; v < x.n_via; ++v)
        if (int c = cmp(x.via[v], y.via[v])) return c;
    if (int c = cmp(x.n_per_value, y.n_per_value)) return c;
    for (int v = 0; v < x.n_per_value; ++v)
        if (int c = cmp(x.per_value[v], y.per_value[v])) return c;
    return compare_fixed(x, y);
}

// Indexes into the facts array `arg`, by fact, then by position (the first of equals first).
int by_fact(const void *a, const void *b, void *arg) {
    const AggregateFact *facts = (const AggregateFact *)arg;
    int x = *(const int *)a, y = *(const int *)b;
    if (int c = compare_facts(facts[x], facts[y])) return c;
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

// A fact is repeated when another branch reads the same column of its relation, or the whole row
// (a whole-row fact: any column). Sorted by column, each fact is checked once.
void mark_repeated_branches(AggregateFact *facts, int first, const int *ends, int branches) {
    int n = branches ? ends[branches - 1] - first : 0;
    if (n < 2) return;
    BranchFact *found = (BranchFact *)palloc(sizeof(BranchFact) * n);
    for (int i = 0, branch = 0; i < n; ++i) {
        while (ends[branch] <= first + i) ++branch;
        const AggregateFact &f = facts[first + i];
        found[i] = BranchFact{f.relation, f.attnum, branch, first + i};
    }
    qsort(found, n, sizeof(BranchFact), by_column);
    for (int lo = 0, hi = 0; lo < n; lo = hi) {
        Branches all, whole;
        while (hi < n && found[hi].relation == found[lo].relation) {
            all.add(found[hi].branch);
            if (found[hi].attnum == 0) whole.add(found[hi].branch);
            ++hi;
        }
        for (int a = lo, b = lo; a < hi; a = b) {
            Branches column;
            while (b < hi && found[b].attnum == found[a].attnum) column.add(found[b++].branch);
            for (int i = a; i < b; ++i) {
                int branch = found[i].branch;
                bool repeated = found[i].attnum == 0
                                    ? all.other_than(branch)
                                    : whole.other_than(branch) || column.other_than(branch);
                if (repeated) mark(facts[found[i].index]);
            }
        }
    }
    pfree(found);
}

int drop_duplicate_facts(AggregateFact *facts, int first, int end) {
    int n = end - first;
    if (n < 2) return end;
    int *order = (int *)palloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) order[i] = first + i;
    qsort_arg(order, n, sizeof(int), by_fact, facts);
    bool *drop = (bool *)palloc0(sizeof(bool) * n);
    for (int lo = 0, hi = 1; hi < n; ++hi) {
        if (compare_facts(facts[order[lo]], facts[order[hi]]) == 0)
            drop[order[hi] - first] = true;
        else
            lo = hi;
    }
    int kept = first;
    for (int i = first; i < end; ++i)
        if (!drop[i - first]) facts[kept++] = facts[i];
    pfree(order);
    pfree(drop);
    return kept;
}

}  // namespace clarify::pg::grain
