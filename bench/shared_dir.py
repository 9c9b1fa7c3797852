#!/usr/bin/env python3
"""Two `ontomem serve` processes on one data directory for 30 s: one takes feedback writes (the
foreign writer), the other answers searches from 4 threads. Prints searches, latency and the
searching server's RSS before and after. Usage, from the repo root:
  python3 bench/shared_dir.py [--writes 0|1] [--seconds 30] [--turns 2000]
"""
import argparse, json, os, shutil, statistics, subprocess, tempfile, threading, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default="build/bin/ontomem")
ap.add_argument("--writes", type=int, default=1)
ap.add_argument("--seconds", type=float, default=30)
ap.add_argument("--turns", type=int, default=2000)
args = ap.parse_args()
work = tempfile.mkdtemp(prefix="ontomem-shared-")
data, keys = os.path.join(work, "data"), os.path.join(work, "keys")
key = subprocess.run([args.bin, "keys", "add", "--keys", keys, "acme"], capture_output=True, text=True,
                     check=True).stdout.strip().splitlines()[-1]
with open(os.path.join(work, "u.jsonl"), "w") as f:
    for i in range(args.turns):
        f.write(json.dumps({"id": f"t{i}", "speaker": "Ana", "session": f"s{i // 20}",
                            "text": f"On day {i} I talked about jazz records, hiking trail {i % 37} and my sister's cooking"}) + "\n")
subprocess.run([args.bin, "ingest", "--data", data, "--tenant", "acme", "--user", "ana", os.path.join(work, "u.jsonl")],
               check=True, stdout=subprocess.DEVNULL)

def serve(port):
    return subprocess.Popen([args.bin, "serve", "--data", data, "--keys", keys, "--host", "127.0.0.1", "--port", str(port),
                             "--rate-per-sec", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def req(port, path, body):
    r = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                               headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=30) as f:
        return json.loads(f.read() or b"{}")

def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) // 1024 for l in f if l.startswith("VmRSS"))

reader_port, writer_port = 18731, 18732
servers = [serve(reader_port), serve(writer_port)]
try:
    for p in (reader_port, writer_port):
        for _ in range(400):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{p}/healthz", timeout=1)
                break
            except Exception:
                time.sleep(0.05)
    req(reader_port, "/v1/users/ana/search", {"query": "jazz", "k": 10})
    start_rss = rss_mb(servers[0].pid)
    stop = time.time() + args.seconds
    lat, writes = [], [0]

    def writer():
        while time.time() < stop:
            req(writer_port, "/v1/users/ana/feedback", {"query_id": f"q{writes[0]}", "used": ["t1"]})
            writes[0] += 1

    def reader():
        while time.time() < stop:
            t0 = time.time()
            req(reader_port, "/v1/users/ana/search", {"query": "what music do I like", "k": 10, "method": "dense"})
            lat.append((time.time() - t0) * 1000)

    threads = ([threading.Thread(target=writer)] if args.writes else []) + [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lat.sort()
    print(f"foreign writes {writes[0]}, searches {len(lat)}, p50 {statistics.median(lat):.2f} ms, "
          f"p95 {lat[int(len(lat) * 0.95)]:.2f} ms, searching server RSS {start_rss} -> {rss_mb(servers[0].pid)} MB")
finally:
    for s in servers:
        s.terminate()
        s.wait()
    shutil.rmtree(work, ignore_errors=True)
