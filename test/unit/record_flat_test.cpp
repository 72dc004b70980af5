// The flat encoding of a parsed resolution record, kept as the GUC's extra: free of pointers,
// so it survives being copied anywhere.
#include "core/model/record.hpp"
#include "record_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace clarify {
namespace {

using testing::kFullRecord;

void expect_same(const ResolutionRecord &a, const ResolutionRecord &b) {
    EXPECT_EQ(a.question_id, b.question_id);
    EXPECT_EQ(a.question, b.question);
    EXPECT_EQ(a.json, b.json);
    ASSERT_EQ(a.bindings.size(), b.bindings.size());
    for (std::size_t i = 0; i < a.bindings.size(); ++i) {
        EXPECT_EQ(a.bindings[i].term, b.bindings[i].term) << "binding " << i;
        EXPECT_EQ(a.bindings[i].concept_id, b.bindings[i].concept_id) << "binding " << i;
        EXPECT_EQ(a.bindings[i].source, b.bindings[i].source) << "binding " << i;
    }
}

// Copies the block elsewhere first: the encoding must be free of pointers into itself.
ResolutionRecord round_trip(const ResolutionRecord &record) {
    std::vector<char> flat = flatten(record);
    EXPECT_EQ(flat_size(flat.data()), flat.size());
    std::vector<char> moved(flat.size() + 64, '\x7f');
    std::memcpy(moved.data() + 8, flat.data(), flat.size());
    std::vector<char>().swap(flat);
    EXPECT_EQ(flat_size(moved.data() + 8), moved.size() - 64);
    return unflatten(moved.data() + 8);
}

TEST(RecordFlat, FullRecordRoundTrips) {
    ResolutionRecord r = parse_record(kFullRecord);
    expect_same(round_trip(r), r);
}

TEST(RecordFlat, EmptyRecordRoundTrips) {
    ResolutionRecord empty;
    std::vector<char> flat = flatten(empty);
    EXPECT_EQ(flat_size(flat.data()), flat.size());
    expect_same(unflatten(flat.data()), empty);
}

TEST(RecordFlat, EmptyStringsRoundTrip) {
    ResolutionRecord r;
    r.question_id = "";
    r.question = "";
    r.bindings.push_back({"", "metric.booked_revenue", BindingSource::Explicit});
    r.bindings.push_back({"revenue", "", BindingSource::ApprovedDefault});
    expect_same(round_trip(r), r);
}

TEST(RecordFlat, ManyBindingsRoundTrip) {
    ResolutionRecord r;
    r.question_id = "q_many";
    r.question = "Show everything";
    const BindingSource sources[] = {BindingSource::UserConfirmation,
                                     BindingSource::ApprovedDefault, BindingSource::Explicit};
    for (int i = 0; i < 1000; ++i) {
        r.bindings.push_back(
            {"term_" + std::to_string(i), "metric.concept_" + std::to_string(i), sources[i % 3]});
    }
    ResolutionRecord back = round_trip(r);
    expect_same(back, r);
}

TEST(RecordFlat, Utf8RoundTrips) {
    ResolutionRecord r;
    r.question_id = "q_ü_42";
    r.question = "Zeige den Umsatz für Deutschland – Q3 € 日本語 🚀";
    r.bindings.push_back({"umsatz", "metric.anerkannter_umsatz_é", BindingSource::Explicit});
    expect_same(round_trip(r), r);
}

TEST(RecordFlat, TheCanonicalTextRoundTrips) {
    ResolutionRecord r = parse_record(kFullRecord);
    ASSERT_FALSE(r.json.empty());
    EXPECT_EQ(round_trip(r).json, r.json);
}

TEST(RecordFlat, ParsedUtf8RoundTrips) {
    ResolutionRecord r = parse_record(
        R"({"question_id":"q_\u00fc","question":"Umsatz f\u00fcr \u00d6sterreich \ud83d\ude80","bindings":[{"term":"umsatz","concept":"metric.recognized_revenue","source":"explicit"}]})");
    EXPECT_EQ(r.question_id, "q_ü");
    EXPECT_EQ(r.question, "Umsatz für Österreich 🚀");
    expect_same(round_trip(r), r);
}

TEST(RecordFlat, SizeGrowsWithContent) {
    ResolutionRecord small;
    ResolutionRecord big;
    big.question = std::string(5000, 'q');
    std::vector<char> a = flatten(small);
    std::vector<char> b = flatten(big);
    EXPECT_EQ(flat_size(a.data()), a.size());
    EXPECT_EQ(flat_size(b.data()), b.size());
    EXPECT_GE(b.size(), a.size() + 5000);
}

}  // namespace
}  // namespace clarify
