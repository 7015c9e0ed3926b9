//===- embedding_all_to_all.cpp - Model-parallel embedding bags -----------===//
//
// DLRM's embedding layer across ranks: rank r owns T tables (rows x D, f32)
// and, for each, the L row ids of every bag of the global batch B; it
// sum-pools them, and rank q ends with its B/W bags' rows of all W * T
// tables: out[b][r * T + t][:] (B/W x W*T*D).
//
//   --variant=bulk_sync  pooling kernel, symm_all_to_all, then a kernel that
//                        puts each bag's slices side by side
//   --variant=fused      one persistent kernel: pooled slices stored straight
//                        into their owner's out, peers' slices first,
//                        slice-ready flags raised by a slice's last workgroup
//
// Every rank checks out against a double-precision reference built from
// every rank's tables and ids (regenerated from the seed) and prints PASS or
// FAIL with the worst error; --bench times the variant (and still checks).
// A list (--variant=bulk_sync,fused) runs each on the same inputs.
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include <algorithm>
#include <cinttypes>

using namespace workload;

namespace {

constexpr unsigned kBlock = 256; // the kernels' 8 subgroups of 32 lanes

/// Global table g: its rows x dim values and the bag x batch row ids.
void makeTable(uint64_t seed, int64_t g, int64_t rows, int64_t dim,
               int64_t batch, int64_t bag, std::vector<float> &table,
               std::vector<int32_t> &ids) {
  Rng rng(seed * 1000003 + uint64_t(g));
  table.resize(size_t(rows * dim));
  for (float &v : table)
    v = rng.uniform(-1, 1);
  ids.resize(size_t(batch * bag));
  for (int32_t &id : ids)
    id = int32_t(rng.below(uint64_t(rows)));
}

} // namespace

int main(int argc, char **argv) {
  Args args("embedding_all_to_all",
            "sum-pooled embedding bags of every rank's tables, then an "
            "all-to-all by bag");
  args.option("variant", "fused", "bulk_sync | fused, or a list");
  args.option("batch", "96", "global batch B (a multiple of the ranks)");
  args.option("tables", "4", "tables per rank T");
  args.option("dim", "128", "embedding dimension D (a multiple of 4)");
  args.option("bag", "32", "ids per bag L");
  args.option("rows", "4096", "rows per table");
  // The fused kernel's workgroups wait for each other: all must be
  // resident at once. At 60 registers per thread four fit on an H100/H200
  // SM; three leave room.
  args.option("grid", "auto",
              "workgroups, all co-resident (auto: 3 per SM on GPUs, 4 on "
              "CPU ranks, at most what the device holds at once)");
  args.option("kernels", "auto",
              "compiled kernels (auto: embedding_all_to_all.so/.ptx beside "
              "the program)");
  args.option("dump", "",
              "write PREFIX.rank<r>.{tables,ids,out}.bin (raw f32, i32, f32: "
              "the kernels' layouts, out of the last variant) for a "
              "comparison with PyTorch");
  args.parse(argc, argv);
  std::vector<std::string> variants =
      args.choices("variant", {"bulk_sync", "fused"});
  int64_t batch = args.integer("batch"), tl = args.integer("tables");
  int64_t dim = args.integer("dim"), bag = args.integer("bag");
  int64_t rows = args.integer("rows");
  uint64_t seed = uint64_t(args.integer("seed"));
  bool bench = args.has("bench");
  int iters = int(args.integer("iters")), warmup = int(args.integer("warmup"));

  WORKLOAD_CHECK(symm_init());
  int rank = symm_rank(), world = symm_world_size();
  if (batch % world)
    args.fail("--batch=" + std::to_string(batch) + " is not a multiple of " +
              std::to_string(world) + " ranks");
  if (dim % 4)
    args.fail("--dim=" + std::to_string(dim) + " is not a multiple of 4");
  if (rows > INT32_MAX)
    args.fail("--rows=" + std::to_string(rows) + " does not fit 32-bit ids");
  int64_t bq = batch / world, gtl = world * tl;
  std::string path = args.str("kernels") == "auto"
                         ? kernelsPath("embedding_all_to_all")
                         : args.str("kernels");
  symm_module *module = nullptr;
  WORKLOAD_CHECK(symm_module_load_file(path.c_str(), &module));
  int64_t grid =
      args.str("grid") == "auto"
          ? residentGrid(module, "embedding_all_to_all", kBlock, 0, 3, 4)
          : args.integer("grid");

  // This rank's tables and ids, side by side as the kernels index them.
  std::vector<float> tables(size_t(tl * rows * dim));
  std::vector<int32_t> ids(size_t(tl * batch * bag));
  {
    std::vector<float> table;
    std::vector<int32_t> tids;
    for (int64_t t = 0; t < tl; ++t) {
      makeTable(seed, rank * tl + t, rows, dim, batch, bag, table, tids);
      std::copy(table.begin(), table.end(), tables.begin() + t * rows * dim);
      std::copy(tids.begin(), tids.end(), ids.begin() + t * batch * bag);
    }
  }
  void *dtables = nullptr, *dids = nullptr;
  WORKLOAD_CHECK(symm_device_malloc(tables.size() * 4, &dtables));
  WORKLOAD_CHECK(symm_device_malloc(ids.size() * 4, &dids));
  WORKLOAD_CHECK(symm_memcpy(dtables, tables.data(), tables.size() * 4));
  WORKLOAD_CHECK(symm_memcpy(dids, ids.data(), ids.size() * 4));
  std::string dump = args.str("dump");
  std::string dumpPrefix = dump + ".rank" + std::to_string(rank);
  if (!dump.empty()) {
    writeFile(dumpPrefix + ".tables.bin", tables.data(), tables.size() * 4);
    writeFile(dumpPrefix + ".ids.bin", ids.data(), ids.size() * 4);
  }
  tables.clear();
  ids.clear();

  // The reference for this rank's bags in double, every bag when that is
  // cheap, else bags at a stride (the same on every table and rank).
  size_t outCount = size_t(bq * gtl * dim);
  double cost = double(bq) * double(gtl) * double(bag) * double(dim);
  int64_t stride = std::max<int64_t>(1, int64_t(cost / double(1 << 27)));
  std::vector<size_t> checked;
  std::vector<double> ref;
  {
    std::vector<double> full(outCount, 0.0);
    std::vector<float> table;
    std::vector<int32_t> tids;
    for (int64_t g = 0; g < gtl; ++g) {
      makeTable(seed, g, rows, dim, batch, bag, table, tids);
      for (int64_t b = 0; b < bq; b += stride) {
        const int32_t *list = &tids[size_t((rank * bq + b) * bag)];
        double *o = &full[size_t((b * gtl + g) * dim)];
        for (int64_t l = 0; l < bag; ++l)
          for (int64_t d = 0; d < dim; ++d)
            o[d] += double(table[size_t(list[l] * dim + d)]);
        for (int64_t d = 0; d < dim; ++d)
          checked.push_back(size_t((b * gtl + g) * dim + d));
      }
    }
    for (size_t i : checked)
      ref.push_back(full[i]);
  }

  // Heap, alike on every rank: out, the bulk variant's send and receive
  // buffers, the fused variant's flags (T slots of the device library's
  // layout) and counters (W T), zeroed.
  void *out = nullptr, *send = nullptr, *recv = nullptr, *sync = nullptr;
  const size_t syncCount = size_t(tl) * SYMM_COLL_FLAGS_PER_SLOT + size_t(gtl);
  WORKLOAD_CHECK(symm_malloc(outCount * 4, &out));
  WORKLOAD_CHECK(symm_malloc(size_t(batch * tl * dim) * 4, &send));
  WORKLOAD_CHECK(symm_malloc(outCount * 4, &recv));
  WORKLOAD_CHECK(symm_malloc(syncCount * 4, &sync));
  std::vector<int32_t> zeros(syncCount, 0);
  WORKLOAD_CHECK(symm_memcpy(sync, zeros.data(), zeros.size() * 4));

  symm_stream *stream = nullptr;
  int32_t epoch = 0;
  int status = 0;
  for (const std::string &variant : variants) {
    // out starts as NaNs, so a slice no kernel wrote fails.
    std::vector<float> got(outCount, std::nanf(""));
    WORKLOAD_CHECK(symm_memcpy(out, got.data(), outCount * 4));
    WORKLOAD_CHECK(symm_barrier());
    auto step = [&] {
      if (variant == "fused") {
        Params()
            .memref(dtables, size_t(tl * rows * dim))
            .memref(dids, size_t(tl * batch * bag))
            .memref(out, outCount)
            .memref(sync, syncCount)
            .index(uint64_t(tl))
            .index(uint64_t(batch))
            .index(uint64_t(bag))
            .index(uint64_t(rows))
            .index(uint64_t(dim))
            .i32(++epoch)
            .launch(module, "embedding_all_to_all", unsigned(grid), kBlock,
                    stream);
        return;
      }
      Params()
          .memref(dtables, size_t(tl * rows * dim))
          .memref(dids, size_t(tl * batch * bag))
          .memref(send, size_t(batch * tl * dim))
          .index(uint64_t(tl))
          .index(uint64_t(batch))
          .index(uint64_t(bag))
          .index(uint64_t(rows))
          .index(uint64_t(dim))
          .launch(module, "pool_all", unsigned(grid), kBlock, stream);
      WORKLOAD_CHECK(symm_all_to_all(send, recv, size_t(bq * tl * dim),
                                     SYMM_FLOAT32, stream));
      Params()
          .memref(recv, outCount)
          .memref(out, outCount)
          .index(uint64_t(bq))
          .index(uint64_t(tl * dim))
          .launch(module, "unpack", unsigned(grid), kBlock, stream);
    };

    char what[256];
    std::snprintf(what, sizeof(what),
                  "embedding_all_to_all %s B=%" PRId64 " T=%" PRId64
                  " D=%" PRId64 " L=%" PRId64 " ranks=%d",
                  variant.c_str(), batch, tl, dim, bag, world);
    if (bench) {
      double us = timeUs(step, warmup, iters, stream);
      // Rows gathered, and pooled bytes sent to peers, per rank.
      double gathered =
          double(batch) * double(tl) * double(bag) * double(dim) * 4;
      double sent = double(batch - bq) * double(tl) * double(dim) * 4;
      std::printf("%s grid=%" PRId64 ": %.2f us/iter, %.1f GB/s gathered, "
                  "%.1f GB/s sent\n",
                  what, grid, us, gathered / us * 1e-3, sent / us * 1e-3);
    } else {
      step();
    }
    WORKLOAD_CHECK(symm_stream_synchronize(stream));
    WORKLOAD_CHECK(symm_memcpy(got.data(), out, outCount * 4));
    Comparison c = compare(
        checked.size(), [&](size_t i) { return double(got[checked[i]]); }, ref,
        1e-4, 1e-5);
    if (stride > 1)
      std::printf("%s: checked every %" PRId64 "th bag\n", what, stride);
    status |= report(what, c);
    if (!dump.empty())
      writeFile(dumpPrefix + ".out.bin", got.data(), got.size() * 4);
  }

  WORKLOAD_CHECK(symm_barrier());
  WORKLOAD_CHECK(symm_free(sync));
  WORKLOAD_CHECK(symm_free(recv));
  WORKLOAD_CHECK(symm_free(send));
  WORKLOAD_CHECK(symm_free(out));
  WORKLOAD_CHECK(symm_device_free(dids));
  WORKLOAD_CHECK(symm_device_free(dtables));
  WORKLOAD_CHECK(symm_module_unload(module));
  WORKLOAD_CHECK(symm_finalize());
  return status;
}
