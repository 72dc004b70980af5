// The one table of states: each state's name, SQLSTATE and status, QC005 included.
#include "core/model/states.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace clarify {
namespace {

TEST(States, NamesAndSqlstates) {
    EXPECT_STREQ(to_string(State::Resolved), "RESOLVED");
    EXPECT_STREQ(sqlstate_of(State::Resolved), "00000");
    EXPECT_STREQ(sqlstate_of(State::Ambiguous), "QC001");
    EXPECT_STREQ(sqlstate_of(State::Unsupported), "QC002");
    EXPECT_STREQ(sqlstate_of(State::Mismatch), "QC003");
    EXPECT_STREQ(sqlstate_of(State::Unverified), "QC004");
    EXPECT_STREQ(to_string(State::Grain), "GRAIN");
    EXPECT_STREQ(sqlstate_of(State::Grain), "QC006");
    EXPECT_STREQ(to_string(State::AuditUnavailable), "AUDIT_UNAVAILABLE");
    EXPECT_STREQ(sqlstate_of(State::AuditUnavailable), "QC005");
}

TEST(States, Statuses) {
    EXPECT_STREQ(status_of(State::Resolved), "resolved");
    EXPECT_STREQ(status_of(State::Mismatch), "awaiting_clarification");
    EXPECT_STREQ(status_of(State::AuditUnavailable), "audit_unavailable");
}

TEST(States, EveryStateHasItsOwnRow) {
    std::set<std::string> names, sqlstates;
    for (State s : {State::Resolved, State::Ambiguous, State::Unsupported, State::Mismatch,
                    State::Unverified, State::Grain, State::AuditUnavailable}) {
        EXPECT_EQ(state_info(s).state, s);
        names.insert(to_string(s));
        sqlstates.insert(sqlstate_of(s));
    }
    EXPECT_EQ(names.size(), 7u);
    EXPECT_EQ(sqlstates.size(), 7u);
}

}  // namespace
}  // namespace clarify
