// docs/reference.md, "Entities": what one, none or several matches of a name make of a decision,
// and how its slot and binding are rendered.
#include "core/entity/entity.hpp"
#include "core/render/payload.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace clarify {
namespace {

using nlohmann::json;

Entity customer(int max_options = 10) {
    Entity e;
    e.relation = 5000;
    e.relation_name = "public.customers";
    e.name_column = "name";
    e.key_column = "id";
    e.label = "Customer";
    e.max_options = max_options;
    return e;
}

EntityLookup lookup(const Entity &e, const std::string &value, int matches) {
    EntityLookup l;
    l.entity = &e;
    l.value = value;
    for (int i = 1; i <= matches; ++i)
        l.matches.push_back({std::to_string(i), value + " (City " + std::to_string(i) + ")"});
    return l;
}

json payload(const Decision &d) {
    return json::parse(decision_json(Catalog{}, d, "1", "", true));
}

TEST(EntityLabel, NameWithPresentDetailsInOrder) {
    EXPECT_EQ(
        entity_option_label("Acme", {std::string("Berlin"), std::nullopt, std::string("B2B")}),
        "Acme (Berlin, B2B)");
    EXPECT_EQ(entity_option_label("Acme", {std::nullopt}), "Acme");
    EXPECT_EQ(entity_option_label("Acme", {}), "Acme");
}

TEST(EntityLabel, PrefixIsWholeCharacters) {
    EXPECT_EQ(utf8_prefix("Acmee", 3), "Acm");
    EXPECT_EQ(utf8_prefix("Ärzte", 3), "Ärz");
    EXPECT_EQ(utf8_prefix("Ab", 3), "Ab");
}

TEST(EntityOutcome, OneMatchBindsItsKey) {
    Entity e = customer();
    Decision d;
    add_entity_outcomes(d, {lookup(e, "Acme", 1)});
    EXPECT_TRUE(d.allowed());
    json p = payload(d);
    ASSERT_EQ(p["bindings"].size(), 1u);
    EXPECT_EQ(p["bindings"][0], json({{"kind", "entity"},
                                      {"relation", "public.customers"},
                                      {"value", "Acme"},
                                      {"key", "1"}}));
    EXPECT_EQ(json::parse(bindings_json(d)), p["bindings"]);
}

TEST(EntityOutcome, SeveralMatchesAreAmbiguous) {
    Entity e = customer();
    Decision d;
    add_entity_outcomes(d, {lookup(e, "Acme", 3)});
    EXPECT_EQ(d.state, State::Ambiguous);
    json s = payload(d)["slots"][0];
    EXPECT_EQ(s["kind"], "entity");
    EXPECT_EQ(s["state"], "AMBIGUOUS");
    EXPECT_EQ(s["value"], "Acme");
    EXPECT_EQ(s["question"], "Which Customer do you mean by \"Acme\"?");
    EXPECT_EQ(s["options"].size(), 3u);
    EXPECT_EQ(s["options"][0], json({{"value", "1"}, {"label", "Acme (City 1)"}}));
    EXPECT_EQ(s["truncated"], false);
    EXPECT_EQ(s["key_column"], "id");
    EXPECT_EQ(hint_text(Catalog{}, d),
              "Which Customer do you mean by \"Acme\"? Acme (City 1), Acme (City 2) or Acme "
              "(City 3)");
}

TEST(EntityOutcome, MoreThanMaxOptionsIsTruncated) {
    Entity e = customer(2);
    Decision d;
    add_entity_outcomes(d, {lookup(e, "Acme", 3)});
    json s = payload(d)["slots"][0];
    EXPECT_EQ(s["options"].size(), 2u);
    EXPECT_EQ(s["truncated"], true);
}

TEST(EntityOutcome, NoMatchIsUnsupportedWithPrefixOptions) {
    Entity e = customer();
    EntityLookup l = lookup(e, "Acmee", 0);
    l.prefix = {{"1", "Acme (Berlin)"}};
    Decision d;
    add_entity_outcomes(d, {l});
    EXPECT_EQ(d.state, State::Unsupported);
    json s = payload(d)["slots"][0];
    EXPECT_EQ(s["state"], "UNSUPPORTED");
    EXPECT_EQ(s["reason"], "no Customer is named \"Acmee\"");
    const json expected = json::array({json{{"value", "1"}, {"label", "Acme (Berlin)"}}});
    EXPECT_EQ(s["options"], expected);
    EXPECT_EQ(s["truncated"], false);
}

TEST(EntityOutcome, AmbiguousIsReportedBeforeUnsupported) {
    Entity e = customer();
    Decision d;
    add_entity_outcomes(d, {lookup(e, "Nobody", 0), lookup(e, "Acme", 2)});
    EXPECT_EQ(d.state, State::Ambiguous);
    EXPECT_EQ(d.slots.size(), 2u);
    EXPECT_EQ(d.slots.front().state, State::Ambiguous);
}

TEST(EntityOutcome, TheQuestionSlotStaysFirst) {
    Entity e = customer();
    Decision d;
    Slot q;
    q.check = SlotCheck::Question;
    q.state = State::Unverified;
    d.slots.push_back(q);
    d.state = State::Unverified;
    add_entity_outcomes(d, {lookup(e, "Acme", 2)});
    EXPECT_EQ(d.state, State::Unverified);
    EXPECT_EQ(d.slots.front().check, SlotCheck::Question);
}

}  // namespace
}  // namespace clarify
