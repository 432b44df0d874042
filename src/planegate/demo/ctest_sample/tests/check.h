#pragma once
// A small test harness in GoogleTest's spelling: TEST, EXPECT_*/ASSERT_*, GTEST_SKIP, and a
// DISABLED_ prefix that leaves a test out. Each test program runs every test it holds.
#include <cstdio>
#include <string>
#include <vector>

namespace check {
struct Case {
  std::string name;
  void (*body)();
};
inline std::vector<Case>& cases() {
  static std::vector<Case> all;
  return all;
}
inline int& failures() {
  static int count = 0;
  return count;
}
struct Add {
  Add(const char* suite, const char* name, void (*body)()) {
    cases().push_back({std::string(suite) + "." + name, body});
  }
};
inline void fail(const char* file, int line, const std::string& what) {
  std::printf("%s:%d: %s\n", file, line, what.c_str());
  ++failures();
}
}  // namespace check

#define TEST(suite, name)                                              \
  static void suite##_##name();                                        \
  static check::Add add_##suite##_##name(#suite, #name, suite##_##name); \
  static void suite##_##name()
#define EXPECT_TRUE(cond) \
  do { if (!(cond)) check::fail(__FILE__, __LINE__, "expected " #cond); } while (0)
#define EXPECT_FALSE(cond) EXPECT_TRUE(!(cond))
#define EXPECT_EQ(a, b) \
  do { if (!((a) == (b))) check::fail(__FILE__, __LINE__, "expected " #a " == " #b); } while (0)
#define ASSERT_TRUE(cond) \
  do { if (!(cond)) { check::fail(__FILE__, __LINE__, "expected " #cond); return; } } while (0)
#define GTEST_SKIP() \
  do { std::printf("skipped\n"); return; } while (0)

inline int check_main() {
  for (const auto& c : check::cases()) {
    if (c.name.find(".DISABLED_") != std::string::npos) {
      std::printf("disabled %s\n", c.name.c_str());
      continue;
    }
    c.body();
  }
  return check::failures() ? 1 : 0;
}
#define CHECK_MAIN() \
  int main() { return check_main(); }
