# SPDX-License-Identifier: Apache-2.0
"""Transfer plugin benchmark (issue 15), run by bench/run.py (`--only transfer` runs just this).

  throughput  a 1 GB file of random bytes served by nginx on 127.0.0.1 (sendfile, from the page
              cache), downloaded by the transfer plugin as a processing run of a real agentd
              (from the agent's "started" to its "ended: success" log line: spawn, download, fsync,
              rename, directory fsync), beside `curl -s -o` of the same URL to the same
              filesystem (no fsync) in the same run: five rounds, which of the two goes first alternating
              from round to round; the median of each.
              agentd runs with --proc-root on a quiet fake /proc/pressure: on a shared machine other
              work's memory pressure expires the run (expired(pressure)) otherwise.
  alone       the same plugin run directly (no agent), in the same rounds, to show what the agent adds.
  rss         the agent's RSS sampled every 50 ms during each transfer run: the largest growth over
              its RSS just before the launch.
"""
import os, shutil, statistics, subprocess, tempfile, threading, time

import run

ROUNDS = 5
SIZE = 1_000_000_000

NGINX_CONF = """daemon off;
master_process off;
user root;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 64; }}
http {{
    sendfile on;
    access_log off;
    client_body_temp_path {root}/body; proxy_temp_path {root}/proxy; fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi; scgi_temp_path {root}/scgi;
    server {{ listen 127.0.0.1:{port}; root {root}/www; }}
}}
"""


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_nginx(root):
    os.makedirs(os.path.join(root, "www"))
    with open(os.path.join(root, "www", "g1.bin"), "wb") as f:
        for _ in range(SIZE // (1 << 20)):
            f.write(os.urandom(1 << 20))
        f.write(os.urandom(SIZE % (1 << 20)))
    port = free_port()
    with open(os.path.join(root, "nginx.conf"), "w") as f:
        f.write(NGINX_CONF.format(root=root, port=port))
    proc = subprocess.Popen(["/usr/sbin/nginx", "-p", root, "-c", os.path.join(root, "nginx.conf"),
                             "-e", os.path.join(root, "error.log")])
    url = "http://127.0.0.1:%d/g1.bin" % port
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if subprocess.run(["curl", "-s", "-o", "/dev/null", "-r", "0-0", url]).returncode == 0:
            return proc, url
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("nginx did not answer on %s within 20 s" % url)


def quiet_proc(root):
    """A fake /proc with zero PSI, for --proc-root (and the real boot id, for run recovery)."""
    proc = os.path.join(root, "proc")
    os.makedirs(os.path.join(proc, "pressure"))
    os.makedirs(os.path.join(proc, "sys", "kernel", "random"))
    quiet = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    for resource in ("memory", "cpu", "io"):
        with open(os.path.join(proc, "pressure", resource), "w") as f:
            f.write(quiet)
    shutil.copy("/proc/sys/kernel/random/boot_id", os.path.join(proc, "sys", "kernel", "random", "boot_id"))
    return proc


def rss_kb(pid):
    return run.ctxt(pid)[1]


class RSSSampler:
    def __init__(self, pid):
        self.pid, self.peak, self.stop = pid, rss_kb(pid), threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.wait(0.05):
            self.peak = max(self.peak, rss_kb(self.pid))

    def finish(self):
        self.stop.set()
        self.thread.join()
        return self.peak


def bench_transfer():
    plugin = os.path.join(run.BIN, "agentd-transfer")
    if not os.access(plugin, os.X_OK):
        raise SystemExit("bench/transfer.py: %s is missing; build it with make bench (swift build -c release …)" % plugin)
    web = tempfile.mkdtemp(prefix="agentd-bench-nginx-")
    os.chmod(web, 0o755)
    nginx, url = start_nginx(web)
    sandbox = run.Sandbox(0)
    run.write_raw_job(sandbox, "transfer", "[Job]\nIdentifier=local.transfer\nKind=processing\nExec=%s %s g1.bin\n"
                      "MaxRuntime=10min\nGracePeriod=10s\n" % (plugin, url))
    agent = run.Agent(sandbox, extra=["--proc-root", quiet_proc(sandbox.root)])
    curl_times, curl_sync_times, transfer_times, alone_times, growth = [], [], [], [], []
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=60)
        run.status_answers(sandbox.socket)
        destination = os.path.join(sandbox.root, "state", "jobs", "local.transfer", "g1.bin")
        curl_out = os.path.join(sandbox.root, "curl.bin")
        def with_curl():
            start = time.monotonic()
            subprocess.run(["curl", "-s", "-o", curl_out, url], check=True)
            curl_times.append(time.monotonic() - start)
            # The same bytes made durable as the plugin makes them: curl -o then fsync.
            fd = os.open(curl_out, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)
            curl_sync_times.append(time.monotonic() - start)
            os.unlink(curl_out)

        def alone():
            out = os.path.join(sandbox.root, "alone.bin")
            start = time.monotonic()
            subprocess.run([plugin, url, out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            alone_times.append(time.monotonic() - start)
            os.unlink(out)

        def with_agent(cursor):
            before = rss_kb(agent.proc.pid)
            sampler = RSSSampler(agent.proc.pid)
            run.request_many(sandbox.socket, [b'{"command":"simulate-launch","target":"local.transfer"}'])
            started, cursor = agent.wait_for(r"of local\.transfer started", start=cursor)
            ended, cursor = agent.wait_for(r"of local\.transfer ended: ", start=cursor, timeout=600)
            peak = sampler.finish()
            if "ended: success" not in ended.string:
                raise RuntimeError("the transfer run did not succeed: %s" % ended.string.strip())
            if os.path.getsize(destination) != SIZE:
                raise RuntimeError("%s is %d bytes, not %d" % (destination, os.path.getsize(destination), SIZE))
            transfer_times.append(run.mono_of(ended.string) - run.mono_of(started.string))
            growth.append(peak - before)
            os.unlink(destination)
            return cursor

        for round in range(ROUNDS):
            # Which goes first alternates: neither always inherits the other's writeback.
            if round % 2 == 0:
                with_curl()
                cursor = with_agent(cursor)
                alone()
            else:
                alone()
                cursor = with_agent(cursor)
                with_curl()
    finally:
        agent.stop()
        sandbox.cleanup()
        nginx.kill()
        nginx.wait()
        shutil.rmtree(web, ignore_errors=True)
    return curl_times, curl_sync_times, transfer_times, alone_times, growth


def markdown(curl_times, curl_sync_times, transfer_times, alone_times, growth, load):
    curl_rate = SIZE / statistics.median(curl_times) / 1e6
    transfer_rate = SIZE / statistics.median(transfer_times) / 1e6
    ratio = transfer_rate / curl_rate
    worst = max(growth) / 1024.0
    lines = [
        "## Transfer plugin (issue 15; targets: a local 1 GB download ≥ 0.8× `curl -o`, agent RSS growth < 2 MB)",
        "",
        "A 1 GB file from nginx on 127.0.0.1 (sendfile, page cache): the transfer plugin as a processing run",
        "of agentd (spawn to end: download, fsync, rename, directory fsync) beside `curl -s -o` of the same",
        "URL to the same filesystem (which does not fsync), %d rounds (which goes first alternating), medians;"
        % ROUNDS,
        "agentd on a quiet fake `/proc/pressure` (`--proc-root`): on this shared machine, other sessions' memory",
        "pressure expired the run (`expired(pressure)`) otherwise. `bench/run.py --only transfer` (bench/transfer.py).",
        "",
        "| | median | rounds | throughput |",
        "| --- | --- | --- | --- |",
        "| `curl -o` | %.2f s | %s | %.0f MB/s |" % (statistics.median(curl_times), ", ".join("%.2f" % t for t in curl_times), curl_rate),
        "| `curl -o`, then fsync of the file | %.2f s | %s | %.0f MB/s |" % (statistics.median(curl_sync_times), ", ".join("%.2f" % t for t in curl_sync_times), SIZE / statistics.median(curl_sync_times) / 1e6),
        "| the plugin alone (no agent) | %.2f s | %s | %.0f MB/s |" % (statistics.median(alone_times), ", ".join("%.2f" % t for t in alone_times), SIZE / statistics.median(alone_times) / 1e6),
        "| transfer under agentd | %.2f s | %s | %.0f MB/s |" % (statistics.median(transfer_times), ", ".join("%.2f" % t for t in transfer_times), transfer_rate),
        "",
        "Throughput %.2f× `curl -o` (target ≥ 0.8×: %s); %.2f× `curl -o` followed by an fsync, which writes"
        % (ratio, "met" if ratio >= 0.8 else "NOT met", statistics.median(curl_sync_times) / statistics.median(transfer_times)),
        "the same bytes to disk as the plugin does before its rename (`curl -o` alone leaves them in the page",
        "cache, and the file is deleted before writeback). Round by round, transfer under agentd ÷ `curl -o` of",
        "the same round: %s (best %.2f×)." % (", ".join("%.2f×" % (c / t) for c, t in zip(curl_times, transfer_times)),
                                            max(c / t for c, t in zip(curl_times, transfer_times))),
        "Agent RSS growth during a transfer: at most %.2f MB" % worst,
        "(rounds: %s MB; target < 2 MB: %s)." % (", ".join("%.2f" % (g / 1024.0) for g in growth),
                                               "met" if worst < 2 else "NOT met"),
        "Load average at the start: %s; the 2-core machine was shared with other sessions' builds and tests," % load,
        "so the rounds spread widely.",
        "",
    ]
    return "\n".join(lines)


def main():
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    curl_times, curl_sync_times, transfer_times, alone_times, growth = bench_transfer()
    print("1 GB: curl -o %s s; curl -o + fsync %s s; plugin alone %s s; transfer under agentd %s s; agent RSS growth %s kB"
          % (curl_times, curl_sync_times, alone_times, transfer_times, growth), flush=True)
    return markdown(curl_times, curl_sync_times, transfer_times, alone_times, growth, load)


if __name__ == "__main__":
    print(main())
