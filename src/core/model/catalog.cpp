#include "core/model/catalog.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <cctype>

namespace clarify {

const char *to_string(ConceptKind kind) {
    switch (kind) {
        case ConceptKind::Metric:
            return "metric";
        case ConceptKind::Dimension:
            return "dimension";
        case ConceptKind::TimeWindow:
            return "time_window";
        case ConceptKind::Segment:
            return "segment";
    }
    return "metric";
}

const char *to_string(ConceptStatus status) {
    switch (status) {
        case ConceptStatus::Draft:
            return "draft";
        case ConceptStatus::Approved:
            return "approved";
        case ConceptStatus::Deprecated:
            return "deprecated";
    }
    return "draft";
}

std::optional<ConceptKind> parse_kind(const std::string &text) {
    if (text == "metric") return ConceptKind::Metric;
    if (text == "dimension") return ConceptKind::Dimension;
    if (text == "time_window") return ConceptKind::TimeWindow;
    if (text == "segment") return ConceptKind::Segment;
    return std::nullopt;
}

std::optional<ConceptStatus> parse_status(const std::string &text) {
    if (text == "draft") return ConceptStatus::Draft;
    if (text == "approved") return ConceptStatus::Approved;
    if (text == "deprecated") return ConceptStatus::Deprecated;
    return std::nullopt;
}

const char *to_string(Additivity additivity) {
    switch (additivity) {
        case Additivity::Additive:
            return "additive";
        case Additivity::SemiAdditive:
            return "semi_additive";
        case Additivity::NonAdditive:
            return "non_additive";
    }
    return "additive";
}

std::optional<Additivity> parse_additivity(const std::string &text) {
    if (text == "additive") return Additivity::Additive;
    if (text == "semi_additive") return Additivity::SemiAdditive;
    if (text == "non_additive") return Additivity::NonAdditive;
    return std::nullopt;
}

std::vector<std::string> parse_aliases(const std::string &json_array) {
    nlohmann::json parsed = nlohmann::json::parse(json_array, nullptr, false);
    if (parsed.is_discarded()) throw std::invalid_argument("aliases are not JSON: " + json_array);
    std::vector<std::string> out;
    for (const auto &alias : parsed)
        if (alias.is_string()) out.push_back(alias.get<std::string>());
    return out;
}

std::string_view trim_space(std::string_view text) {
    auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
    };
    std::size_t begin = 0, end = text.size();
    while (begin < end && space(text[begin])) ++begin;
    while (end > begin && space(text[end - 1])) --end;
    return text.substr(begin, end - begin);
}

std::string normalize_term(const std::string &term) {
    std::string out(trim_space(term));
    // ASCII letters only, as the catalog's normalize_term(): std::tolower would follow the
    // backend's LC_CTYPE and fold other bytes in some single-byte locales.
    for (char &c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

void Catalog::add_concept(Concept concept) {
    std::string id = concept.id;
    concepts_[id] = std::move(concept);
}

void Catalog::add_term(const std::string &term, const std::string &concept_id) {
    std::string t = normalize_term(term);
    term_candidates_[t].push_back(concept_id);
    concept_terms_[concept_id].push_back(t);
}

void Catalog::set_impact(const std::string &term, Impact impact) {
    std::string t = normalize_term(term);
    auto it = term_impacts_.find(t);
    if (it == term_impacts_.end() || it->second < impact) term_impacts_[t] = impact;
}

Impact Catalog::impact_of(const std::string &term) const {
    auto it = term_impacts_.find(term);
    return it == term_impacts_.end() ? Impact::High : it->second;
}

void Catalog::add_time_policy(ColumnKey key, TimePolicy policy) {
    auto it = columns_.find(key);
    if (it == columns_.end()) return;
    for (TimePolicy &p : it->second.time_policies)
        if (p.concept_id == policy.concept_id) {
            p = std::move(policy);
            return;
        }
    it->second.time_policies.push_back(std::move(policy));
    time_columns_.push_back(ColumnKey{key.relation, it->second.time_policies.back().time_attnum});
}

const TimePolicy *GovernedColumn::time_policy(const std::string &concept_id) const {
    for (const TimePolicy &p : time_policies)
        if (p.concept_id == concept_id) return &p;
    return nullptr;
}

const std::vector<std::string> &Catalog::segments_on(std::uint32_t relation) const {
    static const std::vector<std::string> none;
    auto it = segment_relations_.find(relation);
    return it == segment_relations_.end() ? none : it->second;
}

std::vector<std::string> Catalog::time_windows() const {
    std::vector<std::string> out;
    for (const auto &entry : concepts_)
        if (entry.second.kind == ConceptKind::TimeWindow) out.push_back(entry.first);
    std::sort(out.begin(), out.end());
    return out;
}

void Catalog::add_default(Default def) {
    def.term = normalize_term(def.term);
    std::string t = def.term;
    defaults_[t].push_back(std::move(def));
}

void Catalog::add_approval(Approval approval) {
    approval.term = normalize_term(approval.term);
    approval.question = std::string(trim_space(approval.question));
    std::string q = approval.question_id;
    approvals_[q].push_back(std::move(approval));
}

void Catalog::add_column(ColumnKey key, const std::string &name, const std::string &concept_id,
                         std::int16_t snapshot_attnum, const std::string &snapshot_column) {
    GovernedColumn &column = columns_[key];
    if (column.concept_ids.empty()) relation_columns_[key.relation].push_back(key);
    column.key = key;
    column.name = name;
    column.relation = key.relation;
    if (snapshot_attnum > 0 && !column.snapshot_of(concept_id))
        column.snapshots.push_back({concept_id, snapshot_attnum, snapshot_column});
    if (std::find(column.concept_ids.begin(), column.concept_ids.end(), concept_id) ==
        column.concept_ids.end())
        column.concept_ids.push_back(concept_id);
}

void Catalog::add_unit_column(ColumnKey key, const std::string &concept_id, std::int16_t attnum,
                              const std::string &column) {
    auto it = columns_.find(key);
    if (it != columns_.end() && !it->second.unit_of(concept_id))
        it->second.units.push_back({concept_id, attnum, column});
}

void Catalog::set_units(const std::string &concept_id, const std::string &unit,
                        const std::string &window_time_zone) {
    auto it = concepts_.find(concept_id);
    if (it == concepts_.end()) return;
    it->second.unit = unit;
    it->second.window_time_zone = window_time_zone;
}

void Catalog::finalize() {
    // Stable orders make payloads and tests deterministic whatever the load order.
    auto sort_unique = [](std::vector<std::string> &v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    for (auto &entry : term_candidates_) sort_unique(entry.second);
    for (auto &entry : concept_terms_) sort_unique(entry.second);
    term_words_.clear();
    for (const auto &entry : term_candidates_)
        term_words_.emplace_back(entry.first, term_words(entry.first));
    std::sort(term_words_.begin(), term_words_.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto &entry : columns_)
        std::sort(entry.second.concept_ids.begin(), entry.second.concept_ids.end());
    segment_relations_.clear();
    for (const auto &entry : concepts_)
        if (entry.second.kind == ConceptKind::Segment && entry.second.segment_relation)
            segment_relations_[entry.second.segment_relation].push_back(entry.first);
    for (auto &entry : segment_relations_) sort_unique(entry.second);
    std::vector<RoleId> roles;
    for (const auto &entry : defaults_)
        for (const Default &d : entry.second)
            if (d.applies_to != kEveryone) roles.push_back(d.applies_to);
    for (const auto &entry : approvals_)
        for (const Approval &a : entry.second)
            if (a.granted_to != kEveryone) roles.push_back(a.granted_to);
    std::sort(roles.begin(), roles.end());
    roles.erase(std::unique(roles.begin(), roles.end()), roles.end());
    referenced_roles_ = std::move(roles);
    std::sort(time_columns_.begin(), time_columns_.end(),
              [](const ColumnKey &a, const ColumnKey &b) {
                  return a.relation != b.relation ? a.relation < b.relation : a.attnum < b.attnum;
              });
    time_columns_.erase(std::unique(time_columns_.begin(), time_columns_.end()),
                        time_columns_.end());

    std::vector<Timestamp> times;
    auto note = [&times](Timestamp t) {
        if (t != kNoLimit && t != kSinceAlways) times.push_back(t);
    };
    for (const auto &entry : concepts_) {
        note(entry.second.valid_from);
        note(entry.second.valid_until);
    }
    for (const auto &entry : defaults_)
        for (const Default &d : entry.second) note(d.valid_until);
    for (const auto &entry : approvals_)
        for (const Approval &a : entry.second) note(a.expires_at);
    std::sort(times.begin(), times.end());
    change_times_ = std::move(times);
}

void Catalog::add_unique_key(std::uint32_t relation, std::vector<std::int16_t> attnums) {
    std::sort(attnums.begin(), attnums.end());
    attnums.erase(std::unique(attnums.begin(), attnums.end()), attnums.end());
    if (!attnums.empty()) unique_keys_[relation].push_back(std::move(attnums));
}

const std::vector<std::vector<std::int16_t>> &Catalog::unique_keys(std::uint32_t relation) const {
    static const std::vector<std::vector<std::int16_t>> none;
    auto it = unique_keys_.find(relation);
    return it == unique_keys_.end() ? none : it->second;
}

Timestamp Catalog::next_change_after(Timestamp now) const {
    auto it = std::upper_bound(change_times_.begin(), change_times_.end(), now);
    return it == change_times_.end() ? kNoLimit : *it;
}

const Concept *Catalog::concept(const std::string &id) const {
    auto it = concepts_.find(id);
    return it == concepts_.end() ? nullptr : &it->second;
}

namespace {
template <typename Map>
const typename Map::mapped_type &find_or_empty(const Map &map, const std::string &key) {
    static const typename Map::mapped_type empty{};
    auto it = map.find(key);
    return it == map.end() ? empty : it->second;
}
}  // namespace

std::vector<std::string> Catalog::mentioned_terms(const std::string &question) const {
    std::vector<std::string> out;
    if (trim_space(question).empty()) return out;
    const std::u32string folded = folded_text(question);
    for (const auto &entry : term_words_)
        if (mentions_term(folded, entry.second)) out.push_back(entry.first);
    return out;
}

const std::vector<std::string> &Catalog::candidates(const std::string &term) const {
    return find_or_empty(term_candidates_, term);
}

const std::vector<std::string> &Catalog::terms_of(const std::string &concept_id) const {
    return find_or_empty(concept_terms_, concept_id);
}

const std::vector<Default> &Catalog::defaults_for(const std::string &term) const {
    return find_or_empty(defaults_, term);
}

const std::vector<Approval> &Catalog::approvals_for(const std::string &question_id) const {
    return find_or_empty(approvals_, question_id);
}

std::vector<const GovernedColumn *> Catalog::columns_of(std::uint32_t relation) const {
    std::vector<const GovernedColumn *> out;
    auto it = relation_columns_.find(relation);
    if (it == relation_columns_.end()) return out;
    for (const ColumnKey &key : it->second) out.push_back(column(key));
    return out;
}

const GovernedColumn *Catalog::column(ColumnKey key) const {
    auto it = columns_.find(key);
    return it == columns_.end() ? nullptr : &it->second;
}

}  // namespace clarify
