#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "embedpe/output_file.h"

namespace {

// Test cases that passed the filters in this run (doctest's own count).
unsigned g_cases_selected = 0;

// Each test case is a job of its own: the inputs an earlier case read (and
// deleted, so that their inodes may be reused by a later case's outputs) are
// forgotten (embedpe/output_file.h, note_input).
struct ForgetInputs : doctest::IReporter {
  explicit ForgetInputs(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override { g_cases_selected = stats.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override { embedpe::forget_inputs(); }
  void test_case_reenter(const doctest::TestCaseData&) override { embedpe::forget_inputs(); }
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

DOCTEST_REGISTER_LISTENER("forget_inputs", 1, ForgetInputs);

// doctest exits 0 when its filters select no case, so a renamed test file
// (CTest runs each as --source-file=*/test_NAME.cpp) would pass having run
// nothing. Here selecting nothing fails.
int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit() || status != 0) return status;
  if (g_cases_selected == 0) {
    std::fprintf(stderr, "embedpe_tests: no test case matches the filters given\n");
    return 1;
  }
  return 0;
}
