"""How fast the browser report is made and opens, and how much memory a huge folder costs.

    python bench/bench_report.py                 # 10^6-game sweep file, 10^7-game folder
    python bench/bench_report.py --folder-games 100000000   # the 10^8-game folder (about 15 min to sweep)

Figures (printed as a table, with the machine):
- building the report of a 10^6-game sweep file with 100 picked games, against reading the
  same file whole with pyarrow (the floor any report pays) in the same run;
- the page's size, and the time headless Chromium takes from navigation to
  ``window.fastsnake.ready`` (the page is interactive then), median of 5 loads;
- the report of a sweep folder, made in a child process: its wall time and peak RSS against
  a child that loads numba, pyarrow and one policy by playing one game (the fixed cost).
The sweeps themselves are excluded from every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = """
import json, sys, time
import fastsnake
t0 = time.perf_counter()
if sys.argv[1] != "-":
    info = fastsnake.report(sys.argv[1], sys.argv[2], worst=30, best=30, died=20, random=20)
else:  # the fixed cost: numba, pyarrow and one policy's kernels loaded
    import pyarrow.parquet
    fastsnake.play("cycle", 4)
    info = {}
info["wall"] = time.perf_counter() - t0
# VmHWM, not ru_maxrss: Linux carries a parent's peak RSS over exec into ru_maxrss.
info["peak_rss_mb"] = next(int(line.split()[1]) for line in open("/proc/self/status")
                           if line.startswith("VmHWM:")) / 1024
print(json.dumps(info))
"""


def child(args):
    run = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def page_ready_seconds(path, loads=5):
    from playwright.sync_api import sync_playwright

    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--no-first-run"]
    times = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=flags)
        for _ in range(loads):
            page = browser.new_page()
            t0 = time.perf_counter()
            page.goto(f"file://{os.path.abspath(path)}")
            page.wait_for_function("window.fastsnake && window.fastsnake.ready === true")
            times.append(time.perf_counter() - t0)
            page.close()
        browser.close()
    return statistics.median(times), min(times), max(times)


def big_game_seconds(work):
    """(moves, page MB, seconds to rebuild, median/max seconds a seek) of a 256x256 game of 10^6 moves."""
    import random

    from playwright.sync_api import sync_playwright

    import fastsnake

    npz = os.path.join(work, "big-game.npz")
    game = fastsnake.play("cycle", 256, seed=1, max_moves=1_000_000)  # ends "stuck" at the cap
    game.save(npz)
    page_path = os.path.join(work, "big-game.html")
    info = fastsnake.report(npz, page_path)
    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--no-first-run"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=flags)
        page = browser.new_page()
        page.goto(f"file://{os.path.abspath(page_path)}")
        page.wait_for_function("window.fastsnake && window.fastsnake.ready === true")
        rebuild = page.evaluate("() => { const t = performance.now(); window.fastsnake.open(0); "
                                "return (performance.now() - t) / 1000; }")
        rng = random.Random(1)
        seeks = [page.evaluate("k => { const t = performance.now(); window.fastsnake.seek(k); "
                               "return (performance.now() - t) / 1000; }", rng.randrange(len(game.moves) + 1))
                 for _ in range(50)]
        browser.close()
    return len(game.moves), info["bytes"] / 1e6, rebuild, statistics.median(seeks), max(seeks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games of the sweep file (default 10^6)")
    parser.add_argument("--folder-games", type=int, default=10_000_000, help="games of the sweep folder")
    parser.add_argument("--keep", help="folder to keep the files in (default: a temporary one)")
    args = parser.parse_args()

    import pyarrow.parquet as pq

    import fastsnake
    from fastsnake.machine import describe

    work = args.keep or tempfile.mkdtemp(prefix="bench-report-")
    os.makedirs(work, exist_ok=True)
    sweep = os.path.join(work, "sweep.parquet")
    if not os.path.exists(sweep):
        fastsnake.sweep("cycle", 10, args.games, out=sweep)
    out = os.path.join(work, "sweep.html")

    t0 = time.perf_counter()
    pq.read_table(sweep)
    floor = time.perf_counter() - t0
    fastsnake.report(sweep, out, worst=1, best=1, died=0, random=1, sample=1)  # warm: replay kernels compiled
    t0 = time.perf_counter()
    info = fastsnake.report(sweep, out, worst=30, best=30, died=20, random=40)
    build = time.perf_counter() - t0
    ready = page_ready_seconds(out)

    folder = os.path.join(work, "folder")
    if not os.path.exists(folder):
        fastsnake.sweep("cycle", 4, args.folder_games, out=folder, chunk_size=1_000_000)
    base = child(["-", "-"])
    big = child([folder, os.path.join(work, "folder.html")])

    print(f"machine: {describe()}")
    print(f"{'figure':58s} {'value':>14s}")
    print(f"{'report of ' + f'{args.games:,}' + '-game file, ' + str(info['picked']) + ' picked games (s)':58s} "
          f"{build:14.2f}")
    print(f"{'  pyarrow reading the same file whole, same run (s)':58s} {floor:14.2f}")
    print(f"{'  ratio report / read':58s} {build / floor:14.1f}")
    print(f"{'  games in it, as the report counts them':58s} {info['games']:14,}")
    print(f"{'  page size (MB)':58s} {info['bytes'] / 1e6:14.2f}")
    print(f"{'  headless Chromium: navigation to ready, median of 5 (s)':58s} {ready[0]:14.2f}")
    moves, mb, rebuild, seek_median, seek_max = big_game_seconds(work)
    print(f"{'256x256 game of ' + f'{moves:,}' + ' moves: page size (MB)':58s} {mb:14.2f}")
    print(f"{'  rebuilt in the page under the rules (s)':58s} {rebuild:14.3f}")
    print(f"{'  one seek to a random move, median / max of 50 (ms)':58s} "
          f"{seek_median * 1e3:7.1f} /{seek_max * 1e3:5.1f}")
    print(f"{'report of ' + f'{args.folder_games:,}' + '-game folder, child process (s)':58s} {big['wall']:14.1f}")
    print(f"{'  its peak RSS (MB)':58s} {big['peak_rss_mb']:14.0f}")
    print(f"{'  a child that plays one game: peak RSS (MB)':58s} {base['peak_rss_mb']:14.0f}")
    print(f"{'  page size (MB)':58s} {big['bytes'] / 1e6:14.2f}")


if __name__ == "__main__":
    main()
