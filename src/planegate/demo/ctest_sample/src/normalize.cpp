#include "normalize.h"

#include <vector>

std::string normalize_path(const std::string& path) {
  const bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string> kept;
  std::string segment;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') {
      segment += path[i];
      continue;
    }
    if (segment == "..") {
      if (!kept.empty() && kept.back() != "..") {
        kept.pop_back();
      } else if (!absolute) {
        kept.push_back(segment);
      }
    } else if (!segment.empty() && segment != ".") {
      kept.push_back(segment);
    }
    segment.clear();
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < kept.size(); ++i) {
    out += (i ? "/" : "") + kept[i];
  }
  return out.empty() ? "." : out;
}
