// SQL-callable functions (CONTRACT §7): thin extern "C" shells over C++ bodies.
#include "pg.hpp"
#include "boundary.hpp"
#include "gate.hpp"
#include "governance.hpp"
#include "payload.hpp"
#include "settings.hpp"

extern "C" {
#include "commands/trigger.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(clarify_resolve);
PG_FUNCTION_INFO_V1(clarify_check);
PG_FUNCTION_INFO_V1(clarify_last_decision);
PG_FUNCTION_INFO_V1(clarify_gated);
PG_FUNCTION_INFO_V1(clarify_catalog_changed);
}

#include <string>

namespace clarify::pg {
namespace {

std::string text_arg(FunctionCallInfo fcinfo, int n) {
    if (PG_ARGISNULL(n)) return {};
    char *value = pg_guard([&] { return text_to_cstring(PG_GETARG_TEXT_PP(n)); });
    return value;
}

Datum jsonb_datum(const std::string &json) {
    const char *text = json.c_str();
    return pg_guard([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(text)); });
}

const Catalog &require_catalog() {
    const Catalog *catalog = governance_catalog();
    if (!catalog)
        throw ReportedError(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                            "pg_clarify is not installed in this database");
    return *catalog;
}

}  // namespace
}  // namespace clarify::pg

using namespace clarify::pg;

extern "C" Datum clarify_resolve(PG_FUNCTION_ARGS) {
    return cpp_entry([&] {
        if (PG_ARGISNULL(0))
            throw ReportedError(ERRCODE_NULL_VALUE_NOT_ALLOWED, "term must not be null");
        const clarify::Catalog &catalog = require_catalog();
        clarify::TermResolution r =
            clarify::resolve_term(catalog, clarify::pg::agent_context(catalog), current_record(),
                                  text_arg(fcinfo, 0), text_arg(fcinfo, 1));
        return jsonb_datum(clarify::resolution_json(catalog, r));
    });
}

extern "C" Datum clarify_check(PG_FUNCTION_ARGS) {
    return cpp_entry([&] { return jsonb_datum(check_statement(text_arg(fcinfo, 0).c_str())); });
}

extern "C" Datum clarify_last_decision(PG_FUNCTION_ARGS) {
    Datum result = 0;
    bool found = cpp_entry([&] {
        std::string json = last_decision_json();
        if (json.empty()) return false;
        result = jsonb_datum(json);
        return true;
    });
    if (!found) PG_RETURN_NULL();
    return result;
}

extern "C" Datum clarify_gated(PG_FUNCTION_ARGS) {
    return BoolGetDatum(cpp_entry([] { return session_is_gated(); }));
}

extern "C" Datum clarify_catalog_changed(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("clarify.catalog_changed() must be called as a trigger")));
    Oid table = RelationGetRelid(((TriggerData *)fcinfo->context)->tg_relation);
    cpp_entry([&] { announce_catalog_change(table); });
    return PointerGetDatum(nullptr);
}
