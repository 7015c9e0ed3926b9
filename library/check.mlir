//===- check.mlir - Self-checks of received data --------------------------===//
//
// Checks of Symm's device library (docs/Library.md) for programs that check
// their own result on every rank, as the examples and tests do: the check
// runs where the data is, on the device, and its count of wrong elements
// goes back to the host, which only reports it.
//
//===----------------------------------------------------------------------===//

gpu.module @symm_library_check {
  // Not cooperative (one thread checks the whole buffer: meant for small
  // ones): how many elements %got[i] are not %first + i, compared exactly
  // (so %first + i must be exact in f32, e.g. integers below 2^24).
  func.func @symm_check_ramp_f32(%got: memref<?xf32, #symm.heap>, %first: f32) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %n = memref.dim %got, %c0 : memref<?xf32, #symm.heap>
    %errors = scf.for %i = %c0 to %n step %c1 iter_args(%e = %zero) -> (i32) {
      %ii = arith.index_cast %i : index to i32
      %if = arith.sitofp %ii : i32 to f32
      %want = arith.addf %first, %if : f32
      %g = memref.load %got[%i] : memref<?xf32, #symm.heap>
      %bad = arith.cmpf une, %g, %want : f32
      %inc = arith.extui %bad : i1 to i32
      %next = arith.addi %e, %inc : i32
      scf.yield %next : i32
    }
    return %errors : i32
  }
}
