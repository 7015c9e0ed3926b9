// Kernels of C = A·B with B split along N (rank r computes the column block
// r of C and every rank ends with all of C), compiled by symm-compile for
// the host target, sm_90 and gfx942; gemm_all_scatter.cpp launches them.
// bf16 in memory, f16 x f16 -> f32 tensor-core fragments, bf16 out.
//
// The GEMM is the device library's portable tile (library/gemm.mlir): 128x128
// tiles, a block of 8 subgroups (256 threads with 32-lane subgroups, 512 with
// AMD's 64-lane wavefronts: the driver passes the subgroup size as %lanes,
// which convert-gpu-to-nvvm cannot lower; every kernel admits 512 threads on
// AMD, where the ROCDL lowering's default limit is 256), its main loop
// returning each subgroup's f32 accumulator fragments and its epilogue
// handing each lane 8 elements of a row of C at a time. Blocks are
// persistent: block b takes tiles b, b + grid, ... in row-major tile order.
// gemm_all_scatter_hopper.mlir pairs the Hopper GEMM's TMA + wgmma main loop
// with the same epilogues for sm_90a.
//
//   @gemm      the GEMM of every variant, its epilogue chosen by %variant:
//              bulk_sync (tiles into C_r), producer_consumer (tiles into C,
//              then a flag per tile), fused_sequential (tiles into C and
//              every peer's C) and wg_specialized (some blocks compute
//              and flag, the others push like @push).
//   @push      the producer_consumer variant's consumer, on another stream:
//              waits for each tile's flag and pushes the tile to every
//              peer's C.
//   @assemble  bulk_sync's layout fix: the all-gathered column blocks
//              (W blocks of M x N/W) into C (M x N).
//
// Every variant that pushes counts arrivals: after each tile lands, the
// pusher adds 1 to arrivals[its rank] on the receiver; a launch ends when
// every peer's count reaches epoch x tiles per rank, so C is complete on
// every rank when the launch has finished everywhere.
!acc = !gpu.mma_matrix<16x16xf32, "COp">
!sa = memref<256x40xf16, #gpu.address_space<workgroup>>
!sb = memref<64x136xf16, #gpu.address_space<workgroup>>
!sc = memref<128x16xf32, #gpu.address_space<workgroup>>

gpu.module @gemm_all_scatter {
  // The device library's portable GEMM tile (gemm.mlir) and tile
  // signalling (tiles.mlir).
  func.func private @symm_gemm_tile_bf16(memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
      -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
  func.func private @symm_gemm_fragment_row(!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, index, index, !sc)
      -> (vector<8xf32>, index, index, i1)
  func.func private @symm_gemm_store_row_bf16(vector<8xf32>, memref<?xi16, #symm.heap>, index, i1)
  func.func private @symm_announce(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_await_arrivals(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_push_tiles(memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, index, index, i32, index, index)

  // Sizes: any m (the last tile row is partial: A is read there past row m,
  // so it holds whole tiles of rows, and C is stored only to row m), nb
  // (this rank's columns of B and of C) a multiple of 128, k a multiple of
  // 32; C is m x ldc with this rank's
  // block at columns coloff ..; launched with 8 subgroups of %lanes threads.
  // %variant picks the epilogue (a uniform branch; the main loop is the
  // same for all):
  //   0 (bulk_sync)         tiles into C;
  //   1 (producer_consumer) tiles into C, then flags[t] = epoch (release);
  //   2 (fused_sequential)  tiles into C and every peer's C, announced; the
  //                         launch ends when the peers' tiles have landed;
  //   3 (wg_specialized)    blocks below %compute_grid compute like 1, the
  //                         others push like @push; ends like 2.
  // Blocks below %compute_grid take tiles bid, bid + compute_grid, ...; the
  // compute blocks never wait, so the pushers always make progress.
  // symm.co_resident: in fused_sequential every workgroup ends waiting for
  // the tiles the peers' workgroups push, so all must be resident at once
  // (the other variants' grids are held to the same bound).
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %arrivals: memref<?xi32, #symm.heap>,
                 %m: index, %nb: index, %k: index, %ldc: index, %coloff: index,
                 %epoch: i32, %lanes: index, %variant: i32, %compute_grid: index)
      workgroup(%sa: !sa {llvm.align = 32 : i64}, %sb: !sb {llvm.align = 32 : i64},
                %sc: !sc {llvm.align = 32 : i64}) kernel attributes {rocdl.flat_work_group_size = "1,512", symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %v1 = arith.constant 1 : i32
    %v2 = arith.constant 2 : i32
    %v3 = arith.constant 3 : i32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %is1 = arith.cmpi eq, %variant, %v1 : i32
    %is3 = arith.cmpi eq, %variant, %v3 : i32
    %flag_tiles = arith.ori %is1, %is3 : i1
    %to_peers = arith.cmpi eq, %variant, %v2 : i32
    %awaits = arith.cmpi uge, %variant, %v2 : i32
    %c127 = arith.constant 127 : index
    %m_up = arith.addi %m, %c127 : index
    %tiles_m = arith.divui %m_up, %c128 : index
    %tiles_n = arith.divui %nb, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %computes = arith.cmpi ult, %bid, %compute_grid : index
    scf.if %computes {
      scf.for %t = %bid to %tiles step %compute_grid {
        %tm = arith.divui %t, %tiles_n : index
        %tn = arith.remui %t, %tiles_n : index
        %row0 = arith.muli %tm, %c128 : index
        %col0 = arith.muli %tn, %c128 : index
        %acc:8 = func.call @symm_gemm_tile_bf16(%a, %k, %row0, %b, %nb, %col0, %k, %lanes, %sa, %sb)
            : (memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
            -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
        // The tile is at columns coloff + col0 .. of C.
        %ccol = arith.addi %coloff, %col0 : index
        scf.for %q = %c0 to %c8 step %c1 {
          %v, %row, %col, %has = func.call @symm_gemm_fragment_row(%acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7, %q, %row0, %ccol, %lanes, %sc)
              : (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, index, index, !sc)
              -> (vector<8xf32>, index, index, i1)
          // The bottom tile row stops at C's last row.
          %in_c = arith.cmpi ult, %row, %m : index
          %store = arith.andi %has, %in_c : i1
          scf.if %store {
            %base = arith.muli %row, %ldc : index
            %i = arith.addi %base, %col : index
            func.call @symm_gemm_store_row_bf16(%v, %c, %i, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, i1) -> ()
          }
        }
        scf.if %to_peers {
          func.call @symm_announce(%arrivals, %v1) : (memref<?xi32, #symm.heap>, i32) -> ()
        }
        scf.if %flag_tiles {
          symm.release_barrier scope(system)
          scf.if %t0 {
            symm.store %epoch, %flags[%t] ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
          }
        }
      }
    } else {
      %pusher = arith.subi %bid, %compute_grid : index
      %pushers = arith.subi %grid, %compute_grid : index
      func.call @symm_push_tiles(%c, %flags, %arrivals, %m, %nb, %ldc, %coloff, %epoch, %pusher, %pushers)
          : (memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>,
             index, index, index, index, i32, index, index) -> ()
    }
    scf.if %awaits {
      %tiles32 = arith.index_cast %tiles : index to i32
      %expected = arith.muli %epoch, %tiles32 : i32
      func.call @symm_await_arrivals(%arrivals, %expected) : (memref<?xi32, #symm.heap>, i32) -> ()
    }
    gpu.return
  }

  gpu.func @push(%c: memref<?xi16, #symm.heap>, %flags: memref<?xi32, #symm.heap>,
                 %arrivals: memref<?xi32, #symm.heap>, %m: index, %nb: index, %ldc: index,
                 %coloff: index, %epoch: i32) kernel attributes {rocdl.flat_work_group_size = "1,512"} {
    %c128 = arith.constant 128 : index
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    func.call @symm_push_tiles(%c, %flags, %arrivals, %m, %nb, %ldc, %coloff, %epoch, %bid, %grid)
        : (memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>,
           index, index, index, index, i32, index, index) -> ()
    %c127 = arith.constant 127 : index
    %m_up = arith.addi %m, %c127 : index
    %tiles_m = arith.divui %m_up, %c128 : index
    %tiles_n = arith.divui %nb, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %tiles32 = arith.index_cast %tiles : index to i32
    %expected = arith.muli %epoch, %tiles32 : i32
    func.call @symm_await_arrivals(%arrivals, %expected) : (memref<?xi32, #symm.heap>, i32) -> ()
    gpu.return
  }

  // C (m x W nb) from the all-gathered blocks: block r (m x nb, rank r's
  // columns) at r m nb of %gathered; 16-byte vectors, grid-stride.
  gpu.func @assemble(%gathered: memref<?xi16, #symm.heap>, %c: memref<?xi16, #symm.heap>,
                     %m: index, %nb: index, %n: index) kernel attributes {rocdl.flat_work_group_size = "1,512"} {
    %c8 = arith.constant 8 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %grid = gpu.grid_dim x
    %base = arith.muli %bid, %bdim : index
    %start = arith.addi %base, %tid : index
    %stride = arith.muli %grid, %bdim : index
    %cols = arith.divui %n, %c8 : index
    %vectors = arith.muli %m, %cols : index
    %block = arith.muli %m, %nb : index
    scf.for %v = %start to %vectors step %stride {
      %row = arith.divui %v, %cols : index
      %cv = arith.remui %v, %cols : index
      %col = arith.muli %cv, %c8 : index
      %r = arith.divui %col, %nb : index
      %rc = arith.remui %col, %nb : index
      %src0 = arith.muli %r, %block : index
      %srow = arith.muli %row, %nb : index
      %src1 = arith.addi %src0, %srow : index
      %src = arith.addi %src1, %rc : index
      %rowbase = arith.muli %row, %n : index
      %dst = arith.addi %rowbase, %col : index
      %bits = vector.load %gathered[%src] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
      vector.store %bits, %c[%dst] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
    }
    gpu.return
  }
}
