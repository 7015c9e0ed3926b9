// A bf16 GEMM with Hopper's TMA, mbarriers and warpgroup MMA, in the style of
// upstream's sm90 gemm_f32_f16_f16_128x128x128 test: C (f32) = A·B for
// 256x256 bf16 A and B, f32 accumulation. Each of the 2x2 blocks of one
// warpgroup (128 threads) computes a 128x128 tile of C; its K loop takes 4
// stages of 64 through a 2-stage ring of workgroup-memory buffers that TMA
// fills (128-byte swizzled, with the mbarrier's transaction count) while the
// warpgroup multiplies the other. Every rank checks its own product against
// a host reference and prints PASS. Compiled here for sm_90a (whole program,
// PTX, and the cubin ptxas makes of it); scripts/gpu-bundle.sh runs it on
// the GPU machine.
// RUN: symm-compile --target=sm_90a --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// RUN: symm-compile --target=sm_90a --emit=mlir %s -o - | FileCheck %s --check-prefix=HOST
// RUN: symm-compile --target=sm_90a %s -o %t.exe
// PTX: .version 8.0
// PTX: .target sm_90a
// PTX-LABEL: .entry gemm(
// PTX-NEXT: .param .u64 {{.*}}gemm_param_0,
// PTX-NEXT: .param .u64 {{.*}}gemm_param_1,
// PTX-DAG: mbarrier.init.shared.b64
// PTX-DAG: prefetch.tensormap
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.try_wait.parity.shared.b64
// PTX-DAG: wgmma.fence.sync.aligned
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: wgmma.commit_group.sync.aligned
// PTX-DAG: wgmma.wait_group.sync.aligned 1
// PTX-DAG: wgmma.wait_group.sync.aligned 0
// Host code makes the two descriptors with the runtime and passes them as
// pointers.
// HOST-LABEL: llvm.func @main
// HOST: %[[A:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref({{.*}}) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// HOST: %[[B:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref({{.*}}) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// HOST: gpu.launch_func @kernels::@gemm {{.*}} args(%[[A]] : !llvm.ptr, %[[B]] : !llvm.ptr,
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!mapA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tileA = memref<128x64xbf16, #gpu.address_space<workgroup>>
!tileB = memref<64x128xbf16, #gpu.address_space<workgroup>>
!halfB = memref<64x64xbf16, #gpu.address_space<workgroup>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!descA = !nvgpu.warpgroup.descriptor<tensor = !tileA>
!descB = !nvgpu.warpgroup.descriptor<tensor = !tileB>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Block (bm, bn) computes C[128 bm.., 128 bn..] = A·B over K = %k. Stage
    // s (K columns 64 s..) sits in buffer s mod 2: A's 128x64 tile at
    // A(s mod 2), B's 64x128 tile as two 64x64 halves at B(s mod 2) and
    // B(s mod 2) + 8192 bytes, and completes phase s / 2 of mbarrier s mod 2.
    gpu.func @gemm(%mapA: !mapA, %mapB: !mapB, %c: memref<?x?xf32>, %k: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %c8192 = arith.constant 8192 : index
      %c16384 = arith.constant 16384 : index
      %c32768 = arith.constant 32768 : index
      %ticks = arith.constant 10000000 : index
      %tid = gpu.thread_id x
      %bm = gpu.block_id x
      %bn = gpu.block_id y
      %row0 = arith.muli %bm, %c128 : index
      %col0 = arith.muli %bn, %c128 : index
      %col1 = arith.addi %col0, %c64 : index
      // 128-byte swizzled tiles start at 1024-byte boundaries, the period of
      // the swizzle pattern the wgmma descriptors assume.
      %smem = gpu.dynamic_shared_memory : !smem
      %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
      %mis = arith.remui %base, %c1024 : index
      %gap = arith.subi %c1024, %mis : index
      %pad = arith.remui %gap, %c1024 : index
      %bufB = arith.addi %pad, %c32768 : index
      %barriers = nvgpu.mbarrier.create -> !barriers
      %leader = arith.cmpi eq, %tid, %c0 : index
      nvgpu.mbarrier.init %barriers[%c0], %c1, predicate = %leader : !barriers
      nvgpu.mbarrier.init %barriers[%c1], %c1, predicate = %leader : !barriers
      nvgpu.tma.prefetch.descriptor %mapA, predicate = %leader : !mapA
      nvgpu.tma.prefetch.descriptor %mapB, predicate = %leader : !mapB
      gpu.barrier
      // The leader thread fills both buffers, then refills each one once
      // the warpgroup is done with it.
      %stages = arith.divui %k, %c64 : index
      %first = arith.minui %stages, %c2 : index
      scf.for %s = %c0 to %first step %c1 {
        scf.if %leader {
          %kk = arith.muli %s, %c64 : index
          %off = arith.muli %s, %c16384 : index
          %offA = arith.addi %pad, %off : index
          %offB = arith.addi %bufB, %off : index
          %offB2 = arith.addi %offB, %c8192 : index
          %a = memref.view %smem[%offA][] : !smem to !tileA
          %b1 = memref.view %smem[%offB][] : !smem to !halfB
          %b2 = memref.view %smem[%offB2][] : !smem to !halfB
          nvgpu.mbarrier.arrive.expect_tx %barriers[%s], %c32768 : !barriers
          nvgpu.tma.async.load %mapA[%kk, %row0], %barriers[%s] to %a : !mapA, !barriers -> !tileA
          nvgpu.tma.async.load %mapB[%col0, %kk], %barriers[%s] to %b1 : !mapB, !barriers -> !halfB
          nvgpu.tma.async.load %mapB[%col1, %kk], %barriers[%s] to %b2 : !mapB, !barriers -> !halfB
        }
      }
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %res = scf.for %s = %c0 to %stages step %c1 iter_args(%acc = %init) -> (!acc) {
        %buf = arith.remui %s, %c2 : index
        %round = arith.divui %s, %c2 : index
        %round32 = arith.index_cast %round : index to i32
        %parity = arith.trunci %round32 : i32 to i1
        nvgpu.mbarrier.try_wait.parity %barriers[%buf], %parity, %ticks : !barriers
        %off = arith.muli %buf, %c16384 : index
        %offA = arith.addi %pad, %off : index
        %offB = arith.addi %bufB, %off : index
        %a = memref.view %smem[%offA][] : !smem to !tileA
        %b = memref.view %smem[%offB][] : !smem to !tileB
        %dA = nvgpu.warpgroup.generate.descriptor %a, %mapA : !tileA, !mapA -> !descA
        %dB = nvgpu.warpgroup.generate.descriptor %b, %mapB : !tileB, !mapB -> !descB
        // Waits for the warpgroup's previous MMA (wgmma.wait_group 1), so
        // once every thread is past the barrier, stage s - 1's buffer is
        // free for stage s + 1 while this MMA runs.
        %d = nvgpu.warpgroup.mma %dA, %dB, %acc {transposeB} : !descA, !descB, !acc -> !acc
        gpu.barrier
        %next = arith.addi %s, %c1 : index
        %more = arith.cmpi ult, %next, %stages : index
        %started = arith.cmpi uge, %s, %c1 : index
        %free = arith.andi %more, %started : i1
        %refill = arith.andi %leader, %free : i1
        scf.if %refill {
          %nbuf = arith.remui %next, %c2 : index
          %kk = arith.muli %next, %c64 : index
          %noff = arith.muli %nbuf, %c16384 : index
          %nA = arith.addi %pad, %noff : index
          %nB = arith.addi %bufB, %noff : index
          %nB2 = arith.addi %nB, %c8192 : index
          %a2 = memref.view %smem[%nA][] : !smem to !tileA
          %b1 = memref.view %smem[%nB][] : !smem to !halfB
          %b2 = memref.view %smem[%nB2][] : !smem to !halfB
          nvgpu.mbarrier.arrive.expect_tx %barriers[%nbuf], %c32768 : !barriers
          nvgpu.tma.async.load %mapA[%kk, %row0], %barriers[%nbuf] to %a2 : !mapA, !barriers -> !tileA
          nvgpu.tma.async.load %mapB[%col0, %kk], %barriers[%nbuf] to %b1 : !mapB, !barriers -> !halfB
          nvgpu.tma.async.load %mapB[%col1, %kk], %barriers[%nbuf] to %b2 : !mapB, !barriers -> !halfB
        }
        scf.yield %d : !acc
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %tile = memref.subview %c[%row0, %col0] [128, 128] [1, 1] : memref<?x?xf32> to memref<128x128xf32, strided<[?, 1], offset: ?>>
      nvgpu.warpgroup.mma.store %res, %tile : !acc to memref<128x128xf32, strided<[?, 1], offset: ?>>
      gpu.return
    }
  }

  // Element (i, j) of a 256x256 operand: a multiple of 1/8 in [-1, 1],
  // exact in bf16, different on each rank.
  func.func @value(%i: index, %j: index, %p: index, %q: index, %rank: index) -> bf16 {
    %c17 = arith.constant 17 : index
    %c8 = arith.constant 8 : index
    %ip = arith.muli %i, %p : index
    %jq = arith.muli %j, %q : index
    %s = arith.addi %ip, %jq : index
    %s2 = arith.addi %s, %rank : index
    %m = arith.remui %s2, %c17 : index
    %m32 = arith.index_cast %m : index to i32
    %f = arith.sitofp %m32 : i32 to f32
    %eight = arith.constant 8.0 : f32
    %centered = arith.subf %f, %eight : f32
    %v = arith.divf %centered, %eight : f32
    %b = arith.truncf %v : f32 to bf16
    return %b : bf16
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %p3 = arith.constant 3 : index
    %q5 = arith.constant 5 : index
    %p7 = arith.constant 7 : index
    %q11 = arith.constant 11 : index
    %rank32 = symm.rank : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %a = memref.alloc() : memref<256x256xbf16>
    %b = memref.alloc() : memref<256x256xbf16>
    %c = memref.alloc() : memref<256x256xf32>
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %va = func.call @value(%i, %j, %p3, %q5, %rank) : (index, index, index, index, index) -> bf16
        memref.store %va, %a[%i, %j] : memref<256x256xbf16>
        %vb = func.call @value(%i, %j, %p7, %q11, %rank) : (index, index, index, index, index) -> bf16
        memref.store %vb, %b[%i, %j] : memref<256x256xbf16>
      }
    }
    // TMA reads device memory.
    %da = gpu.alloc () : memref<256x256xbf16>
    %db = gpu.alloc () : memref<256x256xbf16>
    %dc = gpu.alloc () : memref<256x256xf32>
    gpu.memcpy %da, %a : memref<256x256xbf16>, memref<256x256xbf16>
    gpu.memcpy %db, %b : memref<256x256xbf16>, memref<256x256xbf16>
    %ua = memref.cast %da : memref<256x256xbf16> to memref<*xbf16>
    %ub = memref.cast %db : memref<256x256xbf16> to memref<*xbf16>
    %mapA = nvgpu.tma.create.descriptor %ua box[%c128, %c64] : memref<*xbf16> -> !mapA
    %mapB = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xbf16> -> !mapB
    %cd = memref.cast %dc : memref<256x256xf32> to memref<?x?xf32>
    // Two ring buffers of a 128x64 A tile and a 64x128 B tile, and room to
    // align them to 1024 bytes.
    %shared = arith.constant 66560 : i32
    gpu.launch_func @kernels::@gemm blocks in (%c2, %c2, %c1) threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %shared
        args(%mapA : !mapA, %mapB : !mapB, %cd : memref<?x?xf32>, %c256 : index)
    gpu.memcpy %c, %dc : memref<256x256xf32>, memref<256x256xf32>

    // The reference in f32; the operands' products and sums are exact.
    %tol = arith.constant 1.0e-3 : f32
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %bad = scf.for %i = %c0 to %c256 step %c1 iter_args(%n = %c0) -> (index) {
      %row = scf.for %j = %c0 to %c256 step %c1 iter_args(%m = %n) -> (index) {
        %sum = scf.for %kk = %c0 to %c256 step %c1 iter_args(%s = %zero) -> (f32) {
          %x = memref.load %a[%i, %kk] : memref<256x256xbf16>
          %y = memref.load %b[%kk, %j] : memref<256x256xbf16>
          %xf = arith.extf %x : bf16 to f32
          %yf = arith.extf %y : bf16 to f32
          %p = arith.mulf %xf, %yf : f32
          %s1 = arith.addf %s, %p : f32
          scf.yield %s1 : f32
        }
        %got = memref.load %c[%i, %j] : memref<256x256xf32>
        %diff = arith.subf %got, %sum : f32
        %err = math.absf %diff : f32
        %mag = math.absf %sum : f32
        %scale = arith.maximumf %mag, %one : f32
        %limit = arith.mulf %tol, %scale : f32
        %wrong = arith.cmpf ugt, %err, %limit : f32
        %m1 = arith.addi %m, %c1 : index
        %m2 = arith.select %wrong, %m1, %m : index
        scf.yield %m2 : index
      }
      scf.yield %row : index
    }
    %bad32 = arith.index_cast %bad : index to i32
    vector.print str "elements off the reference: "
    vector.print %bad32 : i32
    %ok = arith.cmpi eq, %bad, %c0 : index
    scf.if %ok {
      vector.print str "PASS\n"
    } else {
      vector.print str "FAIL\n"
    }
    gpu.dealloc %da : memref<256x256xbf16>
    gpu.dealloc %db : memref<256x256xbf16>
    gpu.dealloc %dc : memref<256x256xf32>
    symm.barrier
    %fail = arith.constant 1 : i32
    %zero32 = arith.constant 0 : i32
    %status = arith.select %ok, %zero32, %fail : i32
    return %status : i32
  }
}
