// The governed vocabulary: concepts, the terms that name them, defaults and approvals.
#pragma once
#include "core/core_guard.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace clarify {

// Role identifiers are PostgreSQL role OIDs; 0 means "everyone" for a default's scope.
using RoleId = std::uint32_t;
constexpr RoleId kEveryone = 0;

// Microseconds on any fixed epoch; the core only compares timestamps.
using Timestamp = std::int64_t;
constexpr Timestamp kNoLimit = std::numeric_limits<Timestamp>::max();
constexpr Timestamp kSinceAlways = std::numeric_limits<Timestamp>::min();

enum class ConceptKind { Metric, Dimension, TimeWindow, Segment };
enum class ConceptStatus { Draft, Approved, Deprecated };
// How a metric may be summed (docs/reference.md, "Grain").
enum class Additivity { Additive, SemiAdditive, NonAdditive };

struct Concept {
    std::string id;
    ConceptKind kind = ConceptKind::Metric;
    std::string label;
    std::string description;
    std::string owner;
    ConceptStatus status = ConceptStatus::Draft;
    bool available = true;
    int version = 1;
    std::vector<std::string> aliases;
    Timestamp valid_from = kSinceAlways;
    Timestamp valid_until = kNoLimit;
    // A time window's bounds: SQL expressions the glue evaluates; empty for other kinds.
    std::string window_start, window_end;
    // A segment's relation (OID), its "schema.table" and its predicate (docs/reference.md,
    // "Segments"); 0 and empty for other kinds.
    std::uint32_t segment_relation = 0;
    std::string segment_relation_name, segment_predicate;
    Additivity additivity = Additivity::Additive;
    // The only aggregate names allowed; empty with has_allowed_aggregates false: any.
    bool has_allowed_aggregates = false;
    std::vector<std::string> allowed_aggregates;
    // A metric's fixed unit, shown after its label; a time window's IANA zone (§16): empty: none.
    std::string unit, window_time_zone;

    // Eligible: approved, available and inside its validity window at `now`.
    bool eligible(Timestamp now) const {
        return status == ConceptStatus::Approved && available && valid_from <= now &&
               now < valid_until;
    }
};

struct Default {
    std::int64_t id = 0;
    std::string term;  // normalized (lower case, trimmed)
    std::string concept_id;
    RoleId applies_to = kEveryone;
    std::string approved_by;
    Timestamp valid_until = kNoLimit;
    // The concept version it was approved for; 0: not recorded (a catalog before 1.2).
    int concept_version = 0;
};

struct Approval {
    std::int64_t id = 0;
    std::string question_id;
    std::string term;  // normalized; empty when the approval names no term
    std::string concept_id;
    RoleId granted_to = kEveryone;
    std::string confirmed_by;
    Timestamp expires_at = kNoLimit;
    bool revoked = false;
    // The question text the user answered, trimmed; empty when the approval holds for any text.
    std::string question;
    // The concept version the user confirmed; 0: not recorded (a catalog before 1.2).
    int concept_version = 0;
};

// A physical column, as the glue identifies it (relation OID, attribute number).
struct ColumnKey {
    std::uint32_t relation = 0;
    std::int16_t attnum = 0;
    bool operator==(const ColumnKey &o) const {
        return relation == o.relation && attnum == o.attnum;
    }
};

struct ColumnKeyHash {
    std::size_t operator()(const ColumnKey &k) const {
        return (std::size_t(k.relation) << 16) ^ std::size_t(std::uint16_t(k.attnum));
    }
};

const char *to_string(ConceptKind kind);
const char *to_string(ConceptStatus status);
std::optional<ConceptKind> parse_kind(const std::string &text);
std::optional<ConceptStatus> parse_status(const std::string &text);
const char *to_string(Additivity additivity);
std::optional<Additivity> parse_additivity(const std::string &text);
// A concept's aliases from the JSON array the catalog query returns (array_to_json(aliases));
// elements that are not strings are skipped. Throws std::invalid_argument for text that is not
// JSON.
std::vector<std::string> parse_aliases(const std::string &json_array);

}  // namespace clarify
