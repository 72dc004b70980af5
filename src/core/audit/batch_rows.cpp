#include "core/audit/batch_rows.hpp"

#include "core/model/states.hpp"

#include <utility>

namespace clarify {

const char *const kLostText =
    "(not available: the audit's tables were recreated while this decision was queued)";
const char *const kLostRecord =
    "{\"not_available\": \"the audit's tables were recreated while this decision was queued\"}";

AuditRecord lost_shape(bool allowed, State state) {
    AuditRecord lost;
    lost.allowed = allowed;
    lost.state = state;
    lost.reason = kLostText;
    lost.columns = "[]";
    lost.bindings = "[]";
    return lost;
}

AuditRecord unwritable(const AuditRecord &a, const std::string &error) {
    AuditRecord safe = a;
    safe.is_short = false;  // its texts are given here
    // Its content differs from the shape and record the backend hashed: hashed anew.
    safe.shape_hash = AuditHash{};
    safe.record_hash = AuditHash{};
    safe.statement_hash = AuditHash{};
    safe.columns = "[]";
    safe.bindings = "[]";
    safe.payload.clear();
    safe.record.clear();
    safe.statement = "(not stored: the decision's row could not be written)";
    safe.reason = "unwritable decision for question \"" + a.question_id.substr(0, 200) + "\" (" +
                  error.substr(0, 200) + ")";
    safe.question_id.clear();
    safe.entity_bindings.clear();  // its entity bindings may be what could not be written
    for (char &c : safe.reason)
        if (c == '\0') c = ' ';
    return safe;
}

template <typename Entry>
std::vector<AuditHash> hashes_to_look_up(const std::vector<Entry> &batch,
                                         const WriterCache &cache) {
    std::vector<AuditHash> unknown;
    HashSet seen;
    const Entry *previous = nullptr;
    for (const Entry &a : batch) {
        if (!a.is_short) continue;
        if (previous && previous->statement_hash == a.statement_hash &&
            previous->shape_hash == a.shape_hash && previous->record_hash == a.record_hash)
            continue;
        previous = &a;
        for (const AuditHash &h : {a.statement_hash, a.shape_hash, a.record_hash})
            if (h && !cache.stored(h) && seen.insert(h).second) unknown.push_back(h);
    }
    return unknown;
}

namespace {

// Builds one batch's rows; each text and shape is queued for insertion once.
template <typename Entry>
class RowBuilder {
  public:
    RowBuilder(const WriterCache &cache, const HashSet &missing, const AuditKey &key)
        : cache_(cache), missing_(missing), key_(key) {}

    void add(const Entry &a) {
        if (!a.note.empty()) {
            add_note(a);
            return;
        }
        if (a.is_short)
            add_short(a);
        else
            add_full(a);
        consider_publishing();
        rows_.id.push_back(static_cast<std::int64_t>(a.decision_id));
        rows_.at.push_back(a.decided_at);
        rows_.session_role.push_back(a.session_role);
        rows_.acting_role.push_back(a.acting_role);
        rows_.pid.push_back(a.pid);
        rows_.query_id.push_back(a.query_id);
        rows_.question.push_back(a.question_id.empty() ? std::nullopt
                                                       : std::optional<std::string>(a.question_id));
        if (a.entity_bindings.empty()) {
            rows_.entity_bindings.emplace_back();
        } else {
            rows_.entity_bindings.emplace_back(std::string(a.entity_bindings));
            rows_.any_entity_bindings = true;
        }
    }
    BatchRows take() { return std::move(rows_); }

  private:
    void add_note(const Entry &a) {
        rows_.note_id.push_back(std::to_string(static_cast<long long>(a.decision_id)));
        rows_.note_at.push_back(std::to_string(a.decided_at));
        rows_.note_text.push_back(std::string(a.note));
    }

    // A short entry: its backend saw every one of its hashes published, so the audit holds them
    // unless they are `missing` (its tables were recreated meanwhile).
    void add_short(const Entry &a) {
        bool lost_record = a.record_hash && missing_.count(a.record_hash);
        bool lost_statement = missing_.count(a.statement_hash) > 0;
        bool lost_shape_ = missing_.count(a.shape_hash) > 0;
        rows_.statement.push_back(lost_statement ? text("statement", kLostText, {})
                                                 : a.statement_hash);
        rows_.record_null.push_back(a.record_hash.none());
        rows_.record.push_back(lost_record ? text("record", kLostRecord, {}) : a.record_hash);
        if (lost_shape_) {
            AuditRecord lost = lost_shape(a.allowed, a.state);
            rows_.shape.push_back(shape(lost, shape_hash_of(key_, lost)));
        } else {
            rows_.shape.push_back(a.shape_hash);
        }
        rows_.carried.push_back(std::uint8_t((lost_statement ? kCarriedStatement : 0) |
                                             (lost_record ? kCarriedRecord : 0) |
                                             (lost_shape_ ? kCarriedShape : 0)));
    }

    void add_full(const Entry &a) {
        rows_.statement.push_back(text("statement", a.statement, a.statement_hash));
        rows_.record_null.push_back(a.record.empty());
        rows_.record.push_back(a.record.empty() ? AuditHash{}
                                                : text("record", a.record, a.record_hash));
        rows_.shape.push_back(shape(a, a.shape_hash ? a.shape_hash : shape_hash_of(key_, a)));
        rows_.carried.push_back(std::uint8_t(
            kCarriedStatement | (a.record.empty() ? 0 : kCarriedRecord) | kCarriedShape));
    }

    // Queues the text's row unless it is stored already; returns its identity.
    AuditHash text(const char *kind, std::string_view body, const AuditHash &given) {
        AuditHash h = given ? given : content_hash(key_, kind, body);
        if (const AuditHash *d = cache_.diverted(h)) return *d;
        if (!cache_.stored(h) && rows_.fresh.insert(h).second) {
            rows_.new_texts.ids.push_back(h);
            rows_.new_texts.body.push_back(std::string(body));
        }
        return h;
    }

    template <typename Shape>
    AuditHash shape(const Shape &a, const AuditHash &h) {
        if (const AuditHash *d = cache_.diverted(h)) return *d;
        if (!cache_.stored(h) && rows_.fresh.insert(h).second) {
            ShapeRows &s = rows_.new_shapes;
            s.ids.push_back(h);
            s.allowed.push_back(a.allowed ? "true" : "false");
            s.state.push_back(std::string(to_string(a.state)));
            s.reason.push_back(std::string(a.reason));
            s.columns.push_back(std::string(a.columns));
            s.bindings.push_back(std::string(a.bindings));
            s.payload.push_back(a.payload.empty() ? std::nullopt
                                                  : std::optional<std::string>(a.payload));
        }
        return h;
    }

    // Published for short entries once seen again (stored by an earlier batch).
    void consider_publishing() {
        AuditHash now[3] = {rows_.statement.back(), rows_.shape.back(), rows_.record.back()};
        if (now[0] == last_[0] && now[1] == last_[1] && now[2] == last_[2]) return;
        for (int i = 0; i < 3; ++i) last_[i] = now[i];
        for (const AuditHash &h : now)
            if (h && cache_.stored(h) && !cache_.published(h) && to_publish_.insert(h).second)
                rows_.to_publish.push_back(h);
    }

    const WriterCache &cache_;
    const HashSet &missing_;
    const AuditKey &key_;
    BatchRows rows_;
    HashSet to_publish_;
    AuditHash last_[3];
};

}  // namespace

template <typename Entry>
BatchRows batch_rows(const std::vector<Entry> &batch, const WriterCache &cache,
                     const HashSet &missing, const AuditKey &key, Width width) {
    RowBuilder<Entry> builder(cache, missing, key);
    for (const Entry &a : batch) builder.add(a);
    BatchRows rows = builder.take();
    if (width != Width::Wide) rows.to_publish.clear();
    return rows;
}

template std::vector<AuditHash> hashes_to_look_up(const std::vector<AuditRecord> &,
                                                  const WriterCache &);
template std::vector<AuditHash> hashes_to_look_up(const std::vector<AuditView> &,
                                                  const WriterCache &);
template BatchRows batch_rows(const std::vector<AuditRecord> &, const WriterCache &,
                              const HashSet &, const AuditKey &, Width);
template BatchRows batch_rows(const std::vector<AuditView> &, const WriterCache &, const HashSet &,
                              const AuditKey &, Width);

}  // namespace clarify
