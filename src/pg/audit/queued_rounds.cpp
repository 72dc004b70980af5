#include "pg/pg.hpp"
#include "pg/audit/queued_rounds.hpp"
#include "pg/audit/queue_layout.hpp"
#include "pg/boundary.hpp"
#include "core/audit/framing.hpp"

#include <string_view>

namespace clarify::pg {

namespace {

// The pending frames, copied out under the queue's lock (backends queue under it, and the
// writer moves read_pos under it only after its commit is visible).
constexpr uint64 kSlack = 64 * 1024;

struct PendingCopy {
    char *bytes = nullptr;  // palloc'd in the current memory context; nullptr: none
    uint64 length = 0;
};

PendingCopy copy_pending(Oid database) {
    return pg_guard([database] {
        PendingCopy out;
        if (!queues) return out;
        DatabaseQueue *queue = find_queue(database, false);
        if (!queue) return out;
        // Allocated before the lock is taken (an allocation may fail); what is queued after this
        // look is a concurrent decision, and a prefix of whole frames decodes alone.
        uint64 seen = pg_atomic_read_u64(&queue->write_pos) - pg_atomic_read_u64(&queue->read_pos);
        uint64 cap = Min(seen + kSlack, queues->ring_size);
        out.bytes = static_cast<char *>(MemoryContextAllocHuge(CurrentMemoryContext, cap));
        LWLockAcquire(queue->lock, LW_SHARED);
        uint64 read = pg_atomic_read_u64(&queue->read_pos);
        uint64 write = pg_atomic_read_u64(&queue->write_pos);
        if (queue->database == database && write > read) {
            out.length = Min(write - read, cap);
            ring_copy_out(queue, read, out.bytes, out.length);
        }
        LWLockRelease(queue->lock);
        return out;
    });
}

}  // namespace

std::vector<std::uint64_t> queued_round_ids(Oid database, const std::string &question_id) {
    std::vector<std::uint64_t> ids;
    PendingCopy pending = copy_pending(database);
    if (!pending.bytes) return ids;
    try {
        decode_frames(std::string_view(pending.bytes, pending.length),
                      [&](std::string_view, const AuditView &v, std::uint64_t) {
                          if (v.note.empty() && !v.allowed && v.state == State::Ambiguous &&
                              v.question_id == question_id)
                              ids.push_back(v.decision_id);
                          return true;
                      });
    } catch (...) {
        pg_guard([&] { pfree(pending.bytes); });
        throw;
    }
    pg_guard([&] { pfree(pending.bytes); });
    return ids;
}

}  // namespace clarify::pg
