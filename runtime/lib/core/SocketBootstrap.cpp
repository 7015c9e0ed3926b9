//===- SocketBootstrap.cpp - Rendezvous over a socket ----------*- C++ -*-===//
//
// Two rows of the bootstrap table, one star of stream sockets around rank 0:
// - `socket`, for the ranks of one node: rank 0 listens on a Unix socket in a
//   private folder (symm-run's, or one named after the launcher's job), and
//   the sockets carry file descriptors (SCM_RIGHTS) for the host backend's
//   heaps;
// - `tcp`, for ranks on any nodes: rank 0 listens on every address of its
//   host at SYMM_MASTER_PORT, by default MASTER_PORT + 1 (torchrun's own
//   store holds MASTER_PORT there), and the others connect to MASTER_ADDR
//   at that port; ranks of one node open each other's heap descriptors
//   through /proc/<pid>/fd.
// The others connect to rank 0, which admits each one that belongs to its
// job. Collectives go through rank 0. Every wait is bounded by the timeout,
// and end-of-file on a connection means the peer is gone.
//
//===----------------------------------------------------------------------===//

#include "Environment.h"
#include "Runtime.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace symm;

namespace {
using Clock = std::chrono::steady_clock;

/// Milliseconds left until `deadline`, at least 0.
int remainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - Clock::now())
                  .count();
  return left < 0 ? 0 : static_cast<int>(left);
}

std::string socketPath(const std::string &dir) { return dir + "/rank0.sock"; }

constexpr uint32_t kHello = 0x53594d4d; // "SYMM"
/// How long rank 0 waits for a connection's Hello before dropping it.
constexpr int kHelloSeconds = 2;

/// What a rank > 0 says when it connects: who it is, in which job.
struct Hello {
  uint32_t magic = kHello;
  uint32_t rank = 0, size = 0;
  /// The process that started this rank, where the job is known by
  /// MASTER_PORT alone (0 otherwise): the ranks of one such job share it.
  uint32_t parent = 0;
  /// Over TCP: a hash of the launcher's job id (0 without one).
  uint64_t job = 0;
};

/// Rank 0's answer to a Hello.
enum class Verdict : uint32_t {
  Admitted,
  OtherParent,
  OtherSize,
  RankTaken,
  OtherJob
};
struct Answer {
  uint32_t magic = kHello;
  Verdict verdict = Verdict::Admitted;
  uint32_t size = 0, parent = 0; // rank 0's
};

/// A folder only this user can write into: created (0700) when missing,
/// checked when it exists, since whoever can write into it can take the
/// rendezvous socket's place.
symm_status privateFolder(const std::string &dir, bool create) {
  if (create && mkdir(dir.c_str(), 0700) == 0)
    return SYMM_SUCCESS;
  if (create && errno != EEXIST)
    return fail(SYMM_ERROR_BACKEND,
                "cannot create the rendezvous folder %s: %s", dir.c_str(),
                strerror(errno));
  struct stat info {};
  if (lstat(dir.c_str(), &info) != 0)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "the rendezvous folder %s: %s",
                dir.c_str(), strerror(errno));
  if (!S_ISDIR(info.st_mode))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the rendezvous folder %s is not a folder", dir.c_str());
  if (info.st_uid != geteuid())
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the rendezvous folder %s belongs to uid %u, not to this user "
                "(uid %u); remove it or give the job another id",
                dir.c_str(), static_cast<unsigned>(info.st_uid),
                static_cast<unsigned>(geteuid()));
  if (info.st_mode & (S_IWGRP | S_IWOTH))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the rendezvous folder %s is writable by other users (mode "
                "%03o); it must be private to this user (0700)",
                dir.c_str(), static_cast<unsigned>(info.st_mode & 0777));
  return SYMM_SUCCESS;
}
} // namespace

namespace {
enum class Transport { Unix, Tcp };

class SocketBootstrap final : public Bootstrap {
public:
  explicit SocketBootstrap(Transport transport) : transport_(transport) {}
  ~SocketBootstrap() override { close(); }
  const char *name() const override {
    return transport_ == Transport::Tcp ? "tcp" : "socket";
  }
  symm_status connect(int rank, int size, double timeoutSeconds) override;
  symm_status allgather(const void *mine, size_t bytes, void *all) override;
  symm_status barrier() override;
  symm_status allgatherFds(int mine, std::vector<int> &fds) override;
  void close() override;

private:
  /// The folder the ranks meet in: symm-run's (SYMM_RENDEZVOUS), or one
  /// derived from the launcher's job identity so that every rank of the job
  /// finds the same one (`derived`). Only this user may write into it.
  /// `byPort`: the job is known by MASTER_PORT alone, which two jobs
  /// started by hand may share.
  symm_status rendezvousFolder(std::string &dir, bool &derived, bool &byPort);
  /// Over TCP: rank 0's address, from MASTER_ADDR and MASTER_PORT.
  symm_status tcpEndpoint();
  /// Rank 0: a socket listening where the others connect.
  symm_status listenAt(int &listener);
  symm_status meet(bool byPort);
  /// Over TCP: descriptors of ranks on this node, through /proc.
  symm_status openPeerFds(int mine, std::vector<int> &fds);
  /// Rank 0: answers a rank's Hello on `fd`; true when it is admitted.
  bool admit(int fd, bool byPort);
  symm_status sendAll(int fd, const void *data, size_t bytes, int peer);
  symm_status recvAll(int fd, void *data, size_t bytes, int peer);
  symm_status sendFds(int fd, const int *fds, int count, int peer);
  symm_status recvFds(int fd, int *fds, int count, int peer);
  symm_status waitReadable(int fd, int peer);

  Transport transport_;
  /// Where rank 0 listens: a Unix socket's path, or over TCP every address
  /// MASTER_ADDR resolves to (tried in turn); for messages, the path or
  /// host:port.
  struct Address {
    sockaddr_storage addr{};
    socklen_t length = 0;
  };
  std::vector<Address> targets_;
  std::string where_;
  uint16_t port_ = 0;
  /// Ranks > 0: a connection to rank 0 (a target that accepted), or -1.
  int dial(Clock::time_point deadline);
  double timeout_ = 60;
  int hub_ = -1;             // on ranks > 0: the connection to rank 0
  std::vector<int> clients_; // on rank 0: connection to each rank
  /// The derived rendezvous folder while this rank may have to remove it.
  std::string ownedDir_;
  /// The job id the folder was derived from, for messages.
  std::string job_;
};
} // namespace

std::unique_ptr<Bootstrap> symm::createSocketBootstrap() {
  return std::make_unique<SocketBootstrap>(Transport::Unix);
}

std::unique_ptr<Bootstrap> symm::createTcpBootstrap() {
  return std::make_unique<SocketBootstrap>(Transport::Tcp);
}

namespace {
/// The launchers' variables that name a job (besides SYMM_JOB_ID and, for
/// the socket bootstrap, MASTER_PORT): torchrun's run id is "none" unless
/// given.
constexpr const char *kLauncherJobVariables[] = {
    "TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE", "OMPI_MCA_orte_ess_jobid"};

/// "SYMM_JOB_ID, TORCHELASTIC_RUN_ID, ... or OMPI_MCA_orte_ess_jobid": what
/// jobHash reads, for messages.
std::string jobVariableNames() {
  std::string names = env::kJobId;
  size_t last = std::size(kLauncherJobVariables) - 1;
  for (size_t i = 0; i <= last; ++i)
    names +=
        (i == last ? " or " : ", ") + std::string(kLauncherJobVariables[i]);
  return names;
}

/// A hash of the launcher's job id, which every rank of a job shares (0
/// where the launcher gives none).
uint64_t jobHash() {
  std::string job;
  if (const char *id = env::get(env::kJobId))
    job = std::string(env::kJobId) + "=" + id + ";";
  for (const char *n : kLauncherJobVariables)
    if (const char *v = env::get(n))
      job += std::string(n) + "=" + v + ";";
  return job.empty() ? 0 : std::hash<std::string>()(job) | 1;
}

/// Latency over bandwidth: the bootstrap's messages are small.
void noDelay(int fd, Transport transport) {
  int on = 1;
  if (transport == Transport::Tcp)
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

/// Connects `fd` to `to` within `ms` milliseconds (a blocking connect to an
/// unreachable host would take the kernel's minutes).
bool connectWithin(int fd, const sockaddr *to, socklen_t length, int ms) {
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  bool done = ::connect(fd, to, length) == 0;
  if (!done && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t size = sizeof(error);
    done = poll(&p, 1, ms) == 1 &&
           getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 &&
           error == 0;
  }
  fcntl(fd, F_SETFL, flags);
  return done;
}

/// Reads exactly `bytes` before `deadline`.
bool recvBefore(int fd, void *data, size_t bytes, Clock::time_point deadline) {
  char *p = static_cast<char *>(data);
  while (bytes > 0) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, remainingMs(deadline)) != 1)
      return false;
    ssize_t n = recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    bytes -= size_t(n);
  }
  return true;
}
} // namespace

symm_status SocketBootstrap::tcpEndpoint() {
  const char *host = env::get("MASTER_ADDR");
  const char *master = env::get("MASTER_PORT");
  const char *own = env::get(env::kMasterPort);
  if (!host || (!master && !own))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "the tcp bootstrap needs MASTER_ADDR (rank 0's host) and "
                "%s or MASTER_PORT (rank 0 listens on the first, by default "
                "the second + 1), as torchrun sets them; %s",
                env::kMasterPort,
                host ? "neither port is set" : "MASTER_ADDR is not set");
  // MASTER_PORT + 1 must be a port too.
  const char *name = own ? env::kMasterPort : "MASTER_PORT";
  const char *text = own ? own : master;
  int most = own ? 65535 : 65534;
  std::optional<int> number = env::parseInt(text, 1, most);
  if (!number)
    return fail(SYMM_ERROR_INVALID_ARGUMENT, "%s='%s' is not a port (1 to %d)",
                name, text, most);
  port_ = static_cast<uint16_t>(own ? *number : *number + 1);
  std::string port = std::to_string(port_);
  where_ =
      (strchr(host, ':') ? "[" + std::string(host) + "]" : host) + (":" + port);
  // Rank 0 listens on every address; the others try each one the name
  // resolves to, so that an IPv4 and an IPv6 node still meet.
  if (rank_ == 0)
    return SYMM_SUCCESS;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo *found = nullptr;
  if (int rc = getaddrinfo(host, port.c_str(), &hints, &found))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "MASTER_ADDR='%s': cannot resolve it: %s", host,
                gai_strerror(rc));
  for (addrinfo *a = found; a; a = a->ai_next) {
    Address target;
    std::memcpy(&target.addr, a->ai_addr, a->ai_addrlen);
    target.length = a->ai_addrlen;
    targets_.push_back(target);
  }
  freeaddrinfo(found);
  return SYMM_SUCCESS;
}

int SocketBootstrap::dial(Clock::time_point deadline) {
  for (const Address &target : targets_) {
    int fd = socket(target.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      continue;
    noDelay(fd, transport_);
    // A second for each address, so that a dead one leaves time for the
    // next.
    int ms = std::min(remainingMs(deadline), 1000);
    if (connectWithin(fd, reinterpret_cast<const sockaddr *>(&target.addr),
                      target.length, ms))
      return fd;
    ::close(fd);
  }
  return -1;
}

symm_status SocketBootstrap::rendezvousFolder(std::string &dir, bool &derived,
                                              bool &byPort) {
  derived = byPort = false;
  if (const char *given = env::get(env::kRendezvous)) {
    dir = given;
    return privateFolder(dir, /*create=*/false);
  }
  // Every variable that names the job: torchrun's run id is "none" unless
  // given, so jobs on other ports must not share it.
  std::string job;
  if (const char *id = env::get(env::kJobId)) {
    job = std::string(env::kJobId) + "-" + id;
  } else {
    std::vector<const char *> names(std::begin(kLauncherJobVariables),
                                    std::end(kLauncherJobVariables));
    names.push_back("MASTER_PORT");
    for (const char *n : names)
      if (const char *v = env::get(n))
        job += (job.empty() ? "" : "-") + std::string(n) + "-" + v;
    byPort = job.empty() || job.rfind("MASTER_PORT", 0) == 0;
  }
  job_ = job.empty() ? "(none)" : job;
  for (char &c : job)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-')
      c = '_';
  // The socket's path must fit a sockaddr_un.
  if (job.size() > 64) {
    char hash[17];
    snprintf(hash, sizeof(hash), "%016zx", std::hash<std::string>()(job));
    job = job.substr(0, 40) + "-" + hash;
  }
  dir = "/tmp/symm-" + std::to_string(getuid()) + "-" + job;
  derived = true;
  return privateFolder(dir, /*create=*/true);
}

bool SocketBootstrap::admit(int fd, bool byPort) {
  // A connection that says nothing (a port scanner, a stuck process) does
  // not hold up the rendezvous: its whole Hello has a few seconds.
  Hello hello;
  if (!recvBefore(fd, &hello, sizeof(hello),
                  Clock::now() + std::chrono::seconds(kHelloSeconds)) ||
      hello.magic != kHello || hello.rank == 0 ||
      hello.rank >= static_cast<uint32_t>(size_))
    return false;
  Answer answer;
  answer.size = static_cast<uint32_t>(size_);
  answer.parent = byPort ? static_cast<uint32_t>(getppid()) : 0;
  if (hello.size != answer.size)
    answer.verdict = Verdict::OtherSize;
  else if (hello.job != (transport_ == Transport::Tcp ? jobHash() : 0))
    answer.verdict = Verdict::OtherJob;
  else if (byPort && hello.parent != answer.parent)
    answer.verdict = Verdict::OtherParent;
  else if (clients_[hello.rank] >= 0)
    answer.verdict = Verdict::RankTaken;
  if (send(fd, &answer, sizeof(answer), MSG_NOSIGNAL) != sizeof(answer) ||
      answer.verdict != Verdict::Admitted)
    return false;
  clients_[hello.rank] = fd;
  return true;
}

symm_status SocketBootstrap::connect(int rank, int size,
                                     double timeoutSeconds) {
  rank_ = rank;
  size_ = size;
  timeout_ = timeoutSeconds;
  // A single rank meets nobody.
  if (size == 1)
    return SYMM_SUCCESS;
  if (transport_ == Transport::Tcp) {
    if (symm_status st = tcpEndpoint())
      return st;
    return meet(/*byPort=*/false);
  }
  std::string dir;
  bool derived = false, byPort = false;
  if (symm_status st = rendezvousFolder(dir, derived, byPort))
    return st;
  if (derived)
    ownedDir_ = dir;
  std::string path = socketPath(dir);
  Address target;
  sockaddr_un &addr = reinterpret_cast<sockaddr_un &>(target.addr);
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path))
    return fail(SYMM_ERROR_INVALID_ARGUMENT,
                "rendezvous path '%s' is too long for a Unix socket",
                path.c_str());
  std::strcpy(addr.sun_path, path.c_str());
  target.length = sizeof(addr);
  targets_ = {target};
  where_ = path;
  if (symm_status st = meet(byPort))
    return st;
  // Every rank has connected and rank 0 has unlinked the socket: the folder
  // is empty, and a job that fails later leaves nothing behind.
  if (rank == 0 && !ownedDir_.empty())
    rmdir(ownedDir_.c_str());
  ownedDir_.clear();
  return SYMM_SUCCESS;
}

symm_status SocketBootstrap::listenAt(int &listener) {
  if (transport_ == Transport::Tcp) {
    // Every address of this host at the port: IPv6 and IPv4 on one socket
    // where the host has IPv6, else IPv4. A port a finished job left in
    // TIME_WAIT is taken.
    int on = 1, off = 0;
    sockaddr_in6 any6{};
    any6.sin6_family = AF_INET6;
    any6.sin6_port = htons(port_);
    sockaddr_in any4{};
    any4.sin_family = AF_INET;
    any4.sin_port = htons(port_);
    listener = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool six = listener >= 0;
    if (!six)
      listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0)
      return fail(SYMM_ERROR_BACKEND, "socket: %s", strerror(errno));
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (six)
      setsockopt(listener, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    int rc =
        six ? bind(listener, reinterpret_cast<sockaddr *>(&any6), sizeof(any6))
            : bind(listener, reinterpret_cast<sockaddr *>(&any4), sizeof(any4));
    if (rc != 0 || listen(listener, size_) != 0) {
      int error = errno;
      ::close(listener);
      return fail(error == EADDRINUSE ? SYMM_ERROR_INVALID_ARGUMENT
                                      : SYMM_ERROR_BACKEND,
                  "cannot listen on port %u (%s): %s%s", port_,
                  env::get(env::kMasterPort) ? env::kMasterPort
                                             : "MASTER_PORT + 1",
                  strerror(error),
                  error == EADDRINUSE
                      ? "; another job or program holds it: give each job "
                        "its own port"
                      : "");
    }
    return SYMM_SUCCESS;
  }
  const Address &target = targets_.front();
  const sockaddr *addr = reinterpret_cast<const sockaddr *>(&target.addr);
  listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0)
    return fail(SYMM_ERROR_BACKEND, "socket: %s", strerror(errno));
  const char *path = where_.c_str();
  mode_t old = umask(0077); // the socket is private to this user
  int rc = bind(listener, addr, target.length);
  if (rc != 0 && errno == EADDRINUSE) {
    // A socket left by a job that ended is taken over; one that a rank 0
    // still listens on is another job's, which must keep it.
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool live = probe >= 0 && ::connect(probe, addr, target.length) == 0;
    if (probe >= 0)
      ::close(probe);
    if (live) {
      umask(old);
      ::close(listener);
      return fail(SYMM_ERROR_INVALID_ARGUMENT,
                  "another job's rank 0 is listening on %s: two jobs share "
                  "the job id %s; give each job its own (MASTER_PORT, or "
                  "%s)",
                  path, job_.c_str(), env::kJobId);
    }
    unlink(path);
    rc = bind(listener, addr, target.length);
  }
  umask(old);
  if (rc != 0 || listen(listener, size_) != 0) {
    ::close(listener);
    return fail(SYMM_ERROR_BACKEND, "cannot listen on %s: %s", path,
                strerror(errno));
  }
  return SYMM_SUCCESS;
}

symm_status SocketBootstrap::meet(bool byPort) {
  int rank = rank_, size = size_;
  auto deadline = Clock::now() + std::chrono::milliseconds(
                                     static_cast<int64_t>(timeout_ * 1000));

  if (rank == 0) {
    int listener = -1;
    if (symm_status st = listenAt(listener))
      return st;
    clients_.assign(size, -1);
    int connected = 1;
    symm_status status = SYMM_SUCCESS;
    while (connected < size) {
      pollfd p{listener, POLLIN, 0};
      int ready = poll(&p, 1, remainingMs(deadline));
      if (ready <= 0) {
        std::string missing;
        for (int r = 1; r < size; ++r)
          if (clients_[r] < 0)
            missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        std::string to = transport_ == Transport::Tcp
                             ? " to port " + std::to_string(port_)
                             : std::string();
        status = fail(SYMM_ERROR_TIMEOUT,
                      "rendezvous timed out after %.0f s: rank(s) %s never "
                      "connected%s (SYMM_TIMEOUT)",
                      timeout_, missing.c_str(), to.c_str());
        break;
      }
      int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0)
        continue;
      noDelay(fd, transport_);
      if (!admit(fd, byPort)) {
        ::close(fd);
        continue;
      }
      ++connected;
    }
    ::close(listener);
    if (transport_ == Transport::Unix)
      unlink(where_.c_str());
    if (status != SYMM_SUCCESS) {
      close();
      return status;
    }
    return barrier();
  }

  Hello hello;
  hello.rank = static_cast<uint32_t>(rank);
  hello.size = static_cast<uint32_t>(size);
  hello.parent = byPort ? static_cast<uint32_t>(getppid()) : 0;
  hello.job = transport_ == Transport::Tcp ? jobHash() : 0;
  // The last answer of a rank 0 that did not admit this rank: it listens
  // for another job.
  Answer refused;
  while (true) {
    int fd = dial(deadline);
    Answer answer;
    answer.verdict = Verdict::RankTaken;
    bool answered = fd >= 0 &&
                    sendAll(fd, &hello, sizeof(hello), 0) == SYMM_SUCCESS &&
                    recvBefore(fd, &answer, sizeof(answer), deadline) &&
                    answer.magic == kHello;
    if (answered && answer.verdict == Verdict::Admitted) {
      hub_ = fd;
      break;
    }
    if (fd >= 0)
      ::close(fd);
    if (answered)
      refused = answer;
    if (remainingMs(deadline) == 0) {
      if (refused.verdict == Verdict::Admitted)
        return fail(SYMM_ERROR_TIMEOUT,
                    "rendezvous timed out after %.0f s: rank 0 never listened "
                    "on %s (SYMM_TIMEOUT)",
                    timeout_, where_.c_str());
      std::string why;
      if (refused.verdict == Verdict::OtherSize)
        why = "its job has " + std::to_string(refused.size) +
              " ranks, this rank's " + std::to_string(size);
      else if (refused.verdict == Verdict::OtherParent)
        why = "it was started by process " + std::to_string(refused.parent) +
              ", this rank by process " + std::to_string(hello.parent) +
              ": the ranks of a job known by MASTER_PORT alone must be "
              "started by one process, or share " +
              env::kJobId;
      else if (refused.verdict == Verdict::OtherJob)
        why = "its launcher's job id (" + jobVariableNames() +
              ") is not this rank's";
      else
        why = "it has a rank " + std::to_string(rank) + " already";
      std::string fix = transport_ == Transport::Tcp
                            ? std::string("MASTER_PORT")
                            : "MASTER_PORT, or " + std::string(env::kJobId);
      return fail(SYMM_ERROR_TIMEOUT,
                  "rendezvous timed out after %.0f s: the rank 0 listening on "
                  "%s belongs to another job (%s); give each job its own job "
                  "id (%s)",
                  timeout_, where_.c_str(), why.c_str(), fix.c_str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return barrier();
}

void SocketBootstrap::close() {
  if (hub_ >= 0)
    ::close(hub_);
  hub_ = -1;
  for (int &fd : clients_)
    if (fd >= 0) {
      ::close(fd);
      fd = -1;
    }
  // A rendezvous that failed: the folder empties once rank 0 has gone, and
  // the last rank to fail removes it.
  if (!ownedDir_.empty())
    rmdir(ownedDir_.c_str());
  ownedDir_.clear();
}

symm_status SocketBootstrap::waitReadable(int fd, int peer) {
  pollfd p{fd, POLLIN, 0};
  int ready = poll(&p, 1, static_cast<int>(timeout_ * 1000));
  if (ready == 0)
    return fail(SYMM_ERROR_TIMEOUT,
                "waited %.0f s for rank %d without an answer (SYMM_TIMEOUT); "
                "it is stuck or took another path",
                timeout_, peer);
  if (ready < 0)
    return fail(SYMM_ERROR_BACKEND, "poll: %s", strerror(errno));
  return SYMM_SUCCESS;
}

symm_status SocketBootstrap::sendAll(int fd, const void *data, size_t bytes,
                                     int peer) {
  const char *p = static_cast<const char *>(data);
  while (bytes > 0) {
    ssize_t n = send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fail(SYMM_ERROR_PEER_FAILED,
                  "lost the connection to rank %d (%s): it exited or was "
                  "killed",
                  peer, strerror(errno));
    p += n;
    bytes -= n;
  }
  return SYMM_SUCCESS;
}

symm_status SocketBootstrap::recvAll(int fd, void *data, size_t bytes,
                                     int peer) {
  char *p = static_cast<char *>(data);
  while (bytes > 0) {
    if (symm_status s = waitReadable(fd, peer))
      return s;
    ssize_t n = recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fail(SYMM_ERROR_PEER_FAILED,
                  "rank %d closed its connection: it exited, was killed or "
                  "failed",
                  peer);
    p += n;
    bytes -= n;
  }
  return SYMM_SUCCESS;
}

symm_status SocketBootstrap::allgather(const void *mine, size_t bytes,
                                       void *all) {
  char *out = static_cast<char *>(all);
  std::memcpy(out + rank_ * bytes, mine, bytes);
  if (size_ == 1)
    return SYMM_SUCCESS;
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r)
      if (symm_status s = recvAll(clients_[r], out + r * bytes, bytes, r))
        return close(), s;
    for (int r = 1; r < size_; ++r)
      if (symm_status s = sendAll(clients_[r], out, size_ * bytes, r))
        return close(), s;
    return SYMM_SUCCESS;
  }
  if (symm_status s = sendAll(hub_, mine, bytes, 0))
    return s;
  return recvAll(hub_, out, size_ * bytes, 0);
}

symm_status SocketBootstrap::barrier() {
  char token = 1;
  std::vector<char> all(size_);
  return allgather(&token, 1, all.data());
}

namespace {
/// One byte of payload carrying `count` descriptors (SCM_RIGHTS).
struct FdMessage {
  explicit FdMessage(int count)
      : control(CMSG_SPACE(sizeof(int) * count)), bytes(sizeof(int) * count) {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
  }
  char byte = 0;
  iovec iov{&byte, 1};
  std::vector<char> control;
  size_t bytes;
  msghdr msg{};
};
} // namespace

symm_status SocketBootstrap::sendFds(int fd, const int *fds, int count,
                                     int peer) {
  FdMessage m(count);
  cmsghdr *cmsg = CMSG_FIRSTHDR(&m.msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(m.bytes);
  std::memcpy(CMSG_DATA(cmsg), fds, m.bytes);
  if (sendmsg(fd, &m.msg, MSG_NOSIGNAL) != 1)
    return fail(SYMM_ERROR_PEER_FAILED,
                "cannot pass heap descriptors to rank %d: %s", peer,
                strerror(errno));
  return SYMM_SUCCESS;
}

symm_status SocketBootstrap::recvFds(int fd, int *fds, int count, int peer) {
  if (symm_status s = waitReadable(fd, peer))
    return s;
  FdMessage m(count);
  if (recvmsg(fd, &m.msg, MSG_CMSG_CLOEXEC) != 1)
    return fail(SYMM_ERROR_PEER_FAILED,
                "rank %d closed its connection while passing heap "
                "descriptors",
                peer);
  cmsghdr *cmsg = CMSG_FIRSTHDR(&m.msg);
  if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS ||
      cmsg->cmsg_len != CMSG_LEN(m.bytes))
    return fail(SYMM_ERROR_PEER_FAILED,
                "rank %d sent a malformed descriptor message", peer);
  std::memcpy(fds, CMSG_DATA(cmsg), m.bytes);
  return SYMM_SUCCESS;
}

symm_status SocketBootstrap::openPeerFds(int mine, std::vector<int> &fds) {
  // Every rank says where its descriptor is and which file it is; a rank of
  // this node opens it as the owner's /proc/<pid>/fd/<fd> (the same file, as
  // SCM_RIGHTS would pass it) and checks that it got that file, and no rank
  // closes its own until every rank has opened.
  struct stat own{};
  fstat(mine, &own);
  int64_t where[4] = {getpid(), mine, int64_t(own.st_dev), int64_t(own.st_ino)};
  std::vector<int64_t> all(4 * size_t(size_));
  symm_status status = allgather(where, sizeof(where), all.data());
  for (int r = 0; r < size_ && status == SYMM_SUCCESS; ++r) {
    if (r == rank_)
      continue;
    if (!sameNode(r)) {
      status = fail(SYMM_ERROR_UNAVAILABLE,
                    "rank %d is on another node: this backend shares its "
                    "memory with the ranks of one node only (by file "
                    "descriptor); across nodes use SYMM_BACKEND=nvshmem",
                    r);
      break;
    }
    const int64_t *theirs = &all[4 * size_t(r)];
    std::string path = "/proc/" + std::to_string(theirs[0]) + "/fd/" +
                       std::to_string(theirs[1]);
    fds[r] = open(path.c_str(), O_RDWR | O_CLOEXEC);
    struct stat opened{};
    if (fds[r] < 0)
      status = fail(SYMM_ERROR_BACKEND,
                    "cannot open rank %d's shared memory as %s: %s (ranks "
                    "of one node open each other's through /proc over the "
                    "tcp bootstrap; the socket bootstrap passes them itself)",
                    r, path.c_str(), strerror(errno));
    else if (fstat(fds[r], &opened) != 0 ||
             int64_t(opened.st_dev) != theirs[2] ||
             int64_t(opened.st_ino) != theirs[3])
      status = fail(SYMM_ERROR_BACKEND,
                    "%s is not rank %d's shared memory: that rank is on "
                    "another node, or in another process namespace, than "
                    "its node id (SYMM_NODE_ID) says",
                    path.c_str(), r);
  }
  // Every rank waits, even after a failure, so no owner closes early.
  symm_status done = barrier();
  if (status == SYMM_SUCCESS)
    status = done;
  if (status != SYMM_SUCCESS)
    for (int &fd : fds)
      if (fd >= 0) {
        ::close(fd);
        fd = -1;
      }
  return status;
}

symm_status SocketBootstrap::allgatherFds(int mine, std::vector<int> &fds) {
  fds.assign(size_, -1);
  fds[rank_] = dup(mine);
  if (size_ == 1)
    return SYMM_SUCCESS;
  if (transport_ == Transport::Tcp)
    return openPeerFds(mine, fds);
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r)
      if (symm_status s = recvFds(clients_[r], &fds[r], 1, r))
        return close(), s;
    for (int r = 1; r < size_; ++r)
      if (symm_status s = sendFds(clients_[r], fds.data(), size_, r))
        return close(), s;
    return SYMM_SUCCESS;
  }
  if (symm_status s = sendFds(hub_, &mine, 1, 0))
    return s;
  std::vector<int> received(size_);
  if (symm_status s = recvFds(hub_, received.data(), size_, 0))
    return s;
  // Keep our own descriptor rather than the round-tripped copy.
  ::close(received[rank_]);
  for (int r = 0; r < size_; ++r)
    if (r != rank_)
      fds[r] = received[r];
  return SYMM_SUCCESS;
}
