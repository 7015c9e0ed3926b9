// Line delivery (symm.line_store / symm.line_load, the LL128 protocol's
// premise): each rank's workgroups store rounds of flagged lines into the
// other rank's memory (both ways at once, as an all-reduce does), each word
// a pattern of its round's flag and its place, then poll the lines the
// other rank stores here and, once a line carries the round's flag, check
// every word of their piece. A line seen with its flag but a word of
// another round is torn. After each round each workgroup acknowledges it to
// its peer and waits for the peer's, so that a line is only overwritten once
// it has been read. The canary stores
// each line with the previous round's data and the new flag, then the new
// data word by word: a reader that finds the flag before the data must
// count torn lines, so the check can fail.
//
//   SYMM_LINE_ROUNDS=R SYMM_LINE_LINES=L SYMM_LINE_WORKGROUPS=W \
//     symm-run -n 2 line-delivery.mlir     (defaults 8, 32, 16)
//
// prints, on each rank, "lines: <n> lines x <r> rounds, torn <t>" for the
// line operations and "canary: ... torn <t>" for the canary; exit status 1
// when the line operations tore a line.
// RUN: symm-run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] lines: 512 lines x 8 rounds, torn 0
// CHECK-DAG: [rank 1] lines: 512 lines x 8 rounds, torn 0
// CHECK-DAG: [rank 0] canary: 512 lines x 8 rounds, torn {{[0-9]+}}
// CHECK-DAG: [rank 0] line delivery: PASS
// CHECK-DAG: [rank 1] line delivery: PASS
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // The word of a line at `word` (0-15) in the round flagged `flag`.
    func.func @pattern(%flag: i64, %word: index) -> i64 {
      %c64 = arith.constant 64 : i64
      %w = arith.index_cast %word : index to i64
      %f = arith.muli %flag, %c64 : i64
      %x = arith.addi %f, %w : i64
      return %x : i64
    }

    // Rounds [r0, r0 + rounds) over lines [b * per, (b + 1) * per) of `ll`:
    // each rank stores them into the other and checks the other's here,
    // counting its thread's torn lines in torn[b * threads + t].
    gpu.func @lines(%ll: memref<?xi64, #symm.heap>, %acks: memref<?xi32, #symm.heap>, %torn: memref<?xi32>, %r0: index, %rounds: index, %per: index, %canary: i1) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %bit = arith.constant 4294967296 : i64
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %nt = gpu.block_dim x
      %me = symm.rank : i32
      %peer = arith.subi %one, %me : i32
      %g = arith.divui %t, %c8 : index
      %p = arith.remui %t, %c8 : index
      %groups = arith.divui %nt, %c8 : index
      %p2 = arith.muli %p, %c2 : index
      %p21 = arith.addi %p2, %c1 : index
      %data1 = arith.cmpi ult, %p, %c7 : index
      %base = arith.muli %b, %per : index
      %first = arith.cmpi eq, %t, %c0 : index
      %r1 = arith.addi %r0, %rounds : index
      %count = scf.for %r = %r0 to %r1 step %c1 iter_args(%bad = %zero) -> (i32) {
        %rn = arith.addi %r, %c1 : index
        %ri = arith.index_cast %rn : index to i64
        %flag = arith.ori %ri, %bit : i64
        %epoch = arith.index_cast %rn : index to i32
        // Store this round's lines into the peer.
        scf.for %l = %g to %per step %groups {
          %line = arith.addi %base, %l : index
          %l16 = arith.muli %line, %c16 : index
          %at = arith.addi %l16, %p2 : index
          %at1 = arith.addi %at, %c1 : index
          %w0 = func.call @pattern(%flag, %p2) : (i64, index) -> i64
          %w1 = func.call @pattern(%flag, %p21) : (i64, index) -> i64
          %x = vector.from_elements %w0, %w1 : vector<2xi64>
          scf.if %canary {
            %one64 = arith.constant 1 : i64
            %old = arith.subi %flag, %one64 : i64
            %o0 = func.call @pattern(%old, %p2) : (i64, index) -> i64
            %o1 = func.call @pattern(%old, %p21) : (i64, index) -> i64
            %y = vector.from_elements %o0, %o1 : vector<2xi64>
            symm.line_store %y, %ll[%at] flag %flag to %peer : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
            symm.store %w0, %ll[%at] to %peer ordering(relaxed) scope(system) : i64 -> memref<?xi64, #symm.heap>
            scf.if %data1 {
              symm.store %w1, %ll[%at1] to %peer ordering(relaxed) scope(system) : i64 -> memref<?xi64, #symm.heap>
            }
          } else {
            symm.line_store %x, %ll[%at] flag %flag to %peer : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
          }
        }
        // Check the peer's, as they land here.
        %sum = scf.for %l = %g to %per step %groups iter_args(%acc = %bad) -> (i32) {
          %line = arith.addi %base, %l : index
          %l16 = arith.muli %line, %c16 : index
          %at = arith.addi %l16, %p2 : index
          %zv = arith.constant dense<0> : vector<2xi64>
          %got = scf.while (%prev = %zv) : (vector<2xi64>) -> vector<2xi64> {
            %v, %ready = symm.line_load %ll[%at] flag %flag : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
            %true = arith.constant true
            %waiting = arith.xori %ready, %true : i1
            scf.condition(%waiting) %v : vector<2xi64>
          } do {
          ^bb0(%y: vector<2xi64>):
            symm.backoff
            scf.yield %y : vector<2xi64>
          }
          %w0 = func.call @pattern(%flag, %p2) : (i64, index) -> i64
          %w1 = func.call @pattern(%flag, %p21) : (i64, index) -> i64
          %g0 = vector.extract %got[0] : i64 from vector<2xi64>
          %g1 = vector.extract %got[1] : i64 from vector<2xi64>
          %ok0 = arith.cmpi eq, %g0, %w0 : i64
          %ok1 = arith.cmpi eq, %g1, %w1 : i64
          %true = arith.constant true
          %want1 = arith.select %data1, %ok1, %true : i1
          %ok = arith.andi %ok0, %want1 : i1
          %add = arith.select %ok, %zero, %one : i32
          %next = arith.addi %acc, %add : i32
          scf.yield %next : i32
        }
        // The peer may store the next round once this one is read here.
        gpu.barrier
        scf.if %first {
          symm.signal set %epoch, %acks[%b] on %peer scope(system) : i32 -> memref<?xi32, #symm.heap>
          %seen = symm.wait %acks[%b] reached %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
        }
        gpu.barrier
        %bad_out = arith.addi %sum, %zero : i32
        scf.yield %bad_out : i32
      }
      %bt = arith.muli %b, %nt : index
      %slot = arith.addi %bt, %t : index
      memref.store %count, %torn[%slot] : memref<?xi32>
      gpu.return
    }
  }

  llvm.func @getenv(!llvm.ptr) -> !llvm.ptr
  llvm.func @atoi(!llvm.ptr) -> i32
  llvm.mlir.global internal constant @rounds_var("SYMM_LINE_ROUNDS\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @lines_var("SYMM_LINE_LINES\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @blocks_var("SYMM_LINE_WORKGROUPS\00") {addr_space = 0 : i32}

  // The positive integer in environment variable `name`, or `fallback`.
  func.func @setting(%name: !llvm.ptr, %fallback: index) -> index {
    %value = llvm.call @getenv(%name) : (!llvm.ptr) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %unset = llvm.icmp "eq" %value, %null : !llvm.ptr
    %n = scf.if %unset -> (index) {
      scf.yield %fallback : index
    } else {
      %x = llvm.call @atoi(%value) : (!llvm.ptr) -> i32
      %c1 = arith.constant 1 : i32
      %pos = arith.maxsi %x, %c1 : i32
      %i = arith.index_cast %pos : i32 to index
      scf.yield %i : index
    }
    return %n : index
  }

  // Sums the threads' torn lines.
  func.func @sum(%torn: memref<?xi32>, %n: index) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
      %x = memref.load %torn[%i] : memref<?xi32>
      %y = arith.addi %acc, %x : i32
      scf.yield %y : i32
    }
    return %s : i32
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %zero64 = arith.constant 0 : i64
    %world = symm.world_size : i32
    %me = symm.rank : i32
    %two = arith.constant 2 : i32
    %pair = arith.cmpi eq, %world, %two : i32
    cf.cond_br %pair, ^run, ^alone
  ^alone:
    vector.print str "line delivery: runs on 2 ranks (symm-run -n 2)\n"
    return %one : i32
  ^run:
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %rv = llvm.mlir.addressof @rounds_var : !llvm.ptr
    %lv = llvm.mlir.addressof @lines_var : !llvm.ptr
    %bv = llvm.mlir.addressof @blocks_var : !llvm.ptr
    %rounds = func.call @setting(%rv, %c8) : (!llvm.ptr, index) -> index
    %per = func.call @setting(%lv, %c32) : (!llvm.ptr, index) -> index
    %blocks = func.call @setting(%bv, %c16) : (!llvm.ptr, index) -> index
    %lines = arith.muli %blocks, %per : index
    %words = arith.muli %lines, %c16 : index
    %ll = symm.alloc(%words) : memref<?xi64, #symm.heap>
    %acks = symm.alloc(%blocks) : memref<?xi32, #symm.heap>
    %zl = gpu.alloc host_shared (%words) : memref<?xi64>
    linalg.fill ins(%zero64 : i64) outs(%zl : memref<?xi64>)
    gpu.memcpy %ll, %zl : memref<?xi64, #symm.heap>, memref<?xi64>
    %za = gpu.alloc host_shared (%blocks) : memref<?xi32>
    linalg.fill ins(%zero : i32) outs(%za : memref<?xi32>)
    gpu.memcpy %acks, %za : memref<?xi32, #symm.heap>, memref<?xi32>
    %threads = arith.muli %blocks, %c256 : index
    %torn = gpu.alloc host_shared (%threads) : memref<?xi32>
    symm.barrier
    %false = arith.constant false
    %true = arith.constant true
    gpu.launch_func @kernels::@lines blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1) args(%ll : memref<?xi64, #symm.heap>, %acks : memref<?xi32, #symm.heap>, %torn : memref<?xi32>, %c0 : index, %rounds : index, %per : index, %false : i1)
    gpu.wait
    %bad = func.call @sum(%torn, %threads) : (memref<?xi32>, index) -> i32
    gpu.launch_func @kernels::@lines blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1) args(%ll : memref<?xi64, #symm.heap>, %acks : memref<?xi32, #symm.heap>, %torn : memref<?xi32>, %rounds : index, %rounds : index, %per : index, %true : i1)
    gpu.wait
    %canary = func.call @sum(%torn, %threads) : (memref<?xi32>, index) -> i32
    %whole = arith.cmpi eq, %bad, %zero : i32
    %li = arith.index_cast %lines : index to i32
    %ri = arith.index_cast %rounds : index to i32
    vector.print str "lines: "
    vector.print %li : i32 punctuation <no_punctuation>
    vector.print str " lines x "
    vector.print %ri : i32 punctuation <no_punctuation>
    vector.print str " rounds, torn "
    vector.print %bad : i32
    vector.print str "canary: "
    vector.print %li : i32 punctuation <no_punctuation>
    vector.print str " lines x "
    vector.print %ri : i32 punctuation <no_punctuation>
    vector.print str " rounds, torn "
    vector.print %canary : i32
    scf.if %whole {
      vector.print str "line delivery: PASS\n"
    } else {
      vector.print str "line delivery: FAIL (a line seen with its flag and another round's data)\n"
    }
    symm.barrier
    symm.dealloc %acks : memref<?xi32, #symm.heap>
    symm.dealloc %ll : memref<?xi64, #symm.heap>
    %rc = arith.select %whole, %zero, %one : i32
    return %rc : i32
  }
}
