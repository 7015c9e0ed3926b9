//===- SubgroupMMA.h - gpu.subgroup_mma_* on per-lane vectors ---*- C++ -*-===//
//
// Targets without a WMMA lowering upstream (the CPU target, AMD GPUs) hold a
// `!gpu.mma_matrix` fragment as a vector in each lane. What differs between
// them is which elements a lane holds and how it computes; the rest (loads,
// stores, constants, elementwise operations, fragments carried through scf)
// is shared and driven by a FragmentLayout.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_CONVERSION_SUBGROUPMMA_H
#define SYMM_CONVERSION_SUBGROUPMMA_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::symm {

/// Where the `t`-th element a lane touches lives: at `vectorIndex` in the
/// lane's vector and at (`row`, `col`) of the matrix.
struct FragmentElement {
  Value vectorIndex, row, col;
};

class FragmentLayout {
public:
  virtual ~FragmentLayout() = default;
  /// Rejects a fragment type the target cannot hold, with an error on `op`.
  virtual LogicalResult checkFragment(Operation *op,
                                      gpu::MMAMatrixType type) const = 0;
  /// Rejects a compute the target cannot do, with an error on `op`.
  virtual LogicalResult checkCompute(gpu::SubgroupMmaComputeOp op) const = 0;
  /// The vector a lane holds of a fragment.
  virtual VectorType laneType(gpu::MMAMatrixType type) const = 0;
  /// How many elements a lane holds of a fragment.
  virtual int64_t elementCount(gpu::MMAMatrixType type) const = 0;
  /// The `t`-th of them for lane `lane`. Across the lanes of a subgroup, the
  /// elements of a C fragment are each matrix element exactly once (stores
  /// write each element once).
  virtual FragmentElement element(OpBuilder &b, Location loc,
                                  gpu::MMAMatrixType type, Value lane,
                                  Value t) const = 0;
  /// D = A·B + C on the lane vectors.
  virtual Value compute(OpBuilder &b, Location loc,
                        gpu::SubgroupMmaComputeOp op, Value a, Value bValue,
                        Value c) const = 0;
};

/// `!gpu.mma_matrix` to the layout's lane vectors.
void populateSubgroupMmaTypeConversion(TypeConverter &converter,
                                       const FragmentLayout &layout);

/// Patterns for load/store/compute/constant/elementwise and the scf
/// operations that carry fragments; marks the MMA operations illegal.
void populateSubgroupMmaConversionPatterns(TypeConverter &converter,
                                           const FragmentLayout &layout,
                                           RewritePatternSet &patterns,
                                           ConversionTarget &target);

/// Reports every MMA operation under `root` the layout cannot lower (one
/// error each); fails when there was one.
LogicalResult checkSubgroupMmaSupported(Operation *root,
                                        const FragmentLayout &layout,
                                        StringRef targetName);

/// Runs the lowering on `root`: checks, then converts.
LogicalResult lowerSubgroupMma(Operation *root, const FragmentLayout &layout,
                               StringRef targetName);

} // namespace mlir::symm

#endif // SYMM_CONVERSION_SUBGROUPMMA_H
