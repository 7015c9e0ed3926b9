// A kernel on a torch symmetric tensor (test_torch.py): thread i stores
// 1000 * rank + i into element i of the next rank's copy, through the heap
// bases of the launch's context (compiled with --kernel-context=argument).
gpu.module @k {
  gpu.func @shift(%buf: memref<?xf32, #symm.heap>, %n: index) kernel {
    %me = symm.rank : i32
    %size = symm.world_size : i32
    %c1 = arith.constant 1 : i32
    %next1 = arith.addi %me, %c1 : i32
    %next = arith.remsi %next1, %size : i32
    %i = gpu.thread_id x
    %inside = arith.cmpi ult, %i, %n : index
    scf.if %inside {
      %ii = arith.index_cast %i : index to i32
      %k = arith.constant 1000 : i32
      %base = arith.muli %me, %k : i32
      %vi = arith.addi %base, %ii : i32
      %v = arith.sitofp %vi : i32 to f32
      symm.store %v, %buf[%i] to %next : f32 -> memref<?xf32, #symm.heap>
    }
    gpu.return
  }
}
