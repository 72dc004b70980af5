// ALTER ROLE ... RENAME fires no event trigger: a utility hook tells the catalog of this database
// (governance.cpp, follow_role_rename) so that its rows keep naming the role.
#pragma once

namespace clarify::pg {

void install_role_rename_hook();

}  // namespace clarify::pg
