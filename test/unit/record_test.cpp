// docs/reference.md, "The resolution record": the resolution record's two shapes, every refusal,
// and the flat GUC encoding.
#include "core/model/record.hpp"
#include "record_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace clarify {
namespace {

using testing::kFullRecord;

// The RecordError message for a refused record; records a failure when it is accepted.
std::string refusal(const std::string &json) {
    try {
        parse_record(json);
    } catch (const RecordError &e) {
        return e.what();
    } catch (const std::exception &e) {
        ADD_FAILURE() << "refused with a non-RecordError exception: " << e.what();
        return {};
    }
    ADD_FAILURE() << "accepted a record that must be refused: " << json.substr(0, 200);
    return {};
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

bool mentions(const std::string &message, const std::string &word) {
    return lower(message).find(lower(word)) != std::string::npos;
}

TEST(RecordParse, FullShapeKeepsEveryField) {
    ResolutionRecord r = parse_record(kFullRecord);
    EXPECT_EQ(r.question_id, "q_1042");
    EXPECT_EQ(r.question, "Show revenue for Germany last quarter");
    ASSERT_EQ(r.bindings.size(), 2u);
    EXPECT_EQ(r.bindings[0].term, "revenue");
    EXPECT_EQ(r.bindings[0].concept_id, "metric.recognized_revenue");
    EXPECT_EQ(r.bindings[0].source, BindingSource::UserConfirmation);
    EXPECT_EQ(r.bindings[1].term, "country");
    EXPECT_EQ(r.bindings[1].concept_id, "dim.customer_country");
    EXPECT_EQ(r.bindings[1].source, BindingSource::ApprovedDefault);
}

TEST(RecordParse, ExplicitSourceParses) {
    ResolutionRecord r = parse_record(
        R"({"question_id":"q","question":"Show recognized revenue","bindings":[{"term":"revenue","concept":"metric.recognized_revenue","source":"explicit"}]})");
    ASSERT_EQ(r.bindings.size(), 1u);
    EXPECT_EQ(r.bindings[0].source, BindingSource::Explicit);
}

TEST(RecordParse, TermMayBeOmitted) {
    ResolutionRecord r = parse_record(
        R"({"question_id":"q_7","bindings":[{"concept":"metric.booked_revenue","source":"explicit"}]})");
    ASSERT_EQ(r.bindings.size(), 1u);
    EXPECT_EQ(r.bindings[0].term, "");
    EXPECT_EQ(r.bindings[0].concept_id, "metric.booked_revenue");
    EXPECT_EQ(r.bindings[0].source, BindingSource::Explicit);
}

TEST(RecordParse, TermIsNormalized) {
    ResolutionRecord r = parse_record(
        R"({"bindings":[{"term":"  Revenue ","concept":"metric.booked_revenue","source":"explicit"}]})");
    ASSERT_EQ(r.bindings.size(), 1u);
    EXPECT_EQ(r.bindings[0].term, "revenue");
}

TEST(RecordParse, EmptyBindingsIsARecordWithoutClaims) {
    ResolutionRecord r = parse_record(R"({"question_id":"q_1","bindings":[]})");
    EXPECT_EQ(r.question_id, "q_1");
    EXPECT_TRUE(r.bindings.empty());
}

TEST(RecordParse, ShorthandIsOneBinding) {
    ResolutionRecord r = parse_record(
        R"({"question_id":"q_9","metric":"metric.recognized_revenue","resolution_source":"user_confirmation","user_confirmed":true})");
    EXPECT_EQ(r.question_id, "q_9");
    ASSERT_EQ(r.bindings.size(), 1u);
    EXPECT_EQ(r.bindings[0].concept_id, "metric.recognized_revenue");
    EXPECT_EQ(r.bindings[0].source, BindingSource::UserConfirmation);
}

TEST(RecordParse, ShorthandUserConfirmedWithoutSourceIsUserConfirmation) {
    ResolutionRecord r = parse_record(
        R"({"question_id":"q_9","metric":"metric.recognized_revenue","user_confirmed":true})");
    ASSERT_EQ(r.bindings.size(), 1u);
    EXPECT_EQ(r.bindings[0].concept_id, "metric.recognized_revenue");
    EXPECT_EQ(r.bindings[0].source, BindingSource::UserConfirmation);
}

TEST(RecordParse, ShorthandKeepsItsNamedSource) {
    ResolutionRecord r = parse_record(
        R"({"question_id":"q_9","metric":"metric.booked_revenue","resolution_source":"approved_default","user_confirmed":false})");
    ASSERT_EQ(r.bindings.size(), 1u);
    EXPECT_EQ(r.bindings[0].concept_id, "metric.booked_revenue");
    EXPECT_EQ(r.bindings[0].source, BindingSource::ApprovedDefault);
}

TEST(RecordParse, EmptyOrBlankTextIsNoRecord) {
    for (const char *text : {"", " ", "  \t\n\r "}) {
        ResolutionRecord r = parse_record(text);
        EXPECT_EQ(r.question_id, "") << "text: [" << text << "]";
        EXPECT_EQ(r.question, "");
        EXPECT_TRUE(r.bindings.empty());
    }
}

TEST(RecordParse, RecordOfExactlyTheLimitIsAccepted) {
    std::string head = R"({"question_id":"q","question":")";
    std::string tail = R"("})";
    std::string json = head + std::string(kMaxRecordBytes - head.size() - tail.size(), 'x') + tail;
    ASSERT_EQ(json.size(), kMaxRecordBytes);
    ResolutionRecord r = parse_record(json);
    EXPECT_EQ(r.question.size(), kMaxRecordBytes - head.size() - tail.size());
}

TEST(RecordParse, BracketsInsideStringsAreNotNesting) {
    std::string question = std::string(200, '[') + "\\\"" + std::string(200, '{');
    ResolutionRecord r = parse_record(R"({"question_id":"q","question":")" + question + R"("})");
    EXPECT_EQ(r.question, std::string(200, '[') + "\"" + std::string(200, '{'));
}

TEST(RecordParse, SourceNamesRoundTrip) {
    for (BindingSource s : {BindingSource::UserConfirmation, BindingSource::ApprovedDefault,
                            BindingSource::Explicit}) {
        auto parsed = parse_binding_source(to_string(s));
        ASSERT_TRUE(parsed.has_value()) << to_string(s);
        EXPECT_EQ(*parsed, s);
    }
    EXPECT_STREQ(to_string(BindingSource::UserConfirmation), "user_confirmation");
    EXPECT_STREQ(to_string(BindingSource::ApprovedDefault), "approved_default");
    EXPECT_STREQ(to_string(BindingSource::Explicit), "explicit");
    EXPECT_FALSE(parse_binding_source("only_eligible").has_value());
    EXPECT_FALSE(parse_binding_source("").has_value());
}

// --- refusals: each names what is wrong ---

TEST(RecordRefusal, MalformedJson) {
    EXPECT_FALSE(refusal(R"({"question_id": "q_1",)").empty());
    EXPECT_FALSE(refusal("{question_id: q}").empty());
    EXPECT_FALSE(refusal(R"({"question_id":"q"} trailing)").empty());
}

TEST(RecordRefusal, TopLevelMustBeAnObject) {
    for (const char *text : {"[]", "42", R"("q_1042")", "null", "true"}) {
        EXPECT_FALSE(refusal(text).empty()) << text;
    }
    EXPECT_TRUE(mentions(refusal("[]"), "object"));
}

TEST(RecordRefusal, QuestionIdNumber) {
    EXPECT_TRUE(mentions(refusal(R"({"question_id": 1042, "bindings": []})"), "question_id"));
}

TEST(RecordRefusal, QuestionNotString) {
    EXPECT_TRUE(mentions(refusal(R"({"question": ["Show revenue"]})"), "question"));
}

TEST(RecordRefusal, BindingsNotArray) {
    EXPECT_TRUE(mentions(
        refusal(R"({"bindings": {"concept":"metric.booked_revenue","source":"explicit"}})"),
        "bindings"));
    EXPECT_TRUE(mentions(refusal(R"({"bindings": "metric.booked_revenue"})"), "bindings"));
}

TEST(RecordRefusal, BindingNotObject) {
    EXPECT_TRUE(mentions(refusal(R"({"bindings": ["metric.booked_revenue"]})"), "binding"));
    EXPECT_TRUE(mentions(refusal(R"({"bindings": [null]})"), "binding"));
}

TEST(RecordRefusal, ConceptMissing) {
    EXPECT_TRUE(
        mentions(refusal(R"({"bindings": [{"term":"revenue","source":"explicit"}]})"), "concept"));
}

TEST(RecordRefusal, ConceptEmpty) {
    EXPECT_TRUE(
        mentions(refusal(R"({"bindings": [{"concept":"","source":"explicit"}]})"), "concept"));
}

TEST(RecordRefusal, ConceptNotString) {
    EXPECT_TRUE(
        mentions(refusal(R"({"bindings": [{"concept":7,"source":"explicit"}]})"), "concept"));
    EXPECT_TRUE(mentions(
        refusal(R"({"bindings": [{"concept":["metric.booked_revenue"],"source":"explicit"}]})"),
        "concept"));
}

TEST(RecordRefusal, TermNotString) {
    EXPECT_TRUE(mentions(
        refusal(
            R"({"bindings": [{"term":1,"concept":"metric.booked_revenue","source":"explicit"}]})"),
        "term"));
}

TEST(RecordRefusal, UnknownSource) {
    std::string message =
        refusal(R"({"bindings": [{"concept":"metric.booked_revenue","source":"gut_feeling"}]})");
    EXPECT_TRUE(mentions(message, "source") || mentions(message, "gut_feeling")) << message;
}

TEST(RecordRefusal, OnlyEligibleIsNotAClaimARecordCanMake) {
    std::string message =
        refusal(R"({"bindings": [{"concept":"metric.booked_revenue","source":"only_eligible"}]})");
    EXPECT_TRUE(mentions(message, "source") || mentions(message, "only_eligible")) << message;
}

TEST(RecordRefusal, SourceMissing) {
    // Only `term` may be omitted from a binding (docs/reference.md).
    EXPECT_TRUE(
        mentions(refusal(R"({"bindings": [{"concept":"metric.booked_revenue"}]})"), "source"));
}

TEST(RecordRefusal, UnknownTopLevelKey) {
    EXPECT_TRUE(
        mentions(refusal(R"({"question_id":"q","grant":"everything","bindings":[]})"), "grant"));
}

TEST(RecordRefusal, UnknownBindingKey) {
    EXPECT_TRUE(mentions(
        refusal(
            R"({"bindings":[{"concept":"metric.booked_revenue","source":"explicit","trust":1}]})"),
        "trust"));
}

TEST(RecordRefusal, ShorthandWrongTypes) {
    EXPECT_TRUE(
        mentions(refusal(R"({"question_id":"q","metric":42,"user_confirmed":true})"), "metric"));
    EXPECT_TRUE(mentions(
        refusal(R"({"question_id":"q","metric":"metric.booked_revenue","user_confirmed":"yes"})"),
        "user_confirmed"));
    std::string message = refusal(
        R"({"question_id":"q","metric":"metric.booked_revenue","resolution_source":"hunch"})");
    EXPECT_TRUE(mentions(message, "source") || mentions(message, "hunch")) << message;
}

TEST(RecordRefusal, OverLimitText) {
    std::string head = R"({"question_id":"q","question":")";
    std::string tail = R"("})";
    std::string json =
        head + std::string(kMaxRecordBytes + 1 - head.size() - tail.size(), 'x') + tail;
    ASSERT_EQ(json.size(), kMaxRecordBytes + 1);
    std::string message = refusal(json);
    EXPECT_TRUE(mentions(message, "64") || mentions(message, "large") ||
                mentions(message, "long") || mentions(message, "size") ||
                mentions(message, "bytes"))
        << message;
}

TEST(RecordRefusal, OverLimitEvenWhenMalformed) {
    // A huge value is refused for its size, whatever it holds.
    std::string message = refusal(std::string(kMaxRecordBytes * 4, '['));
    EXPECT_FALSE(message.empty());
}

TEST(RecordRefusal, DeepNestingIsRefusedWithoutCrashing) {
    // 20,000 bytes: under the size limit, so only the depth check can refuse it.
    const int depth = 10000;
    std::string json = std::string(depth, '[') + std::string(depth, ']');
    ASSERT_LT(json.size(), kMaxRecordBytes);
    std::string message = refusal(json);
    EXPECT_TRUE(mentions(message, "nest") || mentions(message, "deep") ||
                mentions(message, "depth"))
        << message;

    std::string in_object =
        R"({"question":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
    message = refusal(in_object);
    EXPECT_TRUE(mentions(message, "nest") || mentions(message, "deep") ||
                mentions(message, "depth"))
        << message;

    std::string objects;
    for (int i = 0; i < 3000; ++i) objects += R"({"a":)";
    objects += "1";
    objects += std::string(3000, '}');
    EXPECT_FALSE(refusal(objects).empty());
}

TEST(RecordRefusal, InvalidUtf8) {
    EXPECT_FALSE(refusal("{\"question\":\"Umsatz f\xfcr \xff\"}").empty());
}

TEST(RecordRefusal, NestingJustPastTheLimit) {
    std::string json = R"({"question":)" + std::string(kMaxRecordDepth + 1, '[') +
                       std::string(kMaxRecordDepth + 1, ']') + "}";
    EXPECT_FALSE(refusal(json).empty());
}

TEST(RecordRefusal, AByteOrderMarkIsRefused) {
    // Accepted once and kept as typed, it made every read of clarify.audit fail.
    std::string message = refusal("\xef\xbb\xbf" + std::string(kFullRecord));
    EXPECT_TRUE(mentions(message, "byte order mark")) << message;
}

TEST(RecordRefusal, WhatJsonbRefusesIsRefused) {
    const char *cases[][2] = {
        {R"({"question_id":"q","question":"a\u0000b"})", "\\u0000"},
        {R"({"question_id":"q\u0000x"})", "\\u0000"},
        {R"({"question\u0000":"x"})", "\\u0000"},
        {R"({"question":"revenue \ud800"})", "surrogate"},
        {R"({"question":"revenue \udc00\ud800"})", "surrogate"},
        {R"({"question":"\ud83d\ud83d"})", "surrogate"},
        {"{\"question\":\"f\xc3\"}", "UTF-8"},
        {"{\"question\":\"x\"}\f", "malformed"},
        {R"({"question":"x","bindings":[],"n":1e131072})", "numeric"},
    };
    for (const auto &c : cases) {
        std::string message = refusal(c[0]);
        EXPECT_TRUE(mentions(message, c[1])) << c[0] << ": " << message;
    }
}

TEST(RecordRefusal, NonAsciiNeedsAnEncodingThatHoldsIt) {
    const std::string raw = "{\"question\":\"Umsatz f\xc3\xbcr K\xc3\xb6ln\"}";
    const std::string escaped = R"({"question":"Umsatz f\u00fcr K\u00f6ln"})";
    EXPECT_EQ(parse_record(raw, DatabaseEncoding::SqlAscii).question, "Umsatz für Köln");
    EXPECT_THROW(parse_record(escaped, DatabaseEncoding::SqlAscii), RecordError);
    EXPECT_THROW(parse_record(raw, DatabaseEncoding::Other), RecordError);
    EXPECT_THROW(parse_record(escaped, DatabaseEncoding::Other), RecordError);
    EXPECT_EQ(parse_record(R"({"question":"Umsatz in K\u006fln"})", DatabaseEncoding::Other).json,
              R"({"question":"Umsatz in Koln"})");
}

// --- the canonical JSON the record is kept as ---

TEST(RecordCanonical, ThePartsOwnSerializationNotTheTextAsTyped) {
    ResolutionRecord r = parse_record(kFullRecord);
    EXPECT_EQ(r.json,
              R"({"bindings":[{"concept":"metric.recognized_revenue","source":"user_confirmation",)"
              R"("term":"revenue"},{"concept":"dim.customer_country","source":"approved_default",)"
              R"("term":"country"}],"question":"Show revenue for Germany last quarter",)"
              R"("question_id":"q_1042"})");
}

TEST(RecordCanonical, SpellingsOfOneRecordAreOneText) {
    // The audit stores a record once per text: the same claims must be the same text.
    std::string a = parse_record(R"({"question_id":"q","question":"Zeige Umsatz"})").json;
    EXPECT_EQ(
        parse_record(" {\n\t\"question\" : \"Zeige Umsatz\" ,\r\n \"question_id\":\"q\" } ").json,
        a);
    EXPECT_EQ(parse_record(R"({"question":"Zeige \u0055msatz","question_id":"\u0071"})").json, a);
    EXPECT_EQ(parse_record(R"({"question":"Zeige Umsatz","question_id":"q"})").json, a);
}

TEST(RecordCanonical, EscapesBecomeCharactersAndControlsStayEscaped) {
    ResolutionRecord r = parse_record(R"({"question":"f\u00fcr \/ \ud83d\ude80 \u001f\t\"x\""})");
    EXPECT_EQ(r.question, "für / 🚀 \x1f\t\"x\"");
    EXPECT_EQ(r.json, "{\"question\":\"f\xc3\xbcr / \xf0\x9f\x9a\x80 \\u001f\\t\\\"x\\\"\"}");
}

TEST(RecordCanonical, TheLastOfDuplicateKeysWinsAsInJsonb) {
    ResolutionRecord r =
        parse_record(R"({"question":"first","question_id":"q","question":"last"})");
    EXPECT_EQ(r.question, "last");
    EXPECT_EQ(r.json, R"({"question":"last","question_id":"q"})");
}

TEST(RecordCanonical, TheShorthandKeepsItsShape) {
    ResolutionRecord r = parse_record(
        R"({ "user_confirmed" : true, "metric" : "metric.recognized_revenue", "question_id" : "q" })");
    EXPECT_EQ(r.json,
              R"({"metric":"metric.recognized_revenue","question_id":"q","user_confirmed":true})");
}

TEST(RecordCanonical, ParsingTheCanonicalTextGivesItBack) {
    // A parallel worker parses the leader's (canonical) value again.
    for (const char *text :
         {kFullRecord, R"({"question":"f\u00fcr \u001f","bindings":null})",
          R"({"question_id":null,"metric":"m","resolution_source":"explicit"})"}) {
        std::string once = parse_record(text).json;
        EXPECT_EQ(parse_record(once).json, once) << text;
        EXPECT_EQ(parse_record(once, DatabaseEncoding::SqlAscii).json, once) << text;
    }
}

TEST(RecordCanonical, NoRecordHasNoText) {
    EXPECT_EQ(parse_record("").json, "");
    EXPECT_EQ(parse_record(" \n\t").json, "");
}

TEST(RecordCanonical, TheSizeLimitCountsTheTextAsSet) {
    // 64 kB of the value as set, however short its canonical form would be.
    std::string body = R"({"question_id":"q"})";
    std::string padded = body + std::string(kMaxRecordBytes - body.size(), ' ');
    EXPECT_EQ(parse_record(padded).json, body);
    EXPECT_FALSE(refusal(padded + " ").empty());
}

}  // namespace
}  // namespace clarify
