//===- LinkLibrary.cpp - Device-library functions into gpu.modules -*- C++
//-*-===//
//
// LLVM 22 has no MLIR module linker, so Symm links its device library itself:
// a gpu.module declares the library functions it calls, and this pass
// replaces each declaration by a private copy of the library's definition,
// then copies whatever that definition uses in turn. Only what a module needs
// is copied; the rest of the library is never seen by later passes.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <dlfcn.h>

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMLINKLIBRARY
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

/// The names the library reserves: a declaration of one that no library
/// defines is an error rather than an external symbol.
static constexpr llvm::StringLiteral kLibraryPrefix = "symm_";

std::string mlir::symm::getBuiltinLibraryDir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&getBuiltinLibraryDir), &info) ||
      !info.dli_fname)
    return "";
  // dladdr names the main program as it was started (a bare name when found
  // on PATH); the operating system knows where it is.
  std::string object = info.dli_fname;
  if (StringRef(object).find('/') == StringRef::npos)
    object = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&getBuiltinLibraryDir));
  SmallString<256> binary;
  if (object.empty() || llvm::sys::fs::real_path(object, binary))
    return "";
  // <prefix>/bin/tool or <prefix>/lib/libX.so -> <prefix>/share/symm/library;
  // in the build tree a library may sit a folder deeper (lib/CAPI).
  StringRef dir = llvm::sys::path::parent_path(binary);
  for (int up = 0; up < 3 && !dir.empty();
       ++up, dir = llvm::sys::path::parent_path(dir)) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, "..", "share", "symm", "library");
    if (llvm::sys::fs::is_directory(path)) {
      SmallString<256> real;
      return llvm::sys::fs::real_path(path, real) ? path.str().str()
                                                  : real.str().str();
    }
  }
  return "";
}

namespace {

/// One definition of the library, with the file it came from.
struct LibrarySymbol {
  Operation *op;
  std::string file;
};

/// Every file of the library, parsed, and its symbols by name.
class Library {
public:
  /// Parses the `.mlir` files of every folder in `places` (in name order) and
  /// every file named there. Fails, with the error at `loc`, on a file that
  /// does not parse or a name defined twice.
  LogicalResult load(MLIRContext *context, ArrayRef<std::string> places,
                     Location loc);

  const LibrarySymbol *lookup(StringRef name) const {
    auto it = symbols.find(name);
    return it == symbols.end() ? nullptr : &it->second;
  }

  /// What was searched, for an error about a missing function.
  std::string describe() const {
    std::string text;
    for (const std::string &place : searched)
      text += (text.empty() ? "" : ", ") + place;
    return text.empty() ? "no library" : text;
  }

private:
  LogicalResult loadFile(MLIRContext *context, StringRef file, Location loc);

  SmallVector<OwningOpRef<ModuleOp>> modules;
  llvm::StringMap<LibrarySymbol> symbols;
  SmallVector<std::string> searched;
};

LogicalResult Library::load(MLIRContext *context, ArrayRef<std::string> places,
                            Location loc) {
  for (const std::string &place : places) {
    searched.push_back(place);
    if (!llvm::sys::fs::is_directory(place)) {
      if (!llvm::sys::fs::exists(place))
        return emitError(loc)
               << "device library '" << place << "' does not exist";
      if (failed(loadFile(context, place, loc)))
        return failure();
      continue;
    }
    std::error_code ec;
    SmallVector<std::string> files;
    for (llvm::sys::fs::directory_iterator it(place, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".mlir")
        files.push_back(it->path());
    if (ec)
      return emitError(loc) << "cannot read the device library folder '"
                            << place << "': " << ec.message();
    llvm::sort(files);
    for (const std::string &file : files)
      if (failed(loadFile(context, file, loc)))
        return failure();
  }
  return success();
}

LogicalResult Library::loadFile(MLIRContext *context, StringRef file,
                                Location loc) {
  ParserConfig config(context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(file, config);
  if (!module)
    return emitError(loc) << "device library file '" << file
                          << "' does not parse (diagnostics above)";
  // Functions and globals at the top of the file or of its gpu.modules.
  auto walkResult = module->walk([&](SymbolOpInterface symbol) {
    Operation *parent = symbol->getParentOp();
    if (isa<gpu::GPUModuleOp>(symbol) ||
        !isa<ModuleOp, gpu::GPUModuleOp>(parent))
      return WalkResult::advance();
    if (auto fn = dyn_cast<FunctionOpInterface>(symbol.getOperation()))
      if (fn.isExternal())
        return WalkResult::advance();
    auto [it, inserted] = symbols.try_emplace(
        symbol.getName(), LibrarySymbol{symbol, file.str()});
    if (!inserted && it->second.op != symbol) {
      emitError(loc) << "device library function @" << symbol.getName()
                     << " is defined in both '" << it->second.file << "' and '"
                     << file << "'";
      return WalkResult::interrupt();
    }
    return WalkResult::skip();
  });
  if (walkResult.wasInterrupted())
    return failure();
  modules.push_back(std::move(module));
  return success();
}

/// The type a symbol is checked against: a function's type, or the symbol
/// op's own kind for anything else.
static Attribute signatureOf(Operation *op) {
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    return TypeAttr::get(fn.getFunctionType());
  return StringAttr::get(op->getContext(), op->getName().getStringRef());
}

/// The first call of `name` in `module`, for errors: users read the call.
static Operation *firstCall(gpu::GPUModuleOp module, StringRef name) {
  Operation *found = nullptr;
  module.walk([&](CallOpInterface call) {
    auto callee =
        llvm::dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
    if (callee && callee.getLeafReference() == name) {
      found = call;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Links what `module` needs from `library`.
LogicalResult linkInto(gpu::GPUModuleOp module, const Library &library) {
  SymbolTable table(module);
  SmallVector<Operation *> worklist;
  // Declarations the user wrote.
  for (auto fn : module.getOps<FunctionOpInterface>())
    if (fn.isExternal())
      worklist.push_back(fn);

  auto mismatch = [&](Operation *at, StringRef name, Operation *have,
                      const LibrarySymbol &def) {
    // A declaration is reported at its first call; a definition (the
    // module's own, which a library function calls) where it is.
    auto fn = dyn_cast<FunctionOpInterface>(have);
    Operation *where = fn && fn.isExternal() ? firstCall(module, name) : at;
    InFlightDiagnostic diag = emitError((where ? where : at)->getLoc());
    diag << "@" << name << " is ";
    if (fn)
      diag << (fn.isExternal() ? "declared as " : "defined as ")
           << fn.getFunctionType();
    else
      diag << "a '" << have->getName() << "'";
    diag << " but the device library '" << def.file << "' defines it as ";
    if (auto fn = dyn_cast<FunctionOpInterface>(def.op))
      diag << fn.getFunctionType();
    else
      diag << "a '" << def.op->getName() << "'";
    return failure();
  };

  // Replaces the declaration `decl` (or adds, when null) by a copy of `name`.
  auto copyIn = [&](StringRef name, const LibrarySymbol &def, Operation *decl) {
    Operation *copy = def.op->clone();
    SymbolTable::setSymbolVisibility(copy, SymbolTable::Visibility::Private);
    if (decl) {
      decl->getBlock()->getOperations().insert(Block::iterator(decl), copy);
      table.erase(decl);
    }
    table.insert(copy);
    worklist.push_back(copy);
  };

  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (fn && fn.isExternal()) {
      StringRef name = fn.getName();
      const LibrarySymbol *def = library.lookup(name);
      if (!def) {
        if (!name.starts_with(kLibraryPrefix))
          continue;
        Operation *where = firstCall(module, name);
        return emitError((where ? where : op)->getLoc())
               << "no device library defines @" << name << " (searched "
               << library.describe() << ")";
      }
      if (signatureOf(def->op) != signatureOf(op))
        return mismatch(op, name, op, *def);
      copyIn(name, *def, op);
      continue;
    }
    // A copied definition: what it uses must be in the module too.
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses) {
      SymbolRefAttr ref = use.getSymbolRef();
      if (!ref.getNestedReferences().empty())
        continue;
      StringRef name = ref.getRootReference();
      Operation *have = table.lookup(name);
      const LibrarySymbol *def = library.lookup(name);
      if (have) {
        // The module's own definition of a name the library also has must
        // agree with it; a declaration is resolved from the worklist.
        if (def && signatureOf(have) != signatureOf(def->op))
          return mismatch(have, name, have, *def);
        continue;
      }
      if (!def)
        return emitError(use.getUser()->getLoc())
               << "@" << name << ", used by a device library function, is "
               << "defined neither in the module nor in " << library.describe();
      copyIn(name, *def, nullptr);
    }
  }
  return success();
}

struct SymmLinkLibrary
    : public symm::impl::SymmLinkLibraryBase<SymmLinkLibrary> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp root = getOperation();
    // Host code cannot call device code: a library name declared outside the
    // gpu.modules would only fail to link at the very end.
    for (auto fn : root.getOps<FunctionOpInterface>())
      if (fn.isExternal() && fn.getName().starts_with(kLibraryPrefix)) {
        fn->emitError() << "@" << fn.getName()
                        << " is declared in host code; device library "
                           "functions are declared and called in a "
                           "gpu.module";
        return signalPassFailure();
      }
    auto modules = llvm::to_vector(root.getOps<gpu::GPUModuleOp>());
    // Nothing to link: no library is read.
    bool needed = llvm::any_of(modules, [](gpu::GPUModuleOp module) {
      return llvm::any_of(
          module.getOps<FunctionOpInterface>(),
          [](FunctionOpInterface fn) { return fn.isExternal(); });
    });
    if (!needed)
      return;
    SmallVector<std::string> places;
    if (builtin) {
      std::string dir = getBuiltinLibraryDir();
      if (!dir.empty())
        places.push_back(dir);
    }
    llvm::append_range(places, paths);
    Library library;
    if (failed(library.load(&getContext(), places, root.getLoc())))
      return signalPassFailure();
    for (gpu::GPUModuleOp module : modules)
      if (failed(linkInto(module, library)))
        return signalPassFailure();
  }
};

} // namespace
