// A batch of decisions as the rows the audit's tables take (pg/audit/batch.cpp binds them to its
// statements): texts and shapes stored once under their identities, decisions referring to them,
// notes; and the stand-ins that keep a row whole when what it refers to is gone.
#pragma once
#include "core/audit/hash.hpp"
#include "core/audit/record.hpp"
#include "core/audit/writer_cache.hpp"
#include "core/core_guard.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clarify {

using Column = std::vector<std::optional<std::string>>;

// Texts and shapes a batch inserts, each under its identity.
struct TextRows {
    std::vector<AuditHash> ids;
    Column body;
};
struct ShapeRows {
    std::vector<AuditHash> ids;
    Column allowed, state, reason, columns, bindings, payload;
};

// The statement text and shape that stand in for those a short entry names but the audit no
// longer holds (its tables were recreated while the decision was queued): no row refers to a
// text that is not there.
extern const char *const kLostText;
extern const char *const kLostRecord;
AuditRecord lost_shape(bool allowed, State state);

// What can always be stored of a decision whose full row cannot be written (the retry policy's
// last step, core/audit/retry.hpp): who, when and the outcome, with `error` in its reason.
AuditRecord unwritable(const AuditRecord &decision, const std::string &error);

// Which of its statement, record and shape a decision carried itself rather than naming them in
// a short entry (a stand-in counts as carried): the bits of BatchRows::carried.
enum Carried : std::uint8_t { kCarriedStatement = 1, kCarriedRecord = 2, kCarriedShape = 4 };

struct BatchRows {
    TextRows new_texts;
    ShapeRows new_shapes;
    // One per decision.
    std::vector<std::int64_t> id, at, query_id;
    std::vector<AuditHash> statement, shape, record;
    std::vector<std::uint8_t> carried;
    std::vector<bool> record_null;
    std::vector<std::uint32_t> session_role, acting_role;
    std::vector<std::int32_t> pid;
    Column question;
    // The decisions' entity bindings (NULL: none), and whether any decision has some: a batch
    // without them leaves the audit's column NULL.
    Column entity_bindings;
    bool any_entity_bindings = false;
    // One per note.
    Column note_id, note_at, note_text;
    // The texts and shapes the batch inserts or finds (new_texts' and new_shapes' ids).
    HashSet fresh;
    // The hashes published for short entries once the batch commits.
    std::vector<AuditHash> to_publish;
};

// The hashes the short entries of `batch` name that `cache` has not stored (after the writer's
// start, a purge or recreated tables), each once: the writer asks the audit which it holds.
template <typename Entry>
std::vector<AuditHash> hashes_to_look_up(const std::vector<Entry> &batch, const WriterCache &cache);

// The rows of `batch`. `missing`: the hashes short entries name that the audit does not hold
// (stand-ins replace them). A text or shape is queued for insertion unless `cache` stored it; one
// the audit holds with other bytes refers to where the cache says it was stored instead. A hash
// `cache` stored and has not published is published once seen again (a statement run once would
// only crowd the published set); never at catalog 1.0 (`width` narrow), where decisions keep
// carrying their texts so that each is compared before it is reused.
template <typename Entry>
BatchRows batch_rows(const std::vector<Entry> &batch, const WriterCache &cache,
                     const HashSet &missing, const AuditKey &key, Width width);

}  // namespace clarify
