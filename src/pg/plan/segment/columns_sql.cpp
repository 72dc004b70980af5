// clarify_internal.segment_predicate_columns(relation, predicate): the columns a segment's
// predicate reads, for clarify.lint() (catalog/pg_clarify--1.2.sql, "Lint: entities and segments
// over governed columns"). NULL when the predicate no longer parses, so lint reports the rest.
#include "pg/pg.hpp"
#include "pg/plan/segment/predicate.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/bitmapset.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

PG_FUNCTION_INFO_V1(clarify_segment_predicate_columns);
}

namespace {

// The predicate's columns as a name[]; raises when it does not parse.
Datum predicate_columns(Oid relation, const char *predicate) {
    Node *clause = clarify::pg::segment::parse_predicate(relation, predicate);
    Bitmapset *attnos = nullptr;
    pull_varattnos(clause, 1, &attnos);
    int count = bms_num_members(attnos);
    auto *names = static_cast<Datum *>(palloc0(sizeof(Datum) * (count > 0 ? count : 1)));
    int n = 0;
    for (int member = -1; (member = bms_next_member(attnos, member)) >= 0;) {
        auto attnum = static_cast<AttrNumber>(member + FirstLowInvalidHeapAttributeNumber);
        if (attnum <= 0) continue;  // a system column (ctid) is no governed column
        char *attname = get_attname(relation, attnum, true);
        if (attname == nullptr) continue;
        Name copy = static_cast<Name>(palloc0(NAMEDATALEN));
        namestrcpy(copy, attname);
        names[n++] = NameGetDatum(copy);
    }
    return PointerGetDatum(construct_array(names, n, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR));
}

}  // namespace

// Plain C: it raises through PostgreSQL, and owns no C++ object. A predicate that no longer
// parses (a column dropped since) is caught in a subtransaction and answered NULL.
extern "C" Datum clarify_segment_predicate_columns(PG_FUNCTION_ARGS) {
    Oid relation = PG_GETARG_OID(0);
    const char *predicate = text_to_cstring(PG_GETARG_TEXT_PP(1));
    MemoryContext caller = CurrentMemoryContext;
    ResourceOwner owner = CurrentResourceOwner;
    volatile Datum result = 0;
    volatile bool parsed = false;
    BeginInternalSubTransaction(nullptr);
    MemoryContextSwitchTo(caller);
    PG_TRY();
    {
        result = predicate_columns(relation, predicate);
        parsed = true;
        ReleaseCurrentSubTransaction();
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller);
        FlushErrorState();
        RollbackAndReleaseCurrentSubTransaction();
    }
    PG_END_TRY();
    MemoryContextSwitchTo(caller);
    CurrentResourceOwner = owner;
    if (!parsed) PG_RETURN_NULL();
    PG_RETURN_DATUM(result);
}
