// The audit's tables as the writer fills them: its prepared statements, the arrays it binds to
// them, the identities texts and shapes are stored under, and the storing of a batch's new texts
// and shapes. Plain SPI calls inside pg_guard; the writer's process and batches are in
// pg/audit/writer.cpp and pg/audit/batch.cpp.
#pragma once

#include "pg/pg.hpp"
#include "core/audit/batch_rows.hpp"
#include "core/audit/hash.hpp"
#include "core/audit/writer_cache.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "executor/spi.h"
#include "utils/array.h"
}

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace clarify::pg {

// Statements are prepared once per writer and kept (SPI_keepplan); PostgreSQL re-plans them if
// the audit tables are recreated.
struct Statement {
    const char *sql;
    int nargs;
    SPIPlanPtr plan;
    const Oid *types;  // nullptr: every parameter is text[]
};

// Indexed by whether the identities are wide (uuid) or narrow (bigint).
extern Statement existing_hashes[2], insert_texts[2], insert_shapes[2], insert_batch[2],
    insert_entity_batch[2];
extern Statement insert_notes;

Datum text_array(const Column &values);
void run(Statement &statement, const Datum *values);
void execute(Statement &statement, const std::vector<Column> &columns);
// A one-dimensional array of a fixed-width, by-value type (int8, timestamptz, oid, int4).
template <typename T>
Datum value_array(const std::vector<T> &values, const std::vector<bool> *nulls, Oid type) {
    static_assert(sizeof(T) == 8 || sizeof(T) == 4, "int8, timestamptz, oid or int4");
    int n = static_cast<int>(values.size());
    const T *v = values.data();
    if (!nulls && n > 0) {
        // Without nulls the array's data is the values as they are in memory: one copy, where
        // construct_md_array would store them one element at a time.
        return pg_guard([&] {
            Size bytes = ARR_OVERHEAD_NONULLS(1) + Size(n) * sizeof(T);
            auto *array = static_cast<ArrayType *>(palloc0(bytes));
            SET_VARSIZE(array, bytes);
            array->ndim = 1;
            array->dataoffset = 0;
            array->elemtype = type;
            ARR_DIMS(array)[0] = n;
            ARR_LBOUND(array)[0] = 1;
            memcpy(ARR_DATA_PTR(array), v, Size(n) * sizeof(T));
            return PointerGetDatum(array);
        });
    }
    std::vector<char> isnull(n, 0);
    if (nulls)
        for (int i = 0; i < n; ++i) isnull[i] = (*nulls)[i];
    const char *nl = isnull.data();
    return pg_guard([&] {
        Datum *elems = static_cast<Datum *>(palloc(sizeof(Datum) * (n + 1)));
        bool *flags = static_cast<bool *>(palloc(sizeof(bool) * (n + 1)));
        for (int i = 0; i < n; ++i) {
            flags[i] = nl[i];
            if constexpr (sizeof(T) == 8)
                elems[i] = Int64GetDatum(static_cast<int64>(v[i]));
            else
                elems[i] = Int32GetDatum(static_cast<int32>(v[i]));
        }
        int dims[1] = {n}, lbs[1] = {1};
        bool eight = sizeof(T) == 8;
        return PointerGetDatum(construct_md_array(elems, flags, 1, dims, lbs, type, eight ? 8 : 4,
                                                  eight ? FLOAT8PASSBYVAL : true,
                                                  eight ? TYPALIGN_DOUBLE : TYPALIGN_INT));
    });
}

// The identities of one column of a batch: uuid[] (16 bytes each, as they are), or bigint[].
Datum identity_array(const std::vector<AuditHash> &values, const std::vector<bool> *nulls,
                     Width width);
// The width of the identities the database's audit tables key by.
Width identity_width(Oid texts);

// A batch's decisions: the identities they refer to, and which of them each carried itself
// (core/audit/batch_rows.hpp, Carried) rather than naming them in a short entry.
struct Carriers {
    const std::vector<uint8> &carried;
    std::vector<AuditHash> &statement, &record, &shape;
};

// Inserts a batch's new texts and shapes. One whose identity the audit already holds with
// other bytes is never reused: it is stored again under a random identity, the decisions that
// carried it refer to that one instead, and `moved` maps the one to the other.
void store_texts_and_shapes(Width width, TextRows &texts, ShapeRows &shapes, Carriers &rows,
                            HashSet &fresh, HashMap &moved);

}  // namespace clarify::pg
