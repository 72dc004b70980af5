// The segments' predicates, parsed once per catalog load (src/pg/plan/segment/load.cpp) and kept
// with the catalog (Catalog::segment_trees) in a memory context of their own.
#pragma once

#include "pg/pg.hpp"
#include "core/model/catalog.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "utils/memutils.h"
}

#include <string>
#include <unordered_set>
#include <vector>

namespace clarify::pg::segment {

struct SegmentTrees {
    MemoryContext context = nullptr;  // a child of CacheMemoryContext; deleted with this
    int count = 0;
    Oid *relations = nullptr;      // per segment, in that context
    List **conjuncts = nullptr;    // per segment: its normal conditions; NIL: never applied
    std::vector<std::string> ids;  // per segment
    bool on_child = false;         // some segment's relation is a partition or inheritance child
    SegmentTrees() = default;
    SegmentTrees(const SegmentTrees &) = delete;
    SegmentTrees &operator=(const SegmentTrees &) = delete;
    ~SegmentTrees();
};

// Reads the segments of clarify.concepts (catalog 1.2 with segments) into `catalog`'s concepts
// and parses their predicates; a predicate that no longer parses (a column dropped since) is
// said in the log and applied by no scan. `relations` receives the segments' relations (their
// DDL makes the catalog stale). Needs SPI, connected by the caller.
void load_segments(Catalog &catalog, std::unordered_set<Oid> &relations);

const SegmentTrees *trees_of(const Catalog &catalog);

}  // namespace clarify::pg::segment
