#pragma once
#include <string>

// normalize_path: one spelling per path. "." and empty segments go, ".." removes the segment
// before it (never above the root of an absolute path), and a relative path that ends up
// empty is ".".
std::string normalize_path(const std::string& path);
