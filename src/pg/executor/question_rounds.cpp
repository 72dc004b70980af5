#include "pg/pg.hpp"
#include "pg/executor/question_rounds.hpp"
#include "pg/audit/queued_rounds.hpp"
#include "pg/boundary.hpp"
#include "pg/catalog/catalog_cache.hpp"
#include "pg/settings.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
}

#include <cstdint>
#include <string>
#include <vector>

namespace clarify::pg {

namespace {

// The question's rounds the audit holds, but those among `queued` (counted from the queue): the
// GIN index on audit_batches (question_ids) finds the batches that name the question.
constexpr const char *kAuditedRounds =
    "SELECT count(*) FROM clarify.audit_batches b "
    "CROSS JOIN LATERAL unnest(b.question_ids, b.shape_hashes, b.decision_ids) "
    "AS u(question_id, shape_hash, decision_id) "
    "JOIN clarify.audit_shapes s ON s.hash = u.shape_hash "
    "WHERE b.question_ids @> ARRAY[$1] AND u.question_id = $1 AND NOT s.allowed "
    "AND s.state = 'AMBIGUOUS' AND u.decision_id <> ALL ($2::bigint[])";

std::string id_array(const std::vector<std::uint64_t> &ids) {
    std::string out = "{";
    for (std::uint64_t id : ids) {
        if (out.size() > 1) out += ',';
        out += std::to_string(static_cast<long long>(id));
    }
    return out + "}";
}

long long audited_rounds(const std::string &question_id, const std::vector<std::uint64_t> &queued) {
    const std::string ids = id_array(queued);
    long long count = 0;
    run_as_extension_owner([&] {
        count = pg_guard([&] {
            Oid types[2] = {TEXTOID, TEXTOID};
            Datum args[2] = {CStringGetTextDatum(question_id.c_str()),
                             CStringGetTextDatum(ids.c_str())};
            if (SPI_execute_with_args(kAuditedRounds, 2, types, args, nullptr, true, 1) !=
                    SPI_OK_SELECT ||
                SPI_processed != 1)
                elog(ERROR, "pg_clarify: the question's clarification rounds could not be counted");
            bool isnull = false;
            Datum n = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
            return isnull ? 0LL : static_cast<long long>(DatumGetInt64(n));
        });
    });
    return count;
}

}  // namespace

std::optional<Rounds> rounds_for(const Decision &decision, const std::string &question_id) {
    if (!asks_a_round(decision, question_id)) return std::nullopt;
    // The queue first: an entry its writer commits meanwhile is then visible to the audit's
    // newest snapshot, and counted once (its id is left out there).
    Oid database = pg_guard([] { return MyDatabaseId; });
    std::vector<std::uint64_t> queued = queued_round_ids(database, question_id);
    long long prior = static_cast<long long>(queued.size()) + audited_rounds(question_id, queued);
    constexpr long long kMost = 1000000;  // a round number, not a counter that may overflow int
    return rounds_of(static_cast<int>(prior < kMost ? prior : kMost), max_rounds);
}

}  // namespace clarify::pg
