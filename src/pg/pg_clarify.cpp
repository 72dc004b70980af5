// Entry of the library: fail closed unless preloaded, then settings, hooks and callbacks.
#include "pg.hpp"
extern "C" {
#include "fmgr.h"
#include "miscadmin.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);
}

#include "audit_keeper.hpp"
#include "audit_writer.hpp"
#include "compat.hpp"
#include "gate.hpp"
#include "governance.hpp"
#include "settings.hpp"

void _PG_init(void) {
    if (!process_shared_preload_libraries_in_progress)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("pg_clarify must be loaded through shared_preload_libraries"),
                        errhint("Add pg_clarify to shared_preload_libraries in postgresql.conf and "
                                "restart the server; the gate never runs half-installed.")));
    // The audit and last_decision() name statements by query id (compute_query_id = auto).
    EnableQueryId();
    clarify::pg::define_settings();
    clarify::pg::install_gate();
    // Audit writers that never need a free worker slot: governed reads do not depend on one.
    clarify::pg::register_reserved_writers();
    // Holds the WAL of sync decisions until their writer has them; replays them after a crash.
    clarify::pg::register_audit_keeper();
    clarify::pg::register_invalidation_callbacks();
}
