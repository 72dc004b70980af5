#include "core/audit/forward_batch.hpp"

#include <cstring>
#include <map>
#include <random>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace clarify {

namespace {

void put_length(std::string &out, std::size_t length) {
    const auto n = static_cast<std::uint32_t>(length);
    const char be[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                        static_cast<char>(n >> 8), static_cast<char>(n)};
    out.append(be, sizeof(be));
}

std::uint32_t get_length(const char *p) {
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    return (std::uint32_t{u[0]} << 24) | (std::uint32_t{u[1]} << 16) | (std::uint32_t{u[2]} << 8) |
           std::uint32_t{u[3]};
}

// What stands in for the texts of a decision queued as a short entry whose texts the batch does
// not carry (the local writer's stand-ins say the same of texts its audit lost).
constexpr const char *kTextsNotForwarded =
    "(not available: the decision was queued without its texts, which were not forwarded)";
constexpr const char *kRecordNotForwarded =
    "{\"not_available\": \"the decision was queued without its texts, which were not forwarded\"}";

}  // namespace

bool ForwardedFrames::frame(std::string_view entry) {
    if (entries_ > 0 && bytes_.size() + 4 + entry.size() > max_bytes_) return false;
    put_length(bytes_, entry.size());
    bytes_.append(entry.data(), entry.size());
    ++entries_;
    return true;
}

bool ForwardedFrames::add(std::string_view entry, const AuditView &view) {
    if (view.is_short) {
        // Short already in the queue: its texts are in an audit this server may not have. The
        // primary resolves it only against full entries sent earlier in this batch.
        if (statements_.count(view.statement_hash) && shapes_.count(view.shape_hash) &&
            (view.record_hash.none() || records_.count(view.record_hash)))
            return frame(entry);
        AuditRecord stand_in = to_record(view);
        stand_in.is_short = false;
        stand_in.statement = stand_in.reason = kTextsNotForwarded;
        stand_in.columns = stand_in.bindings = "[]";
        stand_in.record = view.record_hash ? kRecordNotForwarded : "";
        stand_in.statement_hash = stand_in.shape_hash = stand_in.record_hash = AuditHash{};
        scratch_.clear();
        encode(stand_in, scratch_);
        return frame(scratch_);
    }
    if (!can_encode_short(view)) return frame(entry);
    bool sent = statements_.count(view.statement_hash) && shapes_.count(view.shape_hash) &&
                (view.record_hash.none() || records_.count(view.record_hash));
    if (!sent) {
        if (!frame(entry)) return false;
        statements_.insert(view.statement_hash);
        shapes_.insert(view.shape_hash);
        if (view.record_hash) records_.insert(view.record_hash);
        return true;
    }
    scratch_.clear();
    encode_short(view, scratch_);
    if (!frame(scratch_)) return false;
    ++shortened_;
    return true;
}

std::vector<AuditView> split_frames(std::string_view bytes) {
    std::vector<AuditView> batch;
    batch.reserve(bytes.size() / 128 + 1);
    for (std::size_t pos = 0, n = 1; pos < bytes.size(); ++n) {
        if (bytes.size() - pos < 4)
            throw AuditFormatError("entry " + std::to_string(n) + " is cut short");
        std::size_t length = get_length(bytes.data() + pos);
        pos += 4;
        if (bytes.size() - pos < length)
            throw AuditFormatError("entry " + std::to_string(n) + " is cut short");
        try {
            batch.push_back(decode_view(bytes.substr(pos, length)));
        } catch (const AuditFormatError &e) {
            throw AuditFormatError("entry " + std::to_string(n) + " is malformed: " + e.what());
        }
        pos += length;
    }
    return batch;
}

std::string resolve_short_entries(std::vector<AuditView> &batch) {
    // The first entry of the batch that carried each hash, by kind.
    std::unordered_map<AuditHash, std::size_t, LabelHasher> statements, shapes, records;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        AuditView &a = batch[i];
        if (!a.note.empty()) continue;
        auto named = [i] { return "entry " + std::to_string(i + 1); };
        if (!a.is_short) {
            // A full entry whose short form could be made (the writer's rule, can_encode_short)
            // defines the hashes it carries; one carried again must name the same text.
            if (!can_encode_short(a)) continue;
            {
                auto [at, fresh] = statements.emplace(a.statement_hash, i);
                if (!fresh && batch[at->second].statement != a.statement)
                    return named() + " carries the statement hash of entry " +
                           std::to_string(at->second + 1) + " with another statement";
            }
            {
                auto [at, fresh] = shapes.emplace(a.shape_hash, i);
                if (!fresh && !same_shape(batch[at->second], a))
                    return named() + " carries the shape hash of entry " +
                           std::to_string(at->second + 1) + " with another decision";
            }
            if (a.record_hash) {
                auto [at, fresh] = records.emplace(a.record_hash, i);
                if (!fresh && batch[at->second].record != a.record)
                    return named() + " carries the record hash of entry " +
                           std::to_string(at->second + 1) + " with another record";
            }
            continue;
        }
        auto statement = statements.find(a.statement_hash);
        if (statement == statements.end())
            return named() +
                   " is a short entry whose statement no earlier entry of the batch carries";
        auto shape = shapes.find(a.shape_hash);
        if (shape == shapes.end())
            return named() + " is a short entry whose shape no earlier entry of the batch carries";
        const AuditView &like = batch[shape->second];
        if (like.allowed != a.allowed || like.state != a.state)
            return named() + " is a short entry whose decision differs from the shape it names";
        std::string_view record;
        if (a.record_hash) {
            auto r = records.find(a.record_hash);
            if (r == records.end())
                return named() +
                       " is a short entry whose record no earlier entry of the batch carries";
            record = batch[r->second].record;
        }
        a.statement = batch[statement->second].statement;
        a.reason = like.reason;
        a.columns = like.columns;
        a.bindings = like.bindings;
        a.payload = like.payload;
        a.record = record;
        a.is_short = false;
    }
    return "";
}

std::size_t LabelHasher::operator()(const AuditHash &label) const {
    static const AuditKey key = [] {
        std::random_device random;
        auto word = [&random] { return (std::uint64_t{random()} << 32) | random(); };
        return AuditKey{word(), word()};
    }();
    // Both halves keyed and mixed (splitmix64's finaliser, a bijection): without the key, no
    // choice of labels predicts their buckets. A SipHash per lookup cost the ingest more.
    auto mix = [](std::uint64_t x) {
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    };
    return static_cast<std::size_t>(mix(label.lo ^ key.k0) ^ mix(mix(label.hi ^ key.k1)));
}

std::uint64_t identify_forwarded(std::vector<AuditView> &batch, const AuditKey &key) {
    // By where a text lies in the batch's bytes: a resolved short entry's texts are the views of
    // the entry it named, so they are found here without being compared or hashed again.
    using Span = std::pair<std::uintptr_t, std::size_t>;
    auto span = [](std::string_view text) {
        return Span{reinterpret_cast<std::uintptr_t>(text.data()), text.size()};
    };
    std::map<Span, AuditHash> statements, records;
    std::map<std::tuple<bool, State, Span, Span, Span, Span>, AuditHash> shapes;
    std::uint64_t hashed = 0;
    auto text_hash = [&](std::map<Span, AuditHash> &known, const char *kind,
                         std::string_view text) {
        auto [at, fresh] = known.try_emplace(span(text));
        if (fresh) {
            at->second = content_hash(key, kind, text);
            hashed += text.size();
        }
        return at->second;
    };
    auto same = [](std::string_view x, std::string_view y) {
        return x.size() == y.size() && (x.empty() || x.data() == y.data());
    };
    const AuditView *last = nullptr;
    for (AuditView &a : batch) {
        if (!a.note.empty()) {
            a.statement_hash = a.record_hash = a.shape_hash = AuditHash{};
            continue;
        }
        // A run of decisions resolved against the same entries (the common batch): the same views.
        if (last && same(last->statement, a.statement) && same(last->record, a.record) &&
            last->allowed == a.allowed && last->state == a.state && same(last->reason, a.reason) &&
            same(last->columns, a.columns) && same(last->bindings, a.bindings) &&
            same(last->payload, a.payload)) {
            a.statement_hash = last->statement_hash;
            a.record_hash = last->record_hash;
            a.shape_hash = last->shape_hash;
            continue;
        }
        last = &a;
        a.statement_hash = text_hash(statements, "statement", a.statement);
        a.record_hash = a.record.empty() ? AuditHash{} : text_hash(records, "record", a.record);
        auto [at, fresh] =
            shapes.try_emplace(std::make_tuple(a.allowed, a.state, span(a.reason), span(a.columns),
                                               span(a.bindings), span(a.payload)));
        if (fresh) {
            at->second = shape_hash_of(key, a);
            hashed += a.reason.size() + a.columns.size() + a.bindings.size() + a.payload.size();
        }
        a.shape_hash = at->second;
    }
    return hashed;
}

}  // namespace clarify
