// Looking entity names up before the statement runs (docs/reference.md, "Entities"): through
// SPI, read-only, as the current user (its privileges and row-level security apply), bounded to
// max_options + 1 rows, under the statement's statement_timeout and cancel, never gated itself.
#pragma once

#include "pg/pg.hpp"
#include "core/entity/entity.hpp"
#include "pg/plan/entity/entity_quals.hpp"

#include <vector>

namespace clarify::pg {

// One lookup per name; the options' details leave out columns the user may not read.
std::vector<EntityLookup> lookup_entities(const std::vector<EntityName> &names);

// True while a lookup runs: the gate lets its query through undecided and unaudited.
bool entity_lookup_running();

}  // namespace clarify::pg
