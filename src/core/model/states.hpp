// Every state the gate reports, with its SQLSTATE and agent-facing status, in one table
// (docs/reference.md lists them for users).
#pragma once
#include "core/core_guard.hpp"

namespace clarify {

// Decision states in order of precedence (first reported wins), then AuditUnavailable: a
// decision that could not be audited (QC005), which no slot ever has.
enum class State {
    Resolved,
    Ambiguous,
    Unsupported,
    Mismatch,
    Unverified,
    Grain,
    AuditUnavailable
};

struct StateInfo {
    State state;
    const char *name;      // "AMBIGUOUS": the payload's and the audit's state
    const char *sqlstate;  // "QC001"; "00000" for Resolved
    const char *status;    // the payload's status: resolved, awaiting_clarification, ...
};

const StateInfo &state_info(State state);
const char *to_string(State state);
const char *sqlstate_of(State state);
const char *status_of(State state);

}  // namespace clarify
