//===- Bootstrap.cpp - The bootstraps, one row each -------------*- C++ -*-===//
//
// How ranks meet and exchange heap handles. Another bootstrap (over MPI, a
// torch store, NVSHMEM's) is a file implementing the Bootstrap interface and
// a row here.
//
//===----------------------------------------------------------------------===//

#include "Environment.h"
#include "Runtime.h"

#include <cstring>

using namespace symm;

namespace {
/// The first row is the default bootstrap.
const BootstrapInfo kBootstraps[] = {
    {"socket", createSocketBootstrap},
};
} // namespace

symm_status symm::createBootstrap(std::unique_ptr<Bootstrap> &bootstrap) {
  const char *name = env::get(env::kBootstrap);
  if (!name)
    name = kBootstraps[0].name;
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
