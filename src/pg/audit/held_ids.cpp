#include "pg/pg.hpp"
#include "pg/audit/held_ids.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
}

namespace clarify::pg {

namespace {

// Prepared once per process and planned for each call's values: a generic plan, estimating a
// third of the batches for last_decided_at >= $1, turns to a scan of the whole table once it is
// large. The batches' id arrays are matched here against a hash set: a filter on the unnested
// ids would compare each of them with every wanted id.
SPIPlanPtr lookup_plan(bool by_origin) {
    static SPIPlanPtr plans[2] = {nullptr, nullptr};
    SPIPlanPtr &plan = plans[by_origin];
    if (plan) return plan;
    Oid types[2] = {TIMESTAMPTZOID, TEXTOID};
    // By origin: found through the index on (origin, last_decided_at).
    const char *sql = by_origin ? "SELECT b.decision_ids FROM clarify.audit_batches b WHERE "
                                  "b.last_decided_at >= $1 AND b.origin OPERATOR(pg_catalog.=) $2"
                                : "SELECT b.decision_ids FROM clarify.audit_batches b WHERE "
                                  "b.last_decided_at >= $1";
    SPIPlanPtr prepared = SPI_prepare_cursor(sql, by_origin ? 2 : 1, types, CURSOR_OPT_CUSTOM_PLAN);
    if (!prepared) elog(ERROR, "preparing the audit's decision id lookup failed");
    SPI_keepplan(prepared);
    plan = prepared;
    return plan;
}

}  // namespace

std::unordered_set<uint64> held_decision_ids(const std::unordered_set<uint64> &wanted,
                                             int64 earliest, const std::string *origin) {
    std::unordered_set<uint64> held;
    if (wanted.empty()) return held;
    pg_guard([&] {
        Datum args[2] = {TimestampTzGetDatum(earliest), Datum(0)};
        if (origin)
            args[1] = PointerGetDatum(
                cstring_to_text_with_len(origin->data(), static_cast<int>(origin->size())));
        // Not read-only: each read takes a snapshot after the caller's locks were granted (a
        // read-only one uses the call's, taken before the wait, and misses what it waited on).
        int rc = SPI_execute_plan(lookup_plan(origin != nullptr), args, nullptr, false, 0);
        if (rc != SPI_OK_SELECT) elog(ERROR, "reading the audit's decision ids failed");
        for (uint64 i = 0; i < SPI_processed; ++i) {
            bool isnull = false;
            Datum d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
            if (isnull) continue;
            Datum *elements = nullptr;
            bool *nulls = nullptr;
            int count = 0;
            deconstruct_array(DatumGetArrayTypeP(d), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
                              &elements, &nulls, &count);
            for (int k = 0; k < count; ++k) {
                auto id = static_cast<uint64>(DatumGetInt64(elements[k]));
                if (!nulls[k] && wanted.count(id)) held.insert(id);
            }
        }
    });
    return held;
}

}  // namespace clarify::pg
