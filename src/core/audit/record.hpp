// One audited decision (docs/reference.md, "Tables and views"), as it crosses the shared-memory
// queue to the audit writer.
#pragma once
#include "core/audit/hash.hpp"
#include "core/core_guard.hpp"
#include "core/decide/decision.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace clarify {

// pg_clarify.enforcement (docs/reference.md, "Settings"): under warn and audit a would-be
// rejection (QC001-QC004, QC006) runs; QC005 is never relaxed.
enum class Enforcement : std::uint8_t { Enforce = 0, Warn = 1, Audit = 2 };
const char *to_string(Enforcement mode);

struct AuditRecord {
    std::uint64_t decision_id = 0;
    std::int64_t decided_at = 0;  // PostgreSQL timestamptz microseconds
    std::uint32_t database = 0;
    std::uint32_t session_role = 0;
    std::uint32_t acting_role = 0;
    std::int32_t pid = 0;
    std::int64_t query_id = 0;
    bool allowed = true;
    bool sync = true;  // a backend waits for this one to be committed
    State state = State::Resolved;
    // The mode the decision was made under; a would-be rejection that ran under warn or audit is
    // allowed with its state kept. The audit reads the mode from the payload's "enforcement"
    // (catalog: pg_clarify--1.2.sql, "Enforcement modes"), so the queue's format is unchanged.
    Enforcement enforcement = Enforcement::Enforce;
    bool would_reject = false;
    std::string question_id;
    std::string statement;
    std::string reason;
    std::string columns;   // JSON array of column names
    std::string bindings;  // JSON array, per covered column
    std::string payload;   // the DETAIL JSON without decision_id; "" when allowed
    std::string
        record;  // the resolution record as canonical JSON (ResolutionRecord::json); "" when none
    // Non-empty for a note about an earlier decision (same decision_id), not a decision: e.g.
    // that its statement was refused because its decision was not audited in time.
    std::string note;
    // The execution's entity bindings (core/entity/entity.hpp, entity_bindings_json): a JSON array,
    // "" when none. Per decision, not part of the shape: a name bound to another key is the same
    // shape (clarify.audit shows the shape's bindings with these appended).
    std::string entity_bindings;
    // Keyed hashes (core/audit/hash.hpp) of the record and of the decision's shape (allowed, state,
    // reason, columns, bindings, payload), computed once by the backend for a decision it reuses;
    // none: not given.
    AuditHash record_hash;
    AuditHash shape_hash;
    AuditHash statement_hash;  // content_hash(key, "statement", statement); none: not given
    // Decoded from a short entry (encode_short): the statement, shape and record are already in
    // the audit under their hashes, so their texts were not sent (they are empty here); the
    // record is absent when record_hash is none.
    bool is_short = false;
};

// The same entry read in place: its texts point into the queue's bytes (no copies), for the
// writer's hot path. Valid while those bytes are.
struct AuditView {
    std::uint64_t decision_id = 0;
    std::int64_t decided_at = 0;
    std::uint32_t database = 0, session_role = 0, acting_role = 0;
    std::int32_t pid = 0;
    std::int64_t query_id = 0;
    bool allowed = true, sync = true;
    State state = State::Resolved;
    AuditHash record_hash, shape_hash, statement_hash;
    bool is_short = false;  // as in AuditRecord
    std::string_view question_id, statement, reason, columns, bindings, payload, record, note;
    std::string_view entity_bindings;  // as in AuditRecord
};

// The hash under which the audit stores a decision's shape.
AuditHash shape_hash_of(const AuditKey &key, const AuditRecord &record);
AuditHash shape_hash_of(const AuditKey &key, const AuditView &record);

AuditView decode_view(std::string_view bytes);
AuditRecord to_record(const AuditView &view);

class AuditFormatError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The audit record of a decision; decision_id, time, roles and statement are filled by the caller.
AuditRecord audit_record_of(const Catalog &catalog, const Decision &decision,
                            const ResolutionRecord &record);

// Applies the enforcement mode to a decision's audit record: under warn or audit a rejection
// becomes allowed (would_reject set) and the payload, also an allowed one's, names the mode.
void apply_enforcement(AuditRecord &record, Enforcement mode);

// A top-level reason: the first failing slot's, or how the statement was resolved.
std::string decision_reason(const Decision &decision);

// Pointer-free encoding for the queue; decode throws AuditFormatError on a malformed entry.
void encode(const AuditRecord &record, std::string &out);
// The short entry of a decision whose statement, shape and record the audit already holds: the
// same fixed fields and question id, the other texts left out (a third of the bytes or less).
// Needs the statement and shape hashes, and the record's when there is a record; never a note.
bool can_encode_short(const AuditRecord &record);
void encode_short(const AuditRecord &record, std::string &out);
// The same for an entry read in place (a full one: the standby's writer sends the short form of a
// decision whose texts went in full earlier in the same batch).
bool can_encode_short(const AuditView &entry);
void encode_short(const AuditView &entry, std::string &out);
// Whether two decisions have the same shape (what the shape's identity covers: allowed, state,
// reason, columns, bindings, payload).
bool same_shape(const AuditView &a, const AuditView &b);
// Rewrites the decision id and time of an entry encode() or encode_short() made, in place: a
// statement run again with the same decision differs in nothing else.
void patch_entry(std::string &entry, std::uint64_t decision_id, std::int64_t decided_at);
// Rewrites the entity bindings of an entry encode() or encode_short() made whose entity bindings
// are `was` (its last field): the entry's tail only. Throws AuditFormatError when `entry` does
// not end with `was`.
void patch_entity_bindings(std::string &entry, std::string_view was, std::string_view now);
// `bindings` (a JSON array) with the elements of `entity_bindings` (a JSON array, or "") appended:
// what clarify.audit and clarify.last_decision() show as a decision's bindings.
std::string with_entity_bindings_json(std::string_view bindings, std::string_view entity_bindings);
AuditRecord decode(std::string_view bytes);
// The fixed part every entry starts with; enough for short_entry_hashes().
constexpr std::size_t kAuditEntryPrefix = 4 + 8 + 8 + 4 * 4 + 8 + 3 + 3 * 16 + 1;
// The statement, shape and record hashes (the record's may be none) a short entry refers to,
// from its first kAuditEntryPrefix bytes; false for a full entry, a note or anything malformed.
bool short_entry_hashes(std::string_view prefix, AuditHash hashes[3]) noexcept;

}  // namespace clarify
