//===- TargetInfo.h - One target's lowering decisions -----------*- C++ -*-===//
//
// What the lowering of symm operations must know about a target: address
// spaces, the syncscope of each symm scope, and the few operations it lowers
// its own way. One factory per target builds it, in the target's folder
// (get{NVVM,AMDGPU,Host}TargetInfo in symm/Target/<target>/); the target's
// convert-symm-to-<target> pass calls it, and so can a compiler that embeds
// Symm's patterns (populateSymmToLLVMConversionPatterns).
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_CONVERSION_TARGETINFO_H
#define SYMM_CONVERSION_TARGETINFO_H

#include "symm/Dialect/Symm/IR/SymmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <array>
#include <functional>
#include <optional>

namespace mlir::symm {

struct SymmTargetInfo {
  /// LLVM address space of `#symm.heap` memory in device code.
  unsigned heapAddressSpace = 1;
  /// LLVM address space of the module's kernel-context global.
  unsigned contextAddressSpace = 4;
  /// LLVM address spaces of gpu.address_space<global|workgroup|private>.
  std::array<unsigned, 3> gpuAddressSpaces = {1, 3, 0};
  /// Threads of a subgroup (warp, wavefront): trace events are recorded per
  /// subgroup.
  unsigned subgroupSize = 32;
  /// LLVM syncscope of each symm scope (workgroup, device, system); the empty
  /// string is LLVM's system scope.
  std::array<StringRef, 3> syncScopes;
  /// Lowers `op` at `ptr` itself, or returns a null Value to get an
  /// llvm.atomicrmw with the scope's syncscope. Fails with a diagnostic for a
  /// kind or type the target cannot do.
  std::function<FailureOr<Value>(ConversionPatternRewriter &, AtomicRMWOp,
                                 Value ptr, Value value)>
      lowerAtomicRMW;
  /// Reports that `what` (an operation's name and location) translated to
  /// `peer`, outside [0, `worldSize`), and stops the thread; it is emitted in
  /// the branch a translation takes for such a peer. Null: peers are not
  /// checked, and an out-of-range peer reads a heap base past the context's.
  std::function<void(OpBuilder &, Location, StringRef what, Value rank,
                     Value peer, Value worldSize)>
      reportPeerOutOfRange;
  /// Whether symm.release_barrier puts a release fence at its scope in
  /// every thread before the barrier: where a barrier does not make a later
  /// release by one thread cover the other threads' accesses (AMD: a wave's
  /// release waits only for its own stores).
  bool fenceBeforeReleaseBarrier = false;
  /// Stores one lane's piece of a line (symm.line_store): `value` a
  /// vector<2xi64> at `ptr` (a piece of a 128-byte aligned line), `flag` an
  /// i64 for the line's last word. Null: the portable lowering (relaxed
  /// atomics for the data, then a release count of the pieces in the flag
  /// word), which every target's memory model makes correct.
  std::function<void(ConversionPatternRewriter &, Location, Value ptr,
                     Value value, Value flag)>
      storeLinePiece;
  /// Loads one lane's piece of a line (symm.line_load): the piece and
  /// whether the line's flag word holds `flag`. Null: the portable lowering
  /// (an acquire load of the flag word, then relaxed atomics).
  std::function<std::pair<Value, Value>(ConversionPatternRewriter &, Location,
                                        Value ptr, Value flag)>
      loadLinePiece;
  /// Emits the pause of a spin loop (`ns` nanoseconds when given).
  std::function<void(OpBuilder &, Location, std::optional<int64_t> ns)>
      emitBackoff;

  /// Emits, first in a kernel marked `symm.early_launch`, the wait for the
  /// kernel launched before it on its stream and the signal that lets the
  /// next one launch. Null: the target has no early launch, and the
  /// attribute is dropped (the kernel's manifest then does not ask for it).
  std::function<void(OpBuilder &, Location)> emitEarlyLaunchEntry;

  /// Reads the device's clock in nanoseconds, as an i64 (trace events).
  std::function<Value(OpBuilder &, Location)> readClock;

  /// The syncscope of the portable line lowering's atomics (system scope
  /// unless set).
  std::optional<StringRef> lineSyncScope;

  StringRef syncScope(MemoryScope scope) const {
    return syncScopes[static_cast<unsigned>(scope)];
  }
};

/// The options of the GPU targets' decisions.
struct GPUTargetOptions {
  /// Check every peer rank against the world size (report and trap).
  bool checkRanks = false;
  /// Lower `symm.early_launch` (the chip has programmatic dependent launch:
  /// sm_90 and newer).
  bool earlyLaunch = false;
};

/// The syncscopes of the workgroup, device and system scopes on the CPU target
/// when races are checked.
inline constexpr std::array<StringRef, 3> kHostRaceSyncScopes = {
    "symm-workgroup", "symm-device", ""};
/// The syncscope of the portable lowering's line atomics on the CPU target
/// when races are checked: system scope for the hardware, but relaxed for the
/// race detector, which thus holds kernels to what a line gives on every
/// target (its own words whole, no order for other memory, as NVIDIA's
/// volatile stores), and does not publish what eight releases a line would.
inline constexpr StringRef kHostRaceLineSyncScope = "symm-line";

} // namespace mlir::symm

#endif // SYMM_CONVERSION_TARGETINFO_H
