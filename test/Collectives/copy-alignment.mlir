// The device library's copies at every alignment: symm_coll_copy (local),
// symm_coll_put (into a heap buffer, here this rank's own) and
// symm_coll_unpack (out of the heap) of 0-39 bytes (i8) and of 0-19 bf16
// elements (as i16 bits), from and to every element offset within 16 bytes
// of a 16-byte aligned base. They store aligned vectors and shift a source
// that lies between vectors (symm_coll_plan, symm_coll_vload); every
// element of the destination is checked, the ones around the copy too (a
// copy writes nothing else). Under the race detector as well: a shifted
// load that read bytes outside its copy would race with the stores that
// reset them to -1.
// RUN: %symm_run -n 1 %s | FileCheck %s
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run --check-races -n 2 %s | FileCheck %s
// CHECK: copies ok
// CHECK-NOT: FAILED
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_coll_copy_i8(memref<?xi8>, index, memref<?xi8>, index, index)
    func.func private @symm_coll_put_i8(memref<?xi8>, index, memref<?xi8, #symm.heap>, index, index, i32)
    func.func private @symm_coll_unpack_i8(memref<?xi8, #symm.heap>, index, memref<?xi8>, index, index)
    func.func private @symm_coll_copy_bf16(memref<?xbf16>, index, memref<?xbf16>, index, index)
    func.func private @symm_coll_put_bf16(memref<?xbf16>, index, memref<?xbf16, #symm.heap>, index, index, i32)
    func.func private @symm_coll_unpack_bf16(memref<?xbf16, #symm.heap>, index, memref<?xbf16>, index, index)

    // Elements of dst that are not what a copy of `len` elements from
    // src[from] to dst[at] leaves in it (every other element is -1), counted
    // by thread 0; then every element of dst is -1 again.
    func.func @wrong_i8(%src: memref<?xi8>, %from: index, %dst: memref<?xi8>, %at: index, %len: index, %n: index) -> i32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      %minus1 = arith.constant -1 : i8
      %t = gpu.thread_id x
      %nt = gpu.block_dim x
      gpu.barrier
      %first = arith.cmpi eq, %t, %c0 : index
      %bad = scf.if %first -> (i32) {
        %end = arith.addi %at, %len : index
        %count = scf.for %j = %c0 to %n step %c1 iter_args(%e = %zero) -> (i32) {
          %ge = arith.cmpi uge, %j, %at : index
          %lt = arith.cmpi ult, %j, %end : index
          %in = arith.andi %ge, %lt : i1
          %off = arith.subi %j, %at : index
          %k0 = arith.addi %from, %off : index
          %k = arith.select %in, %k0, %c0 : index
          %s = memref.load %src[%k] : memref<?xi8>
          %want = arith.select %in, %s, %minus1 : i8
          %got = memref.load %dst[%j] : memref<?xi8>
          %ne = arith.cmpi ne, %got, %want : i8
          %inc = arith.extui %ne : i1 to i32
          %e1 = arith.addi %e, %inc : i32
          scf.yield %e1 : i32
        }
        scf.yield %count : i32
      } else {
        scf.yield %zero : i32
      }
      gpu.barrier
      scf.for %j = %t to %n step %nt {
        memref.store %minus1, %dst[%j] : memref<?xi8>
      }
      gpu.barrier
      return %bad : i32
    }

    // One workgroup: from `from`, to every offset, every length, each copy
    // checked; the wrong elements added to errors[0]. (A launch per `from`
    // keeps a block within the race detector's 65535 barriers.)
    gpu.func @copies_i8(%src: memref<?xi8>, %dst: memref<?xi8>, %heap: memref<?xi8, #symm.heap>, %errors: memref<?xi32>, %from: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %c40 = arith.constant 40 : index
      %n = arith.constant 96 : index
      %zero = arith.constant 0 : i32
      %me = symm.rank : i32
      %total = scf.for %at = %c0 to %c16 step %c1 iter_args(%ea = %zero) -> (i32) {
          %e2 = scf.for %len = %c0 to %c40 step %c1 iter_args(%eb = %ea) -> (i32) {
            func.call @symm_coll_copy_i8(%src, %from, %dst, %at, %len) : (memref<?xi8>, index, memref<?xi8>, index, index) -> ()
            %w1 = func.call @wrong_i8(%src, %from, %dst, %at, %len, %n) : (memref<?xi8>, index, memref<?xi8>, index, index, index) -> i32
            // Into the heap (this rank's buffer, as a peer's), then out of it
            // to `from`: both checked by the second.
            func.call @symm_coll_put_i8(%src, %from, %heap, %at, %len, %me) : (memref<?xi8>, index, memref<?xi8, #symm.heap>, index, index, i32) -> ()
            gpu.barrier
            func.call @symm_coll_unpack_i8(%heap, %at, %dst, %from, %len) : (memref<?xi8, #symm.heap>, index, memref<?xi8>, index, index) -> ()
            %w2 = func.call @wrong_i8(%src, %from, %dst, %from, %len, %n) : (memref<?xi8>, index, memref<?xi8>, index, index, index) -> i32
            %e3 = arith.addi %eb, %w1 : i32
            %e4 = arith.addi %e3, %w2 : i32
            scf.yield %e4 : i32
          }
          scf.yield %e2 : i32
      }
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %before = memref.load %errors[%c0] : memref<?xi32>
        %sum = arith.addi %before, %total : i32
        memref.store %sum, %errors[%c0] : memref<?xi32>
      }
      gpu.return
    }

    // The same for bf16 elements (bits as i16: every value is exact).
    func.func @wrong_bf16(%src: memref<?xbf16>, %from: index, %dst: memref<?xbf16>, %at: index, %len: index, %n: index) -> i32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      %minus1 = arith.constant -1 : i16
      %minus1b = arith.bitcast %minus1 : i16 to bf16
      %t = gpu.thread_id x
      %nt = gpu.block_dim x
      gpu.barrier
      %first = arith.cmpi eq, %t, %c0 : index
      %bad = scf.if %first -> (i32) {
        %end = arith.addi %at, %len : index
        %count = scf.for %j = %c0 to %n step %c1 iter_args(%e = %zero) -> (i32) {
          %ge = arith.cmpi uge, %j, %at : index
          %lt = arith.cmpi ult, %j, %end : index
          %in = arith.andi %ge, %lt : i1
          %off = arith.subi %j, %at : index
          %k0 = arith.addi %from, %off : index
          %k = arith.select %in, %k0, %c0 : index
          %sb = memref.load %src[%k] : memref<?xbf16>
          %s = arith.bitcast %sb : bf16 to i16
          %want = arith.select %in, %s, %minus1 : i16
          %gotb = memref.load %dst[%j] : memref<?xbf16>
          %got = arith.bitcast %gotb : bf16 to i16
          %ne = arith.cmpi ne, %got, %want : i16
          %inc = arith.extui %ne : i1 to i32
          %e1 = arith.addi %e, %inc : i32
          scf.yield %e1 : i32
        }
        scf.yield %count : i32
      } else {
        scf.yield %zero : i32
      }
      gpu.barrier
      scf.for %j = %t to %n step %nt {
        memref.store %minus1b, %dst[%j] : memref<?xbf16>
      }
      gpu.barrier
      return %bad : i32
    }

    gpu.func @copies_bf16(%src: memref<?xbf16>, %dst: memref<?xbf16>, %heap: memref<?xbf16, #symm.heap>, %errors: memref<?xi32>, %from: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c20 = arith.constant 20 : index
      %n = arith.constant 48 : index
      %zero = arith.constant 0 : i32
      %me = symm.rank : i32
      %total = scf.for %at = %c0 to %c8 step %c1 iter_args(%ea = %zero) -> (i32) {
          %e2 = scf.for %len = %c0 to %c20 step %c1 iter_args(%eb = %ea) -> (i32) {
            func.call @symm_coll_copy_bf16(%src, %from, %dst, %at, %len) : (memref<?xbf16>, index, memref<?xbf16>, index, index) -> ()
            %w1 = func.call @wrong_bf16(%src, %from, %dst, %at, %len, %n) : (memref<?xbf16>, index, memref<?xbf16>, index, index, index) -> i32
            func.call @symm_coll_put_bf16(%src, %from, %heap, %at, %len, %me) : (memref<?xbf16>, index, memref<?xbf16, #symm.heap>, index, index, i32) -> ()
            gpu.barrier
            func.call @symm_coll_unpack_bf16(%heap, %at, %dst, %from, %len) : (memref<?xbf16, #symm.heap>, index, memref<?xbf16>, index, index) -> ()
            %w2 = func.call @wrong_bf16(%src, %from, %dst, %from, %len, %n) : (memref<?xbf16>, index, memref<?xbf16>, index, index, index) -> i32
            %e3 = arith.addi %eb, %w1 : i32
            %e4 = arith.addi %e3, %w2 : i32
            scf.yield %e4 : i32
          }
          scf.yield %e2 : i32
      }
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %before = memref.load %errors[%c1] : memref<?xi32>
        %sum = arith.addi %before, %total : i32
        memref.store %sum, %errors[%c1] : memref<?xi32>
      }
      gpu.return
    }
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %minus1 = arith.constant -1 : i8
    %minus1h = arith.constant -1 : i16
    %minus1b = arith.bitcast %minus1h : i16 to bf16
    // Sources 1, 2, 3, ... (never -1); destinations -1.
    %src = gpu.alloc host_shared () : memref<96xi8>
    %dst = gpu.alloc host_shared () : memref<96xi8>
    %srcb = gpu.alloc host_shared () : memref<48xbf16>
    %dstb = gpu.alloc host_shared () : memref<48xbf16>
    %c96 = arith.constant 96 : index
    %c48 = arith.constant 48 : index
    scf.for %i = %c0 to %c96 step %c1 {
      %i1 = arith.addi %i, %c1 : index
      %v = arith.index_cast %i1 : index to i8
      memref.store %v, %src[%i] : memref<96xi8>
      memref.store %minus1, %dst[%i] : memref<96xi8>
    }
    scf.for %i = %c0 to %c48 step %c1 {
      %i1 = arith.addi %i, %c1 : index
      %v = arith.index_cast %i1 : index to i16
      %vb = arith.bitcast %v : i16 to bf16
      memref.store %vb, %srcb[%i] : memref<48xbf16>
      memref.store %minus1b, %dstb[%i] : memref<48xbf16>
    }
    %heap = symm.alloc() : memref<96xi8, #symm.heap>
    %heapb = symm.alloc() : memref<48xbf16, #symm.heap>
    %errors = gpu.alloc host_shared () : memref<2xi32>
    memref.store %zero, %errors[%c0] : memref<2xi32>
    memref.store %zero, %errors[%c1] : memref<2xi32>
    %s = memref.cast %src : memref<96xi8> to memref<?xi8>
    %d = memref.cast %dst : memref<96xi8> to memref<?xi8>
    %h = memref.cast %heap : memref<96xi8, #symm.heap> to memref<?xi8, #symm.heap>
    %sb = memref.cast %srcb : memref<48xbf16> to memref<?xbf16>
    %db = memref.cast %dstb : memref<48xbf16> to memref<?xbf16>
    %hb = memref.cast %heapb : memref<48xbf16, #symm.heap> to memref<?xbf16, #symm.heap>
    %e = memref.cast %errors : memref<2xi32> to memref<?xi32>
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    scf.for %from = %c0 to %c16 step %c1 {
      gpu.launch_func @kernels::@copies_i8 blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%s : memref<?xi8>, %d : memref<?xi8>, %h : memref<?xi8, #symm.heap>, %e : memref<?xi32>, %from : index)
    }
    scf.for %from = %c0 to %c8 step %c1 {
      gpu.launch_func @kernels::@copies_bf16 blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%sb : memref<?xbf16>, %db : memref<?xbf16>, %hb : memref<?xbf16, #symm.heap>, %e : memref<?xi32>, %from : index)
    }
    gpu.wait
    %bad8 = memref.load %errors[%c0] : memref<2xi32>
    %badb = memref.load %errors[%c1] : memref<2xi32>
    %bad = arith.addi %bad8, %badb : i32
    %ok = arith.cmpi eq, %bad, %zero : i32
    scf.if %ok {
      vector.print str "copies ok\n"
    } else {
      vector.print str "copies FAILED, wrong elements (i8, bf16): "
      vector.print %bad8 : i32
      vector.print %badb : i32
    }
    symm.barrier
    symm.dealloc %heapb : memref<48xbf16, #symm.heap>
    symm.dealloc %heap : memref<96xi8, #symm.heap>
    return %bad : i32
  }
}
