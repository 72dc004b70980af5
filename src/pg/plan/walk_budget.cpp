#include "pg/pg.hpp"
#include "pg/plan/walk_budget.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

#include <climits>
#include <cstdint>

namespace clarify::pg::walk_budget {

int debug_delay_ms = 0;
int debug_kind = 0;

namespace {

const struct config_enum_entry kind_options[] = {
    {"all", 0, false},
    {"read_set", static_cast<int>(Kind::ReadSet), false},
    {"grain", static_cast<int>(Kind::Grain), false},
    {"proof", static_cast<int>(Kind::Proof), false},
    {"time", static_cast<int>(Kind::Time), false},
    {"segment", static_cast<int>(Kind::Segment), false},
    {"entity", static_cast<int>(Kind::Entity), false},
    {nullptr, 0, false},
};

struct Entry {
    const void *node;  // nullptr: a free slot
    int column;
    void *value;
};

}  // namespace

struct Memo {
    Entry *entries;
    uint32_t capacity;  // a power of two
    uint32_t used;
};

// Superuser only (and hidden): a role that could set it could hold its own backend, not the
// gate's decision, but tests are its only use.
void define_debug_settings() {
    DefineCustomIntVariable("pg_clarify.debug_walk_delay",
                            "For tests: how long the gate's plan walks wait at each step.",
                            "0: never. Makes a walk slow enough to cancel.", &debug_delay_ms, 0, 0,
                            INT_MAX, PGC_SUSET, GUC_UNIT_MS | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
                            nullptr, nullptr, nullptr);
    DefineCustomEnumVariable(
        "pg_clarify.debug_walk", "For tests: which walk pg_clarify.debug_walk_delay slows down.",
        "all, read_set, grain, proof, time, segment or entity.", &debug_kind, 0, kind_options,
        PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
}

// The wait lasts the whole delay: a latch set for another reason (the audit writer's answer)
// ends one WaitLatch early, not the delay.
void step(Kind kind) {
    if (debug_delay_ms > 0 && (debug_kind == 0 || debug_kind == static_cast<int>(kind))) {
        TimestampTz until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), debug_delay_ms);
        for (;;) {
            long left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), until);
            if (left <= 0) break;
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, left,
                            PG_WAIT_EXTENSION);
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
        }
    }
    CHECK_FOR_INTERRUPTS();
}

namespace {

uint32_t hash_of(const void *node, int column) {
    uint64_t h = reinterpret_cast<uintptr_t>(node) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= static_cast<uint64_t>(static_cast<uint32_t>(column)) * UINT64_C(0xC2B2AE3D27D4EB4F);
    return static_cast<uint32_t>(h ^ (h >> 29));
}

Entry *find(Entry *entries, uint32_t capacity, const void *node, int column) {
    uint32_t i = hash_of(node, column) & (capacity - 1);
    while (entries[i].node && (entries[i].node != node || entries[i].column != column))
        i = (i + 1) & (capacity - 1);
    return &entries[i];
}

void grow(Memo *memo) {
    uint32_t capacity = memo->capacity * 2;
    Entry *entries = static_cast<Entry *>(palloc0(sizeof(Entry) * capacity));
    for (uint32_t i = 0; i < memo->capacity; ++i)
        if (memo->entries[i].node)
            *find(entries, capacity, memo->entries[i].node, memo->entries[i].column) =
                memo->entries[i];
    pfree(memo->entries);
    memo->entries = entries;
    memo->capacity = capacity;
}

}  // namespace

Memo *memo_create() {
    Memo *memo = static_cast<Memo *>(palloc0(sizeof(Memo)));
    memo->capacity = 64;
    memo->entries = static_cast<Entry *>(palloc0(sizeof(Entry) * memo->capacity));
    return memo;
}

void *memo_get(const Memo *memo, const void *node, int column) {
    return find(memo->entries, memo->capacity, node, column)->value;
}

void memo_put(Memo *memo, const void *node, int column, void *value) {
    if ((memo->used + 1) * 2 > memo->capacity) grow(memo);
    Entry *e = find(memo->entries, memo->capacity, node, column);
    if (!e->node) {
        e->node = node;
        e->column = column;
        ++memo->used;
    }
    e->value = value;
}

}  // namespace clarify::pg::walk_budget
