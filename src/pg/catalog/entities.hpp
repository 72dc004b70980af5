// Loading clarify.entities (docs/reference.md, "Entities") into the catalog snapshot.
#pragma once

#include "pg/pg.hpp"
#include "core/model/catalog.hpp"

#include <unordered_set>

namespace clarify::pg {

// Adds every entity whose relation and columns exist (SPI connected by the caller); its relation
// joins `watched` (a relcache invalidation of it makes the catalog stale: a dropped column).
void load_entities(Catalog &catalog, std::unordered_set<Oid> &watched);

}  // namespace clarify::pg
