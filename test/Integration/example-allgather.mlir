// The README's main job.
// RUN: %symm_run -n 4 %symm_src_root/examples/allgather.mlir | FileCheck %s
// RUN: %symm_run -n 2 %symm_src_root/examples/allgather.mlir | FileCheck %s --check-prefix=TWO
// CHECK-DAG: [rank 0] all-gather ok: tiles from 4
// CHECK-DAG: [rank 3] all-gather ok: tiles from 4
// TWO-DAG: [rank 1] all-gather ok: tiles from 2
