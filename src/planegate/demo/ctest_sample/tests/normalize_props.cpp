// The property plane: three invariants of normalize_path over 500 generated paths.
#include <random>
#include <string>

#include "check.h"
#include "normalize.h"

namespace {
constexpr int kInputs = 500;
const char* const kParts[] = {"a", "b", "..", ".", "", "dir", "x.y"};

std::string random_path(std::mt19937& rng) {
  std::uniform_int_distribution<int> count(0, 8), part(0, 6), slash(0, 1);
  std::string path = slash(rng) ? "/" : "";
  for (int i = count(rng); i > 0; --i) {
    path += kParts[part(rng)];
    if (i > 1) path += "/";
  }
  return path;
}

bool has_dot_segment(const std::string& path) {
  std::string segment;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') {
      segment += path[i];
      continue;
    }
    if (segment == "." && path != ".") return true;
    if (segment.empty() && i != 0 && i != path.size()) return true;
    segment.clear();
  }
  return false;
}
}  // namespace

TEST(NormalizeProps, Idempotent) {
  std::mt19937 rng(0x5EED);
  for (int i = 0; i < kInputs; ++i) {
    const std::string once = normalize_path(random_path(rng));
    EXPECT_EQ(normalize_path(once), once);
  }
}

TEST(NormalizeProps, NoDotOrEmptySegments) {
  std::mt19937 rng(0x5EED);
  for (int i = 0; i < kInputs; ++i) {
    EXPECT_FALSE(has_dot_segment(normalize_path(random_path(rng))));
  }
}

TEST(NormalizeProps, KeepsTheRoot) {
  std::mt19937 rng(0x5EED);
  for (int i = 0; i < kInputs; ++i) {
    const std::string path = random_path(rng);
    EXPECT_EQ(normalize_path(path)[0] == '/', !path.empty() && path[0] == '/');
  }
}

CHECK_MAIN()
