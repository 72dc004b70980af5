// A decision's DETAIL payload rendered once without its id, and this decision's id spliced in:
// a decision repeated (warn mode's WARNING, pg/executor/decision_path.cpp) renders its JSON once.
#pragma once
#include "core/core_guard.hpp"

#include <optional>
#include <string>

namespace clarify {

// `without_id`: decision_json(..., decision_id = "", ...). The same text as decision_json with
// `decision_id` would give, or nothing when `without_id` is not of that form (render anew then).
std::optional<std::string> splice_decision_id(const std::string &without_id,
                                              const std::string &decision_id);

}  // namespace clarify
