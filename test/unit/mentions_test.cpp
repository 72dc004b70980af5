// docs/reference.md, "Which terms decide a column": the governed terms a question mentions
// (whole words, in order, case-folded as `explicit` compares labels).
#include "core/model/catalog.hpp"
#include "core/decide/words.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

TEST(Mentions, AWholeWordIsMentionedWhateverItsCase) {
    EXPECT_TRUE(mentions_term("What is our REVENUE?", "revenue"));
    EXPECT_TRUE(mentions_term("What is our MRR?", "mrr"));
    EXPECT_TRUE(mentions_term("ÉCOLE budget", "école"));
}

TEST(Mentions, OnlyWholeWordsCount) {
    EXPECT_FALSE(mentions_term("What are our revenues?", "revenue"));
    EXPECT_FALSE(mentions_term("prerevenue startups", "revenue"));
    EXPECT_FALSE(mentions_term("", "revenue"));
    EXPECT_FALSE(mentions_term("revenue", ""));
}

TEST(Mentions, EveryOccurrenceCountsInsideALongerPhrase) {
    EXPECT_TRUE(mentions_term("Show recognized revenue", "revenue"));
    EXPECT_TRUE(mentions_term("revenues and revenue", "revenue"));
}

TEST(Mentions, MultiWordTermsMatchAcrossSpacesHyphensAndLineBreaks) {
    EXPECT_TRUE(mentions_term("our net revenue retention", "net revenue retention"));
    EXPECT_TRUE(mentions_term("our Net-Revenue  retention", "net revenue retention"));
    EXPECT_TRUE(mentions_term("net\nrevenue -\r\nretention?", "net revenue retention"));
    EXPECT_TRUE(mentions_term("last quarter", "last-quarter"));
    EXPECT_FALSE(mentions_term("net revenue, retention", "net revenue retention"));
    EXPECT_FALSE(mentions_term("netrevenue retention", "net revenue retention"));
    EXPECT_FALSE(mentions_term("net revenue retentions", "net revenue retention"));
    EXPECT_FALSE(mentions_term("revenue net retention", "net revenue retention"));
}

TEST(Mentions, TheCatalogListsTheTermsAQuestionMentionsSorted) {
    Catalog catalog;
    Concept c;
    c.id = "metric.mrr";
    catalog.add_concept(c);
    catalog.add_term("MRR", "metric.mrr");
    catalog.add_term("revenue", "metric.mrr");
    catalog.add_term("Last Quarter", "metric.mrr");
    catalog.add_term("margin", "metric.mrr");
    catalog.finalize();
    EXPECT_EQ(catalog.mentioned_terms("Revenue last-quarter, and our mrr"),
              (std::vector<std::string>{"last quarter", "mrr", "revenue"}));
    EXPECT_TRUE(catalog.mentioned_terms("").empty());
    EXPECT_TRUE(catalog.mentioned_terms("margins").empty());
}

}  // namespace
}  // namespace clarify
