#include "pg/pg.hpp"
#include "pg/plan/segment/trees.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/catalog_load.hpp"
#include "pg/plan/segment/predicate.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_inherits.h"
#include "utils/resowner.h"
}

#include <memory>

namespace clarify::pg::segment {

SegmentTrees::~SegmentTrees() {
    if (context) MemoryContextDelete(context);
}

const SegmentTrees *trees_of(const Catalog &catalog) {
    return static_cast<const SegmentTrees *>(catalog.segment_trees());
}

namespace {

List *conjuncts_in(Oid relation, const char *predicate, MemoryContext keep) {
    Node *clause = parse_predicate(relation, predicate);
    List *found = conjuncts(clause);
    // A deep copy: the mutators share by-reference constants with the parse, which SPI frees.
    MemoryContext old = MemoryContextSwitchTo(keep);
    List *out = (List *)copyObjectImpl(found);
    MemoryContextSwitchTo(old);
    return out;
}

// The predicate's conjuncts, parsed in a subtransaction: one that no longer parses is said in
// the log and applied by no scan (NIL). In parallel mode no subtransaction can start: its error
// is the load's.
List *parse_kept(const std::string &id, Oid relation, const char *predicate, MemoryContext keep) {
    struct Where {
        MemoryContext context;
        ResourceOwner owner;
        bool parallel;
    };
    Where at = pg_guard([] {
        return Where{CurrentMemoryContext, CurrentResourceOwner, IsInParallelMode()};
    });
    if (at.parallel) return pg_guard([&] { return conjuncts_in(relation, predicate, keep); });
    auto back = [&at] {
        MemoryContextSwitchTo(at.context);
        CurrentResourceOwner = at.owner;
    };
    pg_guard([&] {
        BeginInternalSubTransaction(nullptr);
        MemoryContextSwitchTo(at.context);
    });
    try {
        List *out = pg_guard([&] { return conjuncts_in(relation, predicate, keep); });
        pg_guard([&] {
            ReleaseCurrentSubTransaction();
            back();
        });
        return out;
    } catch (const PgError &e) {
        std::string why = e.what();
        pg_guard([&] {
            RollbackAndReleaseCurrentSubTransaction();
            back();
            ereport(LOG, (errmsg("pg_clarify: the predicate of segment \"%s\" does not parse (%s): "
                                 "no scan applies it until it does",
                                 id.c_str(), why.c_str())));
        });
        return NIL;
    }
}

}  // namespace

void load_segments(Catalog &catalog, std::unordered_set<Oid> &relations) {
    if (!catalog_has_column("concepts", "segment_predicate")) return;
    Rows rows = query(
        "SELECT k.id, k.segment_relation::oid::text, "
        "       pg_catalog.format('%s.%s', n.nspname, c.relname), k.segment_predicate "
        "FROM clarify.concepts k JOIN pg_catalog.pg_class c ON c.oid = k.segment_relation "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE k.kind = 'segment' AND k.segment_predicate IS NOT NULL ORDER BY k.id");
    if (rows.count == 0) return;
    auto trees = std::make_shared<SegmentTrees>();
    const int count = static_cast<int>(rows.count);
    pg_guard([&] {
        trees->context =
            AllocSetContextCreate(CacheMemoryContext, "pg_clarify segments", ALLOCSET_SMALL_SIZES);
        trees->relations =
            static_cast<Oid *>(MemoryContextAllocZero(trees->context, sizeof(Oid) * count));
        trees->conjuncts =
            static_cast<List **>(MemoryContextAllocZero(trees->context, sizeof(List *) * count));
    });
    for (int r = 0; r < count; ++r) {
        const std::string id = text(rows, r, 0);
        const Concept *known = catalog.concept(id);
        if (!known) continue;
        Concept c = *known;
        c.segment_relation = static_cast<Oid>(integer(rows, r, 1));
        c.segment_relation_name = text(rows, r, 2);
        c.segment_predicate = text(rows, r, 3);
        relations.insert(c.segment_relation);
        const std::size_t i = trees->ids.size();
        trees->ids.push_back(id);
        trees->relations[i] = c.segment_relation;
        trees->conjuncts[i] = parse_kept(id, c.segment_relation, rows.at(r, 3), trees->context);
        Oid relation = c.segment_relation;
        trees->on_child = trees->on_child || pg_guard([&] { return has_superclass(relation); });
        catalog.add_concept(std::move(c));
    }
    trees->count = static_cast<int>(trees->ids.size());
    catalog.set_segment_trees(std::move(trees));
}

}  // namespace clarify::pg::segment
