//===- Bootstrap.cpp - The bootstraps, one row each -------------*- C++ -*-===//
//
// How ranks meet and exchange heap handles. Another bootstrap (over MPI, a
// torch store, NVSHMEM's) is a file implementing the Bootstrap interface and
// a row here.
//
//===----------------------------------------------------------------------===//

#include "Environment.h"
#include "Runtime.h"

#include <cstdlib>
#include <cstring>

using namespace symm;

namespace {
/// The first row is the default bootstrap of one node, the second the
/// default where the launcher says the ranks are on several.
const BootstrapInfo kBootstraps[] = {
    {"socket", createSocketBootstrap},
    {"tcp", createTcpBootstrap},
};

/// Whether the launcher put fewer ranks on this node than the job has:
/// torchrun's LOCAL_WORLD_SIZE, Open MPI's and MPICH's local sizes (never
/// under symm-run, whose ranks share its node and its folder).
bool severalNodes() {
  if (env::get(env::kRendezvous))
    return false;
  const char *pairs[][2] = {
      {"LOCAL_WORLD_SIZE", "WORLD_SIZE"},
      {"OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE"},
      {"MPI_LOCALNRANKS", "PMI_SIZE"}};
  for (auto &pair : pairs) {
    const char *local = env::get(pair[0]), *world = env::get(pair[1]);
    if (local && world)
      return atoi(local) < atoi(world);
  }
  return false;
}
} // namespace

symm_status Bootstrap::learnNodes() {
  uint64_t mine = nodeId();
  nodes_.assign(size_t(size_), 0);
  return allgather(&mine, sizeof(mine), nodes_.data());
}

symm_status symm::createBootstrap(std::unique_ptr<Bootstrap> &bootstrap) {
  const char *name = env::get(env::kBootstrap);
  if (!name)
    name = kBootstraps[severalNodes() ? 1 : 0].name;
  for (const BootstrapInfo &info : kBootstraps)
    if (!strcmp(info.name, name)) {
      bootstrap = info.create();
      return SYMM_SUCCESS;
    }
  std::string names;
  for (const BootstrapInfo &info : kBootstraps)
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s='%s' is not one of %s",
              env::kBootstrap, name, names.c_str());
}
