// Time windows (docs/reference.md, "Time ranges and impact"): their bound expressions checked
// when the catalog is written, and evaluated once per execution for the windows a record binds.
#pragma once

#include "pg/pg.hpp"
#include "core/decide/decision.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace clarify::pg {

// The [start, end) of each time window the record binds, and of each candidate of a period the
// question mentions, evaluated now. Raises the expression's error when one no longer evaluates.
std::vector<std::pair<std::string, TimeRange>> bound_windows(
    const std::shared_ptr<const Catalog> &catalog, const ResolutionRecord &record,
    const std::vector<std::string> &mentioned);

// An instant value of type date, timestamp or timestamptz as Unix microseconds (a date is its
// midnight in the session's time zone); false for ±infinity. PostgreSQL level: may raise.
bool instant_of(Datum value, Oid type, Timestamp *out);

// The first midnight (session time zone) at or after the instant. PostgreSQL level.
Timestamp midnight_at_or_after(Timestamp unix_micros);

}  // namespace clarify::pg
