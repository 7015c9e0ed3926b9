// RUN: symm-opt %s -symm-instrument-races | FileCheck %s

// Every load and store outside the thread's stack and the module's globals
// reports itself first; atomics report their release before and the access
// and acquire after, with the scope their syncscope carried (then set back to
// system); fences, copies and masked accesses report too; the module is
// marked as checked.

// CHECK-LABEL: gpu.module @m
// CHECK-DAG: llvm.mlir.global external constant @_symm_races_checked(1 : i32)
// The operation a NameLoc names (symm-name-memory-ops), else the LLVM one.
// CHECK-DAG: llvm.mlir.global internal constant @[[LOAD:__symm_text_[0-9a-fx]+]]("memref.load at x.mlir:1:1\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{__symm_text_[0-9a-fx]+}}("llvm.atomicrmw at {{.*}}symm-instrument-races.mlir:{{[0-9]+}}:{{[0-9]+}}\00")
gpu.module @m {
  llvm.mlir.global internal @g(0 : i32) : i32
  // CHECK-LABEL: llvm.func @accesses
  llvm.func @accesses(%p: !llvm.ptr, %q: !llvm.ptr, %n: i64, %mask: vector<4xi1>, %v: vector<4xf32>) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    // Private and global memory: not reported.
    // CHECK: llvm.alloca
    // CHECK-NEXT: llvm.store
    // CHECK-NEXT: llvm.mlir.addressof @g
    // CHECK-NEXT: llvm.load
    %a = llvm.alloca %c1 x i32 : (i32) -> !llvm.ptr
    llvm.store %c1, %a : i32, !llvm.ptr
    %gp = llvm.mlir.addressof @g : !llvm.ptr
    %gv = llvm.load %gp : !llvm.ptr -> i32
    // CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64)
    // CHECK-NEXT: %[[READ:.*]] = llvm.mlir.constant(0 : i32)
    // CHECK-NEXT: %[[SITE:.*]] = llvm.mlir.addressof @[[LOAD]]
    // CHECK-NEXT: llvm.call @_symm_race_access(%{{.*}}, %[[FOUR]], %[[READ]], %[[SITE]])
    // CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr -> i32
    %x = llvm.load %p : !llvm.ptr -> i32 loc(#memref_load)
    // CHECK: %[[WRITE:.*]] = llvm.mlir.constant(1 : i32)
    // CHECK: llvm.call @_symm_race_access(%{{.*}}, %{{.*}}, %[[WRITE]], %{{.*}})
    // CHECK-NEXT: llvm.store
    llvm.store %x, %q : i32, !llvm.ptr
    // A release store at device scope: flags 2 | 1 << 2.
    // CHECK: %[[F6:.*]] = llvm.mlir.constant(6 : i32)
    // CHECK-NEXT: llvm.call @_symm_race_atomic_before(%{{.*}}, %[[F6]])
    // CHECK-NEXT: llvm.store {{.*}} atomic release {alignment = 4 : i64}
    // CHECK: llvm.call @_symm_race_atomic_after(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
    llvm.store %x, %q atomic syncscope("symm-device") release {alignment = 4 : i64} : i32, !llvm.ptr
    // An acq_rel read-modify-write at workgroup scope: flags 3.
    // CHECK: %[[F3:.*]] = llvm.mlir.constant(3 : i32)
    // CHECK-NEXT: llvm.call @_symm_race_atomic_before(%{{.*}}, %[[F3]])
    // CHECK-NEXT: llvm.atomicrmw add %{{.*}}, %{{.*}} acq_rel : !llvm.ptr, i32
    // CHECK: llvm.call @_symm_race_atomic_after
    %old = llvm.atomicrmw add %q, %c1 syncscope("symm-workgroup") acq_rel : !llvm.ptr, i32
    // A system-scope acquire load: only after, flags 1 | 2 << 2.
    // CHECK: llvm.load %{{.*}} atomic acquire
    // CHECK: %[[F9:.*]] = llvm.mlir.constant(9 : i32)
    // CHECK: llvm.call @_symm_race_atomic_after(%{{.*}}, %{{.*}}, %[[F9]], %{{.*}}, %{{.*}})
    %y = llvm.load %q atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
    // A compare-and-swap reports whether it wrote.
    // CHECK: llvm.call @_symm_race_atomic_before
    // CHECK-NEXT: %[[CAS:.*]] = llvm.cmpxchg
    // CHECK-NEXT: %[[OK:.*]] = llvm.extractvalue %[[CAS]][1]
    // CHECK-NEXT: %[[WROTE:.*]] = llvm.zext %[[OK]] : i1 to i32
    // CHECK: llvm.call @_symm_race_atomic_after(%{{.*}}, %{{.*}}, %{{.*}}, %[[WROTE]], %{{.*}})
    %cas = llvm.cmpxchg %q, %x, %y acq_rel acquire : !llvm.ptr, i32
    // CHECK: %[[FS:.*]] = llvm.mlir.constant(11 : i32)
    // CHECK-NEXT: llvm.call @_symm_race_fence(%[[FS]])
    // CHECK-NEXT: llvm.fence seq_cst
    llvm.fence seq_cst
    // A copy reads one range and writes the other.
    // CHECK: llvm.call @_symm_race_access(%{{.*}}, %{{.*}}, %[[READ2:.*]], %{{.*}})
    // CHECK: llvm.call @_symm_race_access(%{{.*}}, %{{.*}}, %[[WRITE2:.*]], %{{.*}})
    // CHECK-NEXT: "llvm.intr.memcpy"
    "llvm.intr.memcpy"(%q, %p, %n) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
    // A masked store reports the lanes whose bit is set.
    // CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : vector<4xi1> to i4
    // CHECK-NEXT: %[[MASK:.*]] = llvm.zext %[[BITS]] : i4 to i64
    // CHECK: llvm.call @_symm_race_masked(%{{.*}}, %{{.*}}, %[[MASK]], %{{.*}}, %{{.*}})
    // CHECK-NEXT: llvm.intr.masked.store
    llvm.intr.masked.store %v, %q, %mask {alignment = 4 : i32} : vector<4xf32>, vector<4xi1> into !llvm.ptr
    llvm.return
  }
}
#memref_load = loc("memref.load"("x.mlir":1:1))
