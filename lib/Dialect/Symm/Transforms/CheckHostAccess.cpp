//===- CheckHostAccess.cpp - Host code must not touch GPU memory ----------===//
//
// On GPUs, `#symm.heap` memory and `gpu.alloc` memory without `host_shared`
// are device memory: host code that loads or stores it is killed by SIGSEGV
// at run time, while the same program runs on CPU ranks, where all memory is
// host memory. This pass finds such accesses at compile time and names the
// operation and the fix. It follows device memory through views, casts,
// control flow and calls, so that stripping the memory space or passing the
// memref to a helper function does not hide an access.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCHECKHOSTACCESS
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// Where a memref's memory comes from, when the host cannot access it on GPUs.
enum class DeviceMemory { Heap, Allocated };

StringRef describe(DeviceMemory memory) {
  return memory == DeviceMemory::Heap
             ? "#symm.heap memory"
             : "device memory (gpu.alloc without host_shared)";
}

/// Calls `fn` on every operation of host code under `root` (outside
/// gpu.module and gpu.launch bodies), parents before the operations they
/// hold.
void walkHostCode(Operation *root, function_ref<void(Operation *)> fn) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    fn(op);
    return isa<gpu::LaunchOp>(op) ? WalkResult::skip() : WalkResult::advance();
  });
}

/// The memrefs of host code that refer to device memory.
class DeviceMemoryValues {
public:
  explicit DeviceMemoryValues(ModuleOp module) {
    // Each round follows every edge once; a value is marked at most once, so
    // this ends.
    do {
      changed = false;
      walkHostCode(module, [&](Operation *op) { visit(op); });
    } while (changed);
  }

  std::optional<DeviceMemory> lookup(Value value) const {
    auto it = memory.find(value);
    if (it == memory.end())
      return std::nullopt;
    return it->second;
  }

private:
  void mark(Value value, DeviceMemory kind) {
    if (memory.try_emplace(value, kind).second)
      changed = true;
  }

  /// Marks `to` when any of `from` refers to device memory.
  void forward(ValueRange from, Value to) {
    for (Value v : from)
      if (std::optional<DeviceMemory> kind = lookup(v))
        return mark(to, *kind);
  }

  void visit(Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isHeapMemRef(arg.getType()))
            mark(arg, DeviceMemory::Heap);
    for (Value result : op->getResults())
      if (isHeapMemRef(result.getType()))
        mark(result, DeviceMemory::Heap);

    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      if (!alloc.getHostShared())
        mark(alloc.getMemref(), DeviceMemory::Allocated);
      return;
    }
    // A view or cast refers to the memory of its source.
    if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
      for (Value result : op->getResults())
        forward(view.getViewSource(), result);
    } else if (isa<CastOpInterface, UnrealizedConversionCastOp>(op)) {
      for (Value result : op->getResults())
        forward(op->getOperands(), result);
    }
    if (auto branch = dyn_cast<BranchOpInterface>(op))
      visitBranch(branch);
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op))
      visitRegionBranch(branch);
    if (auto call = dyn_cast<CallOpInterface>(op))
      visitCall(call);
  }

  void visitBranch(BranchOpInterface branch) {
    for (auto [index, successor] :
         llvm::enumerate(branch->getSuccessors())) {
      SuccessorOperands operands = branch.getSuccessorOperands(index);
      for (BlockArgument arg : successor->getArguments())
        if (Value passed = operands[arg.getArgNumber()])
          forward(passed, arg);
    }
  }

  void visitRegionBranch(RegionBranchOpInterface branch) {
    SmallVector<RegionSuccessor> successors;
    branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
    for (Region &region : branch->getRegions())
      branch.getSuccessorRegions(region, successors);
    for (const RegionSuccessor &successor : successors) {
      for (auto [index, input] :
           llvm::enumerate(successor.getSuccessorInputs())) {
        SmallVector<Value> values;
        branch.getPredecessorValues(successor, index, values);
        forward(values, input);
      }
    }
  }

  /// Device memory passed to a function of the module refers to device
  /// memory there; device memory it returns does here.
  void visitCall(CallOpInterface call) {
    auto callee =
        dyn_cast_or_null<FunctionOpInterface>(call.resolveCallable());
    if (!callee || callee.isExternal())
      return;
    Block &entry = callee.getFunctionBody().front();
    for (auto [operand, arg] :
         llvm::zip(call.getArgOperands(), entry.getArguments()))
      forward(operand, arg);
    callee->walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::ReturnLike>() &&
          op->getParentOp() == callee.getOperation())
        for (auto [returned, result] :
             llvm::zip(op->getOperands(), call->getResults()))
          forward(returned, result);
    });
  }

  DenseMap<Value, DeviceMemory> memory;
  bool changed = false;
};

/// Reports the first host operation of `module` that reads or writes device
/// memory, or passes it to a function defined outside the module.
LogicalResult check(ModuleOp module) {
  DeviceMemoryValues values(module);
  LogicalResult result = success();
  walkHostCode(module, [&](Operation *op) {
    // GPU operations in host code (gpu.memcpy, gpu.memset, launches) are
    // carried out by the runtime, which can reach device memory.
    if (failed(result) || isa_and_nonnull<gpu::GPUDialect>(op->getDialect()))
      return;
    std::optional<DeviceMemory> touched;
    bool reads = false, writes = false;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances) {
        std::optional<DeviceMemory> kind = values.lookup(instance.getValue());
        if (!kind)
          continue;
        bool read = isa<MemoryEffects::Read>(instance.getEffect());
        bool write = isa<MemoryEffects::Write>(instance.getEffect());
        if (read || write)
          touched = *kind;
        reads |= read;
        writes |= write;
      }
    }
    if (touched) {
      StringRef verb = reads && writes ? "reads and writes"
                       : reads         ? "reads"
                                       : "writes";
      op->emitOpError() << verb << " " << describe(*touched)
                        << " in host code, which GPUs cannot do: copy it to "
                           "or from a gpu.alloc host_shared buffer with "
                           "gpu.memcpy (docs/Programs.md)";
      result = failure();
      return;
    }
    // A function without a body here (printMemrefF32, a C function) runs on
    // the host and would access what it is given.
    auto call = dyn_cast<CallOpInterface>(op);
    if (!call)
      return;
    auto callee =
        dyn_cast_or_null<FunctionOpInterface>(call.resolveCallable());
    if (callee && !callee.isExternal())
      return;
    for (Value operand : call.getArgOperands()) {
      std::optional<DeviceMemory> kind = values.lookup(operand);
      if (!kind)
        continue;
      InFlightDiagnostic diag = op->emitOpError() << "passes "
                                                  << describe(*kind) << " to ";
      if (callee)
        diag << "@" << callee.getName();
      else
        diag << "a function";
      diag << ", which runs on the host and cannot access it on GPUs: pass a "
              "gpu.alloc host_shared copy made with gpu.memcpy "
              "(docs/Programs.md)";
      result = failure();
      return;
    }
  });
  return result;
}

struct SymmCheckHostAccess
    : public symm::impl::SymmCheckHostAccessBase<SymmCheckHostAccess> {
  void runOnOperation() override {
    if (failed(check(getOperation())))
      signalPassFailure();
  }
};

} // namespace
