// Kernels the Python tests launch (compiled for the host target by ctest).
gpu.module @kernels {
  // x[i] *= a for every i < n.
  gpu.func @scale(%x: memref<?xf32, #symm.heap>, %n: index, %a: f32) kernel {
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %tid = gpu.thread_id x
    %b = arith.muli %bid, %bdim : index
    %i = arith.addi %b, %tid : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %v = memref.load %x[%i] : memref<?xf32, #symm.heap>
      %r = arith.mulf %v, %a : f32
      memref.store %r, %x[%i] : memref<?xf32, #symm.heap>
    }
    gpu.return
  }

  // Thread t writes this rank into slot t of the next rank's copy of buf.
  gpu.func @ring(%buf: memref<?xi32, #symm.heap>) kernel {
    %t = gpu.thread_id x
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %one = arith.constant 1 : i32
    %up = arith.addi %me, %one : i32
    %next = arith.remsi %up, %n : i32
    symm.store %me, %buf[%t] to %next : i32 -> memref<?xi32, #symm.heap>
    gpu.return
  }

  // out[k] = the k-th scalar argument, as f64.
  gpu.func @scalars(%out: memref<8xf64>, %b: i1, %c: i8, %i: i32, %l: i64,
                    %h: f16, %bf: bf16, %f: f32, %d: f64) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %v0 = arith.uitofp %b : i1 to f64
    %v1 = arith.sitofp %c : i8 to f64
    %v2 = arith.sitofp %i : i32 to f64
    %v3 = arith.sitofp %l : i64 to f64
    %v4 = arith.extf %h : f16 to f64
    %v5 = arith.extf %bf : bf16 to f64
    %v6 = arith.extf %f : f32 to f64
    memref.store %v0, %out[%c0] : memref<8xf64>
    memref.store %v1, %out[%c1] : memref<8xf64>
    memref.store %v2, %out[%c2] : memref<8xf64>
    memref.store %v3, %out[%c3] : memref<8xf64>
    memref.store %v4, %out[%c4] : memref<8xf64>
    memref.store %v5, %out[%c5] : memref<8xf64>
    memref.store %v6, %out[%c6] : memref<8xf64>
    memref.store %d, %out[%c7] : memref<8xf64>
    gpu.return
  }

  // y[i, j] = x[i, j] + 1 on strided views (rows of y: unit stride):
  // block i, thread j.
  gpu.func @add_one(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                    %y: memref<?x?xf32, strided<[?, 1], offset: ?>>) kernel {
    %i = gpu.block_id x
    %j = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    %v = memref.load %x[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
    %r = arith.addf %v, %one : f32
    memref.store %r, %y[%i, %j] : memref<?x?xf32, strided<[?, 1], offset: ?>>
    gpu.return
  }

  // y[i, j] = x[i, j] on contiguous arrays of any shape: block i, thread j.
  gpu.func @copy2d(%x: memref<?x?xi32>, %y: memref<?x?xi32>) kernel {
    %i = gpu.block_id x
    %j = gpu.thread_id x
    %v = memref.load %x[%i, %j] : memref<?x?xi32>
    memref.store %v, %y[%i, %j] : memref<?x?xi32>
    gpu.return
  }

  // x[i] = -x[i] on 16-bit integers (bf16 bits move as i16): thread i.
  gpu.func @negate16(%x: memref<?xi16>) kernel {
    %i = gpu.thread_id x
    %zero = arith.constant 0 : i16
    %v = memref.load %x[%i] : memref<?xi16>
    %r = arith.subi %zero, %v : i16
    memref.store %r, %x[%i] : memref<?xi16>
    gpu.return
  }

  // x[i, j] = 4 i + j on a static, contiguous 4x4 array: thread (j, i).
  gpu.func @iota(%x: memref<4x4xi64>) kernel {
    %j = gpu.thread_id x
    %i = gpu.thread_id y
    %c4 = arith.constant 4 : index
    %row = arith.muli %i, %c4 : index
    %k = arith.addi %row, %j : index
    %v = arith.index_cast %k : index to i64
    memref.store %v, %x[%i, %j] : memref<4x4xi64>
    gpu.return
  }

  // A fused workload: scale, then all-reduce from the kernel. Thread i
  // stores a * x[i] into row `me` of every rank's gather, the workgroup
  // raises every rank's flag once, waits until all n rows of this call
  // (`epoch`, counting from 1) have arrived, and writes out[i] = the sum of
  // column i. One workgroup; calls are separated by a barrier (rows are
  // reused).
  gpu.func @scale_all_reduce(%x: memref<?xf32>,
                             %gather: memref<?x?xf32, #symm.heap>,
                             %flag: memref<1xi32, #symm.heap>,
                             %out: memref<?xf32>, %a: f32, %epoch: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %i = gpu.thread_id x
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %row = arith.index_cast %me : i32 to index
    %rows = arith.index_cast %n : i32 to index
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.mulf %v, %a : f32
    scf.for %p = %c0 to %rows step %c1 {
      %peer = arith.index_cast %p : index to i32
      symm.store %s, %gather[%row, %i] to %peer : f32 -> memref<?x?xf32, #symm.heap>
    }
    symm.fence ordering(release) scope(system)
    gpu.barrier
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {
      scf.for %p = %c0 to %rows step %c1 {
        %peer = arith.index_cast %p : index to i32
        symm.signal add %one, %flag[%c0] on %peer scope(system) : i32 -> memref<1xi32, #symm.heap>
      }
      %all = arith.muli %epoch, %n : i32
      %seen = symm.wait %flag[%c0] ge %all scope(system) : memref<1xi32, #symm.heap> -> i32
    }
    gpu.barrier
    %sum = scf.for %r = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (f32) {
      %g = memref.load %gather[%r, %i] : memref<?x?xf32, #symm.heap>
      %t = arith.addf %acc, %g : f32
      scf.yield %t : f32
    }
    memref.store %sum, %out[%i] : memref<?xf32>
    gpu.return
  }

  // Every workgroup but the last waits for the last to raise flag[0]: the
  // workgroups wait on each other, so all must be resident at once.
  gpu.func @wait_for_last(%flag: memref<1xi32, #symm.heap>) kernel
      attributes {symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %b = gpu.block_id x
    %g = gpu.grid_dim x
    %lastIndex = arith.subi %g, %c1 : index
    %last = arith.cmpi eq, %b, %lastIndex : index
    scf.if %last {
      symm.signal set %one, %flag[%c0] scope(device) : i32 -> memref<1xi32, #symm.heap>
    } else {
      %seen = symm.wait %flag[%c0] ge %one scope(device) : memref<1xi32, #symm.heap> -> i32
    }
    gpu.return
  }
}
