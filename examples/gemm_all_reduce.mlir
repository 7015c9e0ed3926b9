// GEMM + all-reduce written with the device library: the row-parallel linear
// layer C = Σ_r A_r·B_r with K split across the ranks (rank r holds A_r,
// M x K, and B_r, K x N, its share of K; bf16), every rank ending with all
// of C (bf16, f32 accumulation). One kernel computes a 128x128 tile of C per
// workgroup and does its tile's part of the all-reduce:
//   - symm_gemm_tile_bf16 (library/gemm.mlir), the portable GEMM tile,
//     multiplies this rank's share into f32 accumulator fragments;
//   - symm_gemm_fragment_row hands each lane 8 elements of a row of the tile,
//     stored as this rank's f32 partial tile;
//   - symm_tile_all_reduce_f32 (library/collectives-f32.mlir), the one-shot
//     all-reduce block, sums the tile over the ranks;
//   - the workgroup rounds the sum to bf16 once, into C.
// The kernel declares the four library functions and calls them; the
// compiler links their definitions in (docs/Library.md). The program checks
// C on the device against the exact sums of its small integer inputs.
//
//   symm-run -n 2 examples/gemm_all_reduce.mlir
//
// Workgroups are 8 subgroups: 256 threads with 32-lane subgroups (CPU ranks,
// NVIDIA), as launched here; AMD's 64-lane wavefronts need 512.
!acc = !gpu.mma_matrix<16x16xf32, "COp">
!sa = memref<256x40xf16, #gpu.address_space<workgroup>>
!sb = memref<64x136xf16, #gpu.address_space<workgroup>>
!sc = memref<128x16xf32, #gpu.address_space<workgroup>>
!scratch = memref<?xf32, #symm.heap>
!flags = memref<?xi32, #symm.heap>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_gemm_tile_bf16(memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
        -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
    func.func private @symm_gemm_fragment_row(!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, index, index, !sc)
        -> (vector<8xf32>, index, index, i1)
    func.func private @symm_tile_all_reduce_f32(memref<?xf32>, index, memref<?xf32>, index, index, !scratch, index, index, !flags, index, index, i32, i32)

    // Workgroup t computes tile t of C (row-major tile order; the grid is
    // one workgroup per tile). %partial and %sums hold each tile's 16384 f32
    // contiguously, tile t at 16384 t; %scratch has a slot of M·N elements
    // per rank, of which tile t uses the same range; %flags has a flag slot
    // per tile. %epoch counts the launches on these flags: 1, 2, ...
    gpu.func @gemm_all_reduce(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                              %partial: memref<?xf32>, %sums: memref<?xf32>,
                              %scratch: !scratch, %flags: !flags,
                              %m: index, %n: index, %k: index, %epoch: i32)
        workgroup(%sa: !sa {llvm.align = 32 : i64}, %sb: !sb {llvm.align = 32 : i64},
                  %sc: !sc {llvm.align = 32 : i64})
        kernel attributes {rocdl.flat_work_group_size = "1,512"} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %c16384 = arith.constant 16384 : index
      %sum = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %threads = gpu.block_dim x
      %t = gpu.block_id x
      %tiles = gpu.grid_dim x
      %lanes = arith.divui %threads, %c8 : index
      %tiles_n = arith.divui %n, %c128 : index
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %row0 = arith.muli %tm, %c128 : index
      %col0 = arith.muli %tn, %c128 : index
      %base = arith.muli %t, %c16384 : index

      // This rank's share of the tile.
      %acc:8 = func.call @symm_gemm_tile_bf16(%a, %k, %row0, %b, %n, %col0, %k, %lanes, %sa, %sb)
          : (memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
          -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
      // Its f32 partial, row-major within the tile (origin 0, 0).
      scf.for %q = %c0 to %c8 step %c1 {
        %v, %r, %col, %has = func.call @symm_gemm_fragment_row(%acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7, %q, %c0, %c0, %lanes, %sc)
            : (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, index, index, !sc)
            -> (vector<8xf32>, index, index, i1)
        scf.if %has {
          %rr = arith.muli %r, %c128 : index
          %e = arith.addi %rr, %col : index
          %i = arith.addi %base, %e : index
          vector.store %v, %partial[%i] {alignment = 16} : memref<?xf32>, vector<8xf32>
        }
      }
      // Every thread's part of the partial is written before the block
      // sends it.
      gpu.barrier

      // The tile summed over the ranks.
      %slot_len = arith.muli %m, %n : index
      func.call @symm_tile_all_reduce_f32(%partial, %base, %sums, %base, %c16384, %scratch, %slot_len, %base, %flags, %t, %tiles, %sum, %epoch)
          : (memref<?xf32>, index, memref<?xf32>, index, index, !scratch, index, index, !flags, index, index, i32, i32) -> ()
      gpu.barrier

      // Rounded once to bf16, into C.
      %first = arith.muli %tid, %c8 : index
      %step = arith.muli %threads, %c8 : index
      scf.for %e = %first to %c16384 step %step {
        %r = arith.divui %e, %c128 : index
        %col = arith.remui %e, %c128 : index
        %i = arith.addi %base, %e : index
        %v = vector.load %sums[%i] {alignment = 16} : memref<?xf32>, vector<8xf32>
        %bf = arith.truncf %v : vector<8xf32> to vector<8xbf16>
        %row = arith.addi %row0, %r : index
        %ccol = arith.addi %col0, %col : index
        %rown = arith.muli %row, %n : index
        %ci = arith.addi %rown, %ccol : index
        vector.store %bf, %c[%ci] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
      }
      gpu.return
    }

    // Rank r's inputs, integers in {-1, 0, 1} (exact in bf16, f16 and f32,
    // and so are C's sums, |C| <= K·W <= 256): A_r[i][k] = (i + 2k + r) mod
    // 3 - 1, B_r[k][j] = (k + j + 2r) mod 3 - 1.
    func.func @input(%x: index, %y: index, %r: index) -> f32 {
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %s0 = arith.addi %x, %y : index
      %s = arith.addi %s0, %r : index
      %v = arith.remui %s, %c3 : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      %one = arith.constant 1.0 : f32
      %w = arith.subf %vf, %one : f32
      return %w : f32
    }
    func.func @a_value(%i: index, %kk: index, %r: index) -> f32 {
      %kk2 = arith.addi %kk, %kk : index
      %v = func.call @input(%i, %kk2, %r) : (index, index, index) -> f32
      return %v : f32
    }
    func.func @b_value(%kk: index, %j: index, %r: index) -> f32 {
      %r2 = arith.addi %r, %r : index
      %v = func.call @input(%kk, %j, %r2) : (index, index, index) -> f32
      return %v : f32
    }

    gpu.func @fill(%a: memref<?xbf16>, %b: memref<?xbf16>, %m: index, %n: index, %k: index) kernel {
      %tid = gpu.thread_id x
      %threads = gpu.block_dim x
      %me32 = symm.rank : i32
      %me = arith.index_cast %me32 : i32 to index
      %mk = arith.muli %m, %k : index
      scf.for %e = %tid to %mk step %threads {
        %i = arith.divui %e, %k : index
        %kk = arith.remui %e, %k : index
        %v = func.call @a_value(%i, %kk, %me) : (index, index, index) -> f32
        %h = arith.truncf %v : f32 to bf16
        memref.store %h, %a[%e] : memref<?xbf16>
      }
      %kn = arith.muli %k, %n : index
      scf.for %e = %tid to %kn step %threads {
        %kk = arith.divui %e, %n : index
        %j = arith.remui %e, %n : index
        %v = func.call @b_value(%kk, %j, %me) : (index, index, index) -> f32
        %h = arith.truncf %v : f32 to bf16
        memref.store %h, %b[%e] : memref<?xbf16>
      }
      gpu.return
    }

    // errors[0] += the elements of C that differ from Σ_r A_r·B_r.
    gpu.func @check(%c: memref<?xbf16>, %m: index, %n: index, %k: index, %errors: !flags) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %none = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %threads = gpu.block_dim x
      %w32 = symm.world_size : i32
      %w = arith.index_cast %w32 : i32 to index
      %mn = arith.muli %m, %n : index
      %wrong = scf.for %e = %tid to %mn step %threads iter_args(%bad = %none) -> (i32) {
        %i = arith.divui %e, %n : index
        %j = arith.remui %e, %n : index
        %want = scf.for %r = %c0 to %w step %c1 iter_args(%s = %zero) -> (f32) {
          %sr = scf.for %kk = %c0 to %k step %c1 iter_args(%s1 = %s) -> (f32) {
            %x = func.call @a_value(%i, %kk, %r) : (index, index, index) -> f32
            %y = func.call @b_value(%kk, %j, %r) : (index, index, index) -> f32
            %s2 = math.fma %x, %y, %s1 : f32
            scf.yield %s2 : f32
          }
          scf.yield %sr : f32
        }
        %h = memref.load %c[%e] : memref<?xbf16>
        %got = arith.extf %h : bf16 to f32
        %ne = arith.cmpf une, %got, %want : f32
        %inc = arith.extui %ne : i1 to i32
        %next = arith.addi %bad, %inc : i32
        scf.yield %next : i32
      }
      %old = symm.atomic_rmw add %wrong, %errors[%c0] ordering(relaxed) scope(device) : i32 -> !flags
      gpu.return
    }
  }

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i32
    %epoch = arith.constant 1 : i32
    // M x N x K per rank; the flags are SYMM_COLL_FLAGS_PER_SLOT (256) per
    // tile.
    %m = arith.constant 256 : index
    %n = arith.constant 256 : index
    %k = arith.constant 64 : index
    %tm = arith.divui %m, %c128 : index
    %tn = arith.divui %n, %c128 : index
    %tiles = arith.muli %tm, %tn : index
    %mk = arith.muli %m, %k : index
    %kn = arith.muli %k, %n : index
    %mn = arith.muli %m, %n : index
    %a = gpu.alloc (%mk) : memref<?xbf16>
    %b = gpu.alloc (%kn) : memref<?xbf16>
    %c = gpu.alloc (%mn) : memref<?xbf16>
    %partial = gpu.alloc (%mn) : memref<?xf32>
    %sums = gpu.alloc (%mn) : memref<?xf32>
    %world = symm.world_size : i32
    %w = arith.index_cast %world : i32 to index
    %scratch_len = arith.muli %w, %mn : index
    %scratch = symm.alloc(%scratch_len) : !scratch
    %flags_len = arith.muli %tiles, %c256 : index
    %flags = symm.alloc(%flags_len) : !flags
    %errors = symm.alloc(%c1) : !flags
    gpu.memset %flags, %zero : !flags, i32
    gpu.memset %errors, %zero : !flags, i32
    // Every rank's flags are zero before a peer raises one.
    symm.barrier
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<?xbf16>, %b : memref<?xbf16>, %m : index, %n : index, %k : index)
    gpu.launch_func @kernels::@gemm_all_reduce blocks in (%tiles, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<?xbf16>, %b : memref<?xbf16>, %c : memref<?xbf16>, %partial : memref<?xf32>, %sums : memref<?xf32>, %scratch : !scratch, %flags : !flags, %m : index, %n : index, %k : index, %epoch : i32)
    gpu.launch_func @kernels::@check blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%c : memref<?xbf16>, %m : index, %n : index, %k : index, %errors : !flags)
    %host = gpu.alloc host_shared () : memref<1xi32>
    gpu.memcpy %host, %errors : memref<1xi32>, !flags
    %wrong = memref.load %host[%c0] : memref<1xi32>
    %ok = arith.cmpi eq, %wrong, %zero : i32
    scf.if %ok {
      vector.print str "gemm + all-reduce ok\n"
    } else {
      vector.print str "gemm + all-reduce FAILED, wrong elements: "
      vector.print %wrong : i32
    }
    symm.barrier
    symm.dealloc %errors : !flags
    symm.dealloc %flags : !flags
    symm.dealloc %scratch : !scratch
    return %wrong : i32
  }
}
