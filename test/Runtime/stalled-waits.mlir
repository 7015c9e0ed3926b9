// A wait inside a kernel that depends on another rank ends within
// SYMM_TIMEOUT (at once when that rank has exited), failing the launch with
// a message that says what the other ranks did. Rank 0 waits in a kernel
// for a flag nobody raises; the world size picks what the others do.
// RUN: symm-compile --target=host %s -o %t.exe
//
// One rank, every block resident: a deadlock, ended by --timeout.
// RUN: not symm-run -n 1 --timeout 2 %t.exe 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: [rank 0] symm: synchronising a stream failed: rank 0: kernel 'waiter' made no progress for {{[0-9]+\.[0-9]}} s (SYMM_TIMEOUT is 2 s): its threads wait for each other, or for memory nothing writes (a deadlock)
// ALONE: symm-run: rank 0 exited with status 1
//
// Two ranks: rank 1 leaves with _exit(0) while rank 0 waits; rank 0 ends in
// well under ten seconds (about half a second), long before the timeout.
// RUN: not symm-run -n 2 --timeout 60 %t.exe 2>&1 | FileCheck %s --check-prefix=EXITED
// EXITED: [rank 0] symm: synchronising a stream failed: rank 0: kernel 'waiter' made no progress for {{[0-9]+\.[0-9]}} s, and rank 1 has exited (the process is gone): no wait on it can complete
// EXITED: symm-run: rank 0 exited with status 1
//
// Three ranks: rank 1 sleeps in host code, rank 2 waits in a kernel too
// (the first of ranks 0 and 2 to fail ends the job).
// RUN: not symm-run -n 3 --timeout 2 %t.exe 2>&1 | FileCheck %s --check-prefix=SLEEPS
// SLEEPS: [rank [[R:[02]]]] symm: synchronising a stream failed: rank [[R]]: kernel 'waiter' made no progress for {{[0-9]+\.[0-9]}} s (SYMM_TIMEOUT is 2 s): rank 1 has not waited for the device meanwhile (running host code, or waiting in a collective call such as symm_barrier or symm_finalize); rank {{[02]}} is stalled too
//
// Four ranks, all waiting in kernels: a deadlock across ranks.
// RUN: not symm-run -n 4 --timeout 2 %t.exe 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: symm: synchronising a stream failed: rank {{[0-3]}}: kernel 'waiter' made no progress for {{[0-9]+\.[0-9]}} s (SYMM_TIMEOUT is 2 s): every rank's kernels are stalled too: they wait for each other (a deadlock)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @waiter(%flag: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %seen = symm.wait %flag[%c0] ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
      gpu.return
    }
  }
  func.func private @_exit(i32)
  func.func private @sleep(i32) -> i32
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %three = arith.constant 3 : i32
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<1xi32>
    memref.store %zero, %init[%c0] : memref<1xi32>
    gpu.memcpy %flag, %init : memref<1xi32, #symm.heap>, memref<1xi32>
    symm.barrier
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %isOne = arith.cmpi eq, %me, %one : i32
    %exits = arith.cmpi eq, %n, %two : i32
    %sleeps = arith.cmpi eq, %n, %three : i32
    %leave = arith.andi %isOne, %exits : i1
    %nap = arith.andi %isOne, %sleeps : i1
    scf.if %leave {
      func.call @_exit(%zero) : (i32) -> ()
    }
    scf.if %nap {
      %s = arith.constant 30 : i32
      %r = func.call @sleep(%s) : (i32) -> i32
    } else {
      gpu.launch_func @kernels::@waiter blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%flag : memref<1xi32, #symm.heap>)
    }
    symm.barrier
    vector.print str "not reached\n"
    return %zero : i32
  }
}
