//===- CompileFlags.cpp - The compile options as flags ----------*- C++ -*-===//
//
// The one list of compile flags: symm-compile makes its command line from it,
// and parseCompileFlags reads the same strings from symm-compile, the C API
// and Python into CompileOptions.
//
//===----------------------------------------------------------------------===//

#include "symm/Driver/Driver.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

/// "ptx, cubin (NVIDIA), isa, hsaco (AMD), so (host)": every target's device
/// objects.
std::string describeEmitKinds() {
  std::string text;
  for (const SymmTarget *target : getTargets()) {
    for (const EmitKind &kind : target->getEmitKinds()) {
      if (!text.empty())
        text += ", ";
      text += kind.name;
    }
    text += (" (" + target->getDisplayName() + ")").str();
  }
  return text;
}

/// Sets `on` from a switch's value: true or false.
LogicalResult parseSwitch(StringRef flag, StringRef value, bool &on,
                          DriverErrorFn emitError) {
  if (value != "true" && value != "false") {
    emitError(flag + " takes true or false, got '" + value + "'");
    return failure();
  }
  on = value == "true";
  return success();
}

/// The flag's spelling in messages: "--target", "-O".
std::string spell(const CompileFlag &flag) {
  return ((flag.kind == CompileFlag::Prefix ? "-" : "--") + flag.name).str();
}

} // namespace

ArrayRef<CompileFlag> mlir::symm::getCompileFlags() {
  using Options = CompileOptions;
  static const std::vector<CompileFlag> flags = {
      {"target", CompileFlag::Value, "name",
       "What to compile for: " + describeTargets() +
           ". Default: " + SYMM_TARGET_HOST,
       [](Options &o, StringRef value, DriverErrorFn emitError) {
         if (failed(lookupTarget(value, emitError)))
           return failure();
         o.target = value.str();
         return success();
       }},
      {"emit", CompileFlag::Value, "kind",
       "What to write: llvm, " + describeEmitKinds() +
           ", exe (whole program), mlir (lowered IR). Default: exe when the "
           "input has func.func @main, else the target's binary",
       [](Options &o, StringRef value, DriverErrorFn) {
         o.emit = value.str();
         return success();
       }},
      {"O", CompileFlag::Prefix, "level", "Optimisation level (0 to 3)",
       [](Options &o, StringRef value, DriverErrorFn emitError) {
         if (!value.getAsInteger(10, o.optLevel))
           return success();
         emitError("-O takes a number, got '" + value + "'; use -O0 to -O3");
         return failure();
       }},
      {"kernel-context", CompileFlag::Value, "where",
       "Where kernels find the kernel context: " SYMM_MANIFEST_CONTEXT_GLOBAL
       " (default) or " SYMM_MANIFEST_CONTEXT_ARGUMENT,
       [](Options &o, StringRef value, DriverErrorFn) {
         o.kernelContext = value.str();
         return success();
       }},
      {"check-ranks", CompileFlag::Switch, "",
       "On GPUs, check every peer rank against the world size: an "
       "out-of-range peer prints the rank, operation and peer (NVIDIA) and "
       "traps. The CPU target always checks",
       [](Options &o, StringRef value, DriverErrorFn emitError) {
         return parseSwitch("--check-ranks", value, o.checkRanks, emitError);
       }},
      {"library", CompileFlag::List, "path",
       "A device library (.mlir file, or a folder of them) searched after "
       "the one installed with Symm; may be repeated",
       [](Options &o, StringRef value, DriverErrorFn emitError) {
         if (value.empty()) {
           emitError("--library needs a path: --library=<path>");
           return failure();
         }
         o.libraries.push_back(value.str());
         return success();
       }},
      {"remote", CompileFlag::Value, "how",
       "How kernels reach peers on NVIDIA GPUs: direct (default; loads and "
       "stores through the mapped heaps), nvshmem (NVSHMEM's device API for "
       "every peer: what runs across nodes) or auto (NVSHMEM only where a "
       "peer's heap is not mapped). nvshmem and auto run on the nvshmem "
       "backend (docs/MultiNode.md)",
       [](Options &o, StringRef value, DriverErrorFn) {
         o.remote = value.str();
         return success();
       }},
      {"check-host-access", CompileFlag::Switch, "",
       "On the CPU target, reject host code that reads or writes #symm.heap "
       "or gpu.alloc memory, as GPU targets always do (there it is device "
       "memory)",
       [](Options &o, StringRef value, DriverErrorFn emitError) {
         return parseSwitch("--check-host-access", value, o.checkHostAccess,
                            emitError);
       }},
      {"check-races", CompileFlag::Switch, "",
       "CPU target: kernels report every access of heap and workgroup memory "
       "to the runtime's race detector, which runs with "
       "SYMM_HOST_CHECK_RACES=1 (symm-run --check-races); a checked module "
       "runs only with it",
       [](Options &o, StringRef value, DriverErrorFn emitError) {
         return parseSwitch("--check-races", value, o.checkRaces, emitError);
       }},
      {"trace", CompileFlag::Switch, "",
       "Kernels record their events (kernel, ranges, waits, signals, tile "
       "transfers) with the device's clock; the runtime writes them as one "
       "Chrome trace for every rank when SYMM_TRACE names a file "
       "(symm-run --trace). docs/Tracing.md",
       [](Options &o, StringRef value, DriverErrorFn emitError) {
         return parseSwitch("--trace", value, o.trace, emitError);
       }},
  };
  return flags;
}

LogicalResult mlir::symm::parseCompileFlags(ArrayRef<std::string> flags,
                                            CompileOptions &options,
                                            DriverErrorFn emitError) {
  for (StringRef text : flags) {
    StringRef body = text;
    if (!body.consume_front("--") && !body.consume_front("-")) {
      emitError("'" + text +
                "' is not a compile flag; flags start with - "
                "or --");
      return failure();
    }
    auto [name, value] = body.split('=');
    bool hasValue = body.contains('=');
    const CompileFlag *match = nullptr;
    for (const CompileFlag &flag : getCompileFlags()) {
      if (flag.kind == CompileFlag::Prefix && body.starts_with(flag.name)) {
        // -O3 and -O=3
        match = &flag;
        value = body.drop_front(flag.name.size());
        value.consume_front("=");
        hasValue = !value.empty();
        break;
      }
      if (name == flag.name) {
        match = &flag;
        break;
      }
    }
    if (!match) {
      std::string known;
      for (const CompileFlag &flag : getCompileFlags())
        known += (known.empty() ? "" : ", ") + spell(flag);
      emitError("unknown compile flag '" + text + "'; the flags are " + known);
      return failure();
    }
    if (!hasValue && match->kind == CompileFlag::Switch)
      value = "true";
    else if (!hasValue) {
      emitError(spell(*match) + " needs a value: " + spell(*match) +
                (match->kind == CompileFlag::Prefix ? "" : "=") + "<" +
                match->valueName + ">");
      return failure();
    }
    if (failed(match->apply(options, value, emitError)))
      return failure();
  }
  return success();
}
