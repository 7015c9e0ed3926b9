//===- Environment.cpp - Variables the runtime reads ------------*- C++ -*-===//

#include "Environment.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace symm;

const char *env::get(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : nullptr;
}

std::optional<size_t> env::parseSize(const char *text) {
  char *end = nullptr;
  errno = 0;
  double value = strtod(text, &end);
  if (end == text || errno == ERANGE || !std::isfinite(value) || value <= 0)
    return std::nullopt;
  switch (*end) {
  case 'k':
  case 'K':
    value *= 1024.0;
    ++end;
    break;
  case 'm':
  case 'M':
    value *= 1024.0 * 1024;
    ++end;
    break;
  case 'g':
  case 'G':
    value *= 1024.0 * 1024 * 1024;
    ++end;
    break;
  case 't':
  case 'T':
    value *= 1024.0 * 1024 * 1024 * 1024;
    ++end;
    break;
  default:
    break;
  }
  if (*end == 'B' || *end == 'b')
    ++end;
  // Compared as doubles: converting a double beyond size_t is undefined.
  if (*end || value < 1 || value > static_cast<double>(kMaxSize))
    return std::nullopt;
  return static_cast<size_t>(value);
}

std::optional<double> env::parseSeconds(const char *text) {
  char *end = nullptr;
  errno = 0;
  double value = strtod(text, &end);
  if (end == text || *end || errno == ERANGE || !std::isfinite(value) ||
      value <= 0 || value > kMaxSeconds)
    return std::nullopt;
  return value;
}

std::optional<int> env::parseInt(const char *text, int min, int max) {
  char *end = nullptr;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (end == text || *end || errno == ERANGE || value < min || value > max)
    return std::nullopt;
  return static_cast<int>(value);
}

std::string env::describeSize(const char *name, const char *text) {
  return std::string(name) + "='" + text + "' is not " + kSizeForm;
}

std::string env::describeSeconds(const char *name, const char *text) {
  return std::string(name) + "='" + text + "' is not " + kSecondsForm;
}
