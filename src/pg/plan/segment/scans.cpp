#include "pg/pg.hpp"
#include "pg/plan/segment/scans.hpp"
#include "pg/boundary.hpp"
#include "pg/compat.hpp"
#include "pg/plan/plan_nodes.hpp"
#include "pg/plan/segment/predicate.hpp"
#include "pg/plan/segment/trees.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "access/genam.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

#include <algorithm>

namespace clarify::pg::segment {

namespace {

using namespace plan_nodes;

struct Finder {
    const SegmentTrees *trees;
    PlannedStmt *stmt;
    List *applied;  // segment indexes (IntList)
    List *scanned;  // relations (OidList)
};

// The conditions of an implicitly ANDed list, nested ANDs flattened, normalised for `varno`.
List *add_conditions(List *out, List *conditions, Index varno) {
    ListCell *lc;
    foreach (lc, conditions) {
        Node *c = (Node *)lfirst(lc);
        if (is_andclause(c)) {
            out = add_conditions(out, ((BoolExpr *)c)->args, varno);
        } else if (Node *n = normal_condition(c, varno)) {
            out = lappend(out, n);
        }
    }
    return out;
}

// A partial index's predicate holds for every row its scan returns; the planner drops the
// conditions it implies, so they are the scan's too (Vars of entry 1).
List *index_predicate(Oid index) {
    Relation rel = index_open(index, AccessShareLock);
    List *predicate = (List *)copyObjectImpl(RelationGetIndexPredicate(rel));
    index_close(rel, AccessShareLock);
    return predicate;
}

// An index-only scan's conditions name index columns (INDEX_VAR): as the heap's expressions.
struct IndexColumns {
    List *tlist;
};
Node *heap_form(Node *node, IndexColumns *cols) {
    if (!node) return nullptr;
    if (IsA(node, Var) && ((Var *)node)->varno == INDEX_VAR) {
        int k = ((Var *)node)->varattno;
        if (k >= 1 && k <= list_length(cols->tlist))
            return (Node *)copyObjectImpl(((TargetEntry *)list_nth(cols->tlist, k - 1))->expr);
    }
    return expression_tree_mutator(node, MUTATOR(heap_form), cols);
}

// The index predicates of a bitmap tree whose every row they hold for: an index scan, or the
// members of a BitmapAnd (not of a BitmapOr: a row may come from another member).
List *bitmap_predicates(List *out, Plan *plan) {
    if (IsA(plan, BitmapIndexScan))
        return list_concat(out, index_predicate(((BitmapIndexScan *)plan)->indexid));
    if (IsA(plan, BitmapAnd)) {
        ListCell *lc;
        foreach (lc, ((BitmapAnd *)plan)->bitmapplans)
            out = bitmap_predicates(out, (Plan *)lfirst(lc));
    }
    return out;
}

// Every condition that restricts the rows of a relation scan, whatever access path it took.
List *scan_conditions(Plan *plan, Index rti) {
    List *out = NIL;
    switch (nodeTag(plan)) {
        case T_IndexScan:
            out = add_conditions(out, plan->qual, rti);
            out = add_conditions(out, ((IndexScan *)plan)->indexqualorig, rti);
            out = add_conditions(out, index_predicate(((IndexScan *)plan)->indexid), 1);
            break;
        case T_IndexOnlyScan: {
            IndexOnlyScan *scan = (IndexOnlyScan *)plan;
            IndexColumns cols{scan->indextlist};
            out = add_conditions(out, (List *)heap_form((Node *)plan->qual, &cols), rti);
            out = add_conditions(out, (List *)heap_form((Node *)scan->recheckqual, &cols), rti);
            out = add_conditions(out, index_predicate(scan->indexid), 1);
            break;
        }
        case T_BitmapHeapScan:
            out = add_conditions(out, plan->qual, rti);
            out = add_conditions(out, ((BitmapHeapScan *)plan)->bitmapqualorig, rti);
            out = add_conditions(out, bitmap_predicates(NIL, plan->lefttree), 1);
            break;
        default:
            out = add_conditions(out, plan->qual, rti);
            break;
    }
    return out;
}

bool every_member(List *conjuncts, List *conditions) {
    if (conjuncts == NIL) return false;
    ListCell *lc;
    foreach (lc, conjuncts)
        if (!list_member(conditions, lfirst(lc))) return false;
    return true;
}

void visit_scan(Finder *f, Plan *plan) {
    Index rti = ((Scan *)plan)->scanrelid;
    if (rti == 0 || static_cast<int>(rti) > list_length(f->stmt->rtable)) return;
    RangeTblEntry *rte = rt_fetch(rti, f->stmt->rtable);
    if (rte->rtekind != RTE_RELATION) return;
    bool any = false;
    for (int i = 0; i < f->trees->count; ++i) any = any || f->trees->relations[i] == rte->relid;
    if (!any) return;
    f->scanned = list_append_unique_oid(f->scanned, rte->relid);
    List *conditions = scan_conditions(plan, rti);
    for (int i = 0; i < f->trees->count; ++i)
        if (f->trees->relations[i] == rte->relid && !list_member_int(f->applied, i) &&
            every_member(f->trees->conjuncts[i], conditions))
            f->applied = lappend_int(f->applied, i);
}

void walk(Finder *f, Plan *plan) {
    if (!plan) return;
    walk_budget::step(walk_budget::Kind::Segment);
    if (scan_kind(plan) == ScanKind::Relation) visit_scan(f, plan);
    for_each_child(f->stmt, plan, kTree | kAppended | kBitmaps | kSubquery | kCustom,
                   [f](Plan *child) { walk(f, child); });
}

struct Found {
    List *applied, *scanned;
};

}  // namespace

SegmentFacts segment_facts(const Catalog &catalog, PlannedStmt *stmt) {
    SegmentFacts facts;
    const SegmentTrees *trees = trees_of(catalog);
    if (!trees || trees->count == 0) return facts;
    Found found = pg_guard([&] {
        Finder f{trees, stmt, NIL, NIL};
        walk(&f, stmt->planTree);
        ListCell *lc;
        foreach (lc, stmt->subplans) walk(&f, (Plan *)lfirst(lc));
        return Found{f.applied, f.scanned};
    });
    ListCell *lc;
    foreach (lc, found.applied) facts.applied.push_back(trees->ids[lfirst_int(lc)]);
    foreach (lc, found.scanned) facts.scanned.push_back(lfirst_oid(lc));
    std::sort(facts.applied.begin(), facts.applied.end());
    std::sort(facts.scanned.begin(), facts.scanned.end());
    return facts;
}

}  // namespace clarify::pg::segment
