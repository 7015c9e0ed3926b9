#!/usr/bin/env python3
# ===- bench/collectives/model.py - Collectives' analytical model -*- Python -*-===#
"""An analytical model of the collectives' time per call, and its check
against every collectives run logged under bench/results/ (python3, stdlib).

    python3 model.py [RESULTS_DIR]          # predicted vs measured, per row
    python3 model.py --choose               # the predicted winner per size

A call's time is built from four figures measured on 2 H200s (DESIGN.md's
reference figures; docs/Collectives.md, "Analytical model", gives the formulas):
launches (`o`), dependent flag steps (`alpha`, one fence + flag hop), the
bytes a GPU stores into its peers over its NVLink (`B` per direction, shared
by all peers, as every GPU reaches every other through the NVSwitches) and
the bytes it moves through its own HBM (`H`). Every formula is per chunk of
the scratch, like the kernels' launches. The rules that chose an algorithm
changed between runs; each run (a CSV of a results folder) is modelled with
the rules of its code, on its rank count, under the environment it ran with
(a forced algorithm, SYMM_COLLECTIVES_LL_MAX, SYMM_COLLECTIVES_DIRECT_MIN,
SYMM_COLLECTIVES_BLOCKS); rows run under a setting the model has no term for
are left out, and compare() says which and why.

    python3 model.py --run one-fence        # only the runs whose key has it
"""
import argparse
import csv
import math
import os
import re
import sys
from dataclasses import dataclass, replace

KB, MB = 1 << 10, 1 << 20

# DESIGN.md, 2 H200s: empty kernel 3.2-4.4 us (launch and completion as a
# stream sees them), flag ping-pong 1.2 us one way, SM peer stores 364 GB/s.
LAUNCH_STREAM_US = 3.2
# From a graph the host's dispatch is gone: the 2-GPU 8 KB low-latency
# broadcast took 4.1 us from a stream and 2.9 from a graph (1.2 us less).
LAUNCH_GRAPH_US = 2.0
# What an early launch (symm.early_launch: a programmatic dependent launch,
# whose start overlaps the end of the kernel before it) takes off a launch:
# the median of each size's time without it less with it, every collective
# 8K-1M on 2 H100s and the all-reduce 8K-4M on 3 and 4 (0.45-0.50 us from a
# graph, 0.9-1.2 from a stream; bench/results/h100x2-early-launch,
# h100x3-all-reduce-early-launch-ll128).
EARLY_GRAPH_US = 0.5
EARLY_STREAM_US = 1.1
ALPHA_US = 1.2
# What a low-latency call adds from back-to-back calls by first waiting for
# every peer's acknowledgement of the call before (its flight after the
# peer's end, then the polls): what the calls in halves of their slots
# (Rules.ll_halves) took off the LL and LL128 calls from a graph on 2 H200s,
# 0.3-0.6 us from 8K to 1M, median 0.5 (h200x2-collectives-ll-halves).
ACK_US = 0.5
# A dependent step of the flag protocol (stores, a system-scope fence, the
# flag, the receiver's wait): DESIGN.md has no figure but the hop, so the
# hop it is, unless --step says otherwise (the forced ring's small calls,
# 2 (n - 1) steps each, say what a step costs: see compare()).
STEP_US = ALPHA_US
LINK_BYTES_PER_US = 364e3
# Local traffic (read + written) of a copy or a reduction out of the scratch:
# the attention kernel of flash_decode streams 4.1-4.3 TB/s on one H200.
HBM_BYTES_PER_US = 4.2e6

# The runtime's defaults (Collectives.cpp), as the benchmark runs them.
SCRATCH = 256 * MB  # a 4G heap / 16
LL128_MAX = 4 * MB  # an LL128 launch's data on 2 ranks (4M / (n - 1))
DIRECT_MIN = 2 * MB
BYTES_PER_WORKGROUP, MIN_WORKGROUPS, MAX_WORKGROUPS = 8 * KB, 8, 128
PIECE, MAX_PIECES = 64 * KB, 8
# The chain broadcast's pieces per workgroup (one ready flag each): at least
# CHAIN_MIN_PIECE bytes, at most CHAIN_MAX_PIECES (the kernel takes pieces
# of max(piece, part / 64)). Fitted to the forced chain on 4 H200s
# (h200x4-collectives-vs-nccl-chain-forced/chain4.csv, 16 KiB pieces): a
# piece's fixed cost (its wait, fence and flag) and a workgroup's store rate.
CHAIN_MAX_PIECES, CHAIN_MIN_PIECE = 64, 16 * KB
CHAIN_PIECE_US, CHAIN_WG_BYTES_PER_US = 4.6, 3.7 * KB
# The code's pieces since the sweep of fixed pieces on 4 H200s
# (h200x4-broadcast-chain-pieces): its c and b, and the forwarding loop's
# round (512 threads, four 16-byte vectors each). They are also the stage's
# cost in the runs of that code (Model.chain_stage); the terms above, in
# the runs before it.
PIECE_FIT_US, PIECE_FIT_BYTES_PER_US, CHAIN_ROUND = 1.0, 3.0 * KB, 32 * KB
# The rings' pieces (symm_coll_ring): every step of a piece costs its
# workgroup a fence and a flag besides its bytes at PIECE_FIT_BYTES_PER_US,
# so a launch takes the longer of the link's time and a workgroup's. Fitted
# to the rings forced on 4 H200s in pieces of 32K to 256K
# (h200x4-ring-pieces/sweep: 32K pieces, 16 a part, took a 256 MB
# reduce-scatter from 615 to 664 us): 2.9 us, three times the chain's piece,
# whose fence covers one store and no fold. At most RING_MAX_PIECES a part.
RING_PIECE_US, RING_MAX_PIECES = 2.9, 64
# The by-size chain (8606ebd on): from 3 ranks, from 1 MB up to 4 ranks and
# from 64 MB on more (Algorithms.cpp, broadcast).
CHAIN_MIN_4, CHAIN_MIN_MORE = 1 * MB, 64 * MB
# The copy-engine broadcast (SYMM_BROADCAST_ALGO=copy_engine, CopyEngine.cpp):
# a copy engine's peer copy once under way, 396.5 GB/s on 2 H200s
# (peer_bandwidth.cu: one copy of 256 MB in 697 us, of 1 GB in 2728; the
# H100s' NVLink is the same generation, but nothing measured it there);
# what a copy costs besides its bytes in a chain of them (its start and
# drain, writing `landed`, waiting for and resetting `vacant`): 9.5 us,
# fitted to the forced copy-engine broadcast on 2 H200s at 256 MB-1 GB in
# chunks of 16, 32 and 64 MB (within 1%); and what the host spends issuing
# one operation (a copy, a stream write or wait, an event record or wait),
# not measured: a guess. Chunks of at most a slot (Rules.ce_chunk), at
# least CE_MIN_CHUNK.
CE_BYTES_PER_US = 396.5e3
CE_GAP_US, CE_ISSUE_US = 9.5, 1.5
CE_MIN_CHUNK = 64 * KB
# The benchmark's element (bf16): an all-gather, all-to-all or reduce-scatter
# of S bytes moves blocks of (S / 2 // n) elements, not whole 16-byte vectors
# where n does not divide S (3 ranks), and then never low-latency.
ESIZE, VECTOR = 2, 16


@dataclass
class Rules:
    """What chose and ran an algorithm in one version of Collectives.cpp
    (the defaults: today's code)."""

    ll: bool = True  # low-latency kernels for small blocks
    ll_per_peer: bool = True  # LL limit ll_budget / (n - 1), else 256K
    # The low-latency budget out of each rank: 1M since the LL kernels got
    # up to 512 workgroups of their own (SYMM_COLLECTIVES_LL_BLOCKS), 256K
    # before.
    ll_budget: int = 1 * MB
    # From 3 ranks, up to the one-shot limit: the low-latency one-shot up to
    # 256K out of each rank, then the low-latency two-shot while one launch
    # holds the call, then one-shot.
    ll_two_shot_by_size: bool = True
    # From 3 ranks, the broadcast's low-latency chain above ll_chain_min
    # bytes while one launch holds the call (0: not by size).
    ll_chain_min: int = 64 * KB
    all_peers_at_once: bool = True  # one wait, one fence for all peers
    one_shot_max_2: int = 4 * MB
    one_shot_max: int = 1 * MB
    # Above the one-shot limit the ring from this many ranks (0: never by
    # size), and on 4 ranks (when fewer than ring_min_ranks) above
    # ring_min_bytes_4 bytes (None: never); two-shot otherwise.
    ring_min_ranks: int = 5
    ring_min_bytes_4: int = 16 * MB
    bcast_scatter: bool = True  # from 3 ranks, scatter + all-gather
    rs_pipelined: bool = True
    # The chain broadcast by size (CHAIN_MIN_4, CHAIN_MIN_MORE), else only
    # forced; its pieces sqrt(part * b * c / (n - 2)) bytes (at least
    # 16 KiB), else 16 KiB.
    bcast_chain: bool = True
    chain_sqrt_pieces: bool = True
    # Two-shot's phases and the zero-copy exchange (exchange_direct) store
    # into all peers, then one fence and every peer's flag: a flag step per
    # phase. Before 98019ce a phase fenced and signalled peer by peer: n - 1
    # steps, each peer's stores behind the previous one's fence.
    two_shot_one_fence: bool = True
    # Low-latency kernels take any count (a partial last vector, blocks that
    # start between vectors); before, only whole 16-byte vectors went
    # low-latency, so no exchange of a power-of-two size on 3 ranks did.
    ll_any_count: bool = True
    # The copy-engine broadcast by size from this many bytes on 2 ranks
    # (None: only forced; more ranks only forced).
    ce_min_2: int = 32 * MB
    # The default low-latency limit (ll_budget / (n - 1)) is rounded down to
    # this many bytes: whole lines of low-latency words (128) since
    # 2d3735b, whole vectors before.
    ll_unit: int = 128
    # On 2 ranks the all-reduce goes low-latency up to this many bytes, then
    # one-shot (dc683a1; None: up to the low-latency limit).
    ll_all_reduce_max_2: int = 512 * KB
    # On 3 and 4 ranks the low-latency chain up to this many bytes and the
    # chain above (None: the low-latency chain while one launch holds the
    # call, the chain from CHAIN_MIN_4).
    ll_chain_max_4: int = 768 * KB
    # A copy-engine slot, the largest chunk: 64M since the chunk's cost was
    # measured (the 4G heap's scratch / 4), 32M before (scratch / 8).
    ce_chunk: int = 64 * MB
    # The all-gather and all-to-all by the copy engines by size on 2 ranks
    # from blocks of this many bytes (None: only forced).
    ce_exchange_min_2: int = 256 * MB
    # On 2 ranks an exchange's chunks come in on the second stream
    # (takeAside); before, a rank's next send waited behind each receive:
    # a second gap per round.
    ce_exchange_aside: bool = True
    # The default low-latency limit on 2 ranks, below ll_budget (None: the
    # budget): 512K since the flagged exchanges won at blocks of 1 MB.
    ll_max_2: int = 512 * KB
    # On 2 ranks the all-reduce in LL128 lines above the first and up to
    # the second many bytes, where LL or one-shot would run (None: only
    # forced): above 128K at first, from any size since LL128's load
    # checks whether its lanes ran together.
    ll128_2: tuple = (0, 4 * MB)
    # The same on 4 ranks (None: only forced).
    ll128_4: tuple = (64 * KB, 1 * MB)
    # The same on 3 ranks (None: only forced).
    ll128_3: tuple = (64 * KB, 1 * MB)
    # The broadcast's LL128 chain by size: (ranks, from, to) bytes (None:
    # only forced).
    ll128_chain: tuple = ((2, 512 * KB, 8 * MB), (3, 256 * KB, 16 * MB),
                          (4, 256 * KB, 16 * MB),
                          *((k, 256 * KB, 16 * MB) for k in range(5, 9)))
    # From 4 ranks a reduce-scatter of at least 32 MB gets up to 256
    # workgroups (False: up to 128, as every flagged kernel).
    rs_wide: bool = True
    # The LL128 chain's launch holds the whole LL128 buffer: at least 16 MB
    # of data on GPUs (False: the n slots alone, n * LL128_MAX / (n - 1)).
    ll128_chain_16m: bool = True
    # Every kernel launches early (symm.early_launch) unless
    # SYMM_EARLY_LAUNCH=0.
    early_launch: bool = True
    # From 3 ranks the LL128 two-shot where a flagged all-reduce (one-shot,
    # two-shot, ring) would run and one launch holds the call.
    ll128_two_shot: bool = True
    # On 3 ranks the fan broadcast from 16 MB where the chain (or, up to 16
    # MB, the LL128 chain) would run (False: only forced).
    bcast_fan_3: bool = True
    # The chain's and the fan's pieces (Algorithms.cpp, chainPiece): from
    # the fit on 4 H200s with pieces of 32K-256K (c = 1.0 us, b = 3.0 KB/us),
    # above 16 KiB a whole number of the forwarding loop's 32K rounds
    # (False: from the fit before, c = 4.6 us and b = 3.7 KB/us, any
    # number of vectors).
    chain_piece_rounds: bool = True
    # The chain above its scratch in one launch whose pieces cycle through
    # the scratch's slots in laps (the rule's pieces, no longer at least
    # part / 64; False: a launch per scratch-sized chunk, each filling and
    # draining the chain).
    chain_one_launch: bool = True
    # The fan by size on 3 ranks only where the scratch holds the call (the
    # chain in one launch above it); and the ring's slots in whole 128-byte
    # lines of 256 workgroups, 32K (Internal.h, granuleDown), so that its
    # segments start on lines (the model has no term for lines: this
    # changes only where launches cut).
    fan_3_in_scratch: bool = True
    slot_lines: bool = True
    # From 5 ranks (by the model: not measured there), the ring only above
    # this many bytes (None: above the one-shot limit), two-shot below; the
    # broadcast's LL128 chain from 256K to 16M (Rules.ll128_chain) and the
    # chain from chain_min_more bytes.
    ring_min_bytes_more: int = 64 * MB
    chain_min_more: int = 16 * MB
    # A low-latency call that every rank reads from every peer (the LL and
    # LL128 one-shot all-reduce, reduce-scatter, all-gather, all-to-all)
    # whose block fills at most half a slot takes the half of its epoch's
    # parity and, after such a call, does not wait for the acknowledgements
    # of the call before (ACK_US); every other low-latency call waits.
    ll_halves: bool = True
    # On 3 ranks the ring above this many bytes (None: two-shot): measured
    # ahead from 64 MB on 3 H200s (h200x4-collectives-ll-halves).
    ring_min_bytes_3: int = 32 * MB
    # The reduce-scatter's ring by size from send buffers of the first many
    # bytes on 3 and 4 ranks, of the second on more (None: only forced),
    # and on 2 ranks from the first to the second of rs_ring_2 (None: only
    # forced).
    rs_ring: tuple = (16 * MB, 32 * MB)
    rs_ring_2: tuple = (4 * MB, 32 * MB)
    # The rings' pieces (bytes; 0: a workgroup's part in one piece a step).
    ring_piece: int = 128 * KB


TODAY = Rules()
# The code before the rings' pieces.
BEFORE_RING_PIECES = replace(TODAY, ring_piece=0)
# The code before the reduce-scatter's ring.
BEFORE_RS_RING = replace(BEFORE_RING_PIECES, rs_ring=None, rs_ring_2=None)
# The code before the reduce-scatter's ring by size on 2 ranks.
BEFORE_RS_RING_2 = replace(BEFORE_RING_PIECES, rs_ring_2=None)
# The code before the ring by size on 3 ranks.
BEFORE_RING_3 = replace(BEFORE_RS_RING, ring_min_bytes_3=None)
# The code before the low-latency calls in halves of their slots.
BEFORE_HALVES = replace(BEFORE_RING_3, ll_halves=False)
# The code before the LL128 buffer of at least 16 MB (the chain broadcast
# on 4 ranks then by size up to 4 MB).
# The code before the wide reduce-scatter (256 workgroups from 32 MB on 4
# ranks or more).
# The code before the model's choices from 5 ranks (two-shot up to 64 MB,
# the LL128 chain and the chain from 16 MB).
BEFORE_MORE = replace(BEFORE_HALVES, ring_min_bytes_more=None, chain_min_more=None,
                      ll128_chain=((2, 512 * KB, 8 * MB), (3, 256 * KB, 16 * MB),
                                   (4, 256 * KB, 16 * MB)))
# The code before slots of whole lines and the fan only within the scratch.
BEFORE_LINES = replace(BEFORE_MORE, fan_3_in_scratch=False, slot_lines=False)
# The code before the chain's one launch above the scratch.
BEFORE_ONE_LAUNCH = replace(BEFORE_LINES, chain_one_launch=False)
# The code before the chain's pieces in whole rounds.
BEFORE_PIECES = replace(BEFORE_ONE_LAUNCH, chain_piece_rounds=False)
BEFORE_RS_WIDE = replace(BEFORE_PIECES, rs_wide=False)
BEFORE_LL128_16M = replace(BEFORE_RS_WIDE, ll128_chain_16m=False, ll128_chain=(
    (2, 512 * KB, 8 * MB), (3, 256 * KB, 16 * MB), (4, 256 * KB, 4 * MB)))
# The code before the fan broadcast (575df6e: forced only).
BEFORE_FAN = replace(BEFORE_LL128_16M, bcast_fan_3=False)
# The code before the LL128 two-shot by size (89f850b: forced only).
BEFORE_LL128_TWO_SHOT = replace(BEFORE_FAN, ll128_two_shot=False)
# The code before early launches and LL128 on 3 ranks (7a359b7).
BEFORE_EARLY = replace(BEFORE_LL128_TWO_SHOT, early_launch=False, ll128_3=None,
                       ll128_chain=None)
# The code before the broadcast's LL128 chain (486e4f5).
BEFORE_LL128_CHAIN = replace(BEFORE_LL128_TWO_SHOT, ll128_chain=None)
# The code before LL128 (ef6a8b9-6e538b1).
BEFORE_LL128 = replace(BEFORE_EARLY, ll128_2=None)
# The code of c4ec057: copy-engine slots of 32M, the exchanges' copies
# only forced.
CE_32M = replace(BEFORE_EARLY, ce_chunk=32 * MB, ce_exchange_min_2=None,
                 ce_exchange_aside=False, ll_max_2=None, ll128_2=None, ll128_4=None)
# The code of 8d8e860: the low-latency limit 1M on 2 ranks.
CE_EXCHANGE = replace(BEFORE_EARLY, ll_max_2=None, ll128_2=None, ll128_4=None)
# Slots of 64M, before the exchanges' receives went on the second stream.
SLOTS_64M = replace(BEFORE_EARLY, ce_exchange_min_2=None, ce_exchange_aside=False,
                    ll_max_2=None, ll128_2=None, ll128_4=None)
# dc683a1 and 2d3735b: a flag is a barrier and the storing thread's release
# (not a fence in every thread), and the low-latency words fill whole
# sectors. Neither is a term of the model, whose step (alpha) and
# low-latency formulas never had the per-thread fences' cost or the
# scattered stores' in them: the runs before measured 1.4-2.6 times the
# model below 64 MB. The code of the copy-engine runs:
COPY_ENGINE = replace(CE_32M, ll_unit=VECTOR, ll_all_reduce_max_2=None,
                      ll_chain_max_4=None)
# The code of the runs of 2026-11-27 (dc683a1-92fe5df), before the chain
# took over from the low-latency chain at 768K on 3 and 4 ranks.
RELEASE_BARRIER = replace(CE_32M, ll_chain_max_4=None)
# The logged runs but the copy-engine ones ran the code before it.
BEFORE_CE = replace(COPY_ENGINE, ce_min_2=None)
# Code of each logged run (commit times against the runs' commits), newest
# first. The low-latency kernels' workgroup per 2K (498eb23) is not in the
# model, whose low-latency formulas have no per-workgroup term, and it
# shows: on 2 GPUs the low-latency all-reduce took 1.37-1.41 times the
# model's time (geometric mean) before it, 1.21 after.
LL_TWO_SHOT = replace(BEFORE_CE, ll_chain_min=0)
LL_WORKGROUPS = replace(LL_TWO_SHOT, ll_two_shot_by_size=False)
LL_256K = replace(LL_WORKGROUPS, ll_budget=256 * KB)
TWO_SHOT_LL_2K = replace(LL_256K, ring_min_bytes_4=None,  # 498eb23
                         ll_any_count=False)
ONE_FENCE = replace(TWO_SHOT_LL_2K, ring_min_ranks=4)  # 98019ce
CHAIN_BY_SIZE = replace(ONE_FENCE, two_shot_one_fence=False)  # 8606ebd
CHAIN_FORCED = replace(CHAIN_BY_SIZE, bcast_chain=False,  # ec7a8d6
                       chain_sqrt_pieces=False)
BEFORE_LL = replace(CHAIN_FORCED, ll=False, all_peers_at_once=False,
                    one_shot_max_2=1 * MB, ring_min_ranks=0,
                    bcast_scatter=False, rs_pipelined=False)
CE_FORCED = {"SYMM_ALL_TO_ALL_ALGO": "copy_engine",
             "SYMM_ALL_GATHER_ALGO": "copy_engine"}
# RUNS: "folder/csv" -> (ranks, rules, the environment it ran with). The
# settings the model represents: ENV_ALGO's forcing variables, LL_MAX,
# DIRECT_MIN and BLOCKS (the grid's cap, which only the chain's and the
# reduce-scatter's formulas read); any other leaves the CSV's rows out.
RUNS = {
    # 3329cff: before the low-latency kernels and the ring.
    "h200x4-collectives-vs-nccl-before-ll/collectives-symm.csv": (4, BEFORE_LL, {}),
    # a7bbb98 / e70ee15: the first 8-GPU run (two-shot above 1M), then the
    # ring from 8 ranks, still without low-latency kernels.
    "h200x8-collectives-two-shot-and-workloads/symm.csv": (8, BEFORE_LL, {}),
    "h200x8-collectives-vs-nccl-ring/symm.csv":
        (8, replace(BEFORE_LL, ring_min_ranks=8), {}),
    # 57f4ad1 was made from this run: two-shot by default, the ring forced.
    "h200x4-collectives-vs-nccl-ring/symm.csv": (4, BEFORE_LL, {}),
    # 1817f73: low-latency up to 256K, a wait per peer, one-shot up to 1M.
    "h200x2-collectives-vs-nccl-wait-per-peer/symm.csv":
        (2, replace(CHAIN_FORCED, ll_per_peer=False, all_peers_at_once=False,
                    one_shot_max_2=1 * MB, bcast_scatter=False), {}),
    "h200x2-collectives-workgroups-one-vs-two-shot/symm-256-blocks.csv":
        (2, replace(CHAIN_FORCED, one_shot_max_2=1 * MB), {}),
    "h200x2-collectives-vs-nccl/symm.csv":
        (2, replace(CHAIN_FORCED, one_shot_max_2=1 * MB), {}),
    "h200x4-collectives-vs-nccl/symm.csv":
        (4, replace(CHAIN_FORCED, one_shot_max_2=1 * MB), {}),
    # One machine of 4 H200s, 2026-11-26; files named for a rank count ran
    # on that many of its GPUs.
    # ec7a8d6: the chain only forced, 16 KiB pieces.
    "h200x4-collectives-vs-nccl-chain-forced/symm.csv": (4, CHAIN_FORCED, {}),
    "h200x4-collectives-vs-nccl-chain-forced/chain4.csv":
        (4, CHAIN_FORCED, {"SYMM_BROADCAST_ALGO": "chain"}),
    "h200x4-collectives-vs-nccl-chain-forced/chain2.csv":
        (2, CHAIN_FORCED, {"SYMM_BROADCAST_ALGO": "chain"}),
    "h200x4-collectives-vs-nccl-chain-forced/llmax512k_4.csv":
        (4, CHAIN_FORCED, {"SYMM_COLLECTIVES_LL_MAX": "524288"}),
    "h200x4-collectives-vs-nccl-chain-forced/llmax1m_2.csv":
        (2, CHAIN_FORCED, {"SYMM_COLLECTIVES_LL_MAX": "1048576"}),
    # 8606ebd: the chain by size, sqrt pieces.
    "h200x4-collectives-chain-by-size/symm.csv": (4, CHAIN_BY_SIZE, {}),
    "h200x4-collectives-chain-by-size/two2.csv": (2, CHAIN_BY_SIZE, {}),
    "h200x4-collectives-chain-by-size/two_shot4.csv":
        (4, CHAIN_BY_SIZE, {"SYMM_ALL_REDUCE_ALGO": "two_shot"}),
    "h200x4-collectives-chain-by-size/ll2_4.csv":
        (4, CHAIN_BY_SIZE, {"SYMM_ALL_REDUCE_ALGO": "ll_two_shot"}),
    # 256 workgroups halve each one's part: the per-workgroup rate b did
    # not hold there (1.15-1.53 times the model's time from 4 MB).
    "h200x4-collectives-chain-by-size/chain256_4.csv":
        (4, CHAIN_BY_SIZE, {"SYMM_COLLECTIVES_BLOCKS": "256",
                            "SYMM_BROADCAST_ALGO": "chain"}),
    "h200x4-collectives-chain-by-size/direct64k_4.csv":
        (4, CHAIN_BY_SIZE, {"SYMM_COLLECTIVES_DIRECT_MIN": "65536"}),
    # 98019ce: two-shot and exchange_direct with one fence for all peers.
    "h200x4-collectives-one-fence/symm.csv": (4, ONE_FENCE, {}),
    "h200x4-collectives-one-fence/two2.csv": (2, ONE_FENCE, {}),
    "h200x4-collectives-one-fence/two_shot4.csv":
        (4, ONE_FENCE, {"SYMM_ALL_REDUCE_ALGO": "two_shot"}),
    "h200x4-collectives-one-fence/direct64k_4.csv":
        (4, ONE_FENCE, {"SYMM_COLLECTIVES_DIRECT_MIN": "65536"}),
    "h200x4-collectives-one-fence/bb2k_4.csv":
        (4, ONE_FENCE, {"SYMM_COLLECTIVES_BLOCK_BYTES": "2048"}),
    "h200x4-collectives-one-fence/bb4k_4.csv":
        (4, ONE_FENCE, {"SYMM_COLLECTIVES_BLOCK_BYTES": "4096"}),
    "h200x4-collectives-one-fence/bb2k_2.csv":
        (2, ONE_FENCE, {"SYMM_COLLECTIVES_BLOCK_BYTES": "2048"}),
    # 498eb23: two-shot above the one-shot limit up to 4 ranks. On 3 ranks
    # the exchanges' blocks are neither whole vectors (no low-latency) nor
    # aligned, which the model does not price.
    "h200x4-collectives-two-shot-ll-2k/symm.csv": (4, TWO_SHOT_LL_2K, {}),
    "h200x4-collectives-two-shot-ll-2k/two2.csv": (2, TWO_SHOT_LL_2K, {}),
    "h200x4-collectives-two-shot-ll-2k/three3.csv": (3, TWO_SHOT_LL_2K, {}),
    # 5a73e16 and 28af8b9: the ring above 16 MB on 4 ranks, low-latency at
    # any count.
    "h200x4-collectives-final/symm.csv": (4, LL_256K, {}),
    "h200x4-collectives-final/two2.csv": (2, LL_256K, {}),
    "h200x4-collectives-final/three3.csv": (3, LL_256K, {}),
    # 4 H100s, 2026-11-27, 256K-4M: the low-latency limit and the
    # workgroup cap as settings (before the LL kernels got a cap of their
    # own, so BLOCKS capped both), then today's code against the settings
    # that restore the code before it (LL_MAX 256K / (n - 1), LL_BLOCKS
    # 128), 8K-64M.
    **{f"h100x4-collectives-ll-settings/settings-{n}-{name}.csv":
       (n, LL_256K, env) for n in (2, 4) for name, env in (
           ("default", {}),
           ("ll512k", {"SYMM_COLLECTIVES_LL_MAX": "524288"}),
           ("ll1m", {"SYMM_COLLECTIVES_LL_MAX": "1048576"}),
           ("ll1m-b256", {"SYMM_COLLECTIVES_LL_MAX": "1048576",
                          "SYMM_COLLECTIVES_BLOCKS": "256"}),
           ("ll1m-b512", {"SYMM_COLLECTIVES_LL_MAX": "1048576",
                          "SYMM_COLLECTIVES_BLOCKS": "512"}))},
    **{f"h100x4-collectives-ll-workgroups/settings-{n}-{name}.csv":
       (n, rules, {}) for n in (2, 4)
       for name, rules in (("new", LL_WORKGROUPS), ("old", LL_256K))},
    # The low-latency limit doubled (2 GPUs) and at 682K (4): not kept.
    **{f"h100x4-collectives-ll-limits/settings-{n}-{name}.csv":
       (n, LL_WORKGROUPS, env) for n, name, env in (
           (2, "new", {}), (4, "new", {}),
           (2, "ll2m", {"SYMM_COLLECTIVES_LL_MAX": "2097152"}),
           (4, "ll682k", {"SYMM_COLLECTIVES_LL_MAX": "698368"}))},
    # Today's code, 8K-1G, on 4 and on 2 of 4 H100s.
    "h100x4-collectives-ll-final/symm.csv": (4, LL_WORKGROUPS, {}),
    "h100x4-collectives-ll-final/two2.csv": (2, LL_WORKGROUPS, {}),
    # The low-latency two-shot by size, 8K-1G, on 4, 3 and 2 of 4 H100s.
    "h100x4-collectives-final/symm.csv": (4, LL_TWO_SHOT, {}),
    "h100x4-collectives-final/three3.csv": (3, LL_TWO_SHOT, {}),
    "h100x4-collectives-final/two2.csv": (2, LL_TWO_SHOT, {}),
    # The broadcast's low-latency chain (by size past 256K out of the root
    # then, 256K / (n - 1) bytes), forced, and the chain and the root's
    # stores forced, 64K-4M.
    **{f"h100x4-collectives-ll-chain/settings-{n}-{name}.csv":
       (n, replace(BEFORE_CE, ll_chain_min=256 * KB // (n - 1)), env)
       for n in (3, 4)
       for name, env in (
           ("new", {}), ("llc", {"SYMM_BROADCAST_ALGO": "ll_chain"}),
           ("chain", {"SYMM_BROADCAST_ALGO": "chain"}),
           ("root", {"SYMM_BROADCAST_ALGO": "root"}))},
    # 4 H200s: the copy-engine broadcast forced against the root's stores
    # (2 ranks) and the chain (4 ranks), both forced, 4M-1G.
    **{f"h200x4-collectives-copy-engine/settings-{n}-{name}.csv":
       (n, COPY_ENGINE, {"SYMM_BROADCAST_ALGO": algo})
       for n, name, algo in ((2, "root", "root"), (2, "ce", "copy_engine"),
                             (4, "chain", "chain"), (4, "ce", "copy_engine"))},
    # 2 H200s: the all-gather, all-to-all and broadcast by the copy engines
    # (the exchanges' ring, CopyEngine.cpp) against the SM stores (the
    # broadcast: the root's), all forced, 4M-1G.
    **{f"h200x2-collectives-copy-engine-exchange/settings-2-{name}.csv":
       (2, COPY_ENGINE, {"SYMM_ALL_GATHER_ALGO": algo, "SYMM_ALL_TO_ALL_ALGO": algo,
                   "SYMM_BROADCAST_ALGO": bcast})
       for name, algo, bcast in (("stores", "stores", "root"),
                                 ("ce", "copy_engine", "copy_engine"))},
    # 2 H100s: the same, all-gather and broadcast, 4M-1G (the copy engines'
    # first run on H100s).
    **{f"h100x2-collectives-copy-engine/settings-2-{name}.csv":
       (2, COPY_ENGINE, {"SYMM_ALL_GATHER_ALGO": algo, "SYMM_ALL_TO_ALL_ALGO": algo,
                   "SYMM_BROADCAST_ALGO": bcast})
       for name, algo, bcast in (("stores", "stores", "root"),
                                 ("ce", "copy_engine", "copy_engine"))},
    # 4 H200s: the same, all-gather and broadcast (the all-to-all's copy
    # engines move 2 ranks only), 4M-1G.
    **{f"h200x4-collectives-copy-engine-ring/settings-4-{name}.csv":
       (4, COPY_ENGINE, {"SYMM_ALL_GATHER_ALGO": algo, "SYMM_ALL_TO_ALL_ALGO": algo,
                   "SYMM_BROADCAST_ALGO": bcast})
       for name, algo, bcast in (("stores", "stores", "root"),
                                 ("ce", "copy_engine", "copy_engine"))},
    # The nvshmem backend against the cuda backend, 2 ranks: on 2 H100s with
    # the --remote=auto kernels (8K-64M, stopped during the nvshmem run),
    # then on 2 of 4 H200s with the direct kernels on one node (8208ac2;
    # 64K-16M, the nvshmem run stopped answering past 512K).
    **{f"{run}/settings-2-{name}.csv": (2, rules, env)
       for run, rules in (("h100x2-nvshmem-backend", BEFORE_CE),
                          ("h200x4-nvshmem-backend-direct-collectives", COPY_ENGINE))
       for name, env in (("cuda", {}), ("nvshmem", {"SYMM_BACKEND": "nvshmem"}))},
    # The all-reduce's low-latency two-shot and two-shot forced, 64K-8M.
    **{f"h100x4-collectives-ll-two-shot/settings-{n}-{name}.csv":
       (n, LL_WORKGROUPS, env) for n in (2, 4) for name, env in (
           ("new", {}), ("llts", {"SYMM_ALL_REDUCE_ALGO": "ll_two_shot"}),
           ("ts", {"SYMM_ALL_REDUCE_ALGO": "two_shot"}))},
    # 2 H100s, 2026-11-25: the low-latency two-shot forced (impl
    # symm_ll_two_shot), 8K-4M.
    "h100x2-collectives-vs-nccl-ll-two-shot/ll2.csv": (2, LL_256K, {}),
    # 2 H100s, 2026-11-27 (dc683a1, 2d3735b): the low-latency all-reduce
    # forced at 256K-4M, also with a limit of 2M; then the whole sweep, 8K-1G.
    **{f"h100x2-collectives-ll-limit-check/settings-2-{name}.csv": (2, RELEASE_BARRIER, env)
       for name, env in (
           ("default", {}), ("ll", {"SYMM_ALL_REDUCE_ALGO": "ll"}),
           ("ll2m", {"SYMM_ALL_REDUCE_ALGO": "ll",
                     "SYMM_COLLECTIVES_LL_MAX": "2097152"}))},
    "h100x2-collectives-vs-nccl-barrier-ll-lines/symm.csv": (2, RELEASE_BARRIER, {}),
    # 2 H200s, the same code with symm.release_barrier (6647999; the same
    # PTX on NVIDIA): the whole sweep, 8K-1G.
    "h200x2-collectives-vs-nccl-release-barrier/symm.csv": (2, RELEASE_BARRIER, {}),
    "h200x4-collectives-vs-nccl-release-barrier/symm.csv": (4, RELEASE_BARRIER, {}),
    # 4 H200s, the same code: the broadcast by size against the scatter and
    # the chain forced, 1M-1G; the all-reduce by size (the ring above 16M)
    # against two-shot forced, 16M-1G.
    **{f"h200x4-collectives-broadcast-check/settings-4-{name}.csv":
       (4, RELEASE_BARRIER, env) for name, env in (
           ("default", {}), ("scatter", {"SYMM_BROADCAST_ALGO": "scatter"}),
           ("chain", {"SYMM_BROADCAST_ALGO": "chain"}))},
    # The broadcast by size (then the low-latency chain to 1.36 MB) against
    # the chain forced, 128K-2M, two rounds: what moved the limit to 768K.
    **{f"h200x4-collectives-ll-chain-limit/settings-4-{name}-{r}.csv":
       (4, RELEASE_BARRIER, env) for r in (1, 2) for name, env in (
           ("default", {}), ("chain", {"SYMM_BROADCAST_ALGO": "chain"}))},
    **{f"h200x4-collectives-all-reduce-ring-check/settings-4-{name}.csv":
       (4, RELEASE_BARRIER, env) for name, env in (
           ("default", {}), ("two", {"SYMM_ALL_REDUCE_ALGO": "two_shot"}))},
    # 4 H100s, the same day and code: the whole sweep, then the all-reduce
    # at 256K-8M with the low-latency two-shot and two-shot forced (and the
    # one-shot limit at 512K, which the model leaves out).
    "h100x4-collectives-vs-nccl-barrier-ll-lines/symm.csv": (4, RELEASE_BARRIER, {}),
    **{f"h100x4-collectives-all-reduce-1m-check/settings-4-{name}.csv":
       (4, RELEASE_BARRIER, env) for name, env in (
           ("default", {}), ("ll2s", {"SYMM_ALL_REDUCE_ALGO": "ll_two_shot"}),
           ("two", {"SYMM_ALL_REDUCE_ALGO": "two_shot"}),
           ("os512k", {"SYMM_ALL_REDUCE_ONE_SHOT_MAX": "524288"}))},
    # 2 H200s, the code of c4ec057: the broadcast (the copy engines from 32M)
    # and the all-to-all (the copy engines), 32M-1G, in the default slots of
    # 32M and in slots of 16M and 64M (and with 6 slots, left out): what
    # measured a copy's cost and moved the slots to 64M.
    **{f"h200x2-collectives-ce-chunk/settings-2-{name}.csv":
       (2, CE_32M, env) for name, env in (
           ("default", {}), ("c16", {"SYMM_COLLECTIVES_CE_CHUNK": str(16 * MB)}),
           ("c64", {"SYMM_COLLECTIVES_CE_CHUNK": str(64 * MB)}),
           ("s6", {"SYMM_COLLECTIVES_CE_SLOTS": "6"}))},
    # 2 H200s, 8d8e860: the whole sweep, 8K-1G (the all-gather and
    # all-to-all by the copy engines from 512M).
    "h200x2-collectives-vs-nccl-ce-64m/symm.csv": (2, CE_EXCHANGE, {}),
    # ef6a8b9: the low-latency limit 512K on 2 ranks.
    "h200x2-collectives-vs-nccl-ll-512k/symm.csv": (2, BEFORE_LL128, {}),
    # The same code: the broadcast, 128M-1G, in slots of 64M (twice), 48M
    # (twice) and 32M.
    **{f"h200x2-collectives-ce-chunk-48m/settings-2-{name}.csv":
       (2, BEFORE_LL128, env)
       for name, env in (
           ("default", {}), ("r2", {}),
           ("c48", {"SYMM_COLLECTIVES_CE_CHUNK": str(48 * MB)}),
           ("c48r2", {"SYMM_COLLECTIVES_CE_CHUNK": str(48 * MB)}),
           ("c32", {"SYMM_COLLECTIVES_CE_CHUNK": str(32 * MB)}))},
    # 2 H200s, the same code: the exchange straight into the receive
    # buffers from 512K and 1M blocks (no difference), and the low-latency
    # limit at 512K and 768K, 512K-8M: what moved it to 512K on 2 ranks.
    **{f"h200x2-collectives-direct-min-check/settings-2-{name}.csv":
       (2, CE_EXCHANGE, env) for name, env in (
           ("default", {}),
           ("d1m", {"SYMM_COLLECTIVES_DIRECT_MIN": str(1 * MB)}),
           ("d512k", {"SYMM_COLLECTIVES_DIRECT_MIN": str(512 * KB)}))},
    **{f"h200x2-collectives-ll-limit-check/settings-2-{name}.csv":
       (2, CE_EXCHANGE, env) for name, env in (
           ("default", {}),
           ("ll512k", {"SYMM_COLLECTIVES_LL_MAX": str(512 * KB)}),
           ("ll768k", {"SYMM_COLLECTIVES_LL_MAX": str(768 * KB)}))},
    # 2 H200s: the broadcast (the copy engines from 32M), all-gather and
    # all-to-all (the SM stores), 32M-1G, by the code of c4ec057 (old) and
    # with slots of 64M and the measured g (new; and slots of 128M).
    **{f"h200x2-collectives-ce-slots-64m/settings-2-{name}.csv": (2, rules, env)
       for name, rules, env in (
           ("old", CE_32M, {}),
           ("new", SLOTS_64M, {}),
           ("new128", SLOTS_64M, {"SYMM_COLLECTIVES_CE_CHUNK": str(128 * MB)}))},
    # 2 H200s: the all-gather and all-to-all by the copy engines forced,
    # before (c4ec057) and after chunks came in on the second stream, and
    # the SM stores (then the default), 4M-1G: what chose the copy engines
    # from 512 MB.
    **{f"h200x2-collectives-ce-exchange/settings-2-{name}.csv": (2, rules, env)
       for name, rules, env in (
           ("oldce", CE_32M, CE_FORCED),
           ("ce", CE_EXCHANGE, CE_FORCED),
           ("new", replace(BEFORE_LL128, ce_exchange_min_2=None, ll_max_2=None),
            {}))},
    # 2 H200s: LL128 forced, on workgroups of 512 (the default), 256 and
    # 128 threads, 8K-8M.
    **{f"h200x2-all-reduce-ll128-threads/settings-2-{name}.csv": (2, BEFORE_EARLY, env)
       for name, env in (
           ("ll128", {"SYMM_ALL_REDUCE_ALGO": "ll128"}),
           ("t256", {"SYMM_ALL_REDUCE_ALGO": "ll128",
                     "SYMM_COLLECTIVES_THREADS": "256"}),
           ("t128", {"SYMM_ALL_REDUCE_ALGO": "ll128",
                     "SYMM_COLLECTIVES_THREADS": "128"}))},
    # 2 H200s, LL128 for every all-reduce up to 4M on 2 ranks: the whole
    # sweep, 8K-1G.
    "h200x2-collectives-vs-nccl-ll128/symm.csv": (2, BEFORE_EARLY, {}),
    # 4 H200s, LL128 by size on 4 ranks (64K-1M): the all-reduce 8K-4M.
    "h200x4-all-reduce-ll128-default/settings-4-default.csv": (4, BEFORE_EARLY, {}),
    # 4 H200s: the all-reduce 8K-4M by size (before LL128 by size on 4
    # ranks) and with LL128 forced: what chose it from 64K to 1M there.
    **{f"h200x4-all-reduce-ll128/settings-4-{name}.csv":
       (4, replace(BEFORE_EARLY, ll128_4=None), env)
       for name, env in (
           ("default", {}), ("ll128", {"SYMM_ALL_REDUCE_ALGO": "ll128"}))},
    # 2 H200s: the all-reduce 8K-8M with LL128 by size on 2 ranks (above
    # 128K up to 4M), and with LL128, the LL kernel and one-shot forced.
    **{f"h200x2-all-reduce-ll128/settings-2-{name}.csv":
       (2, replace(BEFORE_EARLY, ll128_2=(128 * KB, 4 * MB), ll128_4=None), env)
       for name, env in (
           ("default", {}), ("ll", {"SYMM_ALL_REDUCE_ALGO": "ll"}),
           ("ll128", {"SYMM_ALL_REDUCE_ALGO": "ll128"}),
           ("oneshot", {"SYMM_ALL_REDUCE_ALGO": "one_shot"}))},
    # 2 H100s: every collective 8K-1M with early launches (the default)
    # and without.
    **{f"h100x2-early-launch/settings-2-{name}.csv": (2, BEFORE_LL128_CHAIN, env)
       for name, env in (("default", {}),
                         ("noearly", {"SYMM_EARLY_LAUNCH": "0"}))},
    # 3 and 4 H100s: the all-reduce 8K-4M with early launches, LL128
    # forced and early launches off, before LL128 by size on 3 ranks: what
    # chose it there from 64K to 1M.
    **{f"h100x3-all-reduce-early-launch-ll128/settings-{n}-{name}.csv":
       (n, replace(BEFORE_LL128_CHAIN, ll128_3=None), env)
       for n in (3, 4)
       for name, env in (("default", {}),
                         ("ll128", {"SYMM_ALL_REDUCE_ALGO": "ll128"}),
                         ("noearly", {"SYMM_EARLY_LAUNCH": "0"}))},
    # 4 H100s: the broadcast 1M-1G with 128 (the default), 256 and 512
    # workgroups, and blocks of 32K.
    **{f"h100x4-broadcast-workgroups/settings-4-{name}.csv": (4, BEFORE_LL128_CHAIN, env)
       for name, env in (("default", {}),
                         ("b256", {"SYMM_COLLECTIVES_BLOCKS": "256"}),
                         ("b512", {"SYMM_COLLECTIVES_BLOCKS": "512"}),
                         ("bb32k", {"SYMM_COLLECTIVES_BLOCK_BYTES": "32K"}))},
    # 2 and 3 H100s (of 4): the broadcast 256K-64M by the code before the
    # LL128 chain, and that chain forced (its first kernel: forwarding and
    # storing each line in one loop, on at most 256 workgroups).
    **{f"h100x4-broadcast-ll128-chain/settings-{n}-{name}.csv":
       (n, BEFORE_LL128_CHAIN, env)
       for n in (2, 3)
       for name, env in (("default", {}),
                         ("l128c", {"SYMM_BROADCAST_ALGO": "ll128_chain"}))},
    # 2, 3 and 4 H100s: the broadcast 256K-64M with the LL128 chain by size
    # as the code then chose it (from 512K on 2 ranks, 256K on 3 and 4, up
    # to 8M, 2M and 1M), forced (its kernel forwarding first, on up to 512
    # workgroups), forced on up to 256, and the chain forced.
    **{f"h100x4-broadcast-ll128-chain-forward-first/settings-{n}-{name}.csv":
       (n, replace(BEFORE_LL128_TWO_SHOT, ll128_chain=((2, 512 * KB, 8 * MB),
                                       (3, 256 * KB, 2 * MB),
                                       (4, 256 * KB, 1 * MB))), env)
       for n in (2, 3, 4)
       for name, env in (("default", {}),
                         ("l128c", {"SYMM_BROADCAST_ALGO": "ll128_chain"}),
                         ("l128c256", {"SYMM_BROADCAST_ALGO": "ll128_chain",
                                       "SYMM_COLLECTIVES_LL_BLOCKS": "256"}),
                         ("chain", {"SYMM_BROADCAST_ALGO": "chain"}))},
    # 2, 3 and 4 H100s: the broadcast 256K-64M with the LL128 chain by size
    # up to 8M, 16M and 8M on up to 512 workgroups, forced, and the chain
    # forced.
    **{f"h100x4-broadcast-ll128-chain-512/settings-{n}-{name}.csv":
       (n, replace(BEFORE_LL128_TWO_SHOT, ll128_chain=((2, 512 * KB, 8 * MB),
                                       (3, 256 * KB, 16 * MB),
                                       (4, 256 * KB, 8 * MB))), env)
       for n in (2, 3, 4)
       for name, env in (("default", {}),
                         ("l128c", {"SYMM_BROADCAST_ALGO": "ll128_chain"}),
                         ("chain", {"SYMM_BROADCAST_ALGO": "chain"}))},
    # 3 and 4 H100s: the broadcast 256K-32M by size (the LL128 chain on up
    # to 256 workgroups, up to 16M and 4M), and the chain forced.
    **{f"h100x4-broadcast-ll128-chain-256/settings-{n}-{name}.csv":
       (n, BEFORE_LL128_TWO_SHOT, env)
       for n in (3, 4)
       for name, env in (("default", {}),
                         ("chain", {"SYMM_BROADCAST_ALGO": "chain"}))},
    # 2 H100s, early launches and the LL128 chain: the whole sweep, 8K-1G.
    "h100x2-collectives-vs-nccl-early-launch/symm.csv": (2, BEFORE_LL128_TWO_SHOT, {}),
    # 4 H100s, the LL128 chain by size: the whole sweep, 8K-1G.
    "h100x4-collectives-vs-nccl-ll128-chain/symm.csv": (4, BEFORE_LL128_TWO_SHOT, {}),
    # 4 H100s, early launches: the whole sweep, 8K-1G.
    "h100x4-collectives-vs-nccl-early-launch/symm.csv":
        (4, replace(BEFORE_LL128_CHAIN, ll128_3=None), {}),
    # 2 H100s, the low-latency words' single-word put: the whole sweep.
    "h100x2-collectives-vs-nccl-ll-words/symm.csv": (2, BEFORE_LL128_TWO_SHOT, {}),
    # 2 H200s, the LL128 two-shot by size (from 3 ranks; not on 2) and the
    # co-resident kernels: the whole sweep, 8K-1G.
    "h200x2-collectives-vs-nccl-night/symm.csv": (2, BEFORE_FAN, {}),
    # 2 H200s, the whole sweep with the chain's pieces in whole rounds
    # (which 2 ranks run only forced).
    "h200x2-collectives-vs-nccl-pieces/symm.csv": (2, BEFORE_ONE_LAUNCH, {}),
    "h200x2-collectives-final-code/symm.csv": (2, BEFORE_HALVES, {}),
    # 2 H200s, the code before and after the low-latency calls in halves,
    # twice each, 8K-4M (bench/collectives/bundles.sh), and the same sweep
    # in the call before.
    **{f"h200x2-collectives-ll-halves/{sub}settings-2-{name}{k}.csv":
       (2, BEFORE_RING_3 if name == "new" else BEFORE_HALVES, {})
       for sub in ("", "repeat/") for name in ("old", "new") for k in (1, 2)},
    # 4 H200s the same day: the code before and after the halves, 8K-4M,
    # once each; then the all-reduce from 64M on 4 and 3 GPUs and the
    # broadcast from 16M on 3 (the code since the slots of whole lines).
    "h200x4-collectives-ll-halves/settings-4-old1.csv": (4, BEFORE_HALVES, {}),
    "h200x4-collectives-ll-halves/settings-4-new1.csv": (4, BEFORE_RING_3, {}),
    "h200x4-collectives-ll-halves/settings-4-default.csv": (4, BEFORE_RING_3, {}),
    "h200x4-collectives-ll-halves/settings-3-default.csv": (3, BEFORE_RING_3, {}),
    "h200x4-collectives-ll-halves/settings-3-bcast.csv": (3, BEFORE_RING_3, {}),
    # 4 H200s, the whole sweep 8K-1G with the code since the 3-rank ring;
    # on 3 of them the all-reduce from 16M before (two-shot) and after the
    # ring on 3 ranks; on 2 of them the kernels' wait and record moved into
    # shared helpers, once (the other CSVs did not come back).
    "h200x4-collectives-sweep-after-halves/symm.csv": (4, BEFORE_RS_RING, {}),
    "h200x4-collectives-sweep-after-halves/three/ar3-old.csv":
        (3, BEFORE_RING_3, {}),
    "h200x4-collectives-sweep-after-halves/three/ar3-new.csv": (3, BEFORE_RS_RING, {}),
    "h200x4-collectives-sweep-after-halves/two-refactor/settings-2-new1.csv":
        (2, BEFORE_RS_RING, {}),
    # 3 and 4 H200s, the all-reduce 128K-4M by size and forced (LL128
    # one-shot, LL128 two-shot, LL two-shot); on 4 the LL128 kernels on
    # other grids and workgroups (left out: the model has no term for them).
    **{f"h200x4-all-reduce-ll128-choices/settings-3-{name}.csv": (3, BEFORE_RS_RING, env)
       for name, env in (("default", {}),
                         ("ll128", {"SYMM_ALL_REDUCE_ALGO": "ll128"}),
                         ("l128ts", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot"}),
                         ("llts", {"SYMM_ALL_REDUCE_ALGO": "ll_two_shot"}))},
    **{f"h200x4-all-reduce-ll128-choices/settings-4-{name}.csv": (4, BEFORE_RS_RING, env)
       for name, env in (
           ("ts2k", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot"}),
           ("ts1k", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot",
                     "SYMM_COLLECTIVES_LL_BLOCK_BYTES": "1024"}),
           ("ts512", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot",
                      "SYMM_COLLECTIVES_LL_BLOCK_BYTES": "512"}),
           ("ts256t", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot",
                       "SYMM_COLLECTIVES_LL_BLOCK_BYTES": "512",
                       "SYMM_COLLECTIVES_THREADS": "256"}),
           ("os1k", {"SYMM_ALL_REDUCE_ALGO": "ll128",
                     "SYMM_COLLECTIVES_LL_BLOCK_BYTES": "1024"}))},
    # 4 H200s, the reduce-scatter 128M-1G on 128, 256 (the default), 384
    # and 512 workgroups.
    **{f"h200x4-reduce-scatter-grid/settings-4-{name}.csv": (4, BEFORE_RS_RING, env)
       for name, env in (("default", {}),
                         ("b128", {"SYMM_COLLECTIVES_BLOCKS": "128"}),
                         ("b384", {"SYMM_COLLECTIVES_BLOCKS": "384"}),
                         ("b512", {"SYMM_COLLECTIVES_BLOCKS": "512"}))},
    # 4 and 3 H200s, the reduce-scatter's ring and scatter, each forced:
    # first/ 1M-1G before the ring's shifted loads; then on 4 16M-1G, the
    # ring also in scratches of 128M and 192M (left out: the model's slots
    # follow its fixed scratch), on 3 1M-1G and 48M-768M (blocks of whole
    # 16 MB); and the ring all-reduce forced on 4, 16M-1G, the code before
    # (old) and after (new), twice each.
    **{f"h200x4-reduce-scatter-ring/{sub}settings-{n}-{name}.csv": (n, BEFORE_RS_RING_2, env)
       for sub, ns in (("first/", (3, 4)), ("four/", (4,)), ("three/", (3,)),
                       ("three-whole/", (3,)))
       for n in ns
       for name, env in (
           ("scatter", {"SYMM_REDUCE_SCATTER_ALGO": "scatter"}),
           ("ring", {"SYMM_REDUCE_SCATTER_ALGO": "ring"}),
           *((("ring128M", {"SYMM_REDUCE_SCATTER_ALGO": "ring",
                            "SYMM_COLLECTIVES_SCRATCH": "128M"}),
              ("ring192M", {"SYMM_REDUCE_SCATTER_ALGO": "ring",
                            "SYMM_COLLECTIVES_SCRATCH": "192M"}))
             if sub == "four/" else ()))},
    **{f"h200x4-reduce-scatter-ring/ring-all-reduce/settings-4-{name}{k}.csv":
       (4, BEFORE_RS_RING if name == "old" else BEFORE_RS_RING_2,
        {"SYMM_ALL_REDUCE_ALGO": "ring"})
       for name in ("old", "new") for k in (1, 2)},
    # The code as committed first (34c8c90) on 4 H200s: the reduce-scatter
    # and all-reduce by size 1M-1G; the ring all-reduce forced, the code
    # before the session and it; on 2 of them the reduce-scatter's ring and
    # scatter forced, 1M-1G. Then the ring's fold with two vectors a round
    # (new, not kept) against it (prev), both rings forced, 16M-1G, twice
    # each, and the 2-GPU run again.
    "h200x4-reduce-scatter-ring/committed/by-size/settings-4-default.csv":
        (4, BEFORE_RS_RING_2, {}),
    **{f"h200x4-reduce-scatter-ring/committed/ring-all-reduce/settings-4-{name}.csv":
       (4, BEFORE_RS_RING if name == "old" else BEFORE_RS_RING_2,
        {"SYMM_ALL_REDUCE_ALGO": "ring"}) for name in ("old", "new")},
    **{f"h200x4-reduce-scatter-ring/{sub}/two/settings-2-{name}.csv":
       (2, BEFORE_RS_RING_2, {"SYMM_REDUCE_SCATTER_ALGO": name})
       for sub in ("committed", "two-vectors") for name in ("ring", "scatter")},
    # The code with the ring from 4 to 32 MB on 2 ranks: the reduce-scatter
    # by size on 2 and 4 H200s, 1M-1G; the broadcast on 4, 4M-1G, by size
    # and the fan forced.
    **{f"h200x4-reduce-scatter-ring/final/settings-{n}-default.csv":
       (n, BEFORE_RING_PIECES, {}) for n in (2, 4)},
    **{f"h200x4-broadcast-fan/settings-4-{name}.csv": (4, BEFORE_RING_PIECES, env)
       for name, env in (("default", {}), ("fan", {"SYMM_BROADCAST_ALGO": "fan"}))},
    # The rings in pieces on 4 and 3 H200s (h200x4-ring-pieces): sweep/,
    # both rings forced on 4, 16M-1G, the code before (prev), the new code
    # with one piece a part (one) and with pieces of 256K-32K; by-size/,
    # the all-reduce and reduce-scatter by size, 16M-1G, before (prev) and
    # with 128K pieces (new), twice each; rounds/, both rings forced,
    # 32M-1G, before and with the pieces in whole rounds as committed.
    # (The model does not count the rounds.)
    **{f"h200x4-ring-pieces/sweep/settings-4-{name}.csv":
       (4, BEFORE_RING_PIECES if name in ("prev", "one") else TODAY,
        {"SYMM_ALL_REDUCE_ALGO": "ring", "SYMM_REDUCE_SCATTER_ALGO": "ring",
         **({} if name in ("prev", "one")
            else {"SYMM_COLLECTIVES_RING_PIECE": str(int(name[:-1]) * KB)})})
       for name in ("prev", "one", "256K", "128K", "64K", "32K")},
    **{f"h200x4-ring-pieces/{sub}/settings-{n}-{name}{k}.csv":
       (n, BEFORE_RING_PIECES if name == "prev" else TODAY, env)
       for sub, env in (("by-size", {}),
                        ("rounds", {"SYMM_ALL_REDUCE_ALGO": "ring",
                                    "SYMM_REDUCE_SCATTER_ALGO": "ring"}))
       for n in (3, 4) for name in ("prev", "new") for k in (1, 2)},
    **{f"h200x4-reduce-scatter-ring/two-vectors/settings-4-{name}{k}.csv":
       (4, BEFORE_RS_RING_2, {"SYMM_ALL_REDUCE_ALGO": "ring",
                              "SYMM_REDUCE_SCATTER_ALGO": "ring"})
       for name in ("prev", "new") for k in (1, 2)},
    # 4 and 3 H200s: the all-reduce by size with the LL128 two-shot, 8K-256M.
    **{f"h200x4-all-reduce-ll128-two-shot-default/settings-{n}-default.csv":
       (n, BEFORE_FAN, {}) for n in (3, 4)},
    # 4 and 3 H100s: the broadcast 1M-1G by size (the fan forced only) and
    # the fan forced.
    **{f"h100x4-broadcast-fan/settings-{n}-{name}.csv": (n, BEFORE_FAN, env)
       for n in (3, 4)
       for name, env in (("default", {}),
                         ("fan", {"SYMM_BROADCAST_ALGO": "fan"}))},
    # 4 and 3 H100s: every collective by size, 8K-1G (the code as
    # committed: the LL128 buffer of 16 MB, the fan on 3 ranks).
    **{f"h100x4-collectives-sweep-fan-ll128-16m/settings-{n}-default.csv":
       (n, BEFORE_RS_WIDE, {}) for n in (3, 4)},
    # 4 H100s, the reduce-scatter and all-reduce 16M-1G on 64, 128 (the
    # default), 256 and 512 workgroups; then the reduce-scatter on 128 and
    # 256, twice each.
    **{f"h100x4-reduce-all-reduce-grid/settings-4-{name}.csv":
       (4, BEFORE_RS_WIDE, env)
       for name, env in (("default", {}),
                         *((f"b{b}", {"SYMM_COLLECTIVES_BLOCKS": str(b)})
                           for b in (64, 256, 512)))},
    # 4 H100s: the reduce-scatter 16M-1G by size with the wide grid (the
    # code as committed).
    "h100x4-reduce-scatter-wide-check/settings-4-default.csv": (4, BEFORE_PIECES, {}),
    **{f"h100x4-reduce-scatter-grid-256/settings-4-{name}.csv":
       (4, BEFORE_RS_WIDE, env)
       for name, env in (("default", {}), ("default2", {}),
                         ("b256", {"SYMM_COLLECTIVES_BLOCKS": "256"}),
                         ("b256r2", {"SYMM_COLLECTIVES_BLOCKS": "256"}))},
    # 4, 3 and 2 H100s: the broadcast 1M-128M by size with the LL128
    # buffer of 16 MB and the fan on 3 ranks (the code as committed).
    **{f"h100x4-broadcast-ll128-16m-check/settings-{n}-default.csv":
       (n, BEFORE_RS_WIDE, {}) for n in (2, 3, 4)},
    # 2 H100s, the broadcast 8M-64M: by size and the LL128 chain forced (one
    # launch up to 16 MB).
    **{f"h100x2-broadcast-ll128-16m/settings-2-{name}.csv": (2, BEFORE_RS_WIDE, env)
       for name, env in (("default", {}),
                         ("l128c", {"SYMM_BROADCAST_ALGO": "ll128_chain"}))},
    # 4 H100s, the broadcast 4M-256M: by size, the chain on 32 and 64
    # workgroups, the LL128 chain forced in launches of 5.3 MB (the default
    # then), 16 MB and 64 MB (SYMM_COLLECTIVES_LL128_MAX, left out).
    **{f"h100x4-broadcast-chain-grid-ll128-launch/settings-4-{name}.csv":
       (4, BEFORE_FAN, env)
       for name, env in (
           ("default", {}),
           ("chain32", {"SYMM_BROADCAST_ALGO": "chain",
                        "SYMM_COLLECTIVES_BLOCKS": "32"}),
           ("chain64", {"SYMM_BROADCAST_ALGO": "chain",
                        "SYMM_COLLECTIVES_BLOCKS": "64"}),
           ("l128c", {"SYMM_BROADCAST_ALGO": "ll128_chain"}),
           ("l128c4m", {"SYMM_BROADCAST_ALGO": "ll128_chain",
                        "SYMM_COLLECTIVES_LL128_MAX": "4M"}),
           ("l128c16m", {"SYMM_BROADCAST_ALGO": "ll128_chain",
                         "SYMM_COLLECTIVES_LL128_MAX": "16M"}))},
    # 4 H100s: the chain and the fan forced, 8M-256M, on 128 (the default),
    # 256 and 512 workgroups.
    **{f"h100x4-broadcast-fan-workgroups/settings-4-{name}.csv": (4, BEFORE_FAN, env)
       for name, env in (
           ("chain", {"SYMM_BROADCAST_ALGO": "chain"}),
           ("chain256", {"SYMM_BROADCAST_ALGO": "chain",
                         "SYMM_COLLECTIVES_BLOCKS": "256"}),
           ("fan", {"SYMM_BROADCAST_ALGO": "fan"}),
           ("fan256", {"SYMM_BROADCAST_ALGO": "fan",
                       "SYMM_COLLECTIVES_BLOCKS": "256"}),
           ("fan512", {"SYMM_BROADCAST_ALGO": "fan",
                       "SYMM_COLLECTIVES_BLOCKS": "512"}))},
    # 4 and 3 H200s: the broadcast 2M-1G by size with the chain straight
    # into the receive buffers (not kept; the model has no term for it,
    # docs/Collectives.md): in its first form (every rank published to every
    # peer; default), in its second (published to the rank before; default)
    # and through the scratch (nodirect); on 3 the chain forced.
    **{f"h200x4-broadcast-chain-direct-publish-all/settings-4-{name}.csv":
       (4, BEFORE_PIECES, env)
       for name, env in (("default", {}),
                         ("nodirect",
                          {"SYMM_COLLECTIVES_DIRECT_MIN": str(1 << 40)}))},
    "h200x4-broadcast-chain-direct/settings-4-default.csv": (4, BEFORE_PIECES, {}),
    **{f"h200x4-broadcast-chain-direct/settings-3-{name}.csv": (3, BEFORE_PIECES, env)
       for name, env in (("default", {}),
                         ("nodirect",
                          {"SYMM_COLLECTIVES_DIRECT_MIN": str(1 << 40)}),
                         ("chaindirect", {"SYMM_BROADCAST_ALGO": "chain"}))},
    # 4 and 3 H200s: the chain's and the fan's pieces (SYMM_COLLECTIVES_
    # CHAIN_PIECE forces them): the chain forced with the pieces of the fit
    # before and fixed ones; a refit's pieces, not kept (modelled with
    # today's, whole 32K rounds, which they approach); the code as
    # committed beside fixed pieces.
    **{f"h200x4-broadcast-chain-pieces/sweep-4-{name}.csv": (4, BEFORE_PIECES, env)
       for name, env in (
           ("chain", {"SYMM_BROADCAST_ALGO": "chain"}),
           *((f"p{k}k", {"SYMM_BROADCAST_ALGO": "chain",
                         "SYMM_COLLECTIVES_CHAIN_PIECE": str(k * KB)})
             for k in (32, 128, 256)))},
    **{f"h200x4-broadcast-chain-pieces/fit-3-{name}.csv": (3, BEFORE_ONE_LAUNCH, env)
       for name, env in (
           ("default", {}), ("chain", {"SYMM_BROADCAST_ALGO": "chain"}),
           *((f"fan{k}k", {"SYMM_BROADCAST_ALGO": "fan",
                           "SYMM_COLLECTIVES_CHAIN_PIECE": str(k * KB)})
             for k in (32, 64)))},
    **{f"h200x4-broadcast-chain-pieces/check-4-{name}.csv": (4, BEFORE_ONE_LAUNCH, env)
       for name, env in (
           ("default", {}),
           *((f"p{k}k", {"SYMM_BROADCAST_ALGO": "chain",
                         "SYMM_COLLECTIVES_CHAIN_PIECE": str(k * KB)})
             for k in (32, 64)))},
    **{f"h200x4-broadcast-chain-pieces/check-3-{name}.csv": (3, BEFORE_ONE_LAUNCH, env)
       for name, env in (
           ("default", {}),
           ("fan64k", {"SYMM_BROADCAST_ALGO": "fan",
                       "SYMM_COLLECTIVES_CHAIN_PIECE": str(64 * KB)}))},
    # 4 H200s: the broadcast from 16 MB with 192 workgroups and the fan
    # (128 and 256 workgroups), the all-reduce from 64 MB with 256
    # workgroups and a 512M scratch, before the chain's one launch; then
    # the chain in one launch above its scratch, by its rule's pieces and
    # with fixed ones.
    **{f"h200x4-broadcast-one-launch/before-4-{name}.csv": (4, BEFORE_ONE_LAUNCH, env)
       for name, env in (
           ("b192", {"SYMM_COLLECTIVES_BLOCKS": "192"}),
           ("fan", {"SYMM_BROADCAST_ALGO": "fan"}),
           ("fan256", {"SYMM_BROADCAST_ALGO": "fan",
                       "SYMM_COLLECTIVES_BLOCKS": "256"}),
           ("allreduce-default", {}),
           ("allreduce-b256", {"SYMM_COLLECTIVES_BLOCKS": "256"}),
           ("allreduce-s512", {"SYMM_COLLECTIVES_SCRATCH": str(512 * MB)}))},
    # 4 and 3 H200s, the chain in one launch: every collective by size
    # (8K-1G); the ring all-reduce under scratches of 64M-768M (segments
    # of 10.67-128 MB) and the 3-rank broadcast, fan and chain.
    "h200x4-collectives-one-launch-sweep/settings-4-default.csv": (4, BEFORE_LINES, {}),
    "h200x4-collectives-one-launch-sweep/settings-3-default.csv": (3, BEFORE_LINES, {}),
    **{f"h200x4-all-reduce-ring-lines/before-4-{name}.csv": (4, BEFORE_LINES, env)
       for name, env in (
           ("ring", {"SYMM_ALL_REDUCE_ALGO": "ring"}),
           *((f"s{m}", {"SYMM_COLLECTIVES_SCRATCH": str(m * MB)})
             for m in (64, 128, 384, 512, 768)))},
    # 2 H200s: slots of whole lines against the runtime before them, with
    # a scratch whose slots were not (174763K) and the default's.
    **{f"h200x2-all-reduce-lines/settings-2-{name}{b}.csv":
       (2, BEFORE_LINES if b else BEFORE_MORE, env)
       for b in ("", "b")
       for name, env in (
           ("ring", {"SYMM_ALL_REDUCE_ALGO": "ring",
                     "SYMM_COLLECTIVES_SCRATCH": str(174763 * KB)}),
           ("two", {"SYMM_ALL_REDUCE_ALGO": "two_shot",
                    "SYMM_COLLECTIVES_SCRATCH": str(174763 * KB)}),
           ("default", {}))},
    "h200x4-all-reduce-ring-lines/before-3-default.csv": (3, BEFORE_LINES, {}),
    "h200x4-all-reduce-ring-lines/before-3-chain.csv":
        (3, BEFORE_LINES, {"SYMM_BROADCAST_ALGO": "chain"}),
    **{f"h200x4-broadcast-one-launch/after-4-{name}.csv": (4, BEFORE_LINES, env)
       for name, env in (
           ("default", {}),
           *((f"p{k}k", {"SYMM_COLLECTIVES_CHAIN_PIECE": str(k * KB)})
             for k in (64, 128, 256)))},
    # 3 H100s: the LL128 two-shot as first written (forced only), its
    # lanes apart before each store; the code's choice and the low-latency
    # two-shot beside it.
    **{f"h100x4-all-reduce-ll128-two-shot-first/settings-3-{name}.csv":
       (3, BEFORE_LL128_TWO_SHOT, env)
       for name, env in (("default", {}),
                         ("l128ts", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot"}),
                         ("llts", {"SYMM_ALL_REDUCE_ALGO": "ll_two_shot"}))},
    # 4 H100s: the LL128 two-shot with its lanes apart (a) and together (b),
    # and the low-latency two-shot, forced.
    **{f"h100x4-all-reduce-ll128-two-shot-lanes/settings-4-{name}-{v}.csv":
       (4, BEFORE_LL128_TWO_SHOT, env)
       for v in ("a", "b")
       for name, env in (("l128ts", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot"}),
                         ("llts", {"SYMM_ALL_REDUCE_ALGO": "ll_two_shot"}))},
    # 3 H200s: the LL128 two-shot forced, the code's choice before it, and
    # the LL128 one-shot forced (4M slots: left out).
    **{f"h200x4-all-reduce-ll128-two-shot/settings-3-{name}.csv":
       (3, BEFORE_LL128_TWO_SHOT, env)
       for name, env in (("default", {}),
                         ("l128ts", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot"}),
                         ("l128ts4m", {"SYMM_ALL_REDUCE_ALGO": "ll128_two_shot",
                                       "SYMM_COLLECTIVES_LL128_MAX": "4194304"}),
                         ("ll128", {"SYMM_ALL_REDUCE_ALGO": "ll128"}))},
}
# CSVs of the results that are not one code's run: the check skips them.
NOT_RUNS = {
    # Two runtimes alternated on the same GPUs, each row tagged old or new.
    "h100x2-collectives-vs-nccl-ll-two-shot/ab-runtime-2026-11-22-vs-today.csv",
}
# The variables that force an algorithm, and the model's names for theirs.
ENV_ALGO = {
    "SYMM_ALL_REDUCE_ALGO": ("all_reduce", {
        "ll": "ll", "one_shot": "one_shot", "two_shot": "two_shot",
        "ring": "ring", "ll_two_shot": "ll_two_shot", "ll128": "ll128",
        "ll128_two_shot": "ll128_two_shot"}),
    "SYMM_BROADCAST_ALGO": ("broadcast", {
        "root": "root", "scatter": "scatter_all_gather", "chain": "chain",
        "ll_chain": "ll_chain", "copy_engine": "copy_engine",
        "ll128_chain": "ll128_chain", "fan": "fan"}),
    "SYMM_REDUCE_SCATTER_ALGO": ("reduce_scatter", {
        "ll": "reduce_ll", "scatter": "reduce_scatter",
        "ring": "reduce_scatter_ring"}),
    "SYMM_ALL_GATHER_ALGO": ("all_gather", {
        "stores": "exchange", "copy_engine": "copy_engine"}),
    "SYMM_ALL_TO_ALL_ALGO": ("all_to_all", {
        "stores": "exchange", "copy_engine": "copy_engine"}),
}
# Switches the model reads (Model.__init__).
ENV_SWITCHES = ("SYMM_EARLY_LAUNCH",)
ENV_SIZES = ("SYMM_COLLECTIVES_LL_MAX", "SYMM_COLLECTIVES_DIRECT_MIN",
             "SYMM_COLLECTIVES_RING_PIECE",
             "SYMM_COLLECTIVES_BLOCKS", "SYMM_COLLECTIVES_CE_CHUNK",
             "SYMM_COLLECTIVES_CHAIN_PIECE")
# What the others change that the model has no term for.
NOT_MODELLED = {
    # Only the chain's and the reduce-scatter's formulas read the grid.
    "SYMM_COLLECTIVES_BLOCK_BYTES": "workgroups per launch, whose flags and "
    "fences no formula counts",
    "SYMM_BACKEND": "NVSHMEM's heap and, off one node, its device calls",
    "SYMM_ALL_REDUCE_ONE_SHOT_MAX": "the one-shot limit, which the rules "
    "fix per run",
    "SYMM_COLLECTIVES_CE_SLOTS": "copy-engine slots, which no formula counts",
    "SYMM_COLLECTIVES_THREADS": "threads per workgroup, which no formula "
    "counts",
}


def unmodelled(env):
    """The settings of `env` the model cannot represent, with why."""
    return ["%s=%s (%s)" % (k, v, NOT_MODELLED.get(k, "not in the model"))
            for k, v in sorted(env.items())
            if k not in ENV_ALGO and k not in ENV_SIZES
            and k not in ENV_SWITCHES]


# The forced all-reduce table (graph, 2 GPUs), one column per configuration.
FORCED_TABLE = ("h200x2-collectives-workgroups-one-vs-two-shot",
                "one-shot-two-shot.txt", replace(CHAIN_FORCED, one_shot_max_2=1 * MB),
                [("one_shot", None), ("two_shot", 2 * MB),
                 ("two_shot", 64 * KB), ("two_shot", 256 * KB)])


def link(nbytes):
    return nbytes / LINK_BYTES_PER_US


def hbm(nbytes):
    return nbytes / HBM_BYTES_PER_US


def chunked(total, cap, per_chunk):
    """Sum of per_chunk(c) over the launches a size takes."""
    t, off = 0.0, 0
    while off < total:
        c = min(cap, total - off)
        t += per_chunk(c)
        off += c
    return t


class Model:
    def __init__(self, n, mode="stream", rules=TODAY, step=None, env=None):
        self.n, self.rules, self.mode = n, rules, mode
        self.step = STEP_US if step is None else step
        self.o = LAUNCH_GRAPH_US if mode == "graph" else LAUNCH_STREAM_US
        env = env or {}
        if rules.early_launch and env.get("SYMM_EARLY_LAUNCH", "1") != "0":
            self.o -= EARLY_GRAPH_US if mode == "graph" else EARLY_STREAM_US
        # The algorithms env forces, by collective (the runtime's names
        # mapped to the model's).
        self.forced = {coll: names[env[var]] for var, (coll, names)
                       in ENV_ALGO.items() if env.get(var)}
        ll = env.get("SYMM_COLLECTIVES_LL_MAX")
        self.ll_limit = None if ll is None else int(ll)
        self.direct_min = int(env.get("SYMM_COLLECTIVES_DIRECT_MIN", DIRECT_MIN))
        self.max_workgroups = int(env.get("SYMM_COLLECTIVES_BLOCKS", MAX_WORKGROUPS))
        # The wide reduce-scatter's limit: 256 unless the run set the grid.
        self.wide_workgroups = (self.max_workgroups if "SYMM_COLLECTIVES_BLOCKS"
                                in env else max(256, self.max_workgroups))
        self.ce_cap = int(env.get("SYMM_COLLECTIVES_CE_CHUNK", rules.ce_chunk))
        self.chain_piece_env = int(env.get("SYMM_COLLECTIVES_CHAIN_PIECE", 0))
        self.ring_piece = int(env.get("SYMM_COLLECTIVES_RING_PIECE", rules.ring_piece))

    def flag(self, steps=1, fenced_per_peer=False):
        """`steps` dependent flag steps that involve every peer: one wait for
        all of them, or (older code) a wait, a fence and a barrier per peer.
        `fenced_per_peer`: a phase of two-shot or exchange_direct, which
        fenced and signalled peer by peer before 98019ce even where the
        other kernels waited for all peers at once. (Its stores to each peer
        then waited behind the previous peer's fence; as one peer takes the
        whole NVLink bandwidth through the NVSwitches, that serialises no
        bytes the link term does not already count.)"""
        per_peer = not self.rules.all_peers_at_once or (
            fenced_per_peer and not self.rules.two_shot_one_fence)
        return steps * (max(1, self.n - 1) if per_peer else 1) * self.step

    def ll_max(self):
        if not self.rules.ll or self.n < 2:
            return 0
        if self.ll_limit is not None:  # SYMM_COLLECTIVES_LL_MAX
            return self.ll_limit
        if not self.rules.ll_per_peer:
            return 256 * KB
        unit = self.rules.ll_unit
        budget = self.rules.ll_budget // (self.n - 1)
        if self.n == 2 and self.rules.ll_max_2 is not None:
            budget = min(budget, self.rules.ll_max_2)
        return budget // unit * unit

    def ack(self, nbytes, cap, eligible=True):
        """The wait for the acknowledgements of the call before (ACK_US),
        unless a call that every rank reads from every peer (`eligible`)
        with `nbytes` of data a slot of `cap` fits in half of it and follows
        such a call (Rules.ll_halves; back to back, the benchmark's calls
        are all alike)."""
        if self.rules.ll_halves and eligible and nbytes <= cap // 2:
            return 0
        return ACK_US

    def ll_fits(self, nbytes):
        """Whether a block of `nbytes` goes low-latency: within the limit,
        in whole vectors unless the code takes any count (Call::llFits)."""
        return nbytes <= self.ll_max() and (self.rules.ll_any_count
                                            or nbytes % VECTOR == 0)

    def block(self, S):
        """The per-rank block of an exchange or reduce-scatter of S bytes,
        as the benchmark cuts it (whole elements)."""
        return S // ESIZE // self.n * ESIZE

    def grid(self, nbytes, most=None):
        """Workgroups of a flagged kernel's launch that moves `nbytes`, at
        most `most` (else the run's limit)."""
        return min(most or self.max_workgroups,
                   max(MIN_WORKGROUPS, -(-nbytes // BYTES_PER_WORKGROUP)))

    # All-reduce of S bytes per rank.
    def ll(self, S):
        n = self.n  # tagged words: every byte travels twice
        return (self.o + ALPHA_US + self.ack(S, self.ll_max()) + link(2 * (n - 1) * S)
                + hbm(2 * (n - 1) * S + 2 * S))

    def ll128(self, S):
        """SYMM_ALL_REDUCE_ALGO=ll128: one-shot in flagged 128-byte lines, 7
        of 8 bytes data, no fence; a launch per LL128_MAX bytes."""
        n = self.n
        slot = LL128_MAX // max(1, n - 1)
        return chunked(S, slot, lambda c: self.o + ALPHA_US + self.ack(c, slot)
                       + link((n - 1) * c * 8 / 7)
                       + hbm((n - 1) * c * 8 / 7 + 2 * c))

    def one_shot(self, S):
        n = self.n
        return chunked(S, SCRATCH // n, lambda c: self.o + self.flag()
                       + link((n - 1) * c) + hbm((n + 1) * c))

    def two_shot(self, S):
        n, direct = self.n, S >= self.direct_min

        def chunk(c):
            gather = 0 if direct else 2 * (n - 1) * c / n
            extra = self.flag() if direct else 0  # publish the offsets
            # Two phases (reduce-scatter, all-gather), each stores into
            # every peer and signals it.
            return (self.o + self.flag(2, fenced_per_peer=True) + extra
                    + link(2 * (n - 1) * c / n) + hbm((n + 1) * c / n + gather))
        return chunked(S, SCRATCH // 2, chunk)

    def ring_launch(self, steps, c, grid, last):
        """A launch of a ring (symm_coll_ring): `steps` steps of c bytes
        over the link each, a workgroup's part of them c / grid, each a flag
        step; each workgroup's pieces go through every step in turn, so the
        launch takes the longer of the link's time and a workgroup's (its
        parts at PIECE_FIT_BYTES_PER_US and RING_PIECE_US per further piece
        and step), and then its last piece's local step (`last` bytes of HBM
        traffic over the pieces), which other workgroups' stores overlap but
        the last's."""
        part = c / max(1, grid)
        pieces = 1
        if self.ring_piece:
            pieces = min(RING_MAX_PIECES,
                         max(1, math.floor(part / self.ring_piece + 0.5)))
        wg = steps * (part / PIECE_FIT_BYTES_PER_US + RING_PIECE_US * (pieces - 1))
        return (self.o + steps * self.step + max(steps * link(c), wg)
                + hbm(last) / pieces)

    def ring(self, S):
        n = self.n
        steps = max(1, 2 * (n - 1))
        # The fold is fused with the store to the next rank (one pass), so
        # the transfers, the flag steps and the last step's copy out are on
        # the critical path.
        slot = SCRATCH // steps
        if self.rules.slot_lines:
            slot -= slot % (32 * KB)
        return chunked(S, slot * n, lambda c: self.ring_launch(
            steps, c / n, self.grid(c), 2 * c / n))

    def ll_two_shot(self, S, ll_max=None):
        """SYMM_ALL_REDUCE_ALGO=ll_two_shot: reduce-scatter and all-gather
        phases in tagged words, no fence; a launch per chunk of n segments of
        at most half the low-latency limit (`ll_max`, the run's unless
        given), on one rank two-shot."""
        n = self.n
        ll_max = self.ll_max() if ll_max is None else ll_max
        if n < 2 or ll_max < 32:
            return self.two_shot(S)
        return chunked(S, n * (ll_max // 2), lambda c: self.o + 2 * ALPHA_US + ACK_US
                       + link(4 * (n - 1) * c / n) + hbm(4 * (n - 1) * c / n + 4 * c / n))

    def ll128_two_shot(self, S):
        """SYMM_ALL_REDUCE_ALGO=ll128_two_shot: the two phases of ll_two_shot
        in flagged 128-byte lines (7 of 8 bytes data); a launch per chunk of
        n segments of half a rank's LL128 slot (LL128_MAX / (n - 1) / 2)."""
        n = self.n
        if n < 2:
            return self.two_shot(S)
        out = 2 * (n - 1) / n * 8 / 7
        return chunked(S, n * (LL128_MAX // (n - 1) // 2), lambda c: self.o
                       + 2 * ALPHA_US + ACK_US + link(out * c) + hbm(out * c + 4 * c / n))

    def ll_two_shot_512k(self, S):
        """ll_two_shot with SYMM_COLLECTIVES_LL_MAX=512K: segments of 256K."""
        return self.ll_two_shot(S, 512 * KB)

    # Exchanges of S bytes in all (n blocks of S / n).
    def exchange(self, S):
        n, b = self.n, self.block(S)
        if self.ll_fits(b):
            return (self.o + ALPHA_US + self.ack(b, self.ll_max()) + link(2 * (n - 1) * b)
                    + hbm(4 * (n - 1) * b + 2 * b))
        if b >= self.direct_min:  # publish the offsets, then the data phase
            return chunked(b, SCRATCH // n, lambda c: self.o + self.flag()
                           + self.flag(1, fenced_per_peer=True)
                           + link((n - 1) * c) + hbm(2 * c))
        return chunked(b, SCRATCH // n, lambda c: self.o + self.flag()
                       + link((n - 1) * c) + hbm(2 * n * c))

    def reduce_ll(self, S):
        n, b = self.n, self.block(S)
        return (self.o + ALPHA_US + self.ack(b, self.ll_max()) + link(2 * (n - 1) * b)
                + hbm(2 * (n - 1) * b + 2 * b))

    def reduce_scatter_ring(self, S):
        """SYMM_REDUCE_SCATTER_ALGO=ring: n - 1 dependent steps, in each a
        rank folds the partial from rank - 1 into its own block's share and
        stores it into rank + 1 (one pass, as the all-reduce's ring), and a
        last fold that stores nothing into the next rank, which other
        workgroups' stores of later pieces overlap but the last piece's
        (ring_launch); a launch per n - 1 slots of the scratch, in whole
        lines."""
        n, b = self.n, self.block(S)
        steps = max(1, n - 1)
        slot = SCRATCH // steps
        slot -= slot % (32 * KB)
        return chunked(b, slot, lambda c: self.ring_launch(
            steps, c, self.grid(c * n), 3 * c))

    def rs_choice(self, S):
        """The runtime's reduce-scatter by size (reduceScatter)."""
        n = self.n
        if self.ll_fits(self.block(S)):
            return "reduce_ll"
        ring, two = self.rules.rs_ring, self.rules.rs_ring_2
        if ring and n >= 3 and S >= ring[0 if n <= 4 else 1]:
            return "reduce_scatter_ring"
        if two and n == 2 and two[0] <= S <= two[1]:
            return "reduce_scatter_ring"
        return "reduce_scatter"

    def reduce_scatter(self, S):
        """SYMM_REDUCE_SCATTER_ALGO=scatter (by size where nothing else
        runs): every rank stores block q into rank q, which reduces each
        piece once every rank's landed."""
        n, b = self.n, self.block(S)

        # The wide grid (rs_wide): the model has no term by which more
        # workgroups gain (fewer pieces each only overlap less), so it
        # predicts the measured gain the wrong way round.
        wide = self.rules.rs_wide and n >= 4 and n * b >= 32 * MB

        def chunk(c):
            grid = self.grid(n * c, self.wide_workgroups if wide else None)
            pieces = min(MAX_PIECES, max(1, c // grid // PIECE)) if self.rules.rs_pipelined else 1
            a, h = link((n - 1) * c), hbm((n + 1) * c)
            overlap = min(a, h) / pieces if pieces > 1 else min(a, h)
            return self.o + self.flag() + max(a, h) + overlap
        return chunked(b, SCRATCH // n, chunk)

    # Broadcast of S bytes from one root.
    def bcast_root(self, S):
        n = self.n
        if self.ll_fits(S):
            return self.o + ALPHA_US + ACK_US + link(2 * (n - 1) * S) + hbm(4 * S)
        if S >= self.direct_min:  # exchange_direct
            return chunked(S, SCRATCH // n, lambda c: self.o + self.flag()
                           + self.flag(1, fenced_per_peer=True)
                           + link((n - 1) * c))
        return chunked(S, SCRATCH // n, lambda c: self.o + self.flag()
                       + link((n - 1) * c) + hbm(2 * c))

    def bcast_ll_chain(self, S):
        """The low-latency chain: tagged words (twice the bytes) out of every
        rank but the last, once, and a word's flight per hop; a launch per
        n * LL_MAX bytes (a rank's whole low-latency buffer)."""
        n = self.n
        cap = n * self.ll_max()
        if cap < VECTOR:
            return self.bcast_chain(S)
        return chunked(S, cap, lambda c: self.o + max(1, n - 1) * ALPHA_US + ACK_US
                       + link(2 * c) + hbm(4 * c))

    def bcast_ll128_chain(self, S):
        """The low-latency chain in LL128 lines: 8/7 of the bytes out of
        every rank but the last, once, and a line's flight per hop; a launch
        per rank's whole LL128 buffer: n * LL128_MAX / (n - 1) bytes, at
        least 16 MB (ll128_chain_16m)."""
        n = self.n
        cap = n * LL128_MAX // max(1, n - 1)
        if self.rules.ll128_chain_16m:
            cap = max(cap, 16 * MB)
        return chunked(S, cap, lambda c: self.o + max(1, n - 1) * ALPHA_US + ACK_US
                       + link(c * 8 / 7) + hbm(c * 8 / 7 * 2 + c))

    def bcast_scatter(self, S):
        """The scatter (the root's n - 1 blocks), then the all-gather, both
        exchange_direct (by size the blocks are at least DIRECT_MIN); the
        last S mod n bytes from the root."""
        n, b = self.n, self.block(S)
        t = 2 * chunked(b, SCRATCH // n, lambda c: self.o + self.flag()
                        + self.flag(1, fenced_per_peer=True)
                        + link((n - 1) * c) + hbm(2 * c))
        return t + (self.bcast_root(S - n * b) if S > n * b else 0)

    def chain_stage(self, p):
        """A piece's stage of p bytes, c + p / b: its wait, fence and flag,
        then a workgroup's stores, with the fit of the code's pieces."""
        if self.rules.chain_piece_rounds:
            return PIECE_FIT_US + p / PIECE_FIT_BYTES_PER_US
        return CHAIN_PIECE_US + p / CHAIN_WG_BYTES_PER_US

    def chain_piece(self, part, hops, cycles=False):
        """Bytes per piece of a workgroup's `part` forwarded over `hops`
        further stages (the chain: n - 2): sqrt(part * b * c / hops) (the
        fit's optimum, 8606ebd on) or 16 KiB, at least 16 KiB, at least
        part / 64 (not where the pieces cycle through slots), at most the
        part."""
        least = 0 if cycles else part / CHAIN_MAX_PIECES
        if self.chain_piece_env:
            return min(part, max(self.chain_piece_env, least))
        piece = CHAIN_MIN_PIECE
        if self.rules.chain_piece_rounds:
            best = math.sqrt(part * PIECE_FIT_BYTES_PER_US * PIECE_FIT_US
                             / max(1, hops))
            if best > CHAIN_MIN_PIECE:
                piece = max(1, round(best / CHAIN_ROUND)) * CHAIN_ROUND
        elif self.rules.chain_sqrt_pieces:
            piece = max(piece, math.sqrt(part * CHAIN_WG_BYTES_PER_US
                                         * CHAIN_PIECE_US / max(1, hops)))
        return min(part, max(piece, least))

    def bcast_chain(self, S):
        """The chain (by size from 8606ebd, else SYMM_BROADCAST_ALGO=chain):
        one launch per chunk of the scratch; each workgroup forwards its part
        of the chunk in k pieces of p bytes, one after another, and the last
        rank gets the last piece n - 2 stages after the second: k + n - 2
        stages of c + p / b (c a piece's wait, fence and flag, b a
        workgroup's store rate) or, where the links carrying the chunk once
        take longer, of link(chunk) / k: the fill and the drain cost n - 2
        stages in every launch either way (on 4 H100s a 1 GB broadcast, four
        launches of 16 pieces, took 3327 us, 18/16 of the links' 2958). Fitted to the forced chain on 4 H200s (16 KiB pieces)
        from 4 MB to 1 GB. Small calls take fewer us per stage than c (one
        piece, nothing to pipeline): the formula is for large ones.

        (A pipelined binary tree, proposed before this fit, is gone: in these
        terms its inner ranks store each piece into two children, so a stage
        costs c + 2 p / b and the links carry the chunk twice; on 4 and 8
        GPUs it lost at every size to the chain, the root's stores or the
        scatter, but at 2 MB on 4 (29.7 against the chain's 30.0 us).)"""
        n = self.n
        if n < 2:
            return self.o + hbm(2 * S)

        cycles = self.rules.chain_one_launch and S > SCRATCH

        def chunk(c):
            part = c / self.grid(c)
            p = self.chain_piece(part, n - 2, cycles)
            k = math.ceil(part / p)
            # Where the links bound a stage, the chunk's k pieces still take
            # k + n - 2 stages: the chain fills and drains in every launch.
            return self.o + (k + n - 2) * max(self.chain_stage(p),
                                              link(c) / k)
        # Above the scratch, one launch (Rules.chain_one_launch): the chain
        # fills and drains once.
        return chunk(S) if cycles else chunked(S, SCRATCH, chunk)

    def ce_chunk(self, S, stages=1):
        """A copy-engine call's chunk and chunk count for S bytes
        (CopyEngine.cpp, chunkBytes): C = sqrt(S k g / ((n - 2) / B + 2 / H))
        with k chunks a round (the broadcast 1, the ring n - 1), the least of
        T(C) below, within CE_MIN_CHUNK and a slot (Rules.ce_chunk, or
        SYMM_COLLECTIVES_CE_CHUNK), then evened out over the
        chunks."""
        per_byte = max(0, self.n - 2) / CE_BYTES_PER_US + 2 / HBM_BYTES_PER_US
        cap = self.ce_cap
        c = min(max(math.sqrt(S * stages * CE_GAP_US / per_byte), CE_MIN_CHUNK),
                cap)
        k = -(-S // int(c))
        return min(cap, -(-(-(-S // k)) // VECTOR) * VECTOR), k

    def bcast_fan(self, S):
        """The fan (SYMM_BROADCAST_ALGO=fan; by size on 3 ranks from 16 MB):
        the chain's pieces in two hops, the root into the part's owner and
        the owner into the n - 2 others: k + 1 stages of c + p / b or of
        link(chunk) / k (the root's links carry the chunk once). On 3 ranks
        the chain's formula; what the fan changes there (each rank forwards
        half the buffer, where the chain's second rank forwarded all of it)
        has no term. On 4 H100s it runs 1.09x this (0.92-1.39), slower than
        the chain where the model puts it ahead (fewer stages); with the
        owner's stage c + (n - 2) p / b instead (its workgroup stores each
        piece n - 2 times) it ran 0.81x (0.59-1.17), and 256 or 512
        workgroups did not speed it up: neither term explains it
        (docs/Collectives.md)."""
        n = self.n
        if n < 3:
            return self.bcast_chain(S)

        def chunk(c):
            part = c / self.grid(c)
            p = self.chain_piece(part, 1)
            k = math.ceil(part / p)
            return self.o + (k + 1) * max(self.chain_stage(p), link(c) / k)
        return chunked(S, SCRATCH, chunk)

    def bcast_copy_engine(self, S):
        """SYMM_BROADCAST_ALGO=copy_engine: the chain root, root + 1, ... of
        stream copies, k chunks of C bytes through the next rank's slots. The
        root sends k chunks, one stage of C / B + g each, and the last leaves
        the second rank n - 2 stages later; then the last rank copies it out
        of its slot (2 C / H). The copies out of the slots (and the root's own
        copy, 2 S / H) run on a second stream beside the copies onward. From
        a stream the host issues every operation: a forwarder's 12 per chunk
        (wait, reset, fork, copy out, join, wait, reset, copy onward, raise,
        join, acknowledge), 4 at the root or the last rank."""
        n = self.n
        if n < 2:
            return self.o + hbm(2 * S)
        c, k = self.ce_chunk(S)
        t = self.o + max((k + n - 2) * (c / CE_BYTES_PER_US + CE_GAP_US)
                         + hbm(2 * c), hbm(2 * S))
        if self.mode == "stream":
            t = max(t, (k * (12 if n > 2 else 4) + 4) * CE_ISSUE_US)
        return t

    def exchange_copy_engine(self, S):
        """SYMM_ALL_GATHER_ALGO / SYMM_ALL_TO_ALL_ALGO=copy_engine: the ring
        of stream copies, a rank's block b in r rounds of C bytes, each round
        n - 1 chunks down every link (a rank's own, then the ones it
        forwards), one stage of C / B + g each; the last chunk lands n - 2
        stages after the ring's last round starts and is copied out of its
        slot (2 C / H). Every link carries both ways at once; B is one way's
        rate alone. From a stream the host issues 4 operations per chunk
        sent, 5 per chunk received (wait, reset, fork, copy out, raise) and
        3 per forward. On 2 ranks before takeAside a round's receive held
        up the next send: two gaps a stage."""
        n, b = self.n, self.block(S)
        if n < 2:
            return self.o + hbm(2 * b)
        c, r = self.ce_chunk(b, stages=n - 1)
        gap = CE_GAP_US * (2 if n == 2 and not self.rules.ce_exchange_aside else 1)
        t = self.o + max((r * (n - 1) + n - 2) * (c / CE_BYTES_PER_US + gap)
                         + hbm(2 * c), hbm(2 * b))
        if self.mode == "stream":
            t = max(t, (r * (4 + 5 * (n - 1) + 3 * (n - 2)) + 2) * CE_ISSUE_US)
        return t

    # What the runtime chooses (by the rules of the model's code).
    def all_reduce_choice(self, S):
        r, n = self.rules, self.n
        limit = r.one_shot_max_2 if n == 2 else r.one_shot_max
        if n <= 1 or S <= limit:
            ll128 = {3: r.ll128_3, 4: r.ll128_4}.get(n)
            if ll128 is not None and ll128[0] <= S <= ll128[1]:
                return "ll128"
            if r.ll_two_shot_by_size and n >= 3:
                if self.ll_fits(S) and S * (n - 1) <= 256 * KB:
                    return "ll"
                if S <= n * (self.ll_max() // 2 // VECTOR * VECTOR):
                    return "ll_two_shot"
                return "ll128_two_shot" if self.ll128_two_shot_holds(S) else "one_shot"
            if n == 2 and r.ll128_2 is not None \
                    and r.ll128_2[0] < S <= r.ll128_2[1]:
                return "ll128"
            if n == 2 and r.ll_all_reduce_max_2 is not None \
                    and S > r.ll_all_reduce_max_2:
                return "one_shot"
            return "ll" if self.ll_fits(S) else "one_shot"
        if self.ll128_two_shot_holds(S):
            return "ll128_two_shot"
        if r.ring_min_ranks and n >= r.ring_min_ranks and (
                r.ring_min_bytes_more is None or n < 5
                or S > r.ring_min_bytes_more):
            return "ring"
        if n == 4 and r.ring_min_bytes_4 is not None and S > r.ring_min_bytes_4:
            return "ring"
        if n == 3 and r.ring_min_bytes_3 is not None and S > r.ring_min_bytes_3:
            return "ring"
        return "two_shot"

    def ll128_two_shot_holds(self, S):
        """Whether the LL128 two-shot takes a call that a flagged kernel
        would run: from 3 ranks while one launch holds it."""
        n = self.n
        return (self.rules.ll128_two_shot and n >= 3
                and S <= n * (LL128_MAX // (n - 1) // 2))

    def broadcast_choice(self, S):
        r, n = self.rules, self.n
        chain_min = CHAIN_MIN_4 if n <= 4 else (r.chain_min_more or CHAIN_MIN_MORE)
        few = r.ll_chain_max_4 is not None and n <= 4
        if few:
            chain_min = r.ll_chain_max_4
        if r.bcast_fan_3 and n == 3 and S >= 16 * MB and (
                S <= SCRATCH or not r.fan_3_in_scratch):
            return "fan"
        for ranks, lo, hi in r.ll128_chain or ():
            if n == ranks and lo <= S <= hi:
                return "ll128_chain"
        if r.ce_min_2 is not None and n == 2 and S >= r.ce_min_2:
            return "copy_engine"
        if (r.ll_chain_min and n >= 3 and S <= n * self.ll_max()
                and not (self.ll_fits(S) and S <= r.ll_chain_min)
                and not (few and S > r.ll_chain_max_4)):
            return "ll_chain"
        if r.bcast_chain and n >= 3 and S >= chain_min and not self.ll_fits(S):
            return "chain"
        if r.bcast_scatter and n >= 3 and self.block(S) >= self.direct_min:
            return "scatter_all_gather"
        return "root"

    ALGOS = {
        "all_reduce": {"ll": "ll", "one_shot": "one_shot", "two_shot": "two_shot",
                       "ring": "ring", "ll_two_shot": "ll_two_shot",
                       "ll128": "ll128", "ll128_two_shot": "ll128_two_shot",
                       "ll2_LL512K": "ll_two_shot_512k"},
        "broadcast": {"root": "bcast_root", "scatter_all_gather": "bcast_scatter",
                      "chain": "bcast_chain", "ll_chain": "bcast_ll_chain",
                      "copy_engine": "bcast_copy_engine",
                      "ll128_chain": "bcast_ll128_chain",
                      "fan": "bcast_fan"},
        "reduce_scatter": {"reduce_ll": "reduce_ll",
                           "reduce_scatter": "reduce_scatter",
                           "reduce_scatter_ring": "reduce_scatter_ring"},
    }

    def predict(self, collective, S, algo=None):
        """(algorithm, us) for a collective of S bytes (nccl-tests sizes: the
        larger buffer): `algo` if given, else the one the run's environment
        forces, else the runtime's choice."""
        algo = algo or self.forced.get(collective)
        if collective == "all_reduce":
            algo = algo or self.all_reduce_choice(S)
            if algo == "ll" and not self.ll_fits(S):
                algo = "one_shot"  # a forced ll that does not fit
            return algo, getattr(self, self.ALGOS["all_reduce"][algo])(S)
        if collective == "broadcast":
            algo = algo or self.broadcast_choice(S)
            return algo, getattr(self, self.ALGOS["broadcast"][algo])(S)
        if collective in ("all_gather", "all_to_all"):
            m = self.rules.ce_exchange_min_2
            if algo is None and m is not None and self.n == 2 and self.block(S) >= m:
                algo = "copy_engine"
            # The copy engines move an all-to-all on 2 ranks only.
            if algo == "copy_engine" and (collective == "all_gather" or self.n <= 2):
                return algo, self.exchange_copy_engine(S)
            ll = self.ll_fits(self.block(S))
            return ("exchange_ll" if ll else "exchange"), self.exchange(S)
        if collective == "reduce_scatter":
            algo = algo or self.rs_choice(S)
            if algo == "reduce_ll" and not self.ll_fits(self.block(S)):
                algo = "reduce_scatter"  # a forced ll that does not fit
            return algo, getattr(self, self.ALGOS["reduce_scatter"][algo])(S)
        raise ValueError("unknown collective " + collective)


def label(key):
    """A run's name in the table: its folder where the CSV is the folder's
    default sweep (symm.csv)."""
    return key[:-len("/symm.csv")] if key.endswith("/symm.csv") else key


def logged_rows(results):
    """Every Symm row of every logged collectives run the model represents:
    (run, n, collective, impl, mode, bytes, us, rules, forced algorithm,
    environment); and the runs it leaves out: (run, rows, reasons)."""
    rows, left_out = [], []
    for key, (n, rules, env) in RUNS.items():
        with open(os.path.join(results, key)) as f:
            mine = [r for r in csv.DictReader(f) if r["impl"].startswith("symm")]
        reasons = unmodelled(env)
        if reasons:
            left_out.append((key, len(mine), reasons))
            continue
        for r in mine:
            forced = r["impl"][len("symm_"):] if r["impl"] != "symm" else None
            rows.append((label(key), n, r["collective"], r["impl"], r.get("mode") or "stream",
                         int(r["bytes"]), float(r["us"]), rules, forced, env))
    run, name, rules, columns = FORCED_TABLE
    with open(os.path.join(results, run, name)) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            for (algo, direct_min), us in zip(columns, fields[1:]):
                impl = "symm_%s" % algo + ("" if direct_min is None else
                                          "_direct%dK" % (direct_min // KB))
                env = {} if direct_min is None else {
                    "SYMM_COLLECTIVES_DIRECT_MIN": str(direct_min)}
                rows.append((run + "/" + name, 2, "all_reduce", impl, "graph",
                             int(fields[0]), float(us), rules, algo, env))
    return rows, left_out


def size_name(b):
    return "%dG" % (b >> 30) if b >= 1 << 30 else "%dM" % (b >> 20) if b >= MB else "%dK" % (b >> 10)


def fitted_step(rows):
    """The forced ring's calls up to 64K are a launch and 2 (n - 1) steps:
    the median of (measured - o) / (2 (n - 1)) over them, per rank count
    and overall."""
    per = {}
    for _, n, coll, impl, mode, S, us, *_ in rows:
        if impl == "symm_ring" and S <= 64 * KB and n > 1:
            per.setdefault(n, []).append((us - Model(n, mode).o) / (2 * (n - 1)))
    every = sorted(x for v in per.values() for x in v)
    return per, every[len(every) // 2]


def predict_row(row, step):
    run, n, coll, impl, mode, S, us, rules, forced, env = row
    return Model(n, mode, rules, step, env).predict(coll, S, forced)


def compare(results, only=None):
    rows, left_out = logged_rows(results)
    per, step = fitted_step(rows)  # from every run, whatever `only` says
    if only:
        rows = [r for r in rows if only in r[0]]
        left_out = [r for r in left_out if only in r[0]]
    print("model: step %.1f us (the flag hop); fitted: step %.1f us (the forced"
          " ring's small calls); ratio = measured / model" % (STEP_US, step))
    for key, count, reasons in left_out:
        print("left out: %s, %d rows, under %s" % (key, count, "; ".join(reasons)))
    width = max([40] + [len(r[0]) for r in rows])
    print("%-*s %2s %-14s %-25s %-6s %5s %-18s %8s %8s %8s %6s %6s" % (
        width, "run", "n", "collective", "impl", "mode", "size", "algorithm", "model",
        "fitted", "measured", "ratio", "fitted"))
    ratios = {}
    for row in rows:
        run, n, coll, impl, mode, S, us = row[:7]
        algo, pred = predict_row(row, STEP_US)
        fit = predict_row(row, step)[1]
        r = ratios.setdefault((n, coll, algo), ([], []))
        r[0].append(us / pred)
        r[1].append(us / fit)
        print("%-*s %2d %-14s %-25s %-6s %5s %-18s %8.1f %8.1f %8.1f %6.2f %6.2f" % (
            width, run, n, coll, impl, mode, size_name(S), algo, pred, fit, us, us / pred,
            us / fit))

    def stats(r):
        g = math.exp(sum(math.log(x) for x in r) / len(r))
        return "%5.2f %5.2f %5.2f" % (g, min(r), max(r))
    print("\nmeasured / model by rank count, collective and algorithm: geometric"
          " mean, min, max (model; fitted), rows")
    for key in sorted(ratios):
        model, fit = ratios[key]
        print("  n=%d %-14s %-18s %s; %s %4d" % (*key, stats(model), stats(fit), len(model)))
    print("\nthe forced ring up to 64K, us per step beyond the launch (every run):")
    for n in sorted(per):
        print("  n=%d %.1f-%.1f us (%d rows)" % (n, min(per[n]), max(per[n]), len(per[n])))
    print("rows: %d logged Symm cases, %d predicted; %d more left out (above)" % (
        len(rows), sum(len(v[0]) for v in ratios.values()),
        sum(count for _, count, _ in left_out)))


SIZES = [8 * KB << i for i in range(18)]  # 8 KB .. 1 GB


def nccl_times(results):
    """NCCL's stream-mode times from the latest run on each rank count (2
    and 4: GPUs of one 4-GPU machine, 2026-11-26; 8: the ring run, and the
    two-shot run for the sizes from 1 MB it repeats)."""
    latest = {2: ["h200x4-collectives-final/two2.csv"],
              4: ["h200x4-collectives-final/symm.csv"],
              8: ["h200x8-collectives-vs-nccl-ring/symm.csv",
                  "h200x8-collectives-two-shot-and-workloads/symm.csv"]}
    out = {}
    for n, keys in latest.items():
        for key in keys:
            with open(os.path.join(results, key)) as f:
                for r in csv.DictReader(f):
                    if r["impl"] == "nccl" and (r.get("mode") or "stream") == "stream":
                        out.setdefault((n, r["collective"], int(r["bytes"])), float(r["us"]))
    return out


def choose(results):
    nccl = nccl_times(results)
    print("step %.1f us; model, stream mode, us per call; winner; today's choice;"
          " NCCL measured" % STEP_US)
    for coll in ("all_reduce", "broadcast"):
        algos = list(Model.ALGOS[coll])
        for n in (2, 4, 8):
            m = Model(n)
            print("\n%s, %d GPUs" % (coll, n))
            print("%6s " % "size" + " ".join("%12s" % a for a in algos)
                  + " %14s %20s %8s" % ("model winner", "today", "NCCL"))
            for S in SIZES:
                t = {a: m.predict(coll, S, a)[1] for a in algos
                     if not (a == "ll" and not m.ll_fits(S))}
                best = min(t, key=t.get)
                today, tt = m.predict(coll, S)
                ref = nccl.get((n, coll, S))
                print("%6s " % size_name(S) + " ".join(
                    "%12s" % ("%.1f" % t[a] if a in t else "-") for a in algos)
                    + " %14s %20s %8s" % (best, "%s %.1f" % (today, tt),
                                          "%.1f" % ref if ref else "-"))


def main():
    global STEP_US
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?",
                    default=os.path.join(here, "..", "results"))
    ap.add_argument("--choose", action="store_true",
                    help="print each algorithm's predicted time and the winner per size")
    ap.add_argument("--run", metavar="TEXT",
                    help="compare only the runs whose name contains TEXT")
    ap.add_argument("--step", type=float,
                    help="--choose: us per dependent flag step (default: "
                    "fitted to the forced ring's small calls)")
    args = ap.parse_args()
    if args.step is not None:
        STEP_US = args.step
    # A new run must get its rules here, or the check would silently skip it.
    for run in sorted(os.listdir(args.results)):
        folder = os.path.join(args.results, run)
        if not re.match(r"h[12]00x\d", run) or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            key = run + "/" + name
            if name.endswith(".csv") and key not in RUNS and key not in NOT_RUNS:
                with open(os.path.join(folder, name)) as f:
                    if any((r.get("impl") or "").startswith("symm") for r in csv.DictReader(f)):
                        sys.exit("model.py: %s/%s is a collectives run the model has no"
                                 " rules for (add it to RUNS)" % (run, name))
    for key in RUNS:
        if not os.path.exists(os.path.join(args.results, key)):
            sys.exit("model.py: %s has no %s" % (args.results, key))
    if args.choose:
        if args.step is None:
            STEP_US = fitted_step(logged_rows(args.results)[0])[1]
        choose(args.results)
    else:
        compare(args.results, args.run)


if __name__ == "__main__":
    main()
