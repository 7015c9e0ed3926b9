//===- ManifestTest.cpp - The manifest writer against its reader *- C++ -*-===//
//
// The compiler writes manifests with llvm::json (lib/Driver/Manifest.cpp); the
// runtime reads them with a small parser of its own
// (runtime/lib/core/Manifest.cpp). Both take the schema from symm/manifest.h;
// these tests lower real kernels, write their manifest, and check that the
// runtime reads back every field the writer wrote, and that it rejects other
// schema versions and context layouts with a clear message.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include "symm/Driver/Manifest.h"
#include "symm/InitAllSymm.h"
#include "symm/Pipelines/Pipelines.h"
#include "symm/Target/Host/HostTarget.h"
#include "symm/abi.h"
#include "symm/manifest.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mlir;

namespace {

// Every argument kind: heap and plain memrefs of several ranks, scalars; a
// kernel that reads the context and one that does not; a kernel outlined
// from a gpu.launch; a kernel that may launch early (which the CPU target
// does not do) and whose workgroups wait on each other.
constexpr const char *kSource = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @idle(%x: f32, %i: index) kernel attributes {symm.early_launch, symm.co_resident} {
      gpu.return
    }
    gpu.func @identify(%buf: memref<?xi32, #symm.heap>, %tile: memref<4x?xf16>,
                       %s: memref<i64, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %me = symm.rank : i32
      memref.store %me, %buf[%c0] : memref<?xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @host(%m: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %m[%c0] : memref<8xf32>
      gpu.terminator
    }
    return
  }
}
)mlir";

/// Lowers kSource for the CPU target and returns its manifest text.
std::string writeManifest(StringRef kernelContext) {
  DialectRegistry registry;
  mlir::symm::registerAllSymm(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSource, &context);
  EXPECT_TRUE(module);
  mlir::symm::SymmPipelineOptions options;
  options.kernelContext = kernelContext.str();
  mlir::symm::ManifestWriter writer;
  writer.recordKernels(*module);
  PassManager pm(&context);
  pm.addInstrumentation(writer.createInstrumentation());
  mlir::symm::buildSymmLoweringPipeline(pm, mlir::symm::getHostTarget(),
                                        options);
  EXPECT_TRUE(succeeded(pm.run(*module)));
  FailureOr<std::string> text =
      writer.write(*module, "host", "so", kernelContext);
  EXPECT_TRUE(succeeded(text));
  return succeeded(text) ? *text : std::string();
}

const llvm::json::Object &object(const llvm::json::Value *value) {
  static const llvm::json::Object empty;
  EXPECT_TRUE(value && value->getAsObject());
  return value && value->getAsObject() ? *value->getAsObject() : empty;
}

std::string str(const llvm::json::Object &o, StringRef key) {
  std::optional<StringRef> v = o.getString(key);
  EXPECT_TRUE(v) << key.str();
  return v ? v->str() : "";
}

int64_t num(const llvm::json::Object &o, StringRef key) {
  std::optional<int64_t> v = o.getInteger(key);
  EXPECT_TRUE(v) << key.str();
  return v.value_or(-1);
}

bool flag(const llvm::json::Object &o, StringRef key) {
  std::optional<bool> v = o.getBoolean(key);
  EXPECT_TRUE(v) << key.str();
  return v.value_or(false);
}

/// Compares what the runtime read with what llvm::json reads from the same
/// text, field by field, and that the reader saw no key the writer lacks.
void checkRoundTrip(const std::string &text) {
  ::symm::Manifest read;
  std::string error;
  ASSERT_TRUE(::symm::parseManifest(text, "test", read, error)) << error;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object &root = object(&*parsed);
  EXPECT_EQ(root.size(), 5u);
  EXPECT_TRUE(read.loaded);
  EXPECT_EQ(read.schema, num(root, SYMM_MANIFEST_SCHEMA));
  EXPECT_EQ(read.schema, SYMM_MANIFEST_SCHEMA_VERSION);
  EXPECT_EQ(read.target, str(root, SYMM_MANIFEST_TARGET));
  EXPECT_EQ(read.format, str(root, SYMM_MANIFEST_FORMAT));

  const llvm::json::Object &context = object(root.get(SYMM_MANIFEST_CONTEXT));
  EXPECT_EQ(context.size(), 5u);
  EXPECT_EQ(read.contextArgument, str(context, SYMM_MANIFEST_CONTEXT_KIND) ==
                                      SYMM_MANIFEST_CONTEXT_ARGUMENT);
  EXPECT_EQ(read.contextSymbol, str(context, SYMM_MANIFEST_CONTEXT_SYMBOL));
  EXPECT_EQ(read.contextSymbol, SYMM_CONTEXT_SYMBOL);
  EXPECT_EQ(int64_t(read.contextSize),
            num(context, SYMM_MANIFEST_CONTEXT_SIZE));
  EXPECT_EQ(read.maxRanks, num(context, SYMM_MANIFEST_CONTEXT_MAX_RANKS));
  EXPECT_EQ(read.contextLayout, str(context, SYMM_MANIFEST_CONTEXT_LAYOUT));

  const llvm::json::Array *kernels = root.getArray(SYMM_MANIFEST_KERNELS);
  ASSERT_TRUE(kernels);
  EXPECT_EQ(read.kernels.size(), kernels->size());
  for (const llvm::json::Value &k : *kernels) {
    const llvm::json::Object &kernel = object(&k);
    EXPECT_EQ(kernel.size(), 7u);
    std::string name = str(kernel, SYMM_MANIFEST_KERNEL_NAME);
    ASSERT_TRUE(read.kernels.count(name)) << name;
    const ::symm::KernelInfo &info = read.kernels.at(name);
    EXPECT_EQ(info.module, str(kernel, SYMM_MANIFEST_KERNEL_MODULE));
    EXPECT_EQ(int64_t(info.params), num(kernel, SYMM_MANIFEST_KERNEL_PARAMS));
    EXPECT_EQ(info.contextArgument,
              flag(kernel, SYMM_MANIFEST_KERNEL_CONTEXT_ARGUMENT));
    EXPECT_EQ(info.earlyLaunch,
              flag(kernel, SYMM_MANIFEST_KERNEL_EARLY_LAUNCH));
    EXPECT_EQ(info.coResident, flag(kernel, SYMM_MANIFEST_KERNEL_CO_RESIDENT));
    const llvm::json::Array *args =
        kernel.getArray(SYMM_MANIFEST_KERNEL_ARGUMENTS);
    ASSERT_TRUE(args);
    ASSERT_EQ(info.argumentInfo.size(), args->size());
    ASSERT_EQ(info.arguments.size(), args->size());
    for (size_t i = 0; i < args->size(); ++i) {
      const llvm::json::Object &arg = object(&(*args)[i]);
      const ::symm::ArgumentInfo &a = info.argumentInfo[i];
      EXPECT_EQ(a.kind, str(arg, SYMM_MANIFEST_ARG_KIND));
      EXPECT_EQ(a.type, str(arg, SYMM_MANIFEST_ARG_TYPE));
      EXPECT_EQ(info.arguments[i], a.type);
      EXPECT_EQ(int64_t(a.params), num(arg, SYMM_MANIFEST_ARG_PARAMS));
      if (a.kind == SYMM_MANIFEST_ARG_SCALAR) {
        EXPECT_EQ(arg.size(), 3u);
        continue;
      }
      EXPECT_EQ(arg.size(), 6u);
      EXPECT_EQ(a.element, str(arg, SYMM_MANIFEST_ARG_ELEMENT));
      EXPECT_EQ(a.rank, num(arg, SYMM_MANIFEST_ARG_RANK));
      EXPECT_EQ(a.heap, flag(arg, SYMM_MANIFEST_ARG_HEAP));
    }
  }
}

TEST(Manifest, RoundTripsEveryFieldWithContextGlobal) {
  checkRoundTrip(writeManifest("global"));
}

TEST(Manifest, RoundTripsEveryFieldWithContextArgument) {
  checkRoundTrip(writeManifest("argument"));
}

TEST(Manifest, DescribesLoweredSignatures) {
  ::symm::Manifest m;
  std::string error;
  ASSERT_TRUE(
      ::symm::parseManifest(writeManifest("argument"), "test", m, error))
      << error;
  EXPECT_TRUE(m.contextArgument);
  ASSERT_EQ(m.kernels.size(), 3u);
  // Only the kernel that reads the context takes it.
  const ::symm::KernelInfo &idle = m.kernels.at("idle");
  EXPECT_FALSE(idle.contextArgument);
  EXPECT_EQ(idle.params, 2u);
  const ::symm::KernelInfo &identify = m.kernels.at("identify");
  EXPECT_TRUE(identify.contextArgument);
  EXPECT_EQ(identify.params,
            size_t(SYMM_MEMREF_PARAMS(1) + SYMM_MEMREF_PARAMS(2) +
                   SYMM_MEMREF_PARAMS(0) + 1));
  ASSERT_EQ(identify.argumentInfo.size(), 3u);
  EXPECT_EQ(identify.argumentInfo[0].type, "memref<?xi32, #symm.heap>");
  EXPECT_TRUE(identify.argumentInfo[0].heap);
  EXPECT_EQ(identify.argumentInfo[1].element, "f16");
  EXPECT_EQ(identify.argumentInfo[1].rank, 2);
  EXPECT_FALSE(identify.argumentInfo[1].heap);
  // The kernel gpu-kernel-outlining made from the gpu.launch.
  bool outlined = false;
  for (auto &[name, info] : m.kernels)
    if (info.module != "kernels") {
      outlined = true;
      EXPECT_EQ(info.params, size_t(SYMM_MEMREF_PARAMS(1)));
      EXPECT_FALSE(info.contextArgument);
    }
  EXPECT_TRUE(outlined);
}

/// `text` without the lines of key `key` (each `"key": value,` on a line of
/// its own in the writer's output): an older writer's manifest.
std::string withoutKey(const std::string &text, const std::string &key) {
  std::string quoted = "\"" + key + "\": ", kept;
  for (size_t at = 0, next; at < text.size(); at = next) {
    next = text.find(quoted, at);
    kept += text.substr(at, next - at);
    if (next != std::string::npos)
      next = std::min(text.find('\n', next), text.size() - 1) + 1;
  }
  return kept;
}

void expectRejected(std::string text, const std::string &from,
                    const std::string &to, const std::string &message) {
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  ::symm::Manifest m;
  std::string error;
  EXPECT_FALSE(::symm::parseManifest(text, "k.so.json", m, error));
  EXPECT_EQ(error, message);
  EXPECT_FALSE(m.loaded);
}

TEST(Manifest, RejectsOtherSchemasAndContexts) {
  std::string text = writeManifest("global");
  std::string version = std::to_string(SYMM_MANIFEST_SCHEMA_VERSION);
  expectRejected(text, "\"schema\": " + version, "\"schema\": 99",
                 "manifest k.so.json has schema version 99, this runtime "
                 "reads version " +
                     version +
                     ": compile the module with the symm-compile of this "
                     "runtime");
  expectRejected(text, "\"schema\": " + version, "\"unversioned\": 0",
                 "manifest k.so.json has no schema version; it was written "
                 "by an older symm-compile: compile the module again");
  expectRejected(text, "\"max_ranks\": " + std::to_string(SYMM_MAX_RANKS),
                 "\"max_ranks\": 8",
                 "manifest k.so.json expects a kernel context of " +
                     std::to_string(sizeof(symm_kernel_context)) +
                     " bytes for 8 ranks; this runtime's has " +
                     std::to_string(sizeof(symm_kernel_context)) +
                     " bytes for " + std::to_string(SYMM_MAX_RANKS));
  expectRejected(text, "\"name\": \"idle\"", "\"name\": 7",
                 "manifest k.so.json: kernel 0: \"name\" must be a string");
  expectRejected(text, "\"context_argument\"", "\"context_arg\"",
                 "manifest k.so.json: kernel 'idle' has no "
                 "\"context_argument\"");
  expectRejected(text, "\"early_launch\": false", "\"early_launch\": 1",
                 "manifest k.so.json: kernel 'idle': \"early_launch\" must "
                 "be true or false");
}

// "early_launch" is optional: a manifest without it (an older writer's)
// launches every kernel in stream order; the CPU target drops the attribute.
TEST(Manifest, EarlyLaunchIsOptional) {
  std::string text = writeManifest("global");
  ::symm::Manifest m;
  std::string error;
  ASSERT_TRUE(::symm::parseManifest(text, "test", m, error)) << error;
  for (auto &[name, info] : m.kernels)
    EXPECT_FALSE(info.earlyLaunch) << name;
  std::string absent = withoutKey(text, "early_launch");
  ASSERT_EQ(absent.find("early_launch"), std::string::npos);
  ::symm::Manifest old;
  ASSERT_TRUE(::symm::parseManifest(absent, "test", old, error)) << error;
  EXPECT_EQ(old.kernels.size(), m.kernels.size());
  for (auto &[name, info] : old.kernels)
    EXPECT_FALSE(info.earlyLaunch) << name;
}

// "co_resident" is kept on every target and optional: without it (an older
// writer's manifest) no launch is refused for its grid.
TEST(Manifest, CoResidentIsKeptAndOptional) {
  std::string text = writeManifest("global");
  ::symm::Manifest m;
  std::string error;
  ASSERT_TRUE(::symm::parseManifest(text, "test", m, error)) << error;
  for (auto &[name, info] : m.kernels)
    EXPECT_EQ(info.coResident, name == "idle") << name;
  expectRejected(text, "\"co_resident\": true", "\"co_resident\": \"yes\"",
                 "manifest k.so.json: kernel 'idle': \"co_resident\" must "
                 "be true or false");
  std::string absent = withoutKey(text, "co_resident");
  ASSERT_EQ(absent.find("co_resident"), std::string::npos);
  ::symm::Manifest old;
  ASSERT_TRUE(::symm::parseManifest(absent, "test", old, error)) << error;
  EXPECT_EQ(old.kernels.size(), m.kernels.size());
  for (auto &[name, info] : old.kernels)
    EXPECT_FALSE(info.coResident) << name;
}

} // namespace
