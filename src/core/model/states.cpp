#include "core/model/states.hpp"

namespace clarify {

namespace {

constexpr StateInfo kStates[] = {
    {State::Resolved, "RESOLVED", "00000", "resolved"},
    {State::Ambiguous, "AMBIGUOUS", "QC001", "awaiting_clarification"},
    {State::Unsupported, "UNSUPPORTED", "QC002", "awaiting_clarification"},
    {State::Mismatch, "MISMATCH", "QC003", "awaiting_clarification"},
    {State::Unverified, "UNVERIFIED", "QC004", "awaiting_clarification"},
    // A grain problem needs a rewrite, not a user's answer.
    {State::Grain, "GRAIN", "QC006", "awaiting_rewrite"},
    {State::AuditUnavailable, "AUDIT_UNAVAILABLE", "QC005", "audit_unavailable"},
};

}  // namespace

const StateInfo &state_info(State state) {
    for (const StateInfo &info : kStates)
        if (info.state == state) return info;
    return kStates[static_cast<int>(State::Unverified)];  // unreachable: every state is listed
}

const char *to_string(State state) {
    return state_info(state).name;
}

const char *sqlstate_of(State state) {
    return state_info(state).sqlstate;
}

const char *status_of(State state) {
    return state_info(state).status;
}

}  // namespace clarify
