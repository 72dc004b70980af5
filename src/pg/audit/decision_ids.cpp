#include "pg/pg.hpp"
#include "pg/audit/decision_ids.hpp"
#include "core/audit/decision_id.hpp"
#include "pg/replica/origin.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "miscadmin.h"
}

#include <chrono>
#include <cstdint>

namespace clarify::pg {

uint64 first_decision_id() {
    std::int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    return life_first_id(micros);
}

// Each backend takes ids in blocks: one shared atomic operation per kIdBlock decisions instead of
// one per decision (a cache line every deciding backend would otherwise pull to its CPU). Ids are
// unique and increase within a backend; across backends decided_at orders decisions. The node is
// the server's origin's (core/audit/decision_id.hpp): a primary and its standbys, whose counters
// may overlap, never hand out the same id.
uint64 next_decision_id() {
    static uint64 next = 0, end = 0, node = 0;
    static int owner = 0;  // a forked child (none expected) must not reuse its parent's block
    if (next == end || owner != MyProcPid) {
        next = pg_atomic_fetch_add_u64(shared_decision_ids(), kIdBlock) + 1;
        end = next + kIdBlock;
        owner = MyProcPid;
        node = origin_node(server_origin());
    }
    return decision_id(life_first_decision_id(), next++, uint32(node));
}

}  // namespace clarify::pg
