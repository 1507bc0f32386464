#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes packaging/agentd.order: the functions the shipped agentd runs, for the release link to
lay out together (lld --symbol-ordering-file; see MEMORY_FLAGS in the Makefile).

Why: the kernel maps a binary's text into a process in 64 KB (and larger, page-cache folio)
blocks around each page it touches. agentd's start-up and idle code was spread over the 10 MB of
text (its own code, the Swift runtime's, FoundationEssentials'), so touching 0.9 MB of
functions made 6.5 MB of text resident. Laid out together, they fill few blocks.

How: agentd from the current release build (`make order-file` builds it first) runs under
callgrind in a bench sandbox, twice: (1) start-up with 100 jobs until `status` answers — the
functions of the idle agent, listed first; (2) the same, then launches, `list` and a reload —
the hot paths of the benchmarks, listed after. Names are mapped to the binary's symbols, and a
name is left out when one of its definitions lies in an input section of 200 KB or more (the
Swift standard library, _RegexParser, _StringProcessing are each one section; a local helper
of the same name would drag all of it into the ordered region). The link map comes from a
relink with -Map.

Then the .bss variables the idle agent wrote (read back from /proc/PID/mem of the real agent at
idle), so that they share a few pages, and the read-only data it reads (.rodata, every load
traced by valgrind's lackey): scattered, its 64 KB blocks kept 0.97 MB of the 1.9 MB resident.
And the functions on every text page the real agent touched (a copy on tmpfs, read through
/proc/PID/pagemap): callgrind does not report all the agent runs. valgrind cannot run the
spawn (clone with CLONE_VM and CLONE_PIDFD): when the hot scenario fails for that, what the idle agent does not run keeps the
place the previous file gave it.

Usage: python3 bench/order_file.py RELEASE_FLAGS...   (run by `make order-file`)
"""
import bisect, collections, os, re, shutil, socket, subprocess, sys, tempfile, threading, time

import run

ROOT = run.ROOT
ORDER = os.path.join(ROOT, "packaging", "agentd.order")
BIG_SECTION = 200_000


def callgrind(binary_dir, out, scenario):
    sandbox = run.Sandbox(100, interval="none")
    run.write_raw_job(sandbox, "true", "[Job]\nIdentifier=local.true\nKind=continued\nExec=/bin/true\nProgressTimeout=1h\n")
    old_bin = run.BIN
    run.BIN = binary_dir
    agent = run.Agent(sandbox, wrapper=["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out])
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=300)
        while not run.status_answers(sandbox.socket):
            time.sleep(0.05)
        if scenario == "idle":
            # What the idle agent runs after its first answer too: its settling timers, a follower
            # (`agentctl watch` and `submit --wait` subscribe) and a second `status`.
            time.sleep(3)
            follower = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            follower.connect(sandbox.socket)
            follower.sendall(b'{"command":"subscribe"}\n')
            follower.recv(4096)
            run.status_answers(sandbox.socket)
            follower.close()
        if scenario == "hot":
            answers = run.request_many(sandbox.socket, [b'{"command":"simulate-launch","target":"local.true"}'] * 20)
            assert all(a.get("ok") for a in answers), answers[:3]
            for _ in range(20):
                m, cursor = agent.wait_for(r"of local\.true ended|Unsupported clone\(\) flags", start=cursor, timeout=120)
                if "Unsupported clone" in m.group(0):
                    raise RuntimeError("valgrind: " + m.string.strip())
            run.request_many(sandbox.socket, [b'{"command":"list"}'])
            temp = os.path.join(sandbox.jobs, ".new.job.tmp")
            sandbox.write_job(temp, "new")
            os.rename(temp, os.path.join(sandbox.jobs, "new.job"))
            agent.wait_for(r"registered local\.new\b", start=cursor, timeout=120)
            run.status_answers(sandbox.socket)
    finally:
        run.BIN = old_bin
        agent.proc.send_signal(2)
        agent.proc.wait(timeout=120)
        sandbox.cleanup()


def written_bss(binary_dir, binary):
    """Names of the .bss variables the idle agent has written, in address order: the real agent
    (no valgrind) is started to idle with 100 jobs and has answered `status`; a variable whose bytes
    are no longer all zero was written (lazy metadata and witness-table caches, once-tokens). Laid
    out together, they dirty a few pages instead of one page each wherever they fell (issue 17)."""
    variables = []
    for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "bB":
            variables.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    sandbox = run.Sandbox(100, interval="none")
    old_bin = run.BIN
    run.BIN = binary_dir
    agent = run.Agent(sandbox)
    try:
        agent.wait_for(r"ready:", timeout=120)
        if not run.status_answers(sandbox.socket):
            raise RuntimeError("agentd did not answer status")
        pid = agent.proc.pid
        real = os.path.realpath(os.path.join(binary_dir, "agentd"))
        base = None
        for line in open("/proc/%d/maps" % pid):
            parts = line.split()
            if len(parts) >= 6 and os.path.realpath(parts[5]) == real and int(parts[2], 16) == 0:
                base = int(parts[0].split("-")[0], 16)
                break
        if base is None:
            raise RuntimeError("agentd's first mapping not found in /proc/%d/maps" % pid)
        written = []
        with open("/proc/%d/mem" % pid, "rb") as memory:
            for address, size, name in sorted(variables):
                memory.seek(base + address)
                if any(memory.read(size)):
                    written.append(name)
        return written
    finally:
        run.BIN = old_bin
        agent.stop()
        sandbox.cleanup()


def read_rodata(binary_dir, binary):
    """Names of the .rodata symbols the idle agent reads, in address order: agentd under valgrind's
    lackey (every load traced, through a FIFO read here as it comes) is started to idle with 100
    jobs and answers `status`. Only symbols in input sections of their own move (the C and C++
    tables, Swift code built with a section per symbol); the rest stays where its section is."""
    sections = {}
    for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m:
            sections[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    low, size = sections[".rodata"]
    symbols = []
    for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and low <= int(parts[0], 16) < low + size:
            symbols.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    symbols.sort()
    starts = [address for address, _, _ in symbols]
    with tempfile.TemporaryDirectory(prefix="agentd-lackey-") as work:
        fifo = os.path.join(work, "trace")
        os.mkfifo(fifo)
        loads = set()

        def collect():
            with open(fifo, "rb", buffering=1 << 20) as trace:
                for line in trace:
                    if line[:2] in (b" L", b" M"):
                        comma = line.find(b",")
                        if comma > 3:
                            loads.add(int(line[3:comma], 16))

        reader = threading.Thread(target=collect)
        reader.start()
        sandbox = run.Sandbox(100, interval="none")
        old_bin = run.BIN
        run.BIN = binary_dir
        agent = run.Agent(sandbox, wrapper=["valgrind", "--tool=lackey", "--trace-mem=yes", "--log-file=" + fifo])
        base = None
        try:
            agent.wait_for(r"ready:", timeout=600)
            while not run.status_answers(sandbox.socket):
                time.sleep(0.2)
            real = os.path.realpath(os.path.join(binary_dir, "agentd"))
            for line in open("/proc/%d/maps" % agent.proc.pid):
                parts = line.split()
                if len(parts) >= 6 and os.path.realpath(parts[5]) == real and int(parts[2], 16) == 0:
                    base = int(parts[0].split("-")[0], 16)
                    break
        finally:
            run.BIN = old_bin
            agent.proc.send_signal(2)
            agent.proc.wait(timeout=300)
            sandbox.cleanup()
            reader.join()
    if base is None:
        raise RuntimeError("agentd's first mapping not found under valgrind")
    names = []
    for address in sorted({load - base for load in loads if low <= load - base < low + size}):
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0:
            start, length, name = symbols[index]
            if start <= address < start + max(length, 1) and (not names or names[-1] != name):
                names.append(name)
    return names


def touched_text(binary_dir):
    """Names of the functions on the text pages the real agent (no valgrind) has touched once it is
    idle with 100 jobs and has answered `status`, in address order. callgrind misses some of what the
    real agent runs (value witnesses, closures, the paths a bus or an installed group takes), and each
    missed function made its 64 KB block of text resident. The agent runs from a copy on tmpfs and
    /proc/PID/pagemap shows the pages mapped; every function on such a page is listed (a page holds
    many small ones). tmpfs faults around too (measured on 5 December: touching one page of a cached
    file maps 16, on tmpfs as on ext4), so this is the 64 KB around each page the agent ran, not
    exactly what it ran: BENCHMARKS.md ("Issue 32 targets over repeated runs") says what an exact
    list did to the resident pages."""
    with tempfile.TemporaryDirectory(prefix="agentd-touched-", dir="/dev/shm") as copy:
        for name in ("agentd", "agentctl"):
            shutil.copy2(os.path.join(binary_dir, name), copy)
        binary = os.path.join(copy, "agentd")
        functions = []
        for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tTwW":
                functions.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
        functions.sort()
        sandbox = run.Sandbox(100, interval="none")
        old_bin = run.BIN
        run.BIN = copy
        agent = run.Agent(sandbox, wrapper=run.as_installed(sandbox))
        try:
            agent.wait_for(r"ready:", timeout=120)
            if not run.status_answers(sandbox.socket):
                raise RuntimeError("agentd did not answer status")
            pages = resident_text_pages(agent.proc.pid, binary)
        finally:
            run.BIN = old_bin
            agent.stop()
            sandbox.cleanup()
    return [name for address, size, name in functions
            if any(page in pages for page in range(address // 4096, (address + max(size, 1) - 1) // 4096 + 1))]


def resident_text_pages(pid, binary):
    """The binary's virtual page numbers (link addresses ÷ 4 KiB) resident in `pid`'s text mapping."""
    real = os.path.realpath(binary)
    maps = [line.split() for line in open("/proc/%d/maps" % pid)]
    mine = [m for m in maps if len(m) >= 6 and os.path.realpath(m[5]) == real]
    base = next(int(m[0].split("-")[0], 16) for m in mine if int(m[2], 16) == 0)
    pages = set()
    with open("/proc/%d/pagemap" % pid, "rb") as pagemap:
        for m in mine:
            if m[1] != "r-xp":
                continue
            low, high = (int(x, 16) for x in m[0].split("-"))
            pagemap.seek(low // 4096 * 8)
            entries = pagemap.read((high - low) // 4096 * 8)
            for i in range((high - low) // 4096):
                if (int.from_bytes(entries[i * 8:i * 8 + 8], "little") >> 63) & 1:
                    pages.add((low - base) // 4096 + i)
    return pages


def executed_addresses(binary, profile):
    """Start addresses of the functions in `binary` that the callgrind profile saw run."""
    report = subprocess.run(["callgrind_annotate", "--threshold=100", profile], capture_output=True,
                            text=True, check=True).stdout
    names = set()
    for line in report.splitlines():
        m = re.match(r"\s*[\d,]+ \([^)]*\)\s+\S*?:(.*) \[(.*)\]$", line)
        if m and m.group(2) == binary:
            names.add(re.sub(r"'\d+$", "", m.group(1)))
    addresses = set()
    for flags in ([], ["-C"]):
        for line in subprocess.run(["nm", "--defined-only"] + flags + [binary], capture_output=True,
                                   text=True, check=True).stdout.splitlines():
            parts = line.split(None, 2)
            if len(parts) == 3 and parts[1] in "tTwW" and parts[2] in names:
                addresses.add(int(parts[0], 16))
    return addresses


def symbols_at(binary):
    at = collections.defaultdict(list)
    for line in subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            at[int(parts[0], 16)].append(parts[2])
    return at


def big_section_symbols(link_map):
    """Names defined in an input section of BIG_SECTION bytes or more (lld's -Map layout: input
    sections indented 9 columns past the size fields, their symbols deeper)."""
    names, size = set(), 0
    for line in open(link_map, errors="replace"):
        m = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+(\s+)(.*)$", line)
        if not m:
            continue
        if len(m.group(2)) == 9:
            size = int(m.group(1), 16)
        elif len(m.group(2)) > 9 and size >= BIG_SECTION:
            names.add(m.group(3))
    return names


def main(release_flags):
    build_dir = os.path.join(ROOT, ".build-static", "release")
    with tempfile.TemporaryDirectory(prefix="agentd-order-") as work:
        link_map = os.path.join(work, "agentd.map")
        subprocess.run(["swift", "build", "--product", "agentd"] + release_flags
                       + ["-Xlinker", "-Map=" + link_map], cwd=ROOT, check=True)
        # valgrind 3.19 cannot read the DWARF 5 the toolchain writes: profile a copy without it.
        binary = os.path.join(work, "agentd")
        subprocess.run(["objcopy", "--strip-debug", os.path.join(build_dir, "agentd"), binary], check=True)
        idle, hot = os.path.join(work, "idle.out"), os.path.join(work, "hot.out")
        callgrind(work, idle, "idle")
        profiles = [idle]
        try:
            callgrind(work, hot, "hot")
            profiles.append(hot)
        except (TimeoutError, RuntimeError) as failure:
            # valgrind refuses the spawn's clone(CLONE_VM | CLONE_PIDFD) ("Unsupported clone()
            # flags"), so no run can start under it: the hot paths keep the place the previous
            # order file gave them, after the idle agent's functions (what resident memory needs).
            print("order-file: the hot scenario cannot run under valgrind (%s); keeping the previous "
                  "file's order for what the idle agent does not run" % str(failure).splitlines()[0])
        at = symbols_at(binary)
        big = big_section_symbols(link_map)
        order, seen = [], set()
        for profile in profiles:
            for address in sorted(executed_addresses(binary, profile)):
                for name in at[address]:
                    if name not in seen and name not in big:
                        seen.add(name)
                        order.append(name)
        # What the real agent touched that callgrind did not see (after the idle functions, before
        # the hot paths: the pages an idle agent keeps).
        for name in touched_text(build_dir):
            if name not in seen and name not in big:
                seen.add(name)
                order.append(name)
        # Data: the .bss variables the idle agent wrote (the same binary, run without valgrind; its
        # symbols keep their names across the relink).
        for name in written_bss(build_dir, os.path.join(build_dir, "agentd")):
            if name not in seen and name not in big:
                seen.add(name)
                order.append(name)
        # Read-only data the idle agent reads (the stripped copy under lackey: same layout).
        for name in read_rodata(work, binary):
            if name not in seen and name not in big:
                seen.add(name)
                order.append(name)
        if len(profiles) == 1 and os.path.exists(ORDER):
            defined = {name for names in at.values() for name in names}
            for name in open(ORDER).read().split():
                if name not in seen and name in defined and name not in big:
                    seen.add(name)
                    order.append(name)
    with open(ORDER, "w") as f:
        f.write("\n".join(order) + "\n")
    print("%s: %d symbols" % (ORDER, len(order)))
    # SwiftPM does not know the link reads the order file: relink so the build uses the new one.
    os.remove(os.path.join(build_dir, "agentd"))
    subprocess.run(["swift", "build", "--product", "agentd"] + release_flags, cwd=ROOT, check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
