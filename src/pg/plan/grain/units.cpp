#include "pg/pg.hpp"
#include "pg/plan/grain/units.hpp"
#include "pg/plan/grain/proof.hpp"

extern "C" {
#include "lib/stringinfo.h"
#include "nodes/primnodes.h"
#include "fmgr.h"
#include "utils/lsyscache.h"
}

#include <cstdlib>
#include <cstring>

namespace clarify::pg::grain {

namespace {

// "=EUR" for a constant (its text: 'EUR'::text and 'EUR'::bpchar are one currency), "$1" for a
// statement parameter, "#3" for an initplan's result; anything else is unique to its node.
const char *value_key(Expr *value) {
    while (value && IsA(value, RelabelType)) value = ((RelabelType *)value)->arg;
    StringInfoData key;
    initStringInfo(&key);
    if (value && IsA(value, Const)) {
        Const *c = (Const *)value;
        if (c->constisnull) {
            appendStringInfoString(&key, "null");
        } else {
            Oid output;
            bool varlena;
            getTypeOutputInfo(c->consttype, &output, &varlena);
            appendStringInfo(&key, "=%s", OidOutputFunctionCall(output, c->constvalue));
        }
    } else if (value && IsA(value, Param) && ((Param *)value)->paramkind == PARAM_EXTERN) {
        appendStringInfo(&key, "$%d", ((Param *)value)->paramid);
    } else if (value && IsA(value, Param) && ((Param *)value)->paramkind == PARAM_EXEC) {
        appendStringInfo(&key, "#%d", ((Param *)value)->paramid);
    } else {
        appendStringInfo(&key, "?%p", (void *)value);
    }
    return key.data;
}

}  // namespace

void record_fixed(AggregateFact *fact, List *values, const Bitmapset *grouped) {
    fact->fixed = (AttrNumber *)palloc(sizeof(AttrNumber) * (list_length(values) + 1));
    fact->fixed_values = (const char **)palloc(sizeof(char *) * (list_length(values) + 1));
    fact->n_fixed = 0;
    // Sorted by column: scan_single_valued gives each column once, in qual order.
    for (AttrNumber want = 1; fact->n_fixed < list_length(values);) {
        AttrNumber next = 0;
        Expr *value = nullptr;
        ListCell *lc;
        foreach (lc, values) {
            FixedColumn *f = (FixedColumn *)lfirst(lc);
            if (f->attnum >= want && (next == 0 || f->attnum < next)) {
                next = f->attnum;
                value = f->value;
            }
        }
        if (next == 0) break;
        want = next + 1;
        if (bms_is_member(next, grouped)) continue;
        fact->fixed[fact->n_fixed] = next;
        fact->fixed_values[fact->n_fixed++] = value_key(value);
    }
}

int compare_fixed(const AggregateFact &x, const AggregateFact &y) {
    if (x.n_fixed != y.n_fixed) return x.n_fixed < y.n_fixed ? -1 : 1;
    for (int i = 0; i < x.n_fixed; ++i) {
        if (x.fixed[i] != y.fixed[i]) return x.fixed[i] < y.fixed[i] ? -1 : 1;
        if (int c = strcmp(x.fixed_values[i], y.fixed_values[i])) return c;
    }
    return 0;
}

}  // namespace clarify::pg::grain
