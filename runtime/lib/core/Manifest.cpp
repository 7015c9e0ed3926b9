//===- Manifest.cpp - Read symm-compile's kernel manifests ------*- C++ -*-===//
//
// A small JSON reader (the runtime does not link LLVM) for the manifest
// symm-compile writes next to device objects, with the schema's key names from
// symm/manifest.h.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include "symm/kernel_context.h"
#include "symm/manifest.h"

#include <algorithm>
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
  /// The next character, '\0' past the end.
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  char next() {
    char c = peek();
    pos = std::min(pos + 1, text.size());
    return c;
  }
  bool literal(const char *word) {
    size_t n = strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool str(std::string &out) {
    if (peek() != '"')
      return false;
    ++pos;
    while (pos < text.size() && peek() != '"') {
      char c = next();
      if (c == '\\' && pos < text.size()) {
        char e = next();
        switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          pos = std::min(pos + 4, text.size()); // never in names we read
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
    char c = peek();
    if (c == '{') {
      out.kind = Json::Object;
      ++pos;
      skip();
      if (peek() == '}')
        return ++pos, true;
      while (true) {
        skip();
        std::string key;
        if (!str(key))
          return false;
        skip();
        if (next() != ':')
          return false;
        if (!value(out.object[key]))
          return false;
        skip();
        if (peek() == ',') {
          ++pos;
          continue;
        }
        return next() == '}';
      }
    }
    if (c == '[') {
      out.kind = Json::Array;
      ++pos;
      skip();
      if (peek() == ']')
        return ++pos, true;
      while (true) {
        out.array.emplace_back();
        if (!value(out.array.back()))
          return false;
        skip();
        if (peek() == ',') {
          ++pos;
          continue;
        }
        return next() == ']';
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

/// Reads the fields of one JSON object, naming the first missing or
/// mistyped one.
class Fields {
public:
  Fields(const Json &json, std::string where, std::string &error)
      : json(json), where(std::move(where)), error(error) {}

  bool string(const char *key, std::string &out) {
    const Json *v = get(key, Json::String, "a string");
    if (v)
      out = v->string;
    return v;
  }
  template <typename T> bool number(const char *key, T &out) {
    const Json *v = get(key, Json::Number, "a number");
    if (v)
      out = static_cast<T>(v->number);
    return v;
  }
  bool boolean(const char *key, bool &out) {
    const Json *v = get(key, Json::Bool, "true or false");
    if (v)
      out = v->number != 0;
    return v;
  }
  /// An optional key: absent, `out` keeps its value.
  bool optionalBoolean(const char *key, bool &out) {
    return !json.get(key) || boolean(key, out);
  }
  const Json *object(const char *key) {
    return get(key, Json::Object, "an object");
  }
  const Json *array(const char *key) {
    return get(key, Json::Array, "an array");
  }

private:
  const Json *get(const char *key, Json::Kind kind, const char *what) {
    const Json *v = json.get(key);
    if (!v)
      error = where + " has no \"" + key + "\"";
    else if (v->kind != kind)
      error = where + ": \"" + key + "\" must be " + what;
    return v && v->kind == kind ? v : nullptr;
  }

  const Json &json;
  std::string where;
  std::string &error;
};

bool readArgument(const Json &json, const std::string &where, ArgumentInfo &arg,
                  std::string &error) {
  Fields f(json, where, error);
  if (!f.string(SYMM_MANIFEST_ARG_KIND, arg.kind) ||
      !f.string(SYMM_MANIFEST_ARG_TYPE, arg.type) ||
      !f.number(SYMM_MANIFEST_ARG_PARAMS, arg.params))
    return false;
  if (arg.kind == SYMM_MANIFEST_ARG_SCALAR)
    return true;
  if (arg.kind != SYMM_MANIFEST_ARG_MEMREF) {
    error = where + ": unknown argument kind '" + arg.kind + "'";
    return false;
  }
  return f.string(SYMM_MANIFEST_ARG_ELEMENT, arg.element) &&
         f.number(SYMM_MANIFEST_ARG_RANK, arg.rank) &&
         f.boolean(SYMM_MANIFEST_ARG_HEAP, arg.heap);
}

bool readKernel(const Json &json, const std::string &source, size_t index,
                KernelInfo &kernel, std::string &name, std::string &error) {
  Fields f(json, source + ": kernel " + std::to_string(index), error);
  if (!f.string(SYMM_MANIFEST_KERNEL_NAME, name))
    return false;
  std::string where = source + ": kernel '" + name + "'";
  Fields k(json, where, error);
  const Json *args = k.array(SYMM_MANIFEST_KERNEL_ARGUMENTS);
  if (!k.string(SYMM_MANIFEST_KERNEL_MODULE, kernel.module) ||
      !k.number(SYMM_MANIFEST_KERNEL_PARAMS, kernel.params) ||
      !k.boolean(SYMM_MANIFEST_KERNEL_CONTEXT_ARGUMENT,
                 kernel.contextArgument) ||
      !k.optionalBoolean(SYMM_MANIFEST_KERNEL_EARLY_LAUNCH,
                         kernel.earlyLaunch) ||
      !k.optionalBoolean(SYMM_MANIFEST_KERNEL_CO_RESIDENT,
                         kernel.coResident) ||
      !args)
    return false;
  for (const Json &a : args->array) {
    ArgumentInfo arg;
    if (!readArgument(a,
                      where + " argument " +
                          std::to_string(kernel.argumentInfo.size()),
                      arg, error))
      return false;
    kernel.arguments.push_back(arg.type);
    kernel.argumentInfo.push_back(std::move(arg));
  }
  return true;
}

} // namespace

bool symm::parseManifest(const std::string &text, const std::string &source,
                         Manifest &manifest, std::string &error) {
  Json root;
  Parser parser(text);
  if (!parser.parse(root) || root.kind != Json::Object) {
    error = "malformed manifest " + source + " near byte " +
            std::to_string(parser.position());
    return false;
  }
  std::string where = "manifest " + source;
  Fields f(root, where, error);
  if (!root.get(SYMM_MANIFEST_SCHEMA)) {
    error = where + " has no schema version; it was written by an older "
                    "symm-compile: compile the module again";
    return false;
  }
  if (!f.number(SYMM_MANIFEST_SCHEMA, manifest.schema))
    return false;
  if (manifest.schema != SYMM_MANIFEST_SCHEMA_VERSION) {
    error = where + " has schema version " + std::to_string(manifest.schema) +
            ", this runtime reads version " +
            std::to_string(SYMM_MANIFEST_SCHEMA_VERSION) +
            ": compile the module with the symm-compile of this runtime";
    return false;
  }
  const Json *context = f.object(SYMM_MANIFEST_CONTEXT);
  const Json *kernels = f.array(SYMM_MANIFEST_KERNELS);
  if (!f.string(SYMM_MANIFEST_TARGET, manifest.target) ||
      !f.string(SYMM_MANIFEST_FORMAT, manifest.format) || !context || !kernels)
    return false;
  Fields c(*context, where + ": \"" SYMM_MANIFEST_CONTEXT "\"", error);
  std::string kind;
  if (!c.string(SYMM_MANIFEST_CONTEXT_KIND, kind) ||
      !c.string(SYMM_MANIFEST_CONTEXT_SYMBOL, manifest.contextSymbol) ||
      !c.number(SYMM_MANIFEST_CONTEXT_SIZE, manifest.contextSize) ||
      !c.number(SYMM_MANIFEST_CONTEXT_MAX_RANKS, manifest.maxRanks) ||
      !c.string(SYMM_MANIFEST_CONTEXT_LAYOUT, manifest.contextLayout))
    return false;
  if (kind != SYMM_MANIFEST_CONTEXT_GLOBAL &&
      kind != SYMM_MANIFEST_CONTEXT_ARGUMENT) {
    error = where + ": unknown context kind '" + kind + "'";
    return false;
  }
  manifest.contextArgument = kind == SYMM_MANIFEST_CONTEXT_ARGUMENT;
  // A module built against another kernel-context layout would read the
  // heap bases from the wrong place.
  if (manifest.contextSize != sizeof(symm_kernel_context) ||
      manifest.maxRanks != SYMM_MAX_RANKS) {
    error = where + " expects a kernel context of " +
            std::to_string(manifest.contextSize) + " bytes for " +
            std::to_string(manifest.maxRanks) + " ranks; this runtime's has " +
            std::to_string(sizeof(symm_kernel_context)) + " bytes for " +
            std::to_string(SYMM_MAX_RANKS);
    return false;
  }
  for (const Json &k : kernels->array) {
    KernelInfo kernel;
    std::string name;
    if (!readKernel(k, where, manifest.kernels.size(), kernel, name, error))
      return false;
    manifest.kernels[name] = std::move(kernel);
  }
  manifest.loaded = true;
  return true;
}

bool symm::readManifest(const std::string &path, Manifest &manifest,
                        std::string &error) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parseManifest(buffer.str(), path, manifest, error);
}
