// Which entity names a plan filters by (docs/reference.md, "Entities"): the conditions on every
// scan of an entity's relation that compare its name column with values known before the scan.
// Found once per plan (cached beside the read set); their values are evaluated per execution.
#pragma once

#include "pg/pg.hpp"
#include "core/model/catalog.hpp"

extern "C" {
#include "nodes/params.h"
#include "nodes/plannodes.h"
}

#include <string>
#include <vector>

namespace clarify::pg {

// The name conditions of one plan: palloc'd in the plan's memory context, so they live exactly
// as long as the plan whose expressions they point into.
struct EntityQuals;

// nullptr when the plan filters no entity's name column.
EntityQuals *find_entity_quals(const Catalog &catalog, PlannedStmt *stmt);

// One distinct name to look up: its entity, the value as text, and whether the statement
// compared it case-insensitively (ILIKE, lower() or upper()).
struct EntityName {
    const Entity *entity = nullptr;
    std::string value;
    bool case_insensitive = false;
    bool operator==(const EntityName &o) const {
        return entity == o.entity && value == o.value && case_insensitive == o.case_insensitive;
    }
};

// The distinct names the execution filters by, its parameters bound (`params` nullptr: a
// parameter names nothing). Scans that also filter the key by equality are left out: never
// ambiguous. Only built-in functions are evaluated.
std::vector<EntityName> evaluate_entity_quals(const Catalog &catalog, const EntityQuals *quals,
                                              ParamListInfo params);

}  // namespace clarify::pg
