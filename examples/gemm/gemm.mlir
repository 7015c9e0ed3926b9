// The portable GEMM kernel, C = A·B: bf16 in, f32 accumulation, bf16 out,
// on the device library's subgroup-MMA tile (library/gemm.mlir: 16x16x16 f16
// fragments, the shape every target lowers: the CPU target, WMMA on NVIDIA,
// MFMA on AMD). Compiled by symm-compile for the host target, sm_90 and
// gfx942; gemm.cpp launches it.
//
// Kernel ABI (shared with gemm_hopper.mlir's kernel; see README.md):
//   gpu.module @gemm, gpu.func @gemm(%a, %b, %c, %m, %n, %k)
//     %a  memref<?xbf16>  A, M x K, row-major
//     %b  memref<?xbf16>  B, K x N, row-major
//     %c  memref<?xbf16>  C, M x N, row-major (written)
//     %m, %n, %k  index   M, N multiples of 128; K a multiple of 32
//   grid: any number of blocks in x (persistent: block b computes the
//     128x128 tiles b, b + grid, ...; at most one block per tile is useful)
//   block: 8 subgroups, i.e. 8 x the subgroup size threads in x (256 on
//     the CPU target and NVIDIA, 512 on AMD's 64-lane wavefronts)
//   shared memory: none dynamic; 46080 bytes of static workgroup memory
//     (the library tile's stages and scratch).
//
// A block takes its tiles in groups of 8 tile rows, so that the blocks
// running at once share rows of A and columns of B in the cache; for each,
// the library's main loop returns this subgroup's f32 accumulators and its
// epilogue rounds them to bf16 once, into C. On NVIDIA, a Hopper main loop
// (TMA + wgmma, gemm_hopper.mlir) replaces this kernel.
gpu.module @gemm {
  func.func private @symm_gemm_tile_order(index, index, index) -> (index, index)
  func.func private @symm_gemm_tile_bf16(memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index,
                                         memref<256x40xf16, #gpu.address_space<workgroup>>,
                                         memref<64x136xf16, #gpu.address_space<workgroup>>)
      -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
          !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
          !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
          !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">)
  func.func private @symm_gemm_store_tile_bf16(!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                                               !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                                               !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                                               !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                                               memref<?xbf16>, index, index, index, index,
                                               memref<128x16xf32, #gpu.address_space<workgroup>>)

  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                 %m: index, %n: index, %k: index)
      workgroup(%sa: memref<256x40xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %sb: memref<64x136xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %sc: memref<128x16xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
      kernel attributes {rocdl.flat_work_group_size = "1,512"} {
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %threads = gpu.block_dim x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    // 8 subgroups whatever their size.
    %lanes = arith.divui %threads, %c8 : index
    %tiles_m = arith.divui %m, %c128 : index
    %tiles_n = arith.divui %n, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    scf.for %t = %bid to %tiles step %grid {
      %tm, %tn = func.call @symm_gemm_tile_order(%t, %tiles_m, %tiles_n) : (index, index, index) -> (index, index)
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c128 : index
      %acc:8 = func.call @symm_gemm_tile_bf16(%a, %k, %m0, %b, %n, %n0, %k, %lanes, %sa, %sb)
          : (memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index,
             memref<256x40xf16, #gpu.address_space<workgroup>>, memref<64x136xf16, #gpu.address_space<workgroup>>)
          -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
              !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
              !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
              !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">)
      func.call @symm_gemm_store_tile_bf16(%acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7,
                                           %c, %n, %m0, %n0, %lanes, %sc)
          : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
             !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
             !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
             !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
             memref<?xbf16>, index, index, index, index,
             memref<128x16xf32, #gpu.address_space<workgroup>>) -> ()
    }
    gpu.return
  }
}
