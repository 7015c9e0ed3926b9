//===- symm-run.cpp - Start N ranks of a Symm program -----------*- C++ -*-===//
//
//   symm-run -n N [--backend host|cuda|hip] [--heap-size S] [--timeout T]
//            [--target T] [--] PROGRAM|FILE.mlir [ARGS...]
//
// Starts N ranks on this node with SYMM_RANK, SYMM_WORLD_SIZE,
// SYMM_LOCAL_RANK and a private rendezvous folder in the environment,
// prefixes every output line with "[rank k] ", and exits with the status of
// the first rank that fails, after ending the others. A .mlir program is
// compiled with symm-compile first (cached by content and target).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

volatile sig_atomic_t interrupted = 0;
void onSignal(int sig) { interrupted = sig; }

[[noreturn]] void usage(const char *message) {
  if (message)
    fprintf(stderr, "symm-run: %s\n", message);
  fprintf(stderr,
          "usage: symm-run -n N [--backend host|cuda|hip] [--heap-size S] "
          "[--timeout SECONDS] [--target host|sm_90|gfx942] [--] "
          "PROGRAM|FILE.mlir [ARGS...]\n");
  exit(2);
}

std::string selfDir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0)
    return ".";
  buffer[n] = 0;
  std::string path(buffer);
  return path.substr(0, path.rfind('/'));
}

void removeTree(const std::string &dir) {
  std::string command = "rm -rf '" + dir + "'";
  if (system(command.c_str()) != 0)
    fprintf(stderr, "symm-run: could not remove %s\n", dir.c_str());
}

/// Compiles `source` with symm-compile for `target`, reusing an executable
/// compiled from the same bytes before.
std::string compileProgram(const std::string &source,
                           const std::string &target) {
  std::ifstream in(source, std::ios::binary);
  if (!in) {
    fprintf(stderr, "symm-run: cannot read %s\n", source.c_str());
    exit(2);
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  std::string compiler = selfDir() + "/symm-compile";
  // A rebuilt compiler invalidates what the old one produced.
  struct stat info {};
  stat(compiler.c_str(), &info);
  size_t hash = std::hash<std::string>()(
      bytes + "\n" + target + "\n" + compiler + "\n" +
      std::to_string(info.st_mtime) + "\n" + std::to_string(info.st_size));
  std::string cache;
  if (const char *c = getenv("SYMM_CACHE_DIR"))
    cache = c;
  else if (const char *home = getenv("HOME"))
    cache = std::string(home) + "/.cache/symm";
  else
    cache = "/tmp/symm-cache-" + std::to_string(getuid());
  std::string mkdirCommand = "mkdir -p '" + cache + "'";
  if (system(mkdirCommand.c_str()) != 0) {
    fprintf(stderr, "symm-run: cannot create the cache folder %s\n",
            cache.c_str());
    exit(2);
  }
  char name[64];
  snprintf(name, sizeof(name), "/%016zx-%s", hash, target.c_str());
  std::string exe = cache + name;
  if (access(exe.c_str(), X_OK) == 0)
    return exe;
  std::string tmp = exe + ".tmp." + std::to_string(getpid());
  std::string command = "'" + compiler + "' --target=" + target +
                        " --emit=exe '" + source + "' -o '" + tmp + "'";
  if (system(command.c_str()) != 0) {
    unlink(tmp.c_str());
    fprintf(stderr, "symm-run: compiling %s failed\n", source.c_str());
    exit(1);
  }
  rename(tmp.c_str(), exe.c_str());
  return exe;
}

struct Rank {
  pid_t pid = -1;
  int out = -1;
  std::string pending;
  bool running = false;
};

/// Writes every complete line of `rank`'s output with its prefix.
void drain(Rank &rank, int index, bool flushAll) {
  char buffer[65536];
  ssize_t n = read(rank.out, buffer, sizeof(buffer));
  if (n > 0)
    rank.pending.append(buffer, n);
  size_t start = 0, newline;
  while ((newline = rank.pending.find('\n', start)) != std::string::npos) {
    printf("[rank %d] %.*s\n", index, int(newline - start),
           rank.pending.c_str() + start);
    start = newline + 1;
  }
  rank.pending.erase(0, start);
  if ((n <= 0 || flushAll) && !rank.pending.empty()) {
    printf("[rank %d] %s\n", index, rank.pending.c_str());
    rank.pending.clear();
  }
  fflush(stdout);
  if (n <= 0 && !(n < 0 && errno == EINTR)) {
    close(rank.out);
    rank.out = -1;
  }
}

std::string describe(int status) {
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") +
           std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

} // namespace

int main(int argc, char **argv) {
  int ranks = 1;
  std::string backend, heapSize, timeout, target;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> std::string {
      std::string f = flag;
      if (arg.rfind(f + "=", 0) == 0)
        return arg.substr(f.size() + 1);
      if (i + 1 >= argc)
        usage(("missing value for " + f).c_str());
      return argv[++i];
    };
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "-n" || arg.rfind("-n=", 0) == 0 || arg == "--np" ||
        arg.rfind("--np=", 0) == 0)
      ranks = atoi(value(arg.rfind("--np", 0) == 0 ? "--np" : "-n").c_str());
    else if (arg.rfind("--backend", 0) == 0)
      backend = value("--backend");
    else if (arg.rfind("--heap-size", 0) == 0)
      heapSize = value("--heap-size");
    else if (arg.rfind("--timeout", 0) == 0)
      timeout = value("--timeout");
    else if (arg.rfind("--target", 0) == 0)
      target = value("--target");
    else if (arg == "-h" || arg == "--help")
      usage(nullptr);
    else if (arg[0] == '-')
      usage(("unknown option " + arg).c_str());
    else
      break;
  }
  if (i >= argc)
    usage("no program given");
  if (ranks < 1 || ranks > 64)
    usage("-n must be between 1 and 64");
  if (backend.empty())
    backend = getenv("SYMM_BACKEND") ? getenv("SYMM_BACKEND") : "host";
  if (backend != "host" && backend != "cuda" && backend != "hip")
    usage("--backend must be host, cuda or hip");

  std::string program = argv[i];
  if (program.size() > 5 && program.substr(program.size() - 5) == ".mlir") {
    if (target.empty())
      target = backend == "cuda"  ? "sm_90"
               : backend == "hip" ? "gfx942"
                                  : "host";
    program = compileProgram(program, target);
  }

  char dirTemplate[] = "/tmp/symm-run-XXXXXX"; // mkdtemp makes it 0700
  if (!mkdtemp(dirTemplate)) {
    perror("symm-run: mkdtemp");
    return 1;
  }
  std::string dir = dirTemplate;

  struct sigaction action {};
  action.sa_handler = onSignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::vector<Rank> all(ranks);
  for (int r = 0; r < ranks; ++r) {
    int pipefd[2];
    if (pipe(pipefd) != 0) {
      perror("symm-run: pipe");
      return 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      dup2(pipefd[1], STDOUT_FILENO);
      dup2(pipefd[1], STDERR_FILENO);
      close(pipefd[0]);
      close(pipefd[1]);
      setenv("SYMM_RANK", std::to_string(r).c_str(), 1);
      setenv("SYMM_WORLD_SIZE", std::to_string(ranks).c_str(), 1);
      setenv("SYMM_LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("SYMM_RENDEZVOUS", dir.c_str(), 1);
      setenv("SYMM_BACKEND", backend.c_str(), 1);
      if (!heapSize.empty())
        setenv("SYMM_HEAP_SIZE", heapSize.c_str(), 1);
      if (!timeout.empty())
        setenv("SYMM_TIMEOUT", timeout.c_str(), 1);
      execvp(program.c_str(), argv + i);
      fprintf(stderr, "symm-run: cannot run %s: %s\n", program.c_str(),
              strerror(errno));
      _exit(127);
    }
    close(pipefd[1]);
    all[r].pid = pid;
    all[r].out = pipefd[0];
    all[r].running = true;
  }

  int result = 0, firstFailure = -1, running = ranks;
  bool killing = false;
  int graceMs = 0;
  while (running > 0 || std::any_of(all.begin(), all.end(),
                                    [](const Rank &r) { return r.out >= 0; })) {
    std::vector<pollfd> fds;
    std::vector<int> owners;
    for (int r = 0; r < ranks; ++r)
      if (all[r].out >= 0) {
        fds.push_back({all[r].out, POLLIN, 0});
        owners.push_back(r);
      }
    if (!fds.empty() && poll(fds.data(), fds.size(), 50) > 0)
      for (size_t k = 0; k < fds.size(); ++k)
        if (fds[k].revents)
          drain(all[owners[k]], owners[k], false);
    if (fds.empty())
      usleep(50000);

    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (int r = 0; r < ranks; ++r) {
        if (all[r].pid != pid)
          continue;
        all[r].running = false;
        --running;
        bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        if (failed && firstFailure < 0 && !killing) {
          firstFailure = r;
          result =
              WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
          fprintf(stderr, "symm-run: rank %d %s; ending the other ranks\n", r,
                  describe(status).c_str());
          killing = true;
        }
      }
    }
    if (interrupted && !killing) {
      fprintf(stderr, "symm-run: interrupted; ending all ranks\n");
      result = 128 + interrupted;
      killing = true;
    }
    if (killing && running > 0) {
      int sig = graceMs >= 2000 ? SIGKILL : SIGTERM;
      if (graceMs == 0 || graceMs >= 2000)
        for (Rank &rank : all)
          if (rank.running)
            kill(-rank.pid, sig);
      graceMs += 50;
    }
  }
  for (int r = 0; r < ranks; ++r)
    if (!all[r].pending.empty())
      printf("[rank %d] %s\n", r, all[r].pending.c_str());
  removeTree(dir);
  return result;
}
