// What the gate says: JSON payloads, the human message and the clarification question.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/decision.hpp"

#include <string>
#include <vector>

namespace clarify {

// The JSON of clarify.resolve(). `confirmed_by` is filled in only with reveal_confirmer: who
// confirmed what is not the agent's to know.
std::string resolution_json(const Catalog &catalog, const TermResolution &resolution,
                            bool reveal_confirmer);

// The one-line JSON DETAIL of a rejection (docs/reference.md, "SQLSTATEs"); with_decision adds
// "decision" (check()).
std::string decision_json(const Catalog &catalog, const Decision &decision,
                          const std::string &decision_id, const std::string &question_id,
                          bool with_decision);

// QC005's one-line DETAIL: what the gate decided, and why the decision could not be audited.
std::string audit_unavailable_json(const std::string &decision_id, const std::string &question_id,
                                   bool gate_allowed, State gate_state, const std::string &reason);

// clarify.check()'s result: decision_json with "decision", whether the session is gated and
// whether the statement reads governed columns.
std::string check_json(const Catalog &catalog, const Decision &decision,
                       const std::string &question_id, bool gated, bool governed);

// The error's MESSAGE: one sentence. The HINT: the question in business language only.
std::string message_text(const Catalog &catalog, const Decision &decision);
std::string hint_text(const Catalog &catalog, const Decision &decision);

// The WARNING for each meaning assumed rather than asked, in business language.
std::vector<std::string> assumption_texts(const Catalog &catalog, const Decision &decision);

// Audit columns: the governed columns read, and how each covered column was resolved.
std::string columns_json(const Decision &decision);
std::string bindings_json(const Decision &decision);

}  // namespace clarify
