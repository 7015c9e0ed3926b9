"""Kills symm-run with SIGKILL while its ranks run, then reports whether the
ranks and symm-run's rendezvous folder outlived it. Whatever it finds, it
ends the ranks and removes the folder itself before it exits.

usage: kill-launcher.py SYMM_RUN WORKDIR
"""

import os
import shutil
import signal
import subprocess
import sys
import time

symm_run, workdir = sys.argv[1], sys.argv[2]
os.makedirs(workdir, exist_ok=True)
rank_command = ('echo "$$ $SYMM_RENDEZVOUS" > %s/rank.$SYMM_RANK.tmp && '
                'mv %s/rank.$SYMM_RANK.tmp %s/rank.$SYMM_RANK; '
                'exec sleep 300') % (workdir, workdir, workdir)
launcher = subprocess.Popen([symm_run, "-n", "2", "--", "sh", "-c",
                             rank_command], stdout=subprocess.DEVNULL)


def wait_for(condition, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def alive(pid):
    # A zombie is dead: nothing reaps an orphan in some containers.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


files = [os.path.join(workdir, "rank.%d" % r) for r in range(2)]
if not wait_for(lambda: all(os.path.exists(f) for f in files), 60):
    launcher.kill()
    sys.exit("the ranks did not start")
ranks = []
for f in files:
    with open(f) as handle:
        pid, folder = handle.read().split()
        ranks.append(int(pid))
print("folder exists" if os.path.isdir(folder) else "no folder")

launcher.send_signal(signal.SIGKILL)
launcher.wait()
for r, pid in enumerate(ranks):
    gone = wait_for(lambda: not alive(pid), 30)
    print("rank %d %s" % (r, "ended" if gone else "still runs"))
    if not gone:
        os.kill(pid, signal.SIGKILL)
gone = wait_for(lambda: not os.path.exists(folder), 30)
print("folder removed" if gone else "folder left")
if not gone:
    shutil.rmtree(folder, ignore_errors=True)
