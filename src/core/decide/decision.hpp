// The gate's rules (docs/reference.md, "SQLSTATEs" and "Functions"): resolving a term, and deciding
// a statement's read set.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/budget.hpp"
#include "core/decide/local_time.hpp"
#include "core/model/catalog.hpp"
#include "core/model/record.hpp"
#include "core/model/states.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace clarify {

enum class CoverageSource { UserConfirmation, ApprovedDefault, Explicit, OnlyEligible, Assumed };

const char *to_string(CoverageSource source);

// Who is asking, and when: the roles (of those the catalog names) that apply to the agent.
struct AgentContext {
    Timestamp now = 0;
    std::unordered_set<RoleId> member_of;
    bool applies(RoleId role) const { return role == kEveryone || member_of.count(role) != 0; }
};

// clarify.resolve(term): the gate for one term, without a statement.
struct TermResolution {
    State decision = State::Ambiguous;  // Resolved, Ambiguous or Unsupported
    std::string term;
    std::string selected;              // concept id when resolved
    std::vector<std::string> options;  // eligible candidates, to ask the user
    std::string reason;
    std::optional<CoverageSource> source;
    std::string default_concept;  // the applicable default's concept, "" when none applies
    bool default_applied = false;
    std::int64_t approval_id = 0;
    std::string confirmed_by;  // who confirmed, when resolved by a user's confirmation
    // Another term that decides the selected meaning and must be asked first (the question
    // mentions it, or there is no question); options are then its meanings. "" when none.
    std::string ask;
    int version = 0;  // the selected concept's version
    // A confirmation or default given for an older definition: the version it was given for, and
    // its concept's now (docs/dba-guide.md, "When a definition changes"); 0 when none.
    int approved_version = 0, current_version = 0;
};

// `mentioned`: the terms the record's question mentions (Catalog::mentioned_terms), as the glue
// matched them once per record; nullptr: matched here.
TermResolution resolve_term(const Catalog &catalog, const AgentContext &ctx,
                            const ResolutionRecord &record, const std::string &term,
                            const std::string &question_id,
                            const std::vector<std::string> *mentioned = nullptr);

// How one governed column read was covered.
struct Coverage {
    std::string column;
    std::string concept_id;
    int concept_version = 0;
    std::string term;  // the term through which it was resolved, "" when none
    CoverageSource source = CoverageSource::OnlyEligible;
    bool default_applied = false;
    std::int64_t approval_id = 0;
    // A dated measure: the range the statement read, and the time window bound to it if any.
    std::optional<TimeRange> range;
    std::string window;
    std::optional<Impact> impact;  // set when the meaning was assumed
};

// What a slot is about: a meaning to resolve, how a measure is aggregated (core/decide/grain.hpp),
// or the user's question itself (pg_clarify.require_question).
enum class SlotCheck { Meaning, Fanout, Additivity, Question, Unit };

// An entity slot's option (docs/reference.md, "Entities"): the key as text, and the name with its
// details.
struct EntityOption {
    std::string value, label;
    bool operator==(const EntityOption &o) const { return value == o.value && label == o.label; }
};

// One thing the user must be asked about (a meaning read that nothing approved), or the agent
// told to rewrite (a grain problem).
struct Slot {
    SlotCheck check = SlotCheck::Meaning;
    ConceptKind kind = ConceptKind::Metric;
    std::string term;  // "" when the concept answers to no term
    State state = State::Ambiguous;
    std::string reason;
    std::string question;
    std::vector<std::string> options;  // eligible concept ids
    std::vector<std::string> columns;
    std::string default_concept;  // the applicable default, "" when none
    std::string expected;         // what the binding or default named, "" when nothing did
    std::string actual;           // the concept the statement reads
    Impact impact = Impact::High;
    // A time_range slot: the period of a dated measure (actual: the measure's concept).
    bool time_range = false;
    std::optional<TimeRange> expected_range, actual_range;
    // A mentioned time-window term's slot: each option's window, evaluated now, and as people
    // read it in the window's zone (core/render/period_text.hpp).
    std::vector<std::pair<std::string, TimeRange>> option_ranges;
    std::vector<std::pair<std::string, std::string>> option_periods;
    // A confirmation or default given for an older definition: its version and the concept's.
    int approved_version = 0, current_version = 0;
    // Grain slots only: the relations whose join repeats rows (fanout); the aggregate used and
    // the aggregates allowed (additivity); how to rewrite the statement (the HINT).
    std::vector<std::string> via;
    // Fanout slots: the relations of `via` read again by other branches of a UNION ALL.
    std::vector<std::string> repeated;
    std::string aggregate;
    std::vector<std::string> allowed;
    std::string advice;
    std::string unit_column;  // unit slots: the column to group by or filter on (§16)
    // Entity slots (core/entity/entity.hpp): the name as written, the entities it may mean.
    bool entity = false;
    std::string value;
    std::string key_column;  // what the agent filters on once the user chose (`id = 42`)
    std::vector<EntityOption> entity_options;
    bool truncated = false;
};

// One aggregate (or aggregate used as a window function) whose argument reads a governed column,
// as the plan shows it (src/pg/plan/grain/walk.cpp finds them).
struct AggregateUse {
    ColumnKey column;
    std::string aggregate;  // the function's name
    bool builtin = true;    // in pg_catalog: only those are known duplicate-insensitive
    bool distinct = false;
    // The relations on the other side of each join between the column's scan and the aggregate
    // that is not proven to keep that scan's rows unrepeated; empty when every join is proven.
    std::vector<std::string> via;
    // The column's relation when another branch of a UNION ALL reads the same rows again.
    std::vector<std::string> repeated;
    // Columns of the same relation the aggregate groups or partitions by, or that the statement
    // restricts to one value: a semi-additive measure is summed per snapshot when its snapshot
    // column is among them.
    std::vector<std::int16_t> per_value;
    // Which aggregate of the statement this is (uses of one aggregate share it), and the columns
    // of `per_value` the scan's conditions fix (not grouped by), each with its value's key: equal
    // keys are one value (src/pg/plan/grain/units.hpp).
    int instance = 0;
    std::vector<std::pair<std::int16_t, std::string>> fixed;
    bool operator==(const AggregateUse &o) const {
        return column == o.column && aggregate == o.aggregate && builtin == o.builtin &&
               distinct == o.distinct && via == o.via && repeated == o.repeated &&
               per_value == o.per_value && instance == o.instance && fixed == o.fixed;
    }
};

struct Decision {
    State state = State::Resolved;     // Resolved when allowed
    std::vector<std::string> columns;  // every governed column read
    std::vector<Coverage> covered;
    std::vector<Slot> slots;  // every failing slot
    Rounds rounds;            // its question's rounds (core/decide/budget.hpp), when counted
    // Entity names resolved to one key: {relation, value, key} (core/entity/entity.hpp).
    std::vector<std::vector<std::string>> entity_bindings;
    bool allowed() const { return state == State::Resolved; }
};

// What the glue measured for the time rules: the statement's range on each time column it
// restricts (absent: not restricted), and the evaluated bounds of the time windows the record
// binds.
struct TimeFacts {
    std::vector<std::pair<ColumnKey, TimeRange>> ranges;
    std::vector<std::pair<std::string, TimeRange>> windows;
    // The time columns of type date: their rows compare with a window as days in its zone (§16).
    std::vector<ColumnKey> date_columns;
    // The session's TimeZone (periods read in it), and the clock that reads zones (nullptr: UTC).
    std::string session_zone;
    const ZoneClock *clock = nullptr;
    TimeRange range_of(ColumnKey time_column) const;
    const TimeRange *window(const std::string &concept_id) const;
    bool is_date_column(ColumnKey time_column) const;
    bool operator==(const TimeFacts &o) const {
        return ranges == o.ranges && windows == o.windows && date_columns == o.date_columns &&
               session_zone == o.session_zone && clock == o.clock;
    }
};

// pg_clarify.assume_below: AMBIGUOUS slots of lower impact are assumed (None: never).
enum class AssumeBelow { None, Medium, High };

struct SegmentFacts;  // core/decide/segments.hpp

struct DecideOptions {
    AssumeBelow assume_below = AssumeBelow::None;
    // pg_clarify.require_question: a decision without the user's words is UNVERIFIED.
    bool require_question = false;
    // pg_clarify.max_rounds: the question's budget is spent, so an AMBIGUOUS slot below high
    // impact is assumed (core/decide/budget.hpp).
    bool budget_spent = false;
    // The terms the record's question mentions (Catalog::mentioned_terms), as the glue matched
    // them once per record and catalog; nullptr: matched here.
    const std::vector<std::string> *mentioned = nullptr;
    // The segments the statement applies and the relations it scans (nullptr: none).
    const SegmentFacts *segments = nullptr;
};

// `aggregates`: the statement's aggregates over governed columns, checked for grain after the
// meanings (a statement both AMBIGUOUS and GRAIN reports AMBIGUOUS and lists both slots).
Decision decide(const Catalog &catalog, const AgentContext &ctx, const ResolutionRecord &record,
                const std::vector<const GovernedColumn *> &read,
                const std::vector<AggregateUse> &aggregates, const TimeFacts &time,
                const DecideOptions &options);
inline Decision decide(const Catalog &catalog, const AgentContext &ctx,
                       const ResolutionRecord &record,
                       const std::vector<const GovernedColumn *> &read,
                       const std::vector<AggregateUse> &aggregates = {}, const TimeFacts &time = {},
                       AssumeBelow assume_below = AssumeBelow::None) {
    DecideOptions options;
    options.assume_below = assume_below;
    return decide(catalog, ctx, record, read, aggregates, time, options);
}

}  // namespace clarify
