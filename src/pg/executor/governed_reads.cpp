#include "pg/pg.hpp"
#include "pg/executor/governed_reads.hpp"
#include "pg/boundary.hpp"
#include "pg/compat.hpp"
#include "pg/plan/grain/walk.hpp"
#include "pg/plan/segment/scans.hpp"
#include "pg/plan/time_quals.hpp"
#include "pg/plan/entity/entity_quals.hpp"

extern "C" {
#include "catalog/pg_namespace.h"
#include "nodes/parsenodes.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

#include <algorithm>

#include <unordered_set>

namespace clarify::pg {

// Which range table entries are governed relations or have segments; nullptr when none is (the
// common case).
bool *watched_entries(const Catalog &catalog, List *range_table) {
    int n = pg_guard([&] { return list_length(range_table); });
    bool *watched = nullptr;
    for (int i = 0; i < n; ++i) {
        RangeTblEntry *rte = static_cast<RangeTblEntry *>(list_nth(range_table, i));
        Oid relation = entry_relation(rte);
        if (!OidIsValid(relation) ||
            (!catalog.governs_relation(relation) && catalog.segments_on(relation).empty()))
            continue;
        if (!watched) watched = pg_guard([&] { return static_cast<bool *>(palloc0(n)); });
        watched[i] = true;
    }
    return watched;
}

GovernedReads governed_reads(const Catalog &catalog, ReadSet reads) {
    GovernedReads out;
    for (int i = 0; i < reads.count; ++i) {
        const ColumnRead &r = reads.reads[i];
        if (r.attnum == 0) {
            for (const GovernedColumn *c : catalog.columns_of(r.relation)) out.push_back(c);
        } else if (const GovernedColumn *c = catalog.column(ColumnKey{r.relation, r.attnum})) {
            out.push_back(c);
        }
    }
    return out;
}

namespace {

extern "C" bool declared_unique(void *context, Oid relation, const Bitmapset *attnums) {
    const auto *catalog = static_cast<const Catalog *>(context);
    for (const std::vector<std::int16_t> &key : catalog->unique_keys(relation)) {
        bool covered = true;
        for (std::int16_t a : key) covered = covered && bms_is_member(a, attnums);
        if (covered) return true;
    }
    return false;
}

// "schema.relation", as the payload's `via` names it.
std::string relation_name(Oid relation) {
    if (!OidIsValid(relation)) return "an unproven join";
    struct Names {
        char *schema, *name;
    };
    Names names = pg_guard([&] {
        return Names{get_namespace_name(get_rel_namespace(relation)), get_rel_name(relation)};
    });
    if (!names.name) return "an unproven join";
    return std::string(names.schema ? names.schema : "") + "." + names.name;
}

// The aggregates over governed columns, in the core's terms.
std::vector<AggregateUse> governed_aggregates(const Catalog &catalog, AggregateFacts facts) {
    std::vector<AggregateUse> out;
    for (int i = 0; i < facts.count; ++i) {
        const AggregateFact &f = facts.facts[i];
        std::vector<ColumnKey> keys;
        if (f.attnum == 0) {
            for (const GovernedColumn *c : catalog.columns_of(f.relation)) keys.push_back(c->key);
        } else if (catalog.column(ColumnKey{f.relation, f.attnum})) {
            keys.push_back(ColumnKey{f.relation, f.attnum});
        }
        if (keys.empty()) continue;
        struct Function {
            char *name;
            bool builtin;
        };
        Oid fn = f.aggregate;
        Function function = pg_guard([&] {
            return Function{get_func_name(fn), get_func_namespace(fn) == PG_CATALOG_NAMESPACE};
        });
        AggregateUse use;
        use.aggregate = function.name ? function.name : "";
        use.builtin = function.builtin;
        use.distinct = f.distinct;
        for (int v = 0; v < f.n_via; ++v) {
            std::string name = relation_name(f.via[v]);
            if (std::find(use.via.begin(), use.via.end(), name) == use.via.end())
                use.via.push_back(std::move(name));
        }
        if (f.branches) use.repeated.push_back(relation_name(f.relation));
        use.per_value.assign(f.per_value, f.per_value + f.n_per_value);
        use.instance = f.serial;
        for (int v = 0; v < f.n_fixed; ++v) use.fixed.emplace_back(f.fixed[v], f.fixed_values[v]);
        for (ColumnKey key : keys) {
            use.column = key;
            if (std::find(out.begin(), out.end(), use) == out.end()) out.push_back(use);
        }
    }
    return out;
}

}  // namespace

PlanFacts plan_facts(const Catalog &catalog, PlannedStmt *stmt) {
    PlanFacts out;
    bool *watched = watched_entries(catalog, stmt->rtable);
    if (!watched) return out;
    if (catalog.has_segments()) out.segments = segment::segment_facts(catalog, stmt);
    ReadSet reads = pg_guard([&] { return plan_read_set(stmt, watched); });
    out.read = governed_reads(catalog, reads);
    if (out.read.empty()) return out;
    void *context = const_cast<Catalog *>(&catalog);
    AggregateFacts facts =
        pg_guard([&] { return plan_aggregate_facts(stmt, watched, declared_unique, context); });
    out.aggregates = governed_aggregates(catalog, facts);
    return out;
}

namespace {

// The governed columns each recently started plan reads. A plan is not changed while the memory
// context holding it lives, and the read set depends only on the plan and on which relations the
// catalog governs: a prepared statement run over and over is traced once per catalog. A reset
// callback on the plan's context forgets its entry before that memory can hold another plan.
struct PlanReads {
    const PlannedStmt *stmt = nullptr;  // nullptr: free
    const Plan *plan_tree = nullptr;    // checked too: a plan in reused memory has new parts
    const List *rtable = nullptr;
    std::shared_ptr<const Catalog> catalog;  // keeps the GovernedColumn pointers alive
    std::shared_ptr<const PlanFacts> read;
};
constexpr int kPlanReadsEntries = 16;
PlanReads plan_reads_cache[kPlanReadsEntries];
int plan_reads_next = 0;
// Plans whose memory context has our callback: one per plan, however often its entry is evicted
// and filled again (a plan run in turn with more than kPlanReadsEntries others would otherwise
// add a callback to its context at every run). Never destroyed: a context reset at exit may
// still call back.
std::unordered_set<const PlannedStmt *> &plans_watched() {
    static auto *plans = new std::unordered_set<const PlannedStmt *>;
    return *plans;
}

// Runs inside a memory context reset or delete, possibly during an abort: allocates nothing.
extern "C" void forget_plan_reads(void *arg) noexcept {
    const auto *stmt = static_cast<const PlannedStmt *>(arg);
    for (PlanReads &e : plan_reads_cache)
        if (e.stmt == stmt) e.stmt = nullptr;
    plans_watched().erase(stmt);
}

// The governed columns `stmt` reads, or nullptr when it touches no governed relation (such plans
// are not kept: the check is as cheap as a look-up, and they would push out the others). Assumes
// what PostgreSQL does: a PlannedStmt is a palloc'd chunk, and nothing changes it in place (plans
// are replaced, never edited, when invalidated).
}  // namespace

std::shared_ptr<const PlanFacts> cached_plan_facts(const std::shared_ptr<const Catalog> &catalog,
                                                   PlannedStmt *stmt) {
    for (PlanReads &e : plan_reads_cache) {
        if (!e.catalog) continue;
        if (e.stmt && e.catalog == catalog) {
            if (e.stmt == stmt && e.plan_tree == stmt->planTree && e.rtable == stmt->rtable)
                return e.read;
        } else {
            // A plan that is gone, or a catalog that was replaced (it never comes back).
            e.stmt = nullptr;
            e.catalog.reset();
            e.read.reset();
        }
    }
    const EntityQuals *entities = catalog->entities().empty()
                                      ? nullptr
                                      : pg_guard([&] { return find_entity_quals(*catalog, stmt); });
    if (!entities && !watched_entries(*catalog, stmt->rtable)) return nullptr;
    auto read = std::make_shared<PlanFacts>(plan_facts(*catalog, stmt));
    if (!read->read.empty() && catalog->has_time_policies())
        read->time = pg_guard([&] { return find_time_quals(*catalog, stmt); });
    read->entities = entities;
    if (plans_watched().insert(stmt).second) {
        try {
            pg_guard([&] {
                MemoryContext context = GetMemoryChunkContext(stmt);
                auto *callback = static_cast<MemoryContextCallback *>(
                    MemoryContextAlloc(context, sizeof(MemoryContextCallback)));
                callback->func = forget_plan_reads;
                callback->arg = stmt;
                MemoryContextRegisterResetCallback(context, callback);
            });
        } catch (...) {
            plans_watched().erase(stmt);
            throw;
        }
    }
    PlanReads &e = plan_reads_cache[plan_reads_next];
    plan_reads_next = (plan_reads_next + 1) % kPlanReadsEntries;
    e.stmt = stmt;
    e.plan_tree = stmt->planTree;
    e.rtable = stmt->rtable;
    e.catalog = catalog;
    e.read = read;
    return read;
}

}  // namespace clarify::pg
