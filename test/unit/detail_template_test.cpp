// The DETAIL payload rendered once and its id spliced in (src/core/render/detail_template.hpp):
// the same text decision_json renders with the id, for every decision shape.
#include "core/render/detail_template.hpp"
#include "core/render/payload.hpp"
#include "revenue_fixture.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace clarify {
namespace {

using namespace clarify::testing;

TEST(DetailTemplate, SplicedIdEqualsRenderedId) {
    RevenueCatalog rows;
    Catalog catalog = rows.build();
    for (const std::vector<ColumnKey> &keys :
         {std::vector<ColumnKey>{kBookedAmount},
          std::vector<ColumnKey>{kBookedAmount, kRecognizedAmount}}) {
        Decision d = decide(catalog, analyst(), ResolutionRecord{}, reads(catalog, keys));
        for (const std::string question : {"", "q_7"}) {
            std::string without = decision_json(catalog, d, "", question, false);
            std::optional<std::string> spliced = splice_decision_id(without, "123456789");
            ASSERT_TRUE(spliced.has_value()) << without;
            EXPECT_EQ(*spliced, decision_json(catalog, d, "123456789", question, false));
        }
    }
}

TEST(DetailTemplate, OtherTextIsNotSpliced) {
    EXPECT_FALSE(splice_decision_id("{\"state\":\"MISMATCH\"}", "1").has_value());
    EXPECT_FALSE(splice_decision_id("", "1").has_value());
    EXPECT_FALSE(splice_decision_id("{\"decision_id\":null}", "").has_value());
}

}  // namespace
}  // namespace clarify
