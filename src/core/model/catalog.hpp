// An immutable snapshot of the governance catalog, indexed for the gate's look-ups.
#pragma once
#include "core/core_guard.hpp"
#include "core/model/model.hpp"
#include "core/decide/time_range.hpp"
#include "core/decide/words.hpp"
#include "core/entity/entity_model.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace clarify {

// A measure dated by a time column of its relation (concept_columns.time_column).
struct TimePolicy {
    std::string concept_id;
    std::int16_t time_attnum = 0;  // in the governed column's own relation
    std::string time_column;       // its name, for payloads
    bool requires_range = false;
};

// A governed column as read by a statement: where it is and what it may mean.
struct GovernedColumn {
    ColumnKey key;
    std::string name;  // "schema.table.column", for payloads and the audit
    std::vector<std::string> concept_ids;
    std::uint32_t relation = 0;
    std::vector<TimePolicy> time_policies;  // one per concept that dates this column
    const TimePolicy *time_policy(const std::string &concept_id) const;
    // Per concept of a semi-additive metric: the column of the same relation dating snapshots.
    struct Snapshot {
        std::string concept_id;
        std::int16_t attnum = 0;
        std::string column;
    };
    std::vector<Snapshot> snapshots;
    // Per concept with a unit column (§16): attnum 0 when the named column is missing.
    std::vector<Snapshot> units;
    const Snapshot *unit_of(const std::string &concept_id) const {
        for (const Snapshot &s : units)
            if (s.concept_id == concept_id) return &s;
        return nullptr;
    }
    const Snapshot *snapshot_of(const std::string &concept_id) const {
        for (const Snapshot &s : snapshots)
            if (s.concept_id == concept_id) return &s;
        return nullptr;
    }
};

class Catalog {
  public:
    // Building: add rows in any order, then call finalize() once.
    void add_concept(Concept concept);
    void add_term(const std::string &term, const std::string &concept_id);
    void add_default(Default def);
    void add_approval(Approval approval);
    void add_column(ColumnKey key, const std::string &name, const std::string &concept_id,
                    std::int16_t snapshot_attnum = 0, const std::string &snapshot_column = "");
    // The unit column of the measure in `key` (added first with add_column) for one concept;
    // a concept's fixed unit and window time zone (added first with add_concept).
    void add_unit_column(ColumnKey key, const std::string &concept_id, std::int16_t attnum,
                         const std::string &column);
    void set_units(const std::string &concept_id, const std::string &unit,
                   const std::string &window_time_zone);
    // Dates the measure in `key` (added first with add_column) for one of its concepts.
    void add_time_policy(ColumnKey key, TimePolicy policy);
    // A term's impact: the highest its rows give (High when none says).
    void set_impact(const std::string &term, Impact impact);
    // A column set declared unique (clarify.unique_keys), by attribute numbers.
    void add_unique_key(std::uint32_t relation, std::vector<std::int16_t> attnums);
    // A registered entity (clarify.entities).
    void add_entity(Entity entity) { entities_.push_back(std::move(entity)); }
    void finalize();

    const Concept *concept(const std::string &id) const;
    // Candidate concept ids of a term (normalized spelling), in a stable order.
    const std::vector<std::string> &candidates(const std::string &term) const;
    // Terms that a concept answers to.
    const std::vector<std::string> &terms_of(const std::string &concept_id) const;
    const std::vector<Default> &defaults_for(const std::string &term) const;
    const std::vector<Approval> &approvals_for(const std::string &question_id) const;
    // nullptr when the column is not governed. The hot path: one hash look-up.
    const GovernedColumn *column(ColumnKey key) const;
    bool governs_relation(std::uint32_t relation) const {
        return relation_columns_.count(relation) != 0;
    }
    // Every governed column of a relation (what a whole-row reference reads).
    std::vector<const GovernedColumn *> columns_of(std::uint32_t relation) const;
    std::size_t column_count() const { return columns_.size(); }
    // The declared unique keys of a relation; empty for most.
    const std::vector<std::vector<std::int16_t>> &unique_keys(std::uint32_t relation) const;
    // The first moment after `now` at which some validity window, default or approval starts or
    // ends: until then, a decision made at `now` stays the same.
    Timestamp next_change_after(Timestamp now) const;
    // Every role named by a default's scope or an approval's grantee.
    const std::vector<RoleId> &referenced_roles() const { return referenced_roles_; }
    std::size_t concept_count() const { return concepts_.size(); }
    Impact impact_of(const std::string &term) const;
    // The governed terms (normalized spellings) the question mentions, sorted: matched once per
    // record by the glue (docs/reference.md, "Which terms decide a column").
    std::vector<std::string> mentioned_terms(const std::string &question) const;
    // Every time window concept id, sorted; and whether any governed column is dated.
    std::vector<std::string> time_windows() const;
    bool has_time_policies() const { return !time_columns_.empty(); }
    // The (relation, time column) pairs whose ranges a statement's decision needs.
    const std::vector<ColumnKey> &time_columns() const { return time_columns_; }
    // The segments (docs/reference.md, "Segments") defined on a relation, sorted; and whether
    // any is. The glue keeps their parsed predicates with the catalog, opaque to the core.
    const std::vector<std::string> &segments_on(std::uint32_t relation) const;
    bool has_segments() const { return !segment_relations_.empty(); }
    void set_segment_trees(std::shared_ptr<const void> trees) { segment_trees_ = std::move(trees); }
    const void *segment_trees() const { return segment_trees_.get(); }

    // The registered entities (stable addresses once finalized) and whether one is on `relation`.
    const std::vector<Entity> &entities() const { return entities_; }
    bool has_entity(std::uint32_t relation) const {
        for (const Entity &e : entities_)
            if (e.relation == relation) return true;
        return false;
    }

  private:
    std::vector<Entity> entities_;
    std::unordered_map<std::string, Concept> concepts_;
    std::unordered_map<std::string, std::vector<std::string>> term_candidates_;
    std::unordered_map<std::string, std::vector<std::string>> concept_terms_;
    std::unordered_map<std::string, std::vector<Default>> defaults_;
    std::unordered_map<std::string, std::vector<Approval>> approvals_;
    std::unordered_map<ColumnKey, GovernedColumn, ColumnKeyHash> columns_;
    std::unordered_map<std::uint32_t, std::vector<ColumnKey>> relation_columns_;
    std::unordered_map<std::uint32_t, std::vector<std::vector<std::int16_t>>> unique_keys_;
    std::vector<RoleId> referenced_roles_;
    std::unordered_map<std::string, Impact> term_impacts_;
    std::vector<ColumnKey> time_columns_;
    std::vector<Timestamp> change_times_;                        // sorted
    std::vector<std::pair<std::string, TermWords>> term_words_;  // sorted by term
    std::unordered_map<std::uint32_t, std::vector<std::string>> segment_relations_;
    std::shared_ptr<const void> segment_trees_;
};

// Lower-case ASCII letters and trim surrounding white space: how terms are compared.
std::string normalize_term(const std::string &term);

// Without surrounding ASCII white space (space, \t, \n, \v, \f, \r): how question texts are
// compared, byte for byte otherwise.
std::string_view trim_space(std::string_view text);

}  // namespace clarify
