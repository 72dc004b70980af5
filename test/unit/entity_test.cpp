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

TEST(EntityOutcome, UnreadableKeyIsUnsupportedWithTheGrant) {
    Entity e = customer();
    EntityLookup l = lookup(e, "Acme", 0);
    l.unreadable_column = "id";
    l.grant = "GRANT SELECT (id) ON public.customers TO agent";
    Decision d;
    add_entity_outcomes(d, {l});
    EXPECT_EQ(d.state, State::Unsupported);
    json s = payload(d)["slots"][0];
    EXPECT_EQ(s["kind"], "entity");
    EXPECT_EQ(s["reason"], "this role may not read the Customer key public.customers.id");
    EXPECT_TRUE(s["question"].is_null());
    EXPECT_EQ(s["options"], json::array());
    EXPECT_EQ(hint_text(Catalog{}, d),
              "The DBA can let it: GRANT SELECT (id) ON public.customers TO agent;");
    EXPECT_TRUE(payload(d)["bindings"].empty());
}

TEST(EntityDecision, ANameBoundToOneKeyDecidesAlikeWhateverItsValue) {
    Entity e = customer(), other = customer();
    EntityLookup acme = lookup(e, "Acme", 1), globex = lookup(e, "Globex", 1);
    globex.matches.front().value = "2";
    EXPECT_TRUE(same_entity_decision({acme}, {globex}));
    EXPECT_FALSE(same_entity_decision({acme}, {lookup(other, "Acme", 1)}));
    EXPECT_FALSE(same_entity_decision({acme}, {lookup(e, "Acme", 2)}));
    EXPECT_FALSE(same_entity_decision({acme}, {acme, globex}));
    // Slots show the value and options: those decide per value.
    EXPECT_TRUE(same_entity_decision({lookup(e, "Acme", 2)}, {lookup(e, "Acme", 2)}));
    EXPECT_FALSE(same_entity_decision({lookup(e, "Acme", 2)}, {lookup(e, "Acmes", 2)}));
    EXPECT_FALSE(same_entity_decision({lookup(e, "Nobody", 0)}, {lookup(e, "Noone", 0)}));
}

TEST(EntityDecision, BindingsPerExecutionAreRenderedAsTheDecisionWould) {
    Entity e = customer();
    std::vector<EntityLookup> lookups = {lookup(e, "Acme", 1), lookup(e, "Many", 2)};
    Decision with, without;
    Coverage c;
    c.column = "public.customers.mrr";
    with.covered.push_back(c);
    without.covered.push_back(c);
    add_entity_outcomes(with, lookups);
    EXPECT_EQ(with_entity_bindings(bindings_json(without), lookups), bindings_json(with));
    EXPECT_EQ(with_entity_bindings("[]", {lookup(e, "Acme", 1)}),
              R"([{"key":"1","kind":"entity","relation":"public.customers","value":"Acme"}])");
    EXPECT_EQ(with_entity_bindings("[]", {}), "[]");
    // Texts that need escaping come out as bindings_json renders them.
    Decision odd;
    std::vector<EntityLookup> strange = {lookup(e, "Ac\"me\\ \n\t\x01 \u00c4rzte", 1)};
    add_entity_outcomes(odd, strange);
    EXPECT_EQ(with_entity_bindings("[]", strange), bindings_json(odd));
    // Printable ASCII (DEL and '~' too) is written as it is, as bindings_json writes it.
    Decision plain;
    std::vector<EntityLookup> ascii = {lookup(e, "Acme ~\x7f Corp/1", 1)};
    add_entity_outcomes(plain, ascii);
    EXPECT_EQ(with_entity_bindings("[]", ascii), bindings_json(plain));
}

}  // namespace
}  // namespace clarify
