// `ontomem train combiner` refuses settings it cannot choose from, before reading any data.
#include "bench/train_combiner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "fake_embedder.h"
#include "learn/mlp.h"
#include "retrieve/combiner.h"
#include "test_util.h"

namespace ontomem {
namespace {

Status Train(TrainCombinerConfig c) {
  std::ostringstream out;
  return RunTrainCombiner(c, out);
}

TEST(TrainCombinerArgs, ClearErrorsForRouteSplitsAndSettings) {
  TrainCombinerConfig c;
  c.train_paths = {"train.json"};
  c.dev_paths = {"dev.json"};
  c.route = "sideways";
  Status st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("graph-first or dense-first"), std::string::npos) << st.ToString();

  c.route = "dense-first";
  c.dev_paths.clear();
  c.cv_paths = {"locomo.json#conv-26"};  // one fold cannot be held out against the others
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("at least two"), std::string::npos) << st.ToString();

  c.cv_paths.clear();
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--dev or --cv"), std::string::npos) << st.ToString();

  c.dev_paths = {"dev.json"};
  c.hidden.clear();
  EXPECT_EQ(Train(c).code(), StatusCode::kInvalidArgument);
  c.hidden = {8};
  c.ensemble = 0;
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--ensemble"), std::string::npos) << st.ToString();
  c.ensemble = 1;
  c.distill = true;  // nothing to distil from one network
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--distill"), std::string::npos) << st.ToString();
  c.ensemble = 3;  // a listwise setting could be chosen, and distillation is pointwise
  EXPECT_EQ(Train(c).code(), StatusCode::kInvalidArgument);
  c.listwise = false;
  c.distill = false;
  c.student_hidden = 64;  // a student without distillation
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("need --distill"), std::string::npos) << st.ToString();
  c.distill = true;
  c.student_hidden = -1;
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--student-hidden"), std::string::npos) << st.ToString();
  c.student_hidden = 0;
  c.teacher_path = "teacher.bin";  // a teacher is read, so no ensemble is fitted beside it
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--teacher replaces --ensemble"), std::string::npos) << st.ToString();
  c.ensemble = 1;
  const testing::TempDir teacher_temp("ontomem-train-combiner-teacher");
  const std::string& tdir = teacher_temp.path();
  c.teacher_path = tdir + "/missing.bin";
  st = Train(c);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("--teacher"), std::string::npos) << st.ToString();
  c.teacher_path = tdir + "/small.bin";  // a network, but not over the combiner's features
  ASSERT_TRUE(learn::Mlp({3, 2, 1}, learn::OutputActivation::kSigmoid, 1).Save(c.teacher_path).ok());
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--teacher"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("this build computes " + std::to_string(kCombinerFeatures) + " features"),
            std::string::npos)
      << st.ToString();
  c.teacher_path.clear();
  c.distill = false;
  c.listwise = true;
  // A models directory without an extractor is refused before any split is read.
  c.train_with_models = {{"other-half.json", "no-such-models-dir"}};
  st = Train(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("no-such-models-dir"), std::string::npos) << st.ToString();
  c.train_with_models.clear();

  // A file that does not exist is an error naming it (nothing was trained or written).
  c.hidden = {8};
  c.bench.embedder = std::make_shared<testing::FakeEmbedder>();
  const testing::TempDir temp("ontomem-train-combiner");
  const std::string& dir = temp.path();
  c.out_path = dir + "/never-written.bin";  // not the installed model
  st = Train(c);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("train.json"), std::string::npos) << st.ToString();
  EXPECT_FALSE(std::filesystem::exists(c.out_path));
}

}  // namespace
}  // namespace ontomem
