// What keeps the gate's plan walks linear and cancellable (docs/reference.md, "Bounds of the
// gate's work"): a step taken at every plan node a walk visits (it honours cancels and
// statement_timeout, and the developer setting that slows a walk down for tests), and a memo
// keyed by (plan node, column) so that a subplan referenced many times is traced once.
// Plain C-style routines: call them inside pg_guard.
#pragma once

#include "pg/pg.hpp"

#include <cstdint>

namespace clarify::pg::walk_budget {

// Which walk a step belongs to (pg_clarify.debug_walk names one to slow down).
enum class Kind { ReadSet = 1, Grain = 2, Proof = 3, Time = 4, Segment = 5, Entity = 6 };

// pg_clarify.debug_walk_delay (ms, 0: off) and pg_clarify.debug_walk (a Kind, 0: every walk).
extern int debug_delay_ms;
extern int debug_kind;
void define_debug_settings();

// Called at every plan node a walk visits: raises a pending cancel (ERROR) and, when the
// developer setting asks for it, waits (interruptibly) first.
void step(Kind kind);

// A hash map from (node, column) to a pointer, palloc'd in the memory context current when it
// is made; entries are never removed.
struct Memo;
Memo *memo_create();
// The value kept for (node, column); nullptr when none (or nullptr was kept).
void *memo_get(const Memo *memo, const void *node, int column);
// Keeps `value` for (node, column), replacing what was kept.
void memo_put(Memo *memo, const void *node, int column, void *value);
// A boolean or a small number as a kept value (never nullptr).
inline void *memo_value(int value) {
    return reinterpret_cast<void *>(static_cast<intptr_t>(value) + 1);
}
inline void *memo_bool(bool value) {
    return memo_value(value ? 1 : 0);
}

}  // namespace clarify::pg::walk_budget
