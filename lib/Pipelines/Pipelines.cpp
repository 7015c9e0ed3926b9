//===- Pipelines.cpp - End-to-end Symm lowering pipelines -------*- C++ -*-===//

#include "symm/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::symm;

std::string mlir::symm::getDefaultChip(TargetKind kind) {
  switch (kind) {
  case TargetKind::NVVM:
    return "sm_90";
  case TargetKind::ROCDL:
    return "gfx942";
  case TargetKind::Host:
    return "host";
  }
  llvm_unreachable("unknown target kind");
}

std::optional<TargetKind> mlir::symm::getTargetKind(StringRef target) {
  if (target == "host")
    return TargetKind::Host;
  if (target.starts_with("sm_"))
    return TargetKind::NVVM;
  if (target.starts_with("gfx"))
    return TargetKind::ROCDL;
  return std::nullopt;
}

/// The PTX version each NVIDIA architecture needs at least.
static std::string defaultFeatures(TargetKind kind, StringRef chip) {
  if (kind != TargetKind::NVVM)
    return "";
  unsigned sm = 0;
  chip.drop_front(3)
      .take_while([](char c) { return isdigit(c); })
      .getAsInteger(10, sm);
  if (sm >= 100)
    return "+ptx86";
  if (sm >= 90)
    return "+ptx80";
  return "+ptx70";
}

std::string mlir::symm::getPipelineString(TargetKind kind,
                                          const SymmPipelineOptions &o) {
  std::string chip = o.chip.empty() ? getDefaultChip(kind) : o.chip.getValue();
  std::string features =
      o.features.empty() ? defaultFeatures(kind, chip) : o.features.getValue();
  std::string symmDevice, attach, gpuToTarget, nvvmToLLVM;
  // CPUs have no bf16 arithmetic, and the x86 backend rounds f32 to bf16
  // through __truncsfbf2, which libgcc before GCC 13 lacks: CPU code computes
  // bf16 in f32 and rounds with integer operations, to nearest even as GPUs
  // do. That is host code on every target (the func.funcs outside
  // gpu.modules), and the kernels too on the CPU target.
  std::string bf16OnCPU = "math-extend-to-supported-types{target-type=f32},"
                          "arith-emulate-unsupported-floats{source-types=bf16 "
                          "target-type=f32},arith-expand{include-bf16=true}";
  std::string floats = "func.func(" + bf16OnCPU + "),";
  switch (kind) {
  case TargetKind::NVVM:
    symmDevice = o.checkRanks ? "convert-symm-to-nvvm{check-ranks=true}"
                              : "convert-symm-to-nvvm";
    attach = llvm::formatv("nvvm-attach-target{{chip={0} features={1} O={2}}",
                           chip, features, o.optLevel.getValue());
    gpuToTarget = "convert-gpu-to-nvvm";
    nvvmToLLVM = "convert-nvvm-to-llvm,";
    break;
  case TargetKind::ROCDL:
    symmDevice = o.checkRanks ? "convert-symm-to-amdgpu{check-ranks=true}"
                              : "convert-symm-to-amdgpu";
    symmDevice += ",gpu.module(symm-convert-subgroup-mma-to-amdgpu)";
    attach = llvm::formatv("rocdl-attach-target{{chip={0} O={1}}", chip,
                           o.optLevel.getValue());
    gpuToTarget = llvm::formatv("convert-gpu-to-rocdl{{chipset={0}}", chip);
    break;
  case TargetKind::Host:
    symmDevice = "convert-symm-to-host,"
                 "gpu.module(symm-convert-subgroup-mma-to-host)";
    attach =
        llvm::formatv("symm-host-attach-target{{O={0}}", o.optLevel.getValue());
    gpuToTarget = "symm-convert-gpu-to-host";
    floats = bf16OnCPU + ",";
    break;
  }
  std::string toBinary =
      o.toolkit.empty()
          ? llvm::formatv("gpu-module-to-binary{{format={0}}",
                          o.format.getValue())
                .str()
          : llvm::formatv("gpu-module-to-binary{{format={0} toolkit={1}}",
                          o.format.getValue(), o.toolkit.getValue())
                .str();
  return llvm::formatv(
      "builtin.module("
      "gpu-kernel-outlining,"
      "symm-translate-to-heap-base{{kernel-context={0}},convert-linalg-to-"
      "loops,"
      "canonicalize,cse,"
      "{1},{6}"
      // async.execute regions (with GPU work inside) as coroutines over
      // MLIR's async runtime, before func-to-llvm converts their signatures.
      "async-to-async-runtime,async-runtime-ref-counting,"
      "async-runtime-ref-counting-opt,convert-async-to-llvm,"
      "convert-vector-to-scf,convert-scf-to-cf,{2}"
      "convert-func-to-llvm,expand-strided-metadata,{3},lower-affine,"
      "convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,"
      "gpu.module({4},canonicalize,cse,reconcile-unrealized-casts),"
      "symm-gpu-memory-ops-to-async,gpu-to-llvm,canonicalize,cse,{5},reconcile-unrealized-casts)",
      o.kernelContext.getValue(), symmDevice, nvvmToLLVM, attach, gpuToTarget,
      toBinary, floats);
}

/// Rejects chips LLVM does not know, and NVIDIA chips without scoped atomics.
static LogicalResult
checkChip(TargetKind kind, StringRef chip,
          llvm::function_ref<void(const Twine &)> emitError) {
  if (kind == TargetKind::Host)
    return success();
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::Triple triple(kind == TargetKind::NVVM ? "nvptx64-nvidia-cuda"
                                               : "amdgcn-amd-amdhsa");
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target) {
    emitError("this LLVM has no " + triple.str() + " backend: " + message);
    return failure();
  }
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!info->isCPUStringValid(chip)) {
    emitError("unknown chip '" + chip + "' for " + triple.str());
    return failure();
  }
  unsigned sm = 0;
  if (kind == TargetKind::NVVM && !chip.drop_front(3).getAsInteger(10, sm) &&
      sm < 70) {
    emitError("'" + chip +
              "' has no scoped atomics (.acquire/.release/.sys); Symm needs "
              "sm_70 or newer");
    return failure();
  }
  return success();
}

LogicalResult mlir::symm::validateSymmPipelineOptions(
    TargetKind kind, const SymmPipelineOptions &o,
    llvm::function_ref<void(const Twine &)> emitError) {
  std::string chip = o.chip.empty() ? getDefaultChip(kind) : o.chip.getValue();
  if (failed(checkChip(kind, chip, emitError)))
    return failure();
  if (o.optLevel < 0 || o.optLevel > 3) {
    emitError("optimisation level " + Twine(o.optLevel) +
              " is out of range; use 0, 1, 2 or 3");
    return failure();
  }
  if (!llvm::is_contained({"llvm", "isa", "bin", "fatbin"}, o.format)) {
    emitError("unknown format '" + o.format +
              "'; use llvm, isa, bin or fatbin");
    return failure();
  }
  if (o.kernelContext != "global" && o.kernelContext != "argument") {
    emitError("kernel-context must be 'global' or 'argument', got '" +
              o.kernelContext + "'");
    return failure();
  }
  // gpu-module-to-binary links HSACO with <toolkit>/llvm/bin/ld.lld and
  // reports a missing one only after lowering, with the module attached.
  if (kind == TargetKind::ROCDL && o.format == "bin") {
    if (o.toolkit.empty()) {
      emitError("format=bin for AMD GPUs links with <toolkit>/llvm/bin/ld.lld: "
                "pass toolkit=<folder> (a ROCm install, or a folder whose "
                "llvm/bin/ld.lld is the system's ld.lld), or use format=isa");
      return failure();
    }
    SmallString<128> lld(o.toolkit.getValue());
    llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
    if (!llvm::sys::fs::can_execute(lld)) {
      emitError("toolkit=" + o.toolkit + " has no " + lld +
                "; point toolkit= at a folder with llvm/bin/ld.lld");
      return failure();
    }
  }
  return success();
}

LogicalResult mlir::symm::buildSymmPipeline(OpPassManager &pm, TargetKind kind,
                                            const SymmPipelineOptions &options,
                                            PipelinePart part) {
  std::string pipeline = getPipelineString(kind, options);
  StringRef inner =
      StringRef(pipeline).drop_front(strlen("builtin.module(")).drop_back();
  // The last two passes serialise device code and clean up the host side.
  size_t split = inner.rfind(",gpu-module-to-binary");
  if (part == PipelinePart::Lowering)
    inner = inner.take_front(split);
  else if (part == PipelinePart::Serialization)
    inner = inner.drop_front(split + 1);
  return parsePassPipeline(inner, pm, llvm::errs());
}

void mlir::symm::registerSymmPipelines() {
  auto reg = [](const char *name, const char *desc, TargetKind kind) {
    registerPassPipeline(
        name, desc,
        [name, kind](OpPassManager &pm, StringRef text,
                     function_ref<LogicalResult(const Twine &)> errorHandler) {
          SymmPipelineOptions options;
          if (failed(options.parseFromString(text)))
            return failure();
          std::string message;
          if (failed(validateSymmPipelineOptions(
                  kind, options, [&](const Twine &m) { message = m.str(); })))
            return errorHandler(Twine(name) + ": " + message);
          return buildSymmPipeline(pm, kind, options);
        },
        [](function_ref<void(const detail::PassOptions &)> handler) {
          handler(SymmPipelineOptions());
        });
  };
  reg("symm-to-nvvm",
      "Lower a symm program for NVIDIA GPUs: PTX/cubin kernels, LLVM host code",
      TargetKind::NVVM);
  reg("symm-to-rocdl",
      "Lower a symm program for AMD GPUs: HSACO kernels, LLVM host code",
      TargetKind::ROCDL);
  reg("symm-to-host",
      "Lower a symm program for the CPU target: shared-object kernels, LLVM "
      "host code",
      TargetKind::Host);
}
