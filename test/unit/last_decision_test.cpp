// clarify.last_decision()'s JSON, built from the audit record and what the glue adds.
#include "core/render/last_decision_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace clarify {
namespace {

using nlohmann::json;

AuditRecord rejected() {
    AuditRecord a;
    a.decision_id = 3659401256763395ULL;
    a.pid = 4242;
    a.query_id = -77;
    a.allowed = false;
    a.state = State::Mismatch;
    a.question_id = "q_1042";
    a.statement = "SELECT sum(booked_amount) FROM sales.orders";
    a.reason = "the record resolves \"revenue\" to Recognized revenue";
    a.columns = "[\"sales.orders.booked_amount\"]";
    a.bindings = "[]";
    a.payload = "{\"state\":\"MISMATCH\",\"slots\":[{\"term\":\"revenue\"}]}";
    a.record = "{\"question_id\":\"q_1042\"}";
    return a;
}

LastDecisionFacts facts(bool refused) {
    LastDecisionFacts f;
    f.audited = refused ? "no audit writer could serve this database" : "committed";
    f.refused_unaudited = refused;
    f.session_role = "app";
    f.acting_role = "agent";
    f.decided_at = "2026-11-30 19:58:16.5+00";
    return f;
}

TEST(LastDecisionJson, ARejectionAsAudited) {
    json o = json::parse(last_decision_json(rejected(), facts(false)));
    EXPECT_EQ(o.at("decision_id"), "3659401256763395");
    EXPECT_EQ(o.at("decision"), "rejected");
    EXPECT_EQ(o.at("state"), "MISMATCH");
    EXPECT_EQ(o.at("gate_decision"), "rejected");
    EXPECT_EQ(o.at("status"), "awaiting_clarification");
    EXPECT_EQ(o.at("question_id"), "q_1042");
    EXPECT_EQ(o.at("columns"), json::array({"sales.orders.booked_amount"}));
    EXPECT_EQ(o.at("bindings"), json::array());
    EXPECT_EQ(o.at("slots"), json::parse("[{\"term\":\"revenue\"}]"));
    // The payload as the agent got it: with its decision id.
    EXPECT_EQ(o.at("payload").at("decision_id"), "3659401256763395");
    EXPECT_EQ(o.at("record").at("question_id"), "q_1042");
    EXPECT_EQ(o.at("query_id"), -77);
    EXPECT_EQ(o.at("pid"), 4242);
    EXPECT_EQ(o.at("audited"), "committed");
    EXPECT_EQ(o.at("session_role"), "app");
    EXPECT_EQ(o.at("acting_role"), "agent");
    EXPECT_EQ(o.at("decided_at"), "2026-11-30 19:58:16.5+00");
}

TEST(LastDecisionJson, AnAllowedDecisionHasNoPayloadNorRecord) {
    AuditRecord a;
    a.decision_id = 7;
    a.columns = "[]";
    a.bindings = "[]";
    json o = json::parse(last_decision_json(a, facts(false)));
    EXPECT_EQ(o.at("decision"), "allowed");
    EXPECT_EQ(o.at("state"), "RESOLVED");
    EXPECT_EQ(o.at("status"), "resolved");
    EXPECT_TRUE(o.at("question_id").is_null());
    EXPECT_TRUE(o.at("payload").is_null());
    EXPECT_TRUE(o.at("record").is_null());
    EXPECT_EQ(o.at("slots"), json::array());
}

TEST(LastDecisionJson, RefusedUnauditedIsAuditUnavailable) {
    AuditRecord a;
    a.decision_id = 8;
    a.columns = "[]";
    a.bindings = "[]";
    json o = json::parse(last_decision_json(a, facts(true)));
    EXPECT_EQ(o.at("decision"), "rejected");
    EXPECT_EQ(o.at("state"), "AUDIT_UNAVAILABLE");
    // What the gate itself decided stays visible.
    EXPECT_EQ(o.at("gate_decision"), "allowed");
    EXPECT_EQ(o.at("audited"), "no audit writer could serve this database");
}

}  // namespace
}  // namespace clarify
