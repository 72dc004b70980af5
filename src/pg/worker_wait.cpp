#include "pg/pg.hpp"
#include "pg/worker_wait.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"
#include "utils/guc.h"
}

namespace clarify::pg {

int worker_wait(int events, pgsocket socket, long timeout_ms) {
    int wait = WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | events | (timeout_ms >= 0 ? WL_TIMEOUT : 0);
    int got = WaitLatchOrSocket(MyLatch, wait, socket, timeout_ms, PG_WAIT_EXTENSION);
    // Only a set it reported: one arriving with a socket event stays set for the next wait.
    if (got & WL_LATCH_SET) ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
    if (ConfigReloadPending) {
        ConfigReloadPending = false;
        ProcessConfigFile(PGC_SIGHUP);
    }
    return got;
}

}  // namespace clarify::pg
