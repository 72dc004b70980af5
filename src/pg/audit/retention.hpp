// The retention keeper's registration (pg/audit/retention.cpp).
#pragma once

namespace clarify::pg {

// Registers the keeper at server start (from _PG_init).
void register_audit_keeper();

}  // namespace clarify::pg
