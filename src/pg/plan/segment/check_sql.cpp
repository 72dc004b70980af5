// clarify_internal.segment_predicate_check(relation, predicate): the catalog's trigger
// (catalog/pg_clarify--1.2.sql, "Segments") refuses a predicate the gate could not compare.
#include "pg/pg.hpp"
#include "pg/plan/segment/predicate.hpp"

extern "C" {
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(clarify_segment_predicate_check);
}

namespace {

struct CheckContext {
    const char *relation;
};

// The parser's position points into the statement built around the predicate, not into the
// caller's: dropped, and the relation named.
void check_error_context(void *arg) {
    const auto *c = static_cast<const CheckContext *>(arg);
    errposition(0);
    errcontext("segment_predicate of a segment of %s", c->relation);
}

}  // namespace

// Plain C: it raises through PostgreSQL, and owns no C++ object.
extern "C" Datum clarify_segment_predicate_check(PG_FUNCTION_ARGS) {
    Oid relation = PG_GETARG_OID(0);
    const char *predicate = text_to_cstring(PG_GETARG_TEXT_PP(1));
    const char *name = get_rel_name(relation);
    CheckContext cc{name ? name : "a relation that does not exist"};
    ErrorContextCallback callback{error_context_stack, check_error_context, &cc};
    error_context_stack = &callback;
    clarify::pg::segment::parse_predicate(relation, predicate);
    error_context_stack = callback.previous;
    PG_RETURN_VOID();
}
