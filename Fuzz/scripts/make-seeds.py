#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes Fuzz/corpus/TARGET/ seed files from the repository's test cases and examples.

Run from the repository root; rerunning rewrites the seeds (libFuzzer's own finds live in the
cache, not here). String literals are taken from the unit tests of each parser, so a new test
case becomes a seed the next time this runs."""
import glob, hashlib, os, re, struct

ROOT = os.getcwd()
OUT = os.path.join(ROOT, "Fuzz", "corpus")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def literals(pattern, near=None):
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
        for line in open(path, encoding="utf-8"):
            if near and not re.search(near, line):
                continue
            for text in LITERAL.findall(line):
                if "\\(" in text:
                    continue
                text = text.replace('\\"', '"').replace("\\\\", "\\").replace("\\n", "\n").replace("\\t", "\t")
                found.append(text.encode())
    return found


def write(target, items, limit=60):
    directory = os.path.join(OUT, target)
    os.makedirs(directory, exist_ok=True)
    unique = []
    for item in items:
        if item not in unique:
            unique.append(item)
    for item in unique[:limit]:
        name = hashlib.sha1(item).hexdigest()[:16]
        with open(os.path.join(directory, name), "wb") as f:
            f.write(item)


def files(pattern):
    return [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))
            if os.path.isfile(p)]


config = files("etc/**/*.job") + files("etc/**/*.conf") + files("etc/**/*.manifest") + files("etc/agentd/jobs.d/*")
config += [t for t in literals("Tests/AgentCoreTests/**/*.swift") if t.startswith(b"[") or b"# agentd:" in t]
config += [b"[Job]\nExec=/usr/lib/agentd/plugins/x\nKind=refresh\nInterval=1h\n",
           b"#!/bin/sh\n# agentd: Kind=maintenance Interval=1d\necho hi\n",
           b"[Agent]\nMaxConcurrent=2\n[Thermal]\n", b"[Manifest]\nPermitted=com.example.*\nBackgroundModes=refresh\n",
           b"[Job]\nExec=/x \\\n  a b\n"]
write("config", config)

write("exec-line", literals("Tests/AgentCoreTests/ExecLineTests.swift"))
write("time-span", literals("Tests/AgentCoreTests/TimeSpanTests.swift") + [b"1h 30min", b"1.5h", b"500ms", b"1y 2M 3w"])
write("calendar", literals("Tests/AgentCoreTests/Calendar/*.swift", near=r"parse|Schedule|\(\"|, \""))

directives = literals("Tests/AgentCoreTests/Run/ProgressLineTests.swift")
directives += [b"PROGRESS=1/2\nTITLE=x\r\nCHECKPOINT=abc\nSUBTITLE=s\nSTATUS=ok\nlog line\n",
               b"PROGRESS=50%\n" * 3, b"x" * 100 + b"\n\xe2\x82\xac" * 20, b"PROGRESS=9223372036854775807/9223372036854775807\n"]
write("directive", directives)

uevents = [b"change@/devices/LNXSYSTM:00/AC\0ACTION=change\0DEVPATH=/devices/LNXSYSTM:00/AC\0SUBSYSTEM=power_supply\0POWER_SUPPLY_ONLINE=1\0",
           b"add@/devices/virtual/thermal/thermal_zone0\0ACTION=add\0SUBSYSTEM=thermal\0",
           b"remove@/devices/x\0SUBSYSTEM=net\0INTERFACE=eth0\0SEQNUM=12\0",
           b"libudev\0\xfe\xed\xca\xfe", b"change@/devices/BAT0\0\0POWER_SUPPLY_CAPACITY=15\0POWER_SUPPLY_STATUS=Discharging\0"]
for subsystem, props in [("power_supply", "POWER_SUPPLY_ONLINE=0"), ("thermal", "TEMP=90000"),
                         ("net", "INTERFACE=wlan0"), ("platform-profile", "PROFILE=low-power"), ("rfkill", "RFKILL_STATE=1")]:
    for action in ["add", "remove", "change", "online", "offline", "bind", "unbind", "move"]:
        uevents.append(f"{action}@/devices/x/{subsystem}\0ACTION={action}\0SUBSYSTEM={subsystem}\0{props}\0".encode())
write("uevent", uevents)


def nlmsg(kind, payload, flags=0, seq=1):
    length = 16 + len(payload)
    return struct.pack("=IHHII", length, kind, flags, seq, 0) + payload + b"\0" * ((4 - length % 4) % 4)


def nla(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)


route = bytes([2, 0, 0, 0, 254, 3, 0, 1]) + struct.pack("=I", 0) + nla(15, struct.pack("=I", 254)) \
    + nla(4, struct.pack("=I", 2)) + nla(5, bytes([192, 168, 1, 1])) + nla(6, struct.pack("=I", 100))
thermal = bytes([5, 1, 0, 0]) + nla(2, struct.pack("=I", 0)) + nla(5, struct.pack("=I", 1)) + nla(3, struct.pack("=i", 85000))
zone = bytes([1, 1, 0, 0]) + nla(2, struct.pack("=I", 3)) + nla(10, b"x86_pkg_temp\0")
nested = bytes([3, 1, 0, 0]) + nla(0x8000 | 7, nla(1, nla(2, b"event\0") + nla(1, struct.pack("=I", 9))))
netlink = [nlmsg(24, route), nlmsg(25, route), nlmsg(0x1c, thermal), nlmsg(0x1c, zone), nlmsg(16, nested),
           nlmsg(2, struct.pack("=i", -1) + nlmsg(24, b"")[:16]), nlmsg(3, struct.pack("=i", 0), flags=2),
           nlmsg(24, route) + nlmsg(0x1c, thermal) + nlmsg(3, b"\0\0\0\0"), nlmsg(24, route)[:20]]
netlink += [m[:cut] for m in netlink[:5] for cut in (4, 16, 17, 28, 36)]
netlink += [nlmsg(kind, b"") for kind in (1, 3, 4, 16, 17, 20, 21)]
write("netlink", netlink)

control = [b'{"command":"status"}\n', b'{"command":"list"}\n', b'{"command":"trigger","target":"com.example.feed"}\n',
           b'{"command":"history","limit":20,"cursor":"r12","omitLogTails":true}\n',
           b'{"command":"submit","target":"com.example.x","submission":{"title":"T","strategy":"queue","arguments":["a","b"]}}\n',
           b'{"command":"lowpower","mode":"on"}\n{"command":"run-if-stale","target":"a.b","maxAgeSeconds":3600}\n',
           b'{"command":"cancel","target":"r1"}\r\n{"command":"status","unknown":1}\n', b'{"command":"explain","target":"\\u00e9"}\n']
commands = ["status", "list", "history", "cancel", "simulate-launch", "simulate-expire", "pending", "explain",
            "trigger", "submit", "enable", "disable", "pause", "resume", "run-if-stale", "lowpower", "resources"]
control += [f'{{"command":"{c}","target":"com.example.job"}}\n'.encode() for c in commands]
control += [b'{"command":"status"', b'{"command":"list"}{"command":"list"}\n', b'\n\n\n', b'{"command":"history","limit":-1}\n']
write("control", control)
