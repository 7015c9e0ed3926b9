//===- Peers.cpp - Which peer processes have exited -------------*- C++ -*-===//
//
// A rank waiting inside a kernel for a peer cannot tell from memory alone
// whether the peer is slow or gone. After the rendezvous every rank learns
// each peer's process id and node, and holds a process file descriptor
// (pidfd) on each peer of its own node: it becomes readable when that
// process exits, whatever the cause, and unlike a pid it never names another
// process.
//
//===----------------------------------------------------------------------===//

#include "Environment.h"
#include "RuntimeState.h"

#include <cerrno>
#include <cstdio>
#include <functional>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace symm;

namespace {

struct Peer {
  pid_t pid = 0;
  int fd = -1; // pidfd, or -1 where there is none (then kill(pid, 0))
  bool sameNode = false;
};

struct Peers {
  std::mutex mutex;
  std::vector<Peer> ranks;
};

Peers &peers() {
  static Peers *p = new Peers;
  return *p;
}

bool exited(const Peer &p) {
  if (p.fd >= 0) {
    pollfd fd{p.fd, POLLIN, 0};
    return poll(&fd, 1, 0) > 0;
  }
  return kill(p.pid, 0) != 0 && errno == ESRCH;
}

} // namespace

uint64_t symm::nodeId() {
  // SYMM_NODE_ID can only tell ranks of one kernel apart, never join ranks
  // of two.
  const char *given = env::get(env::kNodeId);
  std::string boot = given ? std::string("given/") + given + "/" : "";
  if (FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char line[64] = {};
    if (fgets(line, sizeof(line), f))
      boot += line;
    fclose(f);
  }
  struct stat ns{};
  stat("/proc/self/ns/pid", &ns);
  return std::hash<std::string>()(boot + "/" + std::to_string(ns.st_ino));
}

symm_status symm::watchPeers(Bootstrap &bootstrap) {
  uint64_t mine = static_cast<uint64_t>(getpid());
  std::vector<uint64_t> all(size_t(bootstrap.size()));
  if (symm_status st = bootstrap.allgather(&mine, sizeof(mine), all.data()))
    return st;
  Peers &p = peers();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.ranks.assign(bootstrap.size(), Peer{});
  for (int r = 0; r < bootstrap.size(); ++r) {
    Peer &peer = p.ranks[r];
    peer.pid = static_cast<pid_t>(all[r]);
    peer.sameNode = r != bootstrap.rank() && bootstrap.sameNode(r);
#ifdef SYS_pidfd_open
    if (peer.sameNode)
      peer.fd = static_cast<int>(syscall(SYS_pidfd_open, peer.pid, 0));
#endif
  }
  return SYMM_SUCCESS;
}

void symm::unwatchPeers() {
  Peers &p = peers();
  std::lock_guard<std::mutex> lock(p.mutex);
  for (Peer &peer : p.ranks)
    if (peer.fd >= 0)
      close(peer.fd);
  p.ranks.clear();
}

std::vector<int> symm::exitedPeers() {
  Peers &p = peers();
  std::lock_guard<std::mutex> lock(p.mutex);
  std::vector<int> gone;
  for (size_t r = 0; r < p.ranks.size(); ++r)
    if (p.ranks[r].sameNode && exited(p.ranks[r]))
      gone.push_back(static_cast<int>(r));
  return gone;
}
