// docs/reference.md (SQLSTATEs, Functions, Tables and views): the DETAIL payload, the message and
// hint, resolve()'s JSON, audit columns.
#include "core/render/payload.hpp"
#include "revenue_fixture.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace clarify {
namespace {

using namespace clarify::testing;
using nlohmann::json;

const ResolutionRecord kNoRecord{};

struct Decided {
    Catalog catalog;
    Decision decision;
};

Decided decide_reads(const RevenueCatalog &rows, const std::vector<ColumnKey> &keys,
                     const ResolutionRecord &rec = kNoRecord) {
    Decided out{rows.build(), {}};
    out.decision = decide(out.catalog, analyst(), rec, reads(out.catalog, keys));
    return out;
}

json parse_one_line(const std::string &text) {
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
    json parsed = json::parse(text, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << "not JSON: " << text;
    return parsed;
}

const json *slot_reading(const json &payload, const std::string &actual) {
    for (const json &slot : payload.at("slots"))
        if (slot.at("actual") == actual) return &slot;
    return nullptr;
}

// An option is an object {"value", ...} in payloads; resolve() may list bare ids.
std::string option_value(const json &option) {
    return option.is_string() ? option.get<std::string>() : option.at("value").get<std::string>();
}

TEST(DecisionJson, AmbiguousPayloadHasTheContractsShape) {
    RevenueCatalog rows;
    Decided d = decide_reads(rows, {kBookedAmount});
    std::string text = decision_json(d.catalog, d.decision, "d-0001", "q_1042", false);
    json payload = parse_one_line(text);
    ASSERT_TRUE(payload.is_object());
    EXPECT_EQ(payload.at("decision_id"), "d-0001");
    EXPECT_EQ(payload.at("state"), "AMBIGUOUS");
    EXPECT_EQ(payload.at("question_id"), "q_1042");
    EXPECT_EQ(payload.at("status"), "awaiting_clarification");
    EXPECT_FALSE(payload.contains("decision"));
    ASSERT_TRUE(payload.at("slots").is_array());
    ASSERT_EQ(payload.at("slots").size(), 1u);

    const json &slot = payload.at("slots")[0];
    EXPECT_EQ(slot.at("kind"), "metric");
    EXPECT_EQ(slot.at("term"), "revenue");
    EXPECT_EQ(slot.at("state"), "AMBIGUOUS");
    ASSERT_TRUE(slot.at("reason").is_string());
    EXPECT_FALSE(slot.at("reason").get<std::string>().empty());
    ASSERT_TRUE(slot.at("question").is_string());
    EXPECT_NE(slot.at("question").get<std::string>().find("revenue"), std::string::npos);
    EXPECT_EQ(slot.at("columns"), json::array({kBookedAmountName}));
    EXPECT_TRUE(slot.at("default").is_null());
    EXPECT_TRUE(slot.at("expected").is_null());
    EXPECT_EQ(slot.at("actual"), kBooked);

    const json &options = slot.at("options");
    ASSERT_TRUE(options.is_array());
    ASSERT_EQ(options.size(), 3u);
    bool saw_booked = false;
    for (const json &option : options) {
        ASSERT_TRUE(option.is_object());
        for (const char *key : {"value", "label", "description", "owner"}) {
            EXPECT_TRUE(option.contains(key)) << key << " in " << option.dump();
        }
        if (option.at("value") == kBooked) {
            saw_booked = true;
            EXPECT_EQ(option.at("label"), "Booked revenue");
            EXPECT_EQ(option.at("description"), "Value of accepted orders");
            EXPECT_EQ(option.at("owner"), "Sales");
        }
        if (option.at("value") == kRecognized) {
            EXPECT_EQ(option.at("label"), "Recognized revenue");
            EXPECT_EQ(option.at("owner"), "Finance");
        }
        if (option.at("value") == kInvoiced) {
            EXPECT_EQ(option.at("owner"), "Billing");
        }
    }
    EXPECT_TRUE(saw_booked);
}

TEST(DecisionJson, WithDecisionAddsTheDecisionKey) {
    RevenueCatalog rows;
    Decided d = decide_reads(rows, {kBookedAmount});
    json payload = parse_one_line(decision_json(d.catalog, d.decision, "d-2", "q_1", true));
    EXPECT_TRUE(payload.contains("decision"));
    EXPECT_EQ(payload.at("state"), "AMBIGUOUS");
    EXPECT_EQ(payload.at("slots").size(), 1u);
}

TEST(DecisionJson, AllowedDecisionForCheckIsValidJson) {
    RevenueCatalog rows;
    Decided d = decide_reads(rows, {kCustomerCountry});
    ASSERT_TRUE(d.decision.allowed());
    json payload = parse_one_line(decision_json(d.catalog, d.decision, "d-3", "q_1", true));
    EXPECT_TRUE(payload.contains("decision"));
    EXPECT_EQ(payload.at("decision_id"), "d-3");
    EXPECT_TRUE(payload.at("slots").is_array());
    EXPECT_TRUE(payload.at("slots").empty());
    EXPECT_NE(payload.value("status", std::string()), "awaiting_clarification");
}

TEST(DecisionJson, MismatchSlotNamesExpectedDefaultAndActual) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    Decided d = decide_reads(rows, {kBookedAmount});
    json payload = parse_one_line(decision_json(d.catalog, d.decision, "d-4", "q_1", false));
    EXPECT_EQ(payload.at("state"), "MISMATCH");
    ASSERT_EQ(payload.at("slots").size(), 1u);
    const json &slot = payload.at("slots")[0];
    EXPECT_EQ(slot.at("state"), "MISMATCH");
    EXPECT_EQ(slot.at("default"), kRecognized);
    EXPECT_EQ(slot.at("expected"), kRecognized);
    EXPECT_EQ(slot.at("actual"), kBooked);
}

TEST(DecisionJson, DeadDefaultSlotNamesTheDefault) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).status = ConceptStatus::Deprecated;
    Decided d = decide_reads(rows, {kBookedAmount});
    json payload = parse_one_line(decision_json(d.catalog, d.decision, "d-9", "q_1", false));
    EXPECT_EQ(payload.at("state"), "UNSUPPORTED");
    ASSERT_EQ(payload.at("slots").size(), 1u);
    EXPECT_EQ(payload.at("slots")[0].at("default"), kRecognized);
    EXPECT_EQ(payload.at("slots")[0].at("actual"), kBooked);
    EXPECT_EQ(payload.at("slots")[0].at("term"), "revenue");
}

TEST(DecisionJson, EveryFailingSlotIsListedWithItsOwnState) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    Decided d = decide_reads(rows, {kBookedAmount, kOrderMargin});
    json payload = parse_one_line(decision_json(d.catalog, d.decision, "d-5", "q_1", false));
    EXPECT_EQ(payload.at("state"), "UNSUPPORTED");
    ASSERT_EQ(payload.at("slots").size(), 2u);
    const json *booked = slot_reading(payload, kBooked);
    const json *margin = slot_reading(payload, kMargin);
    ASSERT_NE(booked, nullptr);
    ASSERT_NE(margin, nullptr);
    EXPECT_EQ(booked->at("state"), "MISMATCH");
    EXPECT_EQ(margin->at("state"), "UNSUPPORTED");
    EXPECT_EQ(margin->at("term"), "margin");
    EXPECT_EQ(margin->at("columns"), json::array({kOrderMarginName}));
}

TEST(DecisionJson, UnverifiedAndDimensionSlots) {
    RevenueCatalog rows;
    rows.add(make_concept("dim.shipping_country", ConceptKind::Dimension, "Shipping country",
                          "Country the order ships to", "Logistics", ConceptStatus::Approved));
    rows.terms.push_back({"country", "dim.shipping_country"});
    ResolutionRecord rec = record("q_1", "Show revenue by country",
                                  {binding("country", kCountry, BindingSource::UserConfirmation)});
    Decided d = decide_reads(rows, {kCustomerCountry}, rec);
    json payload = parse_one_line(decision_json(d.catalog, d.decision, "d-6", "q_1", false));
    EXPECT_EQ(payload.at("state"), "UNVERIFIED");
    ASSERT_EQ(payload.at("slots").size(), 1u);
    EXPECT_EQ(payload.at("slots")[0].at("kind"), "dimension");
    EXPECT_EQ(payload.at("slots")[0].at("state"), "UNVERIFIED");
    EXPECT_EQ(payload.at("slots")[0].at("actual"), kCountry);
}

TEST(DecisionJson, TextWithQuotesAndNewlinesStaysOneLineOfValidJson) {
    RevenueCatalog rows;
    rows.at(kBooked).label = "Booked \"gross\" revenue";
    rows.at(kBooked).description = "Value of accepted orders\nincluding\ttaxes \\ fees";
    rows.at(kBooked).owner = "Sales — EMEA";
    Decided d = decide_reads(rows, {kBookedAmount});
    json payload = parse_one_line(decision_json(d.catalog, d.decision, "d-\"7\"", "q_\n1", false));
    EXPECT_EQ(payload.at("decision_id"), "d-\"7\"");
    EXPECT_EQ(payload.at("question_id"), "q_\n1");
    bool found = false;
    for (const json &option : payload.at("slots")[0].at("options")) {
        if (option.at("value") != kBooked) continue;
        found = true;
        EXPECT_EQ(option.at("label"), "Booked \"gross\" revenue");
        EXPECT_EQ(option.at("description"), "Value of accepted orders\nincluding\ttaxes \\ fees");
        EXPECT_EQ(option.at("owner"), "Sales — EMEA");
    }
    EXPECT_TRUE(found);
}

TEST(HintText, AsksInBusinessLanguageOnly) {
    RevenueCatalog rows;
    Decided d = decide_reads(rows, {kBookedAmount});
    std::string hint = hint_text(d.catalog, d.decision);
    EXPECT_FALSE(hint.empty());
    for (const char *shown :
         {"Booked revenue", "Invoiced revenue", "Recognized revenue", "Value of accepted orders"}) {
        EXPECT_NE(hint.find(shown), std::string::npos) << shown << " missing from: " << hint;
    }
    for (const char *hidden : {"booked_amount", "sales.", "orders.", "revenue_ledger"}) {
        EXPECT_EQ(hint.find(hidden), std::string::npos) << hidden << " leaked into: " << hint;
    }
}

TEST(HintText, NeverNamesTablesForAnyFailure) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    ResolutionRecord rec =
        record("q_1", "Show margin", {binding("margin", kMargin, BindingSource::Explicit)});
    Decided d = decide_reads(rows, {kBookedAmount, kOrderMargin, kInvoicedAmount}, rec);
    ASSERT_FALSE(d.decision.allowed());
    std::string hint = hint_text(d.catalog, d.decision);
    EXPECT_FALSE(hint.empty());
    // Descriptions may say "orders" or "invoices"; qualified names and column names never appear.
    for (const char *hidden : {"booked_amount", "invoiced_amount", "gross_margin", "sales.",
                               "orders.", "invoices.", "metric.", "dim."}) {
        EXPECT_EQ(hint.find(hidden), std::string::npos) << hidden << " leaked into: " << hint;
    }
}

TEST(MessageText, IsOneLine) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    for (const std::vector<ColumnKey> &keys :
         {std::vector<ColumnKey>{kBookedAmount}, std::vector<ColumnKey>{kOrderMargin},
          std::vector<ColumnKey>{kBookedAmount, kOrderMargin}}) {
        Decided d = decide_reads(rows, keys);
        ASSERT_FALSE(d.decision.allowed());
        std::string message = message_text(d.catalog, d.decision);
        EXPECT_FALSE(message.empty());
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
    RevenueCatalog plain;
    Decided ambiguous = decide_reads(plain, {kBookedAmount});
    std::string message = message_text(ambiguous.catalog, ambiguous.decision);
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(MessageText, StaysOneLineWhateverTheRecordHolds) {
    // The record is the agent's text: a newline in it must not break the one-line message.
    RevenueCatalog rows;
    ResolutionRecord rec = parse_record(
        R"({"question_id":"q_\n1042","question":"Show revenue\nfor Germany","bindings":[{"term":"revenue","concept":"metric.recognized_revenue","source":"user_confirmation"}]})");
    Decided d = decide_reads(rows, {kRecognizedAmount}, rec);
    ASSERT_EQ(d.decision.state, State::Unverified);
    std::string message = message_text(d.catalog, d.decision);
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    parse_one_line(decision_json(d.catalog, d.decision, "d-8", rec.question_id, false));
}

json resolution_of(const RevenueCatalog &rows, const std::string &term,
                   const std::string &question_id = "", bool reveal_confirmer = false) {
    Catalog catalog = rows.build();
    TermResolution r = resolve_term(catalog, analyst(), kNoRecord, term, question_id);
    json parsed = json::parse(resolution_json(catalog, r, reveal_confirmer), nullptr, false);
    EXPECT_FALSE(parsed.is_discarded());
    for (const char *key :
         {"decision", "selected", "options", "reason", "source", "default", "default_applied"}) {
        EXPECT_TRUE(parsed.contains(key)) << key << " missing in " << parsed.dump();
    }
    return parsed;
}

TEST(ResolutionJson, Ambiguous) {
    RevenueCatalog rows;
    json r = resolution_of(rows, "revenue");
    EXPECT_EQ(r.at("decision"), "AMBIGUOUS");
    EXPECT_TRUE(r.at("selected").is_null() || r.at("selected") == "");
    ASSERT_TRUE(r.at("options").is_array());
    ASSERT_EQ(r.at("options").size(), 3u);
    std::vector<std::string> values;
    for (const json &option : r.at("options")) values.push_back(option_value(option));
    EXPECT_EQ(sorted(values), sorted({kBooked, kInvoiced, kRecognized}));
    EXPECT_TRUE(r.at("source").is_null());
    EXPECT_TRUE(r.at("default").is_null());
    EXPECT_EQ(r.at("default_applied"), false);
    EXPECT_TRUE(r.at("reason").is_string());
}

TEST(ResolutionJson, ResolvedByDefault) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    json r = resolution_of(rows, "revenue");
    EXPECT_EQ(r.at("decision"), "RESOLVED");
    EXPECT_EQ(r.at("selected"), kRecognized);
    EXPECT_EQ(r.at("source"), "approved_default");
    EXPECT_EQ(r.at("default"), kRecognized);
    EXPECT_EQ(r.at("default_applied"), true);
}

TEST(ResolutionJson, ResolvedAsOnlyEligible) {
    RevenueCatalog rows;
    json r = resolution_of(rows, "country");
    EXPECT_EQ(r.at("decision"), "RESOLVED");
    EXPECT_EQ(r.at("selected"), kCountry);
    EXPECT_EQ(r.at("source"), "only_eligible");
    EXPECT_EQ(r.at("default_applied"), false);
}

TEST(ResolutionJson, ResolvedByUserConfirmation) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    json r = resolution_of(rows, "revenue", "q_1042");
    EXPECT_EQ(r.at("decision"), "RESOLVED");
    EXPECT_EQ(r.at("selected"), kRecognized);
    EXPECT_EQ(r.at("source"), "user_confirmation");
}

TEST(ResolutionJson, WhoConfirmedIsShownOnlyWhenRevealed) {
    RevenueCatalog rows;
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    json hidden = resolution_of(rows, "revenue", "q_1042", false);
    EXPECT_TRUE(hidden.at("confirmed_by").is_null());
    EXPECT_EQ(hidden.dump().find("alice"), std::string::npos) << hidden.dump();
    json shown = resolution_of(rows, "revenue", "q_1042", true);
    EXPECT_EQ(shown.at("confirmed_by"), "alice@example.com");
    EXPECT_TRUE(resolution_of(rows, "country", "", true).at("confirmed_by").is_null());
}

TEST(ResolutionJson, DeadDefaultIsUnsupportedNamingIt) {
    RevenueCatalog rows;
    rows.add_default("revenue", kRecognized);
    rows.at(kRecognized).available = false;
    json r = resolution_of(rows, "revenue");
    EXPECT_EQ(r.at("decision"), "UNSUPPORTED");
    EXPECT_EQ(r.at("default"), kRecognized);
    EXPECT_EQ(r.at("default_applied"), false);
    EXPECT_TRUE(r.at("selected").is_null() || r.at("selected") == "");
}

TEST(ResolutionJson, UnknownTermIsUnsupported) {
    RevenueCatalog rows;
    json r = resolution_of(rows, "profit");
    EXPECT_EQ(r.at("decision"), "UNSUPPORTED");
    EXPECT_TRUE(r.at("options").is_array());
    EXPECT_TRUE(r.at("options").empty());
}

// The value of the first key naming the approval (docs/reference.md says "approval id").
const json *approval_of(const json &entry) {
    for (auto it = entry.begin(); it != entry.end(); ++it)
        if (it.key().find("approval") != std::string::npos) return &it.value();
    return nullptr;
}

const json *binding_for(const json &bindings, const std::string &concept_id) {
    for (const json &entry : bindings)
        if (entry.at("concept") == concept_id) return &entry;
    return nullptr;
}

TEST(AuditJson, BindingsListEachCoveredColumnWithItsSource) {
    RevenueCatalog rows;
    rows.add(make_concept("metric.order_count", ConceptKind::Metric, "Order count",
                          "Number of accepted orders", "Sales", ConceptStatus::Approved));
    rows.columns.push_back(
        {ColumnKey{kOrders, 6}, "sales.orders.order_count", "metric.order_count"});
    rows.add(make_concept("dim.region", ConceptKind::Dimension, "Sales region",
                          "Region of the sales team", "Sales", ConceptStatus::Approved));
    rows.add(make_concept("dim.territory", ConceptKind::Dimension, "Territory", "Legal territory",
                          "Legal", ConceptStatus::Approved));
    rows.terms.push_back({"region", "dim.region"});
    rows.terms.push_back({"region", "dim.territory"});
    rows.columns.push_back({ColumnKey{kOrders, 10}, "sales.orders.region", "dim.region"});
    rows.add_default("region", "dim.region");
    rows.add_approval(42, "q_1042", "revenue", kRecognized);
    ResolutionRecord rec = record("q_1042", "Show revenue by customer country and sales region",
                                  {binding("revenue", kRecognized, BindingSource::UserConfirmation),
                                   binding("country", kCountry, BindingSource::Explicit)});
    Decided d = decide_reads(
        rows, {kRecognizedAmount, kCustomerCountry, ColumnKey{kOrders, 10}, ColumnKey{kOrders, 6}},
        rec);
    ASSERT_TRUE(d.decision.allowed());

    json bindings = parse_one_line(bindings_json(d.decision));
    ASSERT_TRUE(bindings.is_array());
    ASSERT_EQ(bindings.size(), 4u);
    for (const json &entry : bindings) {
        for (const char *key : {"concept", "version", "source", "default_applied"}) {
            EXPECT_TRUE(entry.contains(key)) << key << " missing in " << entry.dump();
        }
        EXPECT_NE(approval_of(entry), nullptr) << "no approval id in " << entry.dump();
    }

    const json *recognized = binding_for(bindings, kRecognized);
    ASSERT_NE(recognized, nullptr);
    EXPECT_EQ(recognized->at("version"), 3);
    EXPECT_EQ(recognized->at("source"), "user_confirmation");
    EXPECT_EQ(recognized->at("default_applied"), false);
    ASSERT_NE(approval_of(*recognized), nullptr);
    EXPECT_EQ(*approval_of(*recognized), 42);

    const json *country = binding_for(bindings, kCountry);
    ASSERT_NE(country, nullptr);
    EXPECT_EQ(country->at("source"), "explicit");
    EXPECT_EQ(country->at("version"), 1);

    const json *region = binding_for(bindings, "dim.region");
    ASSERT_NE(region, nullptr);
    EXPECT_EQ(region->at("source"), "approved_default");
    EXPECT_EQ(region->at("default_applied"), true);

    const json *count = binding_for(bindings, "metric.order_count");
    ASSERT_NE(count, nullptr);
    EXPECT_EQ(count->at("source"), "only_eligible");
    const json *none = approval_of(*count);
    ASSERT_NE(none, nullptr);
    EXPECT_TRUE(none->is_null() || *none == 0) << none->dump();
}

TEST(AuditJson, ColumnsListTheGovernedColumnsRead) {
    RevenueCatalog rows;
    Decided d = decide_reads(rows, {kBookedAmount, kCustomerCountry});
    json columns = parse_one_line(columns_json(d.decision));
    ASSERT_TRUE(columns.is_array());
    std::vector<std::string> names;
    for (const json &c : columns) names.push_back(c.get<std::string>());
    EXPECT_EQ(sorted(names), sorted({kBookedAmountName, kCustomerCountryName}));
}

TEST(AuditJson, RejectedDecisionListsOnlyCoveredBindings) {
    RevenueCatalog rows;
    Decided d = decide_reads(rows, {kBookedAmount, kCustomerCountry});
    ASSERT_FALSE(d.decision.allowed());
    json bindings = parse_one_line(bindings_json(d.decision));
    ASSERT_TRUE(bindings.is_array());
    ASSERT_EQ(bindings.size(), 1u);
    EXPECT_EQ(bindings[0].at("concept"), kCountry);
    EXPECT_EQ(bindings[0].at("source"), "only_eligible");
}

TEST(AuditJson, EmptyDecisionGivesEmptyArrays) {
    Decision empty;
    EXPECT_EQ(parse_one_line(columns_json(empty)), json::array());
    EXPECT_EQ(parse_one_line(bindings_json(empty)), json::array());
}

}  // namespace
}  // namespace clarify

namespace clarify {
namespace {

TEST(AuditUnavailableJson, NamesTheGatesDecisionAndWhy) {
    json o = parse_one_line(audit_unavailable_json("42", "q_1042", false, State::Mismatch,
                                                   "larger than the audit queue"));
    EXPECT_EQ(o.at("decision_id"), "42");
    EXPECT_EQ(o.at("state"), "AUDIT_UNAVAILABLE");
    EXPECT_EQ(o.at("question_id"), "q_1042");
    EXPECT_EQ(o.at("status"), "audit_unavailable");
    EXPECT_EQ(o.at("gate_decision"), "rejected");
    EXPECT_EQ(o.at("gate_state"), "MISMATCH");
    EXPECT_EQ(o.at("reason"), "larger than the audit queue");
    EXPECT_EQ(o.at("slots"), json::array());
    EXPECT_EQ(o.size(), 8u);
}

TEST(AuditUnavailableJson, NoQuestionIsNull) {
    json o = parse_one_line(audit_unavailable_json("1", "", true, State::Resolved, "x"));
    EXPECT_TRUE(o.at("question_id").is_null());
    EXPECT_EQ(o.at("gate_decision"), "allowed");
    EXPECT_EQ(o.at("gate_state"), "RESOLVED");
}

TEST(CheckJson, AddsGatedAndGovernedToTheDecision) {
    RevenueCatalog rows;
    Decided d = decide_reads(rows, {kBookedAmount});
    json o = parse_one_line(check_json(d.catalog, d.decision, "q_1042", true, true));
    EXPECT_EQ(o.at("decision"), "rejected");
    EXPECT_EQ(o.at("state"), "AMBIGUOUS");
    EXPECT_TRUE(o.at("decision_id").is_null());
    EXPECT_EQ(o.at("question_id"), "q_1042");
    EXPECT_EQ(o.at("gated"), true);
    EXPECT_EQ(o.at("governed"), true);
    Decided none = decide_reads(rows, {});
    json allowed = parse_one_line(check_json(none.catalog, none.decision, "", false, false));
    EXPECT_EQ(allowed.at("decision"), "allowed");
    EXPECT_EQ(allowed.at("gated"), false);
    EXPECT_EQ(allowed.at("governed"), false);
}

}  // namespace
}  // namespace clarify
