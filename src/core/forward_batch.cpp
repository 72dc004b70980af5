#include "forward_batch.hpp"

#include <unordered_map>

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

}  // namespace

void ForwardedFrames::frame(std::string_view entry) {
    put_length(bytes_, entry.size());
    bytes_.append(entry.data(), entry.size());
    ++entries_;
}

void ForwardedFrames::add(std::string_view entry, const AuditView &view) {
    if (!can_encode_short(view)) {
        frame(entry);
        return;
    }
    bool sent = statements_.count(view.statement_hash) && shapes_.count(view.shape_hash) &&
                (view.record_hash.none() || records_.count(view.record_hash));
    if (!sent) {
        frame(entry);
        statements_.insert(view.statement_hash);
        shapes_.insert(view.shape_hash);
        if (view.record_hash) records_.insert(view.record_hash);
        return;
    }
    scratch_.clear();
    encode_short(view, scratch_);
    frame(scratch_);
    ++shortened_;
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
    std::unordered_map<AuditHash, std::size_t, AuditHashHasher> statements, shapes, records;
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

}  // namespace clarify
