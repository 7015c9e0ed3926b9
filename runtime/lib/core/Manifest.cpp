//===- Manifest.cpp - Read symm-compile's kernel manifests ------*- C++ -*-===//
//
// A small JSON reader for the manifest symm-compile writes next to device
// objects: enough to know each kernel's parameter count and argument kinds.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

using namespace symm;

namespace {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json *get(const std::string &key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
  }
};

class Parser {
public:
  explicit Parser(const std::string &text) : text(text) {}

  bool parse(Json &out) {
    if (!value(out))
      return false;
    skip();
    return pos == text.size();
  }
  size_t position() const { return pos; }

private:
  void skip() {
    while (pos < text.size() && isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool literal(const char *word) {
    size_t n = strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool str(std::string &out) {
    if (text[pos] != '"')
      return false;
    ++pos;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c == '\\' && pos < text.size()) {
        char e = text[pos++];
        switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          pos += 4; // non-ASCII never appears in names we read
          out += '?';
          break;
        default:
          out += e;
        }
      } else {
        out += c;
      }
    }
    if (pos >= text.size())
      return false;
    ++pos;
    return true;
  }
  bool value(Json &out) {
    skip();
    if (pos >= text.size())
      return false;
    char c = text[pos];
    if (c == '{') {
      out.kind = Json::Object;
      ++pos;
      skip();
      if (text[pos] == '}')
        return ++pos, true;
      while (true) {
        skip();
        std::string key;
        if (!str(key))
          return false;
        skip();
        if (text[pos++] != ':')
          return false;
        if (!value(out.object[key]))
          return false;
        skip();
        if (text[pos] == ',') {
          ++pos;
          continue;
        }
        return text[pos++] == '}';
      }
    }
    if (c == '[') {
      out.kind = Json::Array;
      ++pos;
      skip();
      if (text[pos] == ']')
        return ++pos, true;
      while (true) {
        out.array.emplace_back();
        if (!value(out.array.back()))
          return false;
        skip();
        if (text[pos] == ',') {
          ++pos;
          continue;
        }
        return text[pos++] == ']';
      }
    }
    if (c == '"') {
      out.kind = Json::String;
      return str(out.string);
    }
    if (literal("true")) {
      out.kind = Json::Bool;
      out.number = 1;
      return true;
    }
    if (literal("false")) {
      out.kind = Json::Bool;
      return true;
    }
    if (literal("null"))
      return true;
    char *end = nullptr;
    out.number = strtod(text.c_str() + pos, &end);
    if (end == text.c_str() + pos)
      return false;
    out.kind = Json::Number;
    pos = end - text.c_str();
    return true;
  }

  const std::string &text;
  size_t pos = 0;
};

} // namespace

bool symm::readManifest(const std::string &path, Manifest &manifest,
                        std::string &error) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  Json root;
  Parser parser(text);
  if (!parser.parse(root) || root.kind != Json::Object) {
    error = "malformed manifest " + path + " near byte " +
            std::to_string(parser.position());
    return false;
  }
  if (const Json *context = root.get("context"))
    if (const Json *kind = context->get("kind"))
      manifest.contextArgument = kind->string == "argument";
  const Json *kernels = root.get("kernels");
  if (!kernels || kernels->kind != Json::Array) {
    error = "manifest " + path + " has no kernel list";
    return false;
  }
  for (const Json &kernel : kernels->array) {
    const Json *name = kernel.get("name");
    const Json *params = kernel.get("params");
    if (!name || !params) {
      error = "manifest " + path + " has a kernel without name or params";
      return false;
    }
    KernelInfo info;
    info.params = static_cast<size_t>(params->number);
    if (const Json *args = kernel.get("arguments"))
      for (const Json &arg : args->array)
        if (const Json *type = arg.get("type"))
          info.arguments.push_back(type->string);
    manifest.kernels[name->string] = info;
  }
  manifest.loaded = true;
  return true;
}
