// The fixture plane: every line of paths/edge_cases.txt is "input<TAB>expected".
#include <fstream>
#include <string>

#include "check.h"
#include "normalize.h"

static std::string g_file;

TEST(EdgeCases, Golden) {
  std::ifstream in(g_file);
  ASSERT_TRUE(in.good());
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    ASSERT_TRUE(tab != std::string::npos);
    EXPECT_EQ(normalize_path(line.substr(0, tab)), line.substr(tab + 1));
    ++lines;
  }
  EXPECT_TRUE(lines > 0);
}

int main(int argc, char** argv) {
  g_file = argc > 1 ? argv[1] : "paths/edge_cases.txt";
  return check_main();
}
