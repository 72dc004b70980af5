// Which segments a plan applies (docs/reference.md, "Segments"): on every scan of a segment's
// relation, the conditions restricting its rows, compared with the segment's conjuncts.
#pragma once

#include "pg/pg.hpp"
#include "core/decide/segments.hpp"
#include "core/model/catalog.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

namespace clarify::pg::segment {

// The segments `stmt` applies and the relations with segments it scans; empty when the catalog
// has no segment. Called once per plan (pg/executor/governed_reads.cpp caches it).
SegmentFacts segment_facts(const Catalog &catalog, PlannedStmt *stmt);

}  // namespace clarify::pg::segment
