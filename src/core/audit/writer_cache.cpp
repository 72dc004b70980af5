#include "core/audit/writer_cache.hpp"

#include <utility>

namespace clarify {

AuditHash identity_of(const AuditHash &h, Width width) {
    return width == Width::Wide ? h : AuditHash{h.lo, 0};
}

bool WriterCache::recreated(const TextTables &now) const {
    bool moved = last_.texts != 0 && (now.texts != last_.texts || now.shapes != last_.shapes);
    return moved || (last_.width != Width::Unknown && now.width != last_.width);
}

bool WriterCache::first_narrow(const TextTables &now) const {
    return now.width == Width::Narrow && last_.width != Width::Narrow;
}

void WriterCache::begin_batch(std::uint64_t purge_generation, const TextTables &now) {
    if (purge_generation != seen_generation_ || recreated(now) || stored_.size() > kMaxStored)
        forget();
    seen_generation_ = purge_generation;
    purge_seen_ = purge_generation;
    last_ = now;
    to_publish_.clear();
}

const AuditHash *WriterCache::diverted(const AuditHash &h) const {
    auto d = diverted_.find(h);
    return d == diverted_.end() ? nullptr : &d->second;
}

void WriterCache::committed(const HashSet &fresh, const HashMap &moved,
                            std::vector<AuditHash> to_publish) noexcept {
    try {
        to_publish_ = std::move(to_publish);
        for (const AuditHash &h : fresh) stored_.insert(h);
        diverted_.insert(moved.begin(), moved.end());
    } catch (...) {
        forget();
    }
}

void WriterCache::note_published(bool kept, bool may_publish) noexcept {
    try {
        if (!kept) published_.clear();
        if (may_publish)
            for (const AuditHash &h : to_publish_) published_.insert(h);
    } catch (...) {
        published_.clear();
    }
    to_publish_.clear();
}

void WriterCache::forget() noexcept {
    stored_.clear();
    published_.clear();
    diverted_.clear();
    to_publish_.clear();
}

}  // namespace clarify
