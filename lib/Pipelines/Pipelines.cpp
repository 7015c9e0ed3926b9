//===- Pipelines.cpp - End-to-end Symm lowering pipelines -------*- C++ -*-===//

#include "symm/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

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
    symmDevice = "convert-symm-to-nvvm";
    attach = llvm::formatv("nvvm-attach-target{{chip={0} features={1} O={2}}",
                           chip, features, o.optLevel.getValue());
    gpuToTarget = "convert-gpu-to-nvvm";
    nvvmToLLVM = "convert-nvvm-to-llvm,";
    break;
  case TargetKind::ROCDL:
    symmDevice = "convert-symm-to-amdgpu";
    attach = llvm::formatv("rocdl-attach-target{{chip={0} O={1}}", chip,
                           o.optLevel.getValue());
    gpuToTarget = llvm::formatv("convert-gpu-to-rocdl{{chipset={0}}", chip);
    break;
  case TargetKind::Host:
    symmDevice = "convert-symm-to-host";
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
    PassPipelineRegistration<SymmPipelineOptions>(
        name, desc, [kind](OpPassManager &pm, const SymmPipelineOptions &o) {
          if (failed(buildSymmPipeline(pm, kind, o)))
            llvm::report_fatal_error("invalid Symm pipeline");
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
