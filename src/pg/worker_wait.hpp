// The wait every pg_clarify background worker loops on (writers, the keeper, the forwarder's
// socket waits): the latch, optionally a socket, a timeout; then interrupts and reloads served.
#pragma once

#include "pg/pg.hpp"

namespace clarify::pg {

// Waits for this process's latch, `events` on `socket` (none: PGINVALID_SOCKET and 0) or
// `timeout_ms` (-1: none), resets the latch when it reported it set, serves interrupts
// (CHECK_FOR_INTERRUPTS) and a pending configuration reload. Returns the events WaitLatchOrSocket
// reported. PostgreSQL code: call it inside pg_guard.
int worker_wait(int events, pgsocket socket, long timeout_ms);

}  // namespace clarify::pg
