//===- litmus.cpp - Memory-model litmus tests on any backend --------------===//
//
// Runs the litmus kernels of litmus.mlir.in (MP, SB, LB, IRIW, 2+2W, CoRR and
// the data-then-flag shapes, each at workgroup, device and system scope, with
// the orderings a user would pick and relaxed ones) many times and prints a
// histogram of each variant's outcomes. Every launch runs many instances at
// once: the threads (or, for dfblock, the workgroups) that play an
// instance's roles are drawn at random, across workgroups for device and
// system scope and within one for workgroup scope, the instance's locations
// are scattered at random, and a few workgroups hammer other memory
// meanwhile.
//
// With --across-ranks the roles of an instance are played on different ranks
// (role k on rank k mod the world size; dfblock's producer and consumer
// workgroups on ranks 0 and 1), all on rank 0's memory: the two GPUs of a
// pair, or the processes of CPU ranks. Every rank draws the same plans, and
// the ranks' results are summed (each is written on one rank only).
//
// A weak outcome (the one sequential consistency forbids) is an error where
// the orderings forbid it; --expect-weak names variants that must show one
// (on a GPU, the relaxed ones), so that the suite can also fail for being
// unable to see weak behaviour. Exit status 1 on either.
//
//===----------------------------------------------------------------------===//

#include "workload.h"

#include "symm/collectives.h"

#include <numeric>
#include <set>

using namespace workload;

namespace {

/// The shapes of the tests: how many threads play an instance, how many
/// locations it has, and how its outcome is read and judged.
struct Test {
  const char *name;
  /// Threads per instance; 0: two whole workgroups (producer, consumer).
  int roles;
  /// Locations per instance (threads-level tests).
  int locations;
  /// The outcome of one instance from its results and, for 2+2W, the final
  /// values of its first two locations.
  std::string (*outcome)(const int32_t *results, const int32_t *final);
  /// Whether an outcome is the weak one.
  bool (*weak)(const std::string &outcome);
};

std::string pair(const int32_t *r, const int32_t *) {
  return std::to_string(r[0]) + "," + std::to_string(r[1]);
}
std::string four(const int32_t *r, const int32_t *) {
  return std::to_string(r[0]) + "," + std::to_string(r[1]) + "," +
         std::to_string(r[2]) + "," + std::to_string(r[3]);
}
std::string three(const int32_t *r, const int32_t *) {
  return std::to_string(r[0]) + "," + std::to_string(r[1]) + "," +
         std::to_string(r[2]);
}
std::string finalPair(const int32_t *, const int32_t *f) {
  return "x=" + std::to_string(f[0]) + ",y=" + std::to_string(f[1]);
}
std::string stale(const int32_t *r, const int32_t *) {
  return r[0] ? "stale" : "fresh";
}

const Test kTests[] = {
    {"mp", 2, 2, pair, [](const std::string &o) { return o == "1,0"; }},
    {"sb", 2, 2, pair, [](const std::string &o) { return o == "0,0"; }},
    {"lb", 2, 2, pair, [](const std::string &o) { return o == "1,1"; }},
    {"iriw", 4, 2, four, [](const std::string &o) { return o == "1,0,1,0"; }},
    {"w22", 2, 2, finalPair,
     [](const std::string &o) { return o == "x=1,y=1"; }},
    {"corr", 2, 1, pair, [](const std::string &o) { return o == "1,0"; }},
    {"df", 4, 4, three,
     [](const std::string &o) { return o.find('0') != std::string::npos; }},
    {"dfblock", 0, 0, stale, [](const std::string &o) { return o == "stale"; }},
};

const Test &testNamed(const std::string &name) {
  for (const Test &t : kTests)
    if (name == t.name)
      return t;
  std::fprintf(stderr, "litmus: no test '%s'\n", name.c_str());
  std::exit(2);
}

enum class Expect { Allowed, Forbidden, Canary };

/// A kernel of litmus.mlir.in (without its scope suffix) and what its
/// orderings make of the weak outcome.
struct Variant {
  const char *kernel;
  const char *test;
  Expect expect;
  const char *why;
};

const Variant kVariants[] = {
    {"mp_relaxed", "mp", Expect::Allowed, "relaxed"},
    {"mp_rel_acq", "mp", Expect::Forbidden, "release store, acquire load"},
    {"mp_fence", "mp", Expect::Forbidden, "relaxed, release/acquire fences"},
    {"mp_swapped", "mp", Expect::Canary,
     "broken on purpose: reads x first; must be caught"},
    {"sb_relaxed", "sb", Expect::Allowed, "relaxed"},
    {"sb_rel_acq", "sb", Expect::Allowed, "release/acquire do not order SB"},
    {"sb_sc", "sb", Expect::Forbidden, "relaxed, seq_cst fences"},
    {"lb_relaxed", "lb", Expect::Allowed, "relaxed"},
    {"lb_acq_rel", "lb", Expect::Forbidden, "acquire loads, release stores"},
    {"iriw_relaxed", "iriw", Expect::Allowed, "relaxed"},
    {"iriw_acquire", "iriw", Expect::Allowed,
     "acquire loads do not order IRIW"},
    {"iriw_sc", "iriw", Expect::Forbidden, "seq_cst"},
    {"w22_relaxed", "w22", Expect::Allowed, "relaxed"},
    {"w22_sc", "w22", Expect::Forbidden, "seq_cst stores"},
    {"corr_relaxed", "corr", Expect::Forbidden, "relaxed (coherence)"},
    {"df_rel_acq", "df", Expect::Forbidden,
     "plain data, symm.signal / symm.wait"},
    {"df_relaxed", "df", Expect::Allowed, "plain data, relaxed flag"},
    {"dfblock_rel_acq", "dfblock", Expect::Forbidden,
     "plain data, release fence, barrier, signal / wait, barrier"},
    {"dfblock_barrier", "dfblock", Expect::Forbidden,
     "plain data, release barrier, signal / wait, barrier"},
    {"dfblock_relaxed", "dfblock", Expect::Allowed,
     "plain data, barrier, relaxed flag"},
};

const char *kScopes[] = {"workgroup", "device", "system"};

/// What the orderings make of the weak outcome at `scope`: a workgroup-scope
/// release reaches no other workgroup, which dfblock's roles are.
Expect expectation(const Variant &v, const std::string &scope) {
  if (v.expect == Expect::Forbidden && scope == "workgroup" &&
      std::string(v.test) == "dfblock")
    return Expect::Allowed;
  return v.expect;
}

/// One launch's assignment of roles and placement of locations.
struct Plan {
  std::vector<int32_t> words; // per thread: (instance << 3) | role, -1, -2
  /// What litmus.mlir.in's loc reads: location k of instance i is
  /// (a (4 i + k) + b) mod size, or with tiles = 1, dfblock's tile and flag.
  std::vector<int32_t> locs; // a, b, size, tiles
  int64_t instances = 0;
  /// Location k of instance i (threads-level tests).
  int64_t loc(int64_t i, int k) const {
    return (int64_t(locs[0]) * (4 * i + k) + locs[1]) % locs[2];
  }
};

constexpr int32_t kStress = -1, kIdle = -2;

/// Draws the roles of a launch of `grid` workgroups of `block` threads whose
/// last `stress` workgroups stress memory, and the placement of the
/// instances' locations in a mem of `memSlots` elements.
Plan draw(const Test &test, const std::string &scope, int64_t grid,
          int64_t block, int64_t stress, int64_t memSlots, Rng &rng) {
  Plan p;
  int64_t testBlocks = grid - stress;
  p.words.assign(size_t(grid * block), kIdle);
  for (int64_t i = testBlocks * block; i < grid * block; ++i)
    p.words[size_t(i)] = kStress;
  auto shuffle = [&](std::vector<int64_t> &v) {
    for (size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[size_t(rng.below(i))]);
  };
  if (test.roles == 0) {
    // Whole workgroups: a producer and a consumer per instance.
    std::vector<int64_t> blocks(static_cast<size_t>(testBlocks));
    std::iota(blocks.begin(), blocks.end(), 0);
    shuffle(blocks);
    p.instances = testBlocks / 2;
    for (int64_t i = 0; i < p.instances; ++i)
      for (int role = 0; role < 2; ++role) {
        int64_t b = blocks[size_t(2 * i + role)];
        for (int64_t t = 0; t < block; ++t)
          p.words[size_t(b * block + t)] = int32_t(i << 3 | role);
      }
    p.locs = {0, 0, int32_t(memSlots), 1};
    return p;
  }
  // Threads: within one workgroup at workgroup scope, else across them.
  std::vector<std::vector<int64_t>> groups;
  if (scope == "workgroup") {
    for (int64_t b = 0; b < testBlocks; ++b) {
      groups.emplace_back(static_cast<size_t>(block));
      std::iota(groups.back().begin(), groups.back().end(), b * block);
    }
  } else {
    groups.emplace_back(static_cast<size_t>(testBlocks * block));
    std::iota(groups.back().begin(), groups.back().end(), 0);
  }
  for (std::vector<int64_t> &g : groups) {
    shuffle(g);
    for (size_t at = 0; at + size_t(test.roles) <= g.size();
         at += size_t(test.roles), ++p.instances)
      for (int role = 0; role < test.roles; ++role)
        p.words[size_t(g[at + size_t(role)])] =
            int32_t(p.instances << 3 | role);
  }
  int64_t a;
  do
    a = 1 + int64_t(rng.below(uint64_t(memSlots - 1)));
  while (std::gcd(a, memSlots) != 1);
  p.locs = {int32_t(a), int32_t(rng.below(uint64_t(memSlots))),
            int32_t(memSlots), 0};
  return p;
}

/// Across ranks: this rank keeps the roles it plays (role k on rank k mod
/// `world`; dfblock's two workgroups on ranks 0 and 1) and sits out the
/// others'. Every rank drew the same plan.
void keepRoles(Plan &p, const Test &test, int rank, int world) {
  int players = test.roles == 0 ? 2 : world;
  for (int32_t &word : p.words)
    if (word >= 0 && (word & 7) % players != rank)
      word = kIdle;
}

struct Result {
  std::string variant, scope;
  Expect expect;
  int64_t runs = 0, weak = 0;
  std::map<std::string, int64_t> outcomes;
};

} // namespace

int main(int argc, char **argv) {
  Args args("litmus", "memory-model litmus tests: outcome histograms of "
                      "MP, SB, LB, IRIW, 2+2W, CoRR and data-then-flag");
  args.option("test", "all",
              "variants (mp_relaxed, ...) or tests (mp, sb, ...), a list; "
              "all runs every variant but the mp_swapped canary");
  args.option("scope", "all", "workgroup | device | system, a list, or all");
  args.option("iterations", "auto",
              "instances of each variant at each scope (auto: 1M on GPUs, "
              "1K on CPU ranks)");
  args.option("grid", "auto",
              "workgroups per launch, stress ones included (auto: 272 on "
              "GPUs, 5 on CPU ranks)");
  args.option("block", "auto",
              "threads per workgroup (auto: 256 on GPUs, "
              "64 on CPU ranks)");
  args.option("stress", "auto",
              "workgroups that hammer other memory (auto: 8 on GPUs, 1 on "
              "CPU ranks)");
  args.option("expect-weak", "",
              "variant@scope list that must show a weak outcome");
  args.option("kernels", "auto",
              "compiled kernels (auto: litmus.so/.ptx beside the program)");
  args.flag("across-ranks",
            "play each instance's roles on different ranks, on rank 0's "
            "memory (system scope only; 2 or more ranks)");
  args.parse(argc, argv);

  WORKLOAD_CHECK(symm_init());
  bool gpu = onGpu();
  int rank = symm_rank(), world = symm_world_size();
  bool across = args.has("across-ranks");
  if (across && world < 2)
    args.fail("--across-ranks needs 2 or more ranks, not " +
              std::to_string(world));
  auto sized = [&](const char *name, int64_t onGpu, int64_t onCpu) {
    return args.str(name) == "auto" ? (gpu ? onGpu : onCpu)
                                    : args.integer(name);
  };
  int64_t iterations = sized("iterations", 1 << 20, 1000);
  int64_t grid = sized("grid", 272, 5), block = sized("block", 256, 64);
  int64_t stress = args.str("stress") == "auto" ? (gpu ? 8 : 1)
                   : args.str("stress") == "0"  ? 0
                                                : args.integer("stress");
  if (grid - stress < 2)
    args.fail("--grid=" + std::to_string(grid) +
              " leaves fewer than two "
              "workgroups beside --stress=" +
              std::to_string(stress));
  if (block < 4)
    args.fail("--block=" + std::to_string(block) + " is below 4 threads");

  std::vector<std::string> scopes;
  if (args.str("scope") == "all")
    scopes.assign(std::begin(kScopes), std::end(kScopes));
  else
    scopes = args.choices("scope", {"workgroup", "device", "system"});
  // Across ranks only a system-scope ordering includes both threads.
  if (across && args.str("scope") == "all")
    scopes = {"system"};
  if (across && (scopes.size() != 1 || scopes[0] != "system"))
    args.fail("--across-ranks runs at system scope only (--scope=system): "
              "a narrower scope does not include the other rank");
  std::vector<const Variant *> variants;
  {
    std::vector<std::string> names;
    for (const Variant &v : kVariants)
      names.push_back(v.kernel);
    for (const Test &t : kTests)
      names.push_back(t.name);
    std::vector<std::string> picked = args.str("test") == "all"
                                          ? std::vector<std::string>{}
                                          : args.choices("test", names);
    for (const Variant &v : kVariants) {
      bool wanted = picked.empty() && v.expect != Expect::Canary;
      for (const std::string &p : picked)
        wanted |= p == v.kernel || p == v.test;
      if (wanted)
        variants.push_back(&v);
    }
  }
  std::set<std::string> expectWeak;
  if (!args.str("expect-weak").empty()) {
    std::string list = args.str("expect-weak") + ",";
    for (size_t at = 0, comma; (comma = list.find(',', at)) != list.npos;
         at = comma + 1)
      expectWeak.insert(list.substr(at, comma - at));
  }

  std::string path = args.str("kernels") == "auto" ? kernelsPath("litmus")
                                                   : args.str("kernels");
  symm_module *module = nullptr;
  WORKLOAD_CHECK(symm_module_load_file(path.c_str(), &module));

  // Room for every test's locations: four slots per location, so that the
  // scattered locations rarely share a cache line; dfblock needs a tile per
  // workgroup and a flag per pair.
  int64_t threads = grid * block;
  int64_t memSlots = 8 * threads;
  constexpr size_t kScratch = 64 * 1024;
  int32_t *mem = heapAlloc<int32_t>(size_t(memSlots));
  int32_t *scratch = heapAlloc<int32_t>(kScratch);
  int32_t *plan = deviceAlloc<int32_t>(size_t(threads));
  int32_t *locs = deviceAlloc<int32_t>(4);
  int32_t *out = deviceAlloc<int32_t>(size_t(threads) * 4);
  Rng rng(uint64_t(args.integer("seed")));

  std::vector<Result> results;
  for (const std::string &scope : scopes) {
    for (const Variant *v : variants) {
      const Test &test = testNamed(v->test);
      Result r;
      r.variant = v->kernel;
      r.scope = scope;
      r.expect = expectation(*v, scope);
      std::string kernel = std::string(v->kernel) + "_" + scope;
      std::string clear = "clear_" + scope;
      auto start = std::chrono::steady_clock::now();
      while (r.runs < iterations) {
        Plan p = draw(test, scope, grid, block, stress, memSlots, rng);
        if (across)
          keepRoles(p, test, rank, world);
        upload(plan, p.words);
        upload(locs, p.locs);
        Params()
            .memref(mem, size_t(memSlots))
            .memref(out, size_t(threads) * 4)
            .launch(module, clear.c_str(), unsigned(grid), unsigned(block),
                    nullptr);
        // Across ranks, rank 0's memory is clear before any rank uses it.
        if (across) {
          WORKLOAD_CHECK(symm_synchronize());
          WORKLOAD_CHECK(symm_barrier());
        }
        Params()
            .memref(mem, size_t(memSlots))
            .memref(plan, size_t(threads))
            .memref(locs, 4)
            .memref(out, size_t(threads) * 4)
            .memref(scratch, kScratch)
            .i32(across ? 0 : rank)
            .launch(module, kernel.c_str(), unsigned(grid), unsigned(block),
                    nullptr);
        if (across) {
          // Every rank's kernel is done with rank 0's memory before rank 0
          // clears it again (the all-reduce's low-latency words carry no
          // release, so they would not order it; the race detector says
          // so).
          WORKLOAD_CHECK(symm_synchronize());
          WORKLOAD_CHECK(symm_barrier());
          // Each result was written on the rank that played its role, and
          // rank 0's memory holds the final values (the other ranks' stay
          // zero): the sums are the instance's.
          WORKLOAD_CHECK(symm_all_reduce(out, out, size_t(threads) * 4,
                                         SYMM_INT32, SYMM_SUM, nullptr));
          if (std::string(test.name) == "w22")
            WORKLOAD_CHECK(symm_all_reduce(mem, mem, size_t(memSlots),
                                           SYMM_INT32, SYMM_SUM, nullptr));
        }
        WORKLOAD_CHECK(symm_synchronize());
        std::vector<int32_t> res = download(out, size_t(p.instances) * 4);
        std::vector<int32_t> final;
        if (std::string(test.name) == "w22")
          final = download(mem, size_t(memSlots));
        for (int64_t i = 0; i < p.instances; ++i) {
          int32_t xy[2] = {0, 0};
          if (!final.empty()) {
            xy[0] = final[size_t(p.loc(i, 0))];
            xy[1] = final[size_t(p.loc(i, 1))];
          }
          std::string o = test.outcome(&res[size_t(4 * i)], xy);
          ++r.outcomes[o];
          r.weak += test.weak(o);
        }
        r.runs += p.instances;
      }
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      const char *verdict = r.expect == Expect::Allowed  ? "allowed"
                            : r.expect == Expect::Canary ? "forbidden (canary)"
                                                         : "forbidden";
      std::printf("litmus %s %s (%s): %lld runs in %.1f s, weak %lld (%s):",
                  v->kernel, scope.c_str(), v->why, (long long)r.runs, seconds,
                  (long long)r.weak, verdict);
      for (auto &[o, n] : r.outcomes)
        std::printf(" %s=%lld", o.c_str(), (long long)n);
      std::printf("\n");
      std::fflush(stdout);
      results.push_back(std::move(r));
    }
  }

  // The table, and the verdict.
  int failures = 0;
  std::printf("\n%-16s %-10s %10s %8s %10s  %s\n", "variant", "scope", "runs",
              "weak", "rate", "weak outcome");
  for (const Result &r : results) {
    std::string key = r.variant + "@" + r.scope;
    bool bad = r.expect != Expect::Allowed && r.weak > 0;
    bool missing = expectWeak.count(key) && r.weak == 0;
    const char *note = r.expect == Expect::Allowed ? "allowed" : "forbidden";
    std::printf("%-16s %-10s %10lld %8lld %10.2e  %s%s%s\n", r.variant.c_str(),
                r.scope.c_str(), (long long)r.runs, (long long)r.weak,
                double(r.weak) / double(r.runs), note,
                bad ? "  FAIL: observed" : "",
                missing ? "  FAIL: expected, not seen" : "");
    failures += bad || missing;
  }
  for (const std::string &key : expectWeak) {
    bool ran = false;
    for (const Result &r : results)
      ran |= key == r.variant + "@" + r.scope;
    if (!ran)
      args.fail("--expect-weak names '" + key + "', which did not run");
  }
  if (failures)
    std::printf("litmus: FAIL (%d of %zu variants)\n", failures,
                results.size());
  else
    std::printf("litmus: PASS (%zu variants, no forbidden outcome)\n",
                results.size());
  WORKLOAD_CHECK(symm_module_unload(module));
  WORKLOAD_CHECK(symm_finalize());
  return failures ? 1 : 0;
}
