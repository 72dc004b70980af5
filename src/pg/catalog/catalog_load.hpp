// Reading the governance catalog into the core's Catalog: the SQL that loads each table (the
// 1.1 columns only when the database has them), run through SPI by pg/catalog/catalog_cache.cpp as
// the owner.
#pragma once

#include "pg/pg.hpp"
#include "core/model/catalog.hpp"

#include <string>
#include <unordered_set>

namespace clarify::pg {

// Rows of one query, as text (nullptr for NULL), copied out of SPI by the caller.
struct Rows {
    uint64 count = 0;
    int width = 0;
    char **values = nullptr;  // row-major, palloc'd in the SPI procedure context
    const char *at(uint64 row, int col) const { return values[row * width + col]; }
};

// Runs a read-only query through SPI (connected by the caller); an error is raised, not thrown.
Rows query(const char *sql);
std::string text(const Rows &rows, uint64 r, int c);
long long integer(const Rows &rows, uint64 r, int c);

// Whether the catalog table has a column: a database not yet updated to 1.1 lacks the newer ones.
bool catalog_has_column(const char *table, const char *column);

// Fills the catalog from the clarify tables; `governed_relations` receives every relation a
// governed column lives in (their relcache invalidations make the catalog stale).
void load_catalog(Catalog &catalog, std::unordered_set<Oid> &governed_relations);

}  // namespace clarify::pg
