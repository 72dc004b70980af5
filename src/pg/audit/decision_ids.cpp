#include "pg/pg.hpp"
#include "pg/audit/decision_ids.hpp"
#include "pg/replica/origin.hpp"
#include "pg/shared_memory.hpp"

extern "C" {
#include "miscadmin.h"
}

#include <chrono>
#include <cstdint>

namespace clarify::pg {

namespace {

// Ids start from the microseconds since 2020 times 2^12 at each start of shared memory (crash
// restarts included), and each id taken moves them by 2^8 (the low byte is the node): a later
// start begins above every id an earlier one took as long as it took fewer than 16 per
// microsecond it ran (blocks of 64 per backend included). Room until about 2090.
constexpr int kIdShift = 12;
constexpr std::int64_t kIdEpochMicros = 1577836800LL * 1000000;  // 2020-01-01

}  // namespace

uint64 first_decision_id() {
    std::int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    return static_cast<uint64>(Max(micros - kIdEpochMicros, std::int64_t(1))) << kIdShift;
}

// Each backend takes ids in blocks: one shared atomic operation per kIdBlock decisions instead of
// one per decision (a cache line every deciding backend would otherwise pull to its CPU). Ids are
// unique and increase within a backend; across backends decided_at orders decisions.
// The low kNodeBits of an id are the server's node (origin_node of its origin): a primary and its
// standbys, whose counters may overlap, never hand out the same id (docs/design.md).
uint64 next_decision_id() {
    constexpr uint64 kIdBlock = 64;
    constexpr int kNodeBits = 8;
    static uint64 next = 0, end = 0, node = 0;
    static int owner = 0;  // a forked child (none expected) must not reuse its parent's block
    if (next == end || owner != MyProcPid) {
        next = pg_atomic_fetch_add_u64(shared_decision_ids(), kIdBlock) + 1;
        end = next + kIdBlock;
        owner = MyProcPid;
        node = origin_node(server_origin());
    }
    uint64 first = life_first_decision_id();
    return first + ((next++ - first) << kNodeBits) + node;
}

}  // namespace clarify::pg
