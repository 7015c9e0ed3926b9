//===- tiles.mlir - Announcing, awaiting and pushing tiles ---------------===//
//
// Signalling helpers of Symm's device library (docs/Library.md) for kernels
// that scatter output tiles to every peer: count arrivals on the peers,
// wait until every peer's arrivals reach a count, push finished tiles.
// Workgroup-cooperative: every thread of the workgroup calls them with the
// same arguments. The counts and flags are heap arrays of i32, zero before
// first use, compared against an epoch or a multiple of it.
//
//===----------------------------------------------------------------------===//

gpu.module @symm_library_tiles {
  // Adds %count to arrivals[this rank] on every peer once every thread's
  // stores are visible there (a release fence at system scope, then a
  // workgroup barrier): the receivers count what landed, e.g. tiles.
  func.func @symm_announce(%arrivals: memref<?xi32, #symm.heap>, %count: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    symm.fence ordering(release) scope(system)
    gpu.barrier
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %me = symm.rank : i32
      %n32 = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %n = arith.index_cast %n32 : i32 to index
      scf.for %p = %c0 to %n step %c1 {
        %peer = arith.cmpi ne, %p, %mei : index
        scf.if %peer {
          %p32 = arith.index_cast %p : index to i32
          symm.signal add %count, %arrivals[%mei] on %p32 scope(system) : i32 -> memref<?xi32, #symm.heap>
        }
      }
    }
    return
  }

  // Not cooperative: block 0's first thread waits until every peer's
  // arrivals count reaches %expected (e.g. all its tiles of this launch have
  // landed here); other threads return at once.
  func.func @symm_await_arrivals(%arrivals: memref<?xi32, #symm.heap>, %expected: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %first = arith.andi %t0, %b0 : i1
    scf.if %first {
      %me = symm.rank : i32
      %n32 = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %n = arith.index_cast %n32 : i32 to index
      scf.for %p = %c0 to %n step %c1 {
        %peer = arith.cmpi ne, %p, %mei : index
        scf.if %peer {
          %seen = symm.wait %arrivals[%p] ge %expected scope(system) : memref<?xi32, #symm.heap> -> i32
        }
      }
    }
    return
  }

  // The push of a workgroup-specialised all-scatter: 128x128 tiles of bf16
  // bits (row-major tile order over an m x nb block at columns coloff .. of
  // the m x ldc matrix C) first, first + step, ...: waits until each tile's
  // flag reaches the epoch, then copies the tile (16-byte vectors) from this
  // rank's C to every peer's C and announces it (one arrival per tile).
  func.func @symm_push_tiles(%c: memref<?xi16, #symm.heap>, %flags: memref<?xi32, #symm.heap>,
                        %arrivals: memref<?xi32, #symm.heap>, %m: index, %nb: index,
                        %ldc: index, %coloff: index, %epoch: i32, %first: index, %step: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %c2048 = arith.constant 2048 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %threads = gpu.block_dim x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %me = symm.rank : i32
    %n32 = symm.world_size : i32
    %mei = arith.index_cast %me : i32 to index
    %n = arith.index_cast %n32 : i32 to index
    %tiles_m = arith.divui %m, %c128 : index
    %tiles_n = arith.divui %nb, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    scf.for %t = %first to %tiles step %step {
      scf.if %t0 {
        %seen = symm.wait %flags[%t] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
      }
      gpu.barrier
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %row0 = arith.muli %tm, %c128 : index
      %col0 = arith.muli %tn, %c128 : index
      %ccol = arith.addi %coloff, %col0 : index
      scf.for %v = %tid to %c2048 step %threads {
        %r = arith.divui %v, %c16 : index
        %cv = arith.remui %v, %c16 : index
        %cc = arith.muli %cv, %c8 : index
        %row = arith.addi %row0, %r : index
        %base = arith.muli %row, %ldc : index
        %col = arith.addi %ccol, %cc : index
        %i = arith.addi %base, %col : index
        %bits = vector.load %c[%i] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
        scf.for %p = %c0 to %n step %c1 {
          %peer = arith.cmpi ne, %p, %mei : index
          scf.if %peer {
            %p32 = arith.index_cast %p : index to i32
            symm.store %bits, %c[%i] to %p32 : vector<8xi16> -> memref<?xi16, #symm.heap>
          }
        }
      }
      func.call @symm_announce(%arrivals, %one) : (memref<?xi32, #symm.heap>, i32) -> ()
    }
    return
  }
}
