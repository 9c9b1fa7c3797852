#include "bench/dataset.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>

#include "bench/harness.h"
#include "test_util.h"

namespace ontomem {
namespace {

const char* kDoc = R"([{"sample_id":"conv-x","conversation":{"speaker_a":"Ana","speaker_b":"Ben",
  "session_1_date_time":"9:05 am on 3 March, 2023",
  "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I adopted a greyhound!"},
               {"speaker":"Ben","dia_id":"D1:2","text":"Congrats!","blip_caption":"a photo of a dog"}],
  "session_10_date_time":"1:56 pm on 8 May, 2023",
  "session_10":[{"speaker":"Ana","dia_id":"D10:1","text":"Later talk"}],
  "session_2_date_time":"12:00 pm on 4 March, 2023",
  "session_2":[{"speaker":"Ben","dia_id":"D2:1","text":"Second"}],
  "session_20_date_time":"1:00 pm on 1 June, 2023"},
 "qa":[{"question":"When did Ana adopt a dog?","answer":"March 2023","evidence":["D1:1"],"category":2},
       {"question":"Q2","evidence":["D1:1; D2:1","D:10:1"],"category":5,"implicit":true,
        "pathology":"alias","speaker":"Ana","context":["earlier words"],"domain":"pets"}]}])";

TEST(Locomo, ParsesSessionsInNumericOrderWithCaptionsAndTimes) {
  auto ds = ParseLocomo(kDoc, "mem");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ(ds->samples.size(), 1u);
  const Sample& s = ds->samples[0];
  EXPECT_EQ(s.sample_id, "conv-x");
  ASSERT_EQ(s.turns.size(), 4u);
  EXPECT_EQ(s.turns[0].id, "D1:1");
  EXPECT_EQ(s.turns[2].id, "D2:1");  // session_2 before session_10
  EXPECT_EQ(s.turns[3].id, "D10:1");
  EXPECT_EQ(s.turns[1].text, "Congrats! [image: a photo of a dog]");
  EXPECT_EQ(s.turns[0].time_ms, *ParseLocomoDateTime("9:05 am on 3 March, 2023"));
  EXPECT_EQ(s.turns[1].time_ms, s.turns[0].time_ms + 1000);
  ASSERT_EQ(s.qa.size(), 2u);
  EXPECT_EQ(s.qa[0].category, "2");
  EXPECT_FALSE(s.qa[0].implicit.has_value());
  EXPECT_EQ(s.qa[1].evidence, (std::vector<std::string>{"D1:1", "D2:1", "D10:1"}));
  EXPECT_EQ(*s.qa[1].implicit, true);
  EXPECT_EQ(s.qa[1].pathology, std::vector<std::string>{"alias"});
  EXPECT_EQ(s.qa[1].speaker, "Ana");
  EXPECT_EQ(s.qa[1].context, std::vector<std::string>{"earlier words"});
}

TEST(Locomo, DateTimes) {
  // 2023-05-08 13:56 UTC
  EXPECT_EQ(*ParseLocomoDateTime("1:56 pm on 8 May, 2023"), 1683554160000);
  EXPECT_EQ(*ParseLocomoDateTime("12:10 am on 1 January, 2020"), 1577837400000);
  EXPECT_FALSE(ParseLocomoDateTime("yesterday").has_value());
  EXPECT_FALSE(ParseLocomoDateTime("1:56 pm on 8 Smarch, 2023").has_value());
  EXPECT_FALSE(ParseLocomoDateTime("1:56 pm on 31 February, 2023").has_value());
  EXPECT_FALSE(ParseLocomoDateTime("1:56 pm on 29 February, 2023").has_value());
  EXPECT_TRUE(ParseLocomoDateTime("1:56 pm on 29 February, 2024").has_value());
  EXPECT_FALSE(ParseLocomoDateTime("13:05 am on 8 May, 2023").has_value());
  EXPECT_FALSE(ParseLocomoDateTime("0:05 am on 8 May, 2023").has_value());
}

TEST(Locomo, ClearErrors) {
  auto st = ParseLocomo("[{\"sample_id\": \"a\", ", "f.json").status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("f.json"), std::string::npos);
  EXPECT_NE(st.message().find("malformed JSON"), std::string::npos);
  st = ParseLocomo("[{\"conversation\":{\"session_1\":[{\"text\":\"bad \xFF\"}]}}]", "f.json").status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  st = ParseLocomo(R"([{"sample_id":"s","conversation":{"session_1":[{"text":5}]}}])", "f.json").status();
  EXPECT_NE(st.message().find("s: conversation.session_1[0].text: not a string"), std::string::npos) << st.ToString();
  st = ParseLocomo(R"(42)", "f.json").status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LoadLocomo("/nonexistent/x.json").status().code(), StatusCode::kNotFound);
}

TEST(Jsonl, ParsesTurnsAndNamesBadLines) {
  const testing::TempDir temp("ontomem-jsonl");
  const std::string& dir = temp.path();
  {
    std::ofstream f(dir + "/ok.jsonl");
    f << R"({"text":"hello","speaker":"Ana","id":"m1","time":"2024-01-02T03:04:05Z"})" << "\n\n"
      << R"({"text":"again","time":1700000000000,"id":7})" << "\n";
  }
  auto turns = LoadTurnsJsonl(dir + "/ok.jsonl");
  ASSERT_TRUE(turns.ok()) << turns.status().ToString();
  ASSERT_EQ(turns->size(), 2u);
  EXPECT_EQ((*turns)[0].time_ms, 1704164645000);
  EXPECT_EQ((*turns)[1].id, "7");
  {
    std::ofstream f(dir + "/bad.jsonl");
    f << R"({"text":"fine"})" << "\n" << R"({"text": "broken)" << "\n";
  }
  auto st = LoadTurnsJsonl(dir + "/bad.jsonl").status();
  EXPECT_NE(st.message().find("bad.jsonl:2"), std::string::npos) << st.ToString();
  {
    std::ofstream f(dir + "/notext.jsonl");
    f << R"({"speaker":"x"})" << "\n";
  }
  st = LoadTurnsJsonl(dir + "/notext.jsonl").status();
  EXPECT_NE(st.message().find("missing \"text\""), std::string::npos) << st.ToString();
}

TEST(Locomo, SessionThatIsNotAListIsAnError) {
  // Skipping it would ingest nothing and exit 0.
  for (const char* value : {"\"oops\"", "null", "{}"}) {
    auto st = ParseLocomo(fmt::format(R"([{{"sample_id":"conv-q","conversation":{{"session_1":{}}}}}])", value),
                          "f.json")
                  .status();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << value;
    EXPECT_NE(st.message().find("f.json: conv-q: conversation.session_1: not a list of turns"), std::string::npos)
        << st.ToString();
  }
  // Other session_* keys (dates, summaries) are not sessions.
  auto ds = ParseLocomo(R"([{"conversation":{"session_1_date_time":"x","session_x":null,"session_1":[]}}])", "f.json");
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
}

// Writes `lines` as a JSONL file and loads it.
StatusOr<std::vector<Turn>> LoadLines(const std::string& dir, const std::string& lines,
                                      std::vector<size_t>* line_numbers = nullptr) {
  {
    std::ofstream f(dir + "/t.jsonl", std::ios::binary);
    f << lines;
  }
  return LoadTurnsJsonl(dir + "/t.jsonl", line_numbers);
}

TEST(Jsonl, KeepsLineNumbers) {
  const testing::TempDir temp("ontomem-jsonl");
  const std::string& dir = temp.path();
  std::vector<size_t> lines;
  auto turns = LoadLines(dir, "\n{\"text\":\"a\"}\n\n  \n{\"text\":\"b\"}\n", &lines);
  ASSERT_TRUE(turns.ok()) << turns.status().ToString();
  EXPECT_EQ(lines, (std::vector<size_t>{2, 5}));
}

TEST(Jsonl, IsoTimesAreRangeCheckedAndTakeAnOffset) {
  const testing::TempDir temp("ontomem-jsonl");
  const std::string& dir = temp.path();
  auto time_of = [&](const std::string& t) -> StatusOr<int64_t> {
    ASSIGN_OR_RETURN(auto turns, LoadLines(dir, "{\"text\":\"x\"}\n{\"text\":\"y\",\"time\":\"" + t + "\"}\n"));
    return turns[1].time_ms;
  };
  EXPECT_EQ(*time_of("2024-01-02T03:04:05Z"), 1704164645000);
  EXPECT_EQ(*time_of("2024-01-02T05:04:05+02:00"), 1704164645000);
  EXPECT_EQ(*time_of("2024-01-01T21:34:05-0530"), 1704164645000);
  EXPECT_EQ(*time_of("2024-01-02T04:04:05.25+01"), 1704164645250);
  EXPECT_EQ(*time_of("2024-02-29"), 1709164800000);
  EXPECT_EQ(*time_of("2024-01-02 03:04"), 1704164640000);
  for (auto [bad, what] : std::vector<std::pair<std::string, std::string>>{
           {"2024-13-45T99:99:99Z", "month 13"},
           {"2023-02-29", "day 29 does not exist in 2023-02"},
           {"2024-04-31T00:00:00Z", "day 31"},
           {"2024-01-00", "day 0"},
           {"2024-01-02T24:00:00Z", "hour 24"},
           {"2024-01-02T23:60:00Z", "minute 60"},
           {"2024-01-02T23:59:61Z", "second 61"},
           {"2024-01-02T03:04:05+24:00", "UTC offset +24:00"}}) {
    auto st = time_of(bad).status();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("t.jsonl:2.time: " + bad + ": " + what), std::string::npos) << st.ToString();
  }
}

TEST(Jsonl, LargeUnsignedIdsAndTimes) {
  const testing::TempDir temp("ontomem-jsonl");
  const std::string& dir = temp.path();
  auto turns = LoadLines(dir, R"({"text":"x","id":18446744073709551615,"time":9223372036854775807})"
                              "\n" R"({"text":"y","id":-3})" "\n");
  ASSERT_TRUE(turns.ok()) << turns.status().ToString();
  EXPECT_EQ((*turns)[0].id, "18446744073709551615");  // not "-1"
  EXPECT_EQ((*turns)[0].time_ms, INT64_MAX);
  EXPECT_EQ((*turns)[1].id, "-3");
  auto st = LoadLines(dir, R"({"text":"x","time":18446744073709551615})" "\n").status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("t.jsonl:1.time: 18446744073709551615 is out of range"), std::string::npos)
      << st.ToString();
}

TEST(Metrics, RecallNdcgPrecision) {
  std::vector<std::string> ranked = {"a", "b", "c", "d"};
  EXPECT_DOUBLE_EQ(RecallAtK(ranked, {"b", "z"}, 10), 0.5);
  EXPECT_DOUBLE_EQ(RecallAtK(ranked, {"d"}, 3), 0.0);
  EXPECT_DOUBLE_EQ(NdcgAtK(ranked, {"a"}, 10), 1.0);
  EXPECT_NEAR(NdcgAtK(ranked, {"b"}, 10), 1.0 / std::log2(3.0), 1e-12);
  EXPECT_NEAR(NdcgAtK(ranked, {"b", "a"}, 10), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(PrecisionAtK(ranked, {"a", "c"}, 4), 0.5);
  EXPECT_DOUBLE_EQ(PrecisionAtK({}, {"a"}, 4), 0.0);
}

}  // namespace
}  // namespace ontomem
