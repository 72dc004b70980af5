// ALTER ROLE ... RENAME fires no event trigger: a utility hook tells the catalog of this database
// (pg/catalog/catalog_cache.cpp, follow_role_rename) so that its rows keep naming the role.
#pragma once

namespace clarify::pg {

void install_role_rename_hook();

}  // namespace clarify::pg
