// The backend's view of the governance catalog: loaded lazily, invalidated transactionally
// (a trigger on every catalog table sends a relcache invalidation that our callback hears).
#pragma once

#include "pg/pg.hpp"
#include "core/model/catalog.hpp"
#include "core/decide/decision.hpp"

#include <functional>
#include <memory>

namespace clarify::pg {

void register_invalidation_callbacks();

// Whether the extension is installed in this database.
bool extension_present();

// True when the session user, the outer role (after SET ROLE) or the current user (inside a
// SECURITY DEFINER function, or maintenance acting as a table's owner) is a member of a governed
// role: code running with an agent's identity is gated whoever started it. Superuser status
// alone never counts. Cached until roles or memberships change.
bool session_is_gated();
// The cached answer without any catalog access: true only when it is known that these roles are
// not gated (the executor hook's fast path for everyone who is not an agent).
bool cached_not_gated(Oid session, Oid outer, Oid current);

// The catalog as of the last committed change, or nullptr when the extension is absent. Hold
// the pointer for as long as the catalog is used: a reload may replace it meanwhile.
std::shared_ptr<const Catalog> governance_catalog();

// Who is asking and when, for the rules of the core.
AgentContext agent_context(const Catalog &catalog);
// The same for given roles, uncached (clarify.replay() re-decides as each audited decision's).
AgentContext agent_context_for(const Catalog &catalog, Oid session_role, Oid acting_role);

// What a decision depends on besides the statement: the catalog, the memberships, the time.
uint64 catalog_generation();
uint64 membership_generation();
Timestamp statement_time();  // microseconds since the Unix epoch, as the catalog's timestamps

// True while this backend loads the catalog (its own queries are never decisions).
bool loading_governance();

// After ALTER ROLE old_name RENAME TO new_name: the rows of this database's catalog that name
// the role take the new name (other databases follow the role by the OID they recorded).
void follow_role_rename(const char *old_name, const char *new_name);

// Runs body with SPI connected, the newest committed snapshot and the extension owner as the
// current user (the audit is not the agent's to read); its own queries are never decisions.
void run_as_extension_owner(const std::function<void()> &body);

// Called by the catalog tables' trigger: every backend reloads at its next statement.
void announce_catalog_change(Oid table);

}  // namespace clarify::pg
