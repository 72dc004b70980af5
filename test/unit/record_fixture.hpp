// A resolution record with every field, in its full shape (docs/reference.md, "The resolution
// record"), for the record tests.
#pragma once

namespace clarify::testing {

inline const char *const kFullRecord = R"({
  "question_id": "q_1042",
  "question": "Show revenue for Germany last quarter",
  "bindings": [
    {"term": "revenue", "concept": "metric.recognized_revenue", "source": "user_confirmation"},
    {"term": "country", "concept": "dim.customer_country", "source": "approved_default"}
  ]
})";

}  // namespace clarify::testing
