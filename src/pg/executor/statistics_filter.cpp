// While a gated session plans, governed columns have no statistics (docs/dba-guide.md, "What the
// gate does not cover"): estimators would otherwise call operators an agent can define on every
// histogram and most-common value, before any decision, and row estimates would reveal the values'
// distribution. The planner falls back to its default selectivities for those columns; other
// sessions keep them.
#include "pg/pg.hpp"
#include "pg/executor/hooks.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "pg/settings.hpp"

extern "C" {
#include "catalog/index.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
}

namespace clarify::pg {

namespace {

get_relation_stats_hook_type prev_relation_stats = nullptr;
get_index_stats_hook_type prev_index_stats = nullptr;
get_attavgwidth_hook_type prev_attavgwidth = nullptr;

bool planner_is_gated() {
    if (!gate_active()) return false;
    if (cached_not_gated(GetSessionUserId(), GetOuterUserId(), GetUserId())) return false;
    return cpp_entry([] { return session_is_gated(); });
}

// Whether column attnum of relation relid is governed (0: any of its columns).
bool governed(Oid relid, AttrNumber attnum) {
    return cpp_entry([&] {
        std::shared_ptr<const Catalog> catalog = governance_catalog();
        if (!catalog || !catalog->governs_relation(relid)) return false;
        if (attnum <= 0) return true;
        return catalog->column(ColumnKey{relid, attnum}) != nullptr;
    });
}

extern "C" bool filter_relation_stats(PlannerInfo *root, RangeTblEntry *rte, AttrNumber attnum,
                                      VariableStatData *vardata) {
    if (rte->rtekind == RTE_RELATION && planner_is_gated() && governed(rte->relid, attnum)) {
        vardata->statsTuple = nullptr;
        vardata->freefunc = nullptr;
        return true;
    }
    return prev_relation_stats && prev_relation_stats(root, rte, attnum, vardata);
}

// An expression index's statistics are computed from its table's columns: any index of a
// governed relation loses them.
extern "C" bool filter_index_stats(PlannerInfo *root, Oid index, AttrNumber attnum,
                                   VariableStatData *vardata) {
    if (planner_is_gated() && governed(IndexGetRelation(index, false), 0)) {
        vardata->statsTuple = nullptr;
        vardata->freefunc = nullptr;
        return true;
    }
    return prev_index_stats && prev_index_stats(root, index, attnum, vardata);
}

// The average width is a statistic too (numbers' digits): the type's default is used instead.
extern "C" int32 filter_attavgwidth(Oid relid, AttrNumber attnum) {
    if (planner_is_gated() && governed(relid, attnum)) {
        Oid type, collation;
        int32 typmod;
        get_atttypetypmodcoll(relid, attnum, &type, &typmod, &collation);
        return get_typavgwidth(type, typmod);
    }
    return prev_attavgwidth ? prev_attavgwidth(relid, attnum) : 0;
}

}  // namespace

void install_statistics_filter() {
    prev_relation_stats = get_relation_stats_hook;
    get_relation_stats_hook = filter_relation_stats;
    prev_index_stats = get_index_stats_hook;
    get_index_stats_hook = filter_index_stats;
    prev_attavgwidth = get_attavgwidth_hook;
    get_attavgwidth_hook = filter_attavgwidth;
}

}  // namespace clarify::pg
