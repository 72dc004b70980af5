// PostgreSQL folds a bound parameter flagged PARAM_FLAG_CONST into a constant when it builds a
// custom plan (eval_const_expressions); a generic plan keeps the Param. For a gated statement
// that may scan a relation with segments, the planner gets a copy of the parameters with that
// flag cleared: the plan keeps its Params, and the estimates still read their values (the
// estimate mode of eval_const_expressions substitutes them whatever the flag).
#include "pg/pg.hpp"
#include "pg/plan/segment/bound_params.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "pg/compat.hpp"
#include "pg/executor/hooks.hpp"
#include "pg/plan/segment/trees.hpp"

extern "C" {
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "optimizer/planner.h"
}

namespace clarify::pg::segment {

namespace {

planner_hook_type prev_planner = nullptr;

struct Reach {
    const Catalog *catalog;
    bool children;  // some segment is on an inheritance child or partition
};

// Whether the query may scan a relation with segments: one of its range tables names one; an
// inherited relation may expand to a child that has some; a function in FROM may be an SQL
// function the planner inlines.
bool may_scan_segments(Node *node, Reach *reach) {
    if (!node) return false;
    if (IsA(node, RangeTblEntry)) {
        RangeTblEntry *rte = (RangeTblEntry *)node;
        if (rte->rtekind == RTE_FUNCTION) return true;
        if (rte->rtekind != RTE_RELATION) return false;
        return !reach->catalog->segments_on(rte->relid).empty() || (rte->inh && reach->children);
    }
    if (IsA(node, Query))
        return query_tree_walker((Query *)node, WALKER(may_scan_segments), reach,
                                 QTW_EXAMINE_RTES_BEFORE);
    return expression_tree_walker(node, WALKER(may_scan_segments), reach);
}

bool any_constant(ParamListInfo params) {
    if (params->paramFetch) return true;  // fetched on demand: the flag is not known yet
    for (int i = 0; i < params->numParams; ++i)
        if (params->params[i].pflags & PARAM_FLAG_CONST) return true;
    return false;
}

// Whether this planning must keep the parameters: a gated session, a catalog with segments, a
// parameter the planner would fold, a query that may scan a relation with segments.
bool keeps_params(Query *parse, ParamListInfo params) {
    if (!gate_active() || !any_constant(params)) return false;
    if (cached_not_gated(GetSessionUserId(), GetOuterUserId(), GetUserId())) return false;
    if (!session_is_gated()) return false;
    std::shared_ptr<const Catalog> catalog = governance_catalog();
    const SegmentTrees *trees = catalog ? trees_of(*catalog) : nullptr;
    if (!trees || trees->count == 0) return false;
    Reach reach{catalog.get(), trees->on_child};
    return pg_guard([&] { return may_scan_segments((Node *)parse, &reach); });
}

// The original list's fetch hook, its answer without the flag (copied: it may be the original's).
extern "C" ParamExternData *fetch_unfolded(ParamListInfo params, int id, bool speculative,
                                           ParamExternData *workspace) {
    auto original = static_cast<ParamListInfo>(params->paramFetchArg);
    ParamExternData *found = original->paramFetch(original, id, speculative, workspace);
    if (found != workspace) *workspace = *found;
    workspace->pflags &= ~PARAM_FLAG_CONST;
    return workspace;
}

// A copy the planner cannot fold; plain C, in the planner's memory context.
ParamListInfo unfolded(ParamListInfo params) {
    if (params->paramFetch) {
        ParamListInfo out = makeParamList(0);
        out->paramFetch = fetch_unfolded;
        out->paramFetchArg = params;
        out->parserSetup = params->parserSetup;
        out->parserSetupArg = params->parserSetupArg;
        out->numParams = params->numParams;  // every one is fetched through the hook
        return out;
    }
    ParamListInfo out = makeParamList(params->numParams);
    for (int i = 0; i < params->numParams; ++i) {
        out->params[i] = params->params[i];
        out->params[i].pflags &= ~PARAM_FLAG_CONST;
    }
    out->parserSetup = params->parserSetup;
    out->parserSetupArg = params->parserSetupArg;
    return out;
}

extern "C" PlannedStmt *segment_planner(Query *parse, const char *query_string, int cursor_options,
                                        ParamListInfo params) {
    if (params && params->numParams > 0 && cpp_entry([&] { return keeps_params(parse, params); }))
        params = unfolded(params);
    if (prev_planner) return prev_planner(parse, query_string, cursor_options, params);
    return standard_planner(parse, query_string, cursor_options, params);
}

}  // namespace

void install_segment_planner() {
    prev_planner = planner_hook;
    planner_hook = segment_planner;
}

}  // namespace clarify::pg::segment
