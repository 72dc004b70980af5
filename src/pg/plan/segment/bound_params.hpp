// The same segment decision under every plan (docs/dba-guide.md, "Segments"): a custom plan of a
// gated statement that may scan a relation with segments keeps its bound parameters as
// parameters, as the generic plan does, so that a parameter never equals a predicate's constant.
#pragma once

#include "pg/pg.hpp"

namespace clarify::pg::segment {

// Installs the planner hook (pg/executor/hooks.cpp, install_gate).
void install_segment_planner();

}  // namespace clarify::pg::segment
