#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""json_check.py: the checker of pfiles -J for atf/t_json.c.

Run with Debian's /usr/bin/python3 (python3-jsonschema).  Two commands:

  json_check.py check --schema S --json J --text T [options]
      Validate J (pfiles -J's stdout) against the schema S with a real
      validator (Draft202012Validator), then check fact by fact that it
      says what T (the text pfiles printed with the same options) says:
      every object of J is written out in the text form by the rules of
      pfiles(1) (render_* below) and must equal T, line for line.  Facts
      the text cannot carry (an option that is false rather than not
      known, SO_LINGER off) are checked against the manifest.  Options:
        --json-err E --text-err F   the two stderrs: equal, and the
                                    notes and errors of J are their lines
        --expected X                the text expect.c computed from the
                                    manifest: the rendered JSON equals it
        --manifest M --via V        sockfix's manifest (its own view):
                                    every fd's facts against it (one
                                    --manifest per process)
        --nflag                     -n: fds hold exactly the stat members
        --peers P                   "provable" (the default): a unix
                                    socket's peer of the target itself
                                    has its comm; "unprovable" (the
                                    kernel cannot prove the pid is still
                                    that process: no SO_PEERPIDFD, or
                                    --via=bpf without pidfs): the peer
                                    has its pid and no comm
        --kinds K,K,...             the kind of each top-level object, in
                                    order: process:PID, system:PID,
                                    error:ARG:REASON
        --endpoints E               the holders of other ends as the
                                    processes holding them say (lines
                                    "PID FD MORE [HPID HFD COMMHEX]...",
                                    below): each named fd's endpoints
                                    and endpoints_more are exactly those
        --view W                    the hostile target's own view (below):
                                    the JSON's strings, unescaped, give
                                    back its exact bytes
  json_check.py target ARG...
      The hostile target: binds unix sockets at names holding a newline,
      a quote, a backslash, ESC, DEL, ill-formed UTF-8, a bidi override
      and kept UTF-8, an abstract name with an inner NUL, opens a file of
      such a name, sets such a comm; prints its own view (hex bytes), a
      line "end", and waits for end of file on stdin (120 s at most).

Exit status: 0 all facts agree, 1 some do not (each named on stdout),
2 usage or internal error.
"""

import json
import os
import re
import select
import socket
import struct
import sys

BOOLS = ["SO_DEBUG", "SO_REUSEADDR", "SO_KEEPALIVE", "SO_DONTROUTE",
         "SO_BROADCAST", "SO_OOBINLINE", "SO_REUSEPORT", "SO_PASSCRED",
         "SO_ACCEPTCONN", "TCP_NODELAY"]
DIAG_OPTS = {"SO_ACCEPTCONN", "SO_SNDBUF", "SO_RCVBUF"}
STAT_MEMBERS = {"fd", "type", "mode", "dev", "ino", "uid", "gid", "rdev",
                "size"}

problems = []
PEERS_PROVABLE = True                   # --peers


def bad(msg):
    problems.append(msg)


# ---------------------------------------------------------------------
# pfiles' rule for text from the target (pfiles(1), "Text from the
# target"), written apart from pfiles' and expect.c's.

HIDDEN = [(0x00, 0x1f), (0x7f, 0x9f), (0x200b, 0x200f), (0x2028, 0x2029),
          (0x202a, 0x202e), (0x2066, 0x2069), (0xfeff, 0xfeff)]


def shown(cp):
    return cp != 0x5c and not any(lo <= cp <= hi for lo, hi in HIDDEN)


def pf_escape(b):
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xc0 <= c < 0xe0 else \
            3 if 0xe0 <= c < 0xf0 else 4 if 0xf0 <= c < 0xf8 else 0
        try:                            # strict: the shortest form, no
            ch = b[i:i + n].decode("utf-8") if n and i + n <= len(b) \
                else None               # surrogate, at most U+10FFFF
        except UnicodeDecodeError:
            ch = None
        if ch == "\\":
            out.append("\\\\")
        elif ch is not None and shown(ord(ch)):
            out.append(ch)
        elif ch is not None:            # well-formed, not shown: each byte
            out += ["\\x%02x" % x for x in b[i:i + n]]
        else:                           # ill-formed: this byte, then on
            out.append("\\x%02x" % c)
            n = 1
        i += n
    return "".join(out)


ESC_RE = re.compile(r"\\(\\|x[0-9a-f]{2})")


def pf_unescape(s, what):
    """The target's bytes from an escaped string; None if not canonical."""
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] == "\\":
            m = ESC_RE.match(s, i)
            if m is None:
                bad("%s: a backslash that starts no escape: %r" % (what, s))
                return None
            out += b"\\" if m.group(1) == "\\" else \
                bytes([int(m.group(1)[1:], 16)])
            i = m.end()
        else:
            try:
                out += s[i].encode("utf-8")
            except UnicodeEncodeError:
                bad("%s: a lone surrogate: %r" % (what, s))
                return None
            i += 1
    if pf_escape(bytes(out)) != s:
        bad("%s: not in the rule's form (escaping its bytes again gives "
            "%r): %r" % (what, pf_escape(bytes(out)), s))
        return None
    return bytes(out)


def cut70(s):
    """The escaped text cut at 70 bytes where a unit ends."""
    units = re.findall(r"\\\\|\\x[0-9a-f]{2}|.", s, re.S)
    out, n = [], 0
    for u in units:
        ul = len(u.encode("utf-8"))
        if n + ul > 70:
            break
        out.append(u)
        n += ul
    return "".join(out)


# ---------------------------------------------------------------------
# The JSON written out in the text form (pfiles(1), "Output").

def render_addr(label, a):
    fam = a["family"]
    if fam in ("AF_INET", "AF_INET6"):
        return "\t%s: %s %s  port: %d" % (label, fam, a["address"],
                                          a["port"])
    if fam == "AF_UNIX":
        name = a["path"] if "path" in a else \
            "@" + a["abstract"] if "abstract" in a else ""
        return "\t%s: AF_UNIX %s" % (label, name)
    if fam == "AF_NETLINK":
        proto = a["protocol"] if isinstance(a["protocol"], str) else \
            "protocol %d" % a["protocol"]
        words = [0]                     # 32 groups a word, to the last set
        for g in a["groups"]:
            words += [0] * ((g - 1) // 32 + 1 - len(words))
            words[(g - 1) // 32] |= 1 << ((g - 1) % 32)
        return "\t%s: AF_NETLINK %s  pid: %d  groups: %s" % (
            label, proto, a["pid"], ",".join("0x%08x" % w for w in words))
    if fam == "AF_PACKET":
        iface = a["interface"] if "interface" in a else \
            "ifindex %d" % a["ifindex"]
        proto = a["protocol"] if isinstance(a["protocol"], str) else \
            "0x%04x" % a["protocol"]
        return "\t%s: AF_PACKET %s  protocol: %s" % (label, iface, proto)
    return "\t%s: %s" % (label, fam)


def render_state(s):
    """The state line, or the queued line alone, of a socket object."""
    q = "queued: %d to read, %d to send" % (s["queued"]["read"],
                                            s["queued"]["send"]) \
        if "queued" in s else "backlog: %d of %d" % (
            s["backlog"]["waiting"], s["backlog"]["limit"]) \
        if "backlog" in s else None
    if "state" in s:
        return ["\tstate: %s%s" % (s["state"], "  " + q if q else "")]
    return ["\t" + q] if q else []


def render_holders(s, key, label):
    lines = ["\t%s: %s[%d] fd %d" % (label, e.get("comm", "?"), e["pid"],
                                     e["fd"]) for e in s.get(key, [])]
    if key + "_more" in s:
        lines.append("\t%s: and %d more" % (label, s[key + "_more"]))
    return lines


def render_socket(fdno, s):
    if "error" in s:
        extra = set(s) - {"error", "options"}
        if extra or s.get("options"):
            bad("fd %d: socket has an error and facts %s" %
                (fdno, sorted(extra) or s["options"]))
        return []
    lines = []
    if "type" in s:
        t = s["type"]
        lines.append("\t" + t if isinstance(t, str) else
                     "\tunknown socket type %d" % t)
    o = s["options"]
    parts = [n for n in BOOLS if o.get(n) is True]
    lg = o.get("SO_LINGER")
    if lg is not None and type(lg) is int:
        parts.append("SO_LINGER(%d)" % lg)
    for n in ("SO_SNDBUF", "SO_RCVBUF"):
        if n in o:
            parts.append("%s(%d)" % (n, o[n]))
    if parts:
        lines.append("\t" + ",".join(parts))
    for label in ("sockname", "peername"):
        if label in s:
            lines.append(render_addr(label, s[label]))
    lines += render_state(s)
    if "peer" in s:
        p = s["peer"]
        lines.append("\tpeer: %s[%d]" % (p.get("comm", "?"), p["pid"]))
    lines += render_holders(s, "endpoints", "endpoint")
    lines += render_holders(s, "shared_with", "shared with")
    return lines


def render_fd(f):
    if "dev" not in f:
        return ["<fd without stat>"]
    tail = "rdev:%d,%d" % (f["rdev"]["major"], f["rdev"]["minor"]) \
        if "rdev" in f else "size:%d" % f["size"]
    lines = ["%4d: %s mode:%s dev:%d,%d ino:%d uid:%d gid:%d %s" % (
        f["fd"], f["type"], f["mode"], f["dev"]["major"],
        f["dev"]["minor"], f["ino"], f["uid"], f["gid"], tail)]
    if f.get("changed"):
        extra = set(f) - STAT_MEMBERS - {"changed"}
        if extra:
            bad("fd %d: changed, and has %s" % (f["fd"], sorted(extra)))
        return lines
    if "flags" in f:
        lines.append("      " + "|".join(f["flags"]))
    for lk in f.get("locks", []):
        lines.append("      %s %s lock set%s" % (
            "mandatory" if lk["mandatory"] else "advisory", lk["type"],
            " by process %d" % lk["pid"] if "pid" in lk else ""))
    if "socket" in f:
        lines += render_socket(f["fd"], f["socket"])
    if "path" in f:
        lines.append("      " + f["path"])
    if "offset" in f:
        lines.append("      offset:%d" % f["offset"])
    return lines


def render(doc):
    """[(line, where)] for the whole document."""
    out = []
    for obj in doc:
        if "arg" in obj:
            continue                # nothing on stdout
        where = "pid %d header" % obj["pid"]
        if obj.get("system_process"):
            out.append(("%d:\t%s" % (obj["pid"], obj["comm"]), where))
            out.append(("  [system process]", where))
            continue
        args = obj["args"] if obj["args"] != "" else obj["comm"]
        out.append(("%d:\t%s" % (obj["pid"], cut70(args)), where))
        if "rlimit_nofile" in obj:
            out.append(("  Current rlimit: %s file descriptors" %
                        obj["rlimit_nofile"], where))
        for f in obj["fds"]:
            w = "pid %d fd %d" % (obj["pid"], f["fd"])
            out += [(ln, w) for ln in render_fd(f)]
    return out


def compare_text(what, rendered, text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        bad("%s: does not end with a newline" % what)
    for i in range(max(len(rendered), len(lines))):
        r = rendered[i] if i < len(rendered) else (None, "end")
        t = lines[i] if i < len(lines) else None
        if r[0] != t:
            bad("%s, line %d (%s): the JSON says %r, the text %r" %
                (what, i + 1, r[1], r[0], t))
            return


# ---------------------------------------------------------------------
# Every string of the document; every target string in the rule's form.

def walk_strings(x, path="$"):
    if isinstance(x, str):
        yield path, x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from walk_strings(v, "%s.%s" % (path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from walk_strings(v, "%s[%d]" % (path, i))


def target_strings(doc):
    """(what, escaped string) of every string the target controls."""
    for obj in doc:
        if "pid" not in obj:
            continue
        p = obj["pid"]
        yield "pid %d comm" % p, obj["comm"]
        yield "pid %d args" % p, obj["args"]
        for f in obj.get("fds", []):
            w = "pid %d fd %d" % (p, f["fd"])
            m = re.fullmatch(r"anon_inode\((.*)\)", f["type"], re.S)
            if m:
                yield w + " anon_inode name", m.group(1)
            if "path" in f:
                yield w + " path", f["path"]
            s = f.get("socket", {})
            for label in ("sockname", "peername"):
                for k in ("path", "abstract", "interface"):
                    if k in s.get(label, {}):
                        yield "%s %s %s" % (w, label, k), s[label][k]
            if "comm" in s.get("peer", {}):
                yield w + " peer comm", s["peer"]["comm"]
            for key in ("endpoints", "shared_with"):
                for i, e in enumerate(s.get(key, [])):
                    if "comm" in e:
                        yield "%s %s %d comm" % (w, key, i), e["comm"]


def check_strings(doc):
    for path, s in walk_strings(doc):
        for ch in s:
            if not shown(ord(ch)) and ch != "\\":
                bad("%s: holds the hidden character U+%04X: %r" %
                    (path, ord(ch), s))
                break
    for what, s in target_strings(doc):
        pf_unescape(s, what)


# ---------------------------------------------------------------------
# sockfix's manifest (fixtures/sockfix.c), parsed here on its own.

def hexbytes(tok):
    n, h = int(tok[0]), tok[1]
    b = b"" if h == "-" else bytes.fromhex(h)
    if len(b) != n:
        raise ValueError("length %d, %d bytes" % (n, len(b)))
    return b


def parse_manifest(text):
    m = {"fds": {}, "pairs": [], "holders": []}
    cur = None
    for line in text.decode("ascii").split("\n"):
        if line == "" or line == "end":
            continue
        key, _, rest = line.partition(" ")
        tok = rest.split(" ")
        if key == "pid":
            m["pid"] = int(tok[0])
        elif key == "comm":
            m["comm"] = hexbytes(tok)
        elif key == "cmdline":
            m["cmdline"] = hexbytes(tok)
        elif key == "rlimit_nofile":
            m["rlim"] = int(tok[0])
        elif key == "pair":
            m["pairs"].append((int(tok[0]), int(tok[1])))
        elif key == "holder":           # PFD PID FD LEN HEX
            m["holders"].append((int(tok[0]), int(tok[1]), int(tok[2]),
                                 hexbytes(tok[3:])))
        elif key == "fd":
            cur = {"fd": int(tok[0]), "kind": tok[1], "locks": [],
                   "opts": {}}
            m["fds"][cur["fd"]] = cur
        elif key == "stat":
            kv = dict(t.split("=", 1) for t in tok)
            cur["mode"] = int(kv["mode"], 8)
            cur["dev"] = tuple(int(x) for x in kv["dev"].split(","))
            cur["rdev"] = tuple(int(x) for x in kv["rdev"].split(","))
            for k in ("ino", "uid", "gid", "size"):
                cur[k] = int(kv[k])
        elif key == "flags":
            kv = dict(t.split("=", 1) for t in tok)
            cur["getfl"] = int(kv["getfl"], 8)
            cur["getfd"] = int(kv["getfd"])
        elif key == "offset":
            cur["offset"] = None if tok[0] == "none" else int(tok[0])
        elif key == "link":
            cur["link"] = None if tok[0] == "none" else hexbytes(tok)
        elif key == "lock":
            cur["locks"].append((tok[0], int(tok[1])))
        elif key == "socket":
            kv = dict(t.split("=", 1) for t in tok)
            cur["sock"] = {k: int(v) for k, v in kv.items()}
        elif key == "sockopt":
            cur["opts"][tok[0]] = None if tok[1] == "error" else int(tok[1])
        elif key == "linger":
            cur["linger"] = None if tok[0] == "error" else \
                (int(tok[0]), int(tok[1]))
        elif key in ("sockname", "peername"):
            cur[key] = None if tok[0] == "error" else hexbytes(tok)
        elif key == "peercred":
            cur["cred"] = None if tok[0] == "error" else int(tok[0])
        elif key == "sockstate":        # STATE queued|backlog A B
            cur["sockstate"] = (int(tok[0]), tok[1], int(tok[2]),
                                int(tok[3]))
        elif key == "nlgroups":
            cur["groups"] = [int(x) for x in tok[1:]]
            if len(cur["groups"]) != int(tok[0]):
                raise ValueError("nlgroups: %s" % rest)
        elif key == "ifname":
            cur["ifname"] = hexbytes(tok)
    return m


S_TYPES = {0o140000: "S_IFSOCK", 0o120000: "S_IFLNK", 0o100000: "S_IFREG",
           0o060000: "S_IFBLK", 0o040000: "S_IFDIR", 0o020000: "S_IFCHR",
           0o010000: "S_IFIFO"}
SOCK_TYPES = {1: "SOCK_STREAM", 2: "SOCK_DGRAM", 3: "SOCK_RAW",
              4: "SOCK_RDM", 5: "SOCK_SEQPACKET", 6: "SOCK_DCCP",
              10: "SOCK_PACKET"}
NETLINK = {0: "NETLINK_ROUTE", 4: "NETLINK_SOCK_DIAG",
           15: "NETLINK_KOBJECT_UEVENT", 16: "NETLINK_GENERIC"}
ETH_P = {0x0003: "ETH_P_ALL", 0x0800: "ETH_P_IP", 0x0806: "ETH_P_ARP",
         0x86dd: "ETH_P_IPV6"}
# The kernel's state numbers (include/net/tcp_states.h) by their names.
TCP_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV",
              4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT", 7: "CLOSE",
              8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING",
              12: "NEW_SYN_RECV"}
UNIX_STATES = {10: "LISTEN", 1: "CONNECTED", 7: "UNCONNECTED"}
# Linux x86_64 open flags, the kernel's values.
O_ACCMODE, O_PATH = 0o3, 0o10000000
FLAG_ORDER = [(0o4000, "O_NONBLOCK"), (0o2000, "O_APPEND")]
FLAG_TAIL = [(0o20000, "O_ASYNC"), (0o40000, "O_DIRECT"),
             (0o100000, "O_LARGEFILE"), (0o200000, "O_DIRECTORY"),
             (0o400000, "O_NOFOLLOW"), (0o1000000, "O_NOATIME"),
             (0o20000000, "O_TMPFILE"), (0o2000000, "O_CLOEXEC")]
O_SYNC_BIT, O_DSYNC = 0o4000000, 0o10000


def flag_names(getfl, getfd):
    fl = getfl | (0o2000000 if getfd & 1 else 0)
    if fl & O_PATH:
        names = ["O_PATH"]
        fl &= ~O_PATH
    else:
        names = [{0: "O_RDONLY", 1: "O_WRONLY", 2: "O_RDWR"}.get(
            fl & O_ACCMODE, "0x%x" % (fl & O_ACCMODE))]
        fl &= ~O_ACCMODE
    for bit, name in FLAG_ORDER:
        if fl & bit:
            names.append(name)
    if fl & O_SYNC_BIT:
        names.append("O_SYNC")
    elif fl & O_DSYNC:
        names.append("O_DSYNC")
    fl &= ~(0o4000 | 0o2000 | O_SYNC_BIT | O_DSYNC)
    for bit, name in FLAG_TAIL:
        if fl & bit:
            names.append(name)
            fl &= ~bit
    if fl:
        names.append("0x%x" % fl)
    return names


def addr_from_bytes(b, protocol):
    """The JSON address object of raw sockaddr bytes."""
    fam = struct.unpack_from("=H", b)[0]
    if fam == socket.AF_INET:
        return {"family": "AF_INET", "port": struct.unpack_from("!H", b, 2)[0],
                "address": socket.inet_ntop(socket.AF_INET, b[4:8])}
    if fam == socket.AF_INET6:
        return {"family": "AF_INET6",
                "port": struct.unpack_from("!H", b, 2)[0],
                "address": socket.inet_ntop(socket.AF_INET6, b[8:24])}
    if fam == socket.AF_UNIX:
        a, name = {"family": "AF_UNIX"}, b[2:]
        if name[:1] == b"\0":
            a["abstract"] = pf_escape(name[1:])
        elif name:
            a["path"] = pf_escape(name.split(b"\0")[0])
        return a
    if fam == socket.AF_NETLINK:
        pid, groups = struct.unpack_from("=II", b, 4)
        return {"family": "AF_NETLINK", "pid": pid,
                "groups": [i + 1 for i in range(32) if groups >> i & 1],
                "protocol": NETLINK.get(protocol, protocol)}
    if fam == socket.AF_PACKET:
        proto = struct.unpack_from("!H", b, 2)[0]
        ifindex = struct.unpack_from("=i", b, 4)[0]
        a = {"family": "AF_PACKET", "ifindex": ifindex,
             "protocol": ETH_P.get(proto, proto)}
        if ifindex == 0:
            a["interface"] = "any"
        return a
    return {"family": "AF_%d" % fam}


def sock_id(f):
    return (f["dev"], f["ino"]) if f["mode"] & 0o170000 == 0o140000 \
        else None


def manifest_endpoints(m, mf):
    """The endpoints members of a socket fd from the manifest's pairs.

    A pair names the two ends of a connection sockfix made; nothing but
    sockfix holds them, so the holders of mf's other end are sockfix's
    fds on the other fd's socket (its ino), in fd order, at most 8."""
    other = None
    for a, b in m["pairs"]:
        ends = [m["fds"].get(a), m["fds"].get(b)]
        if None in ends or None in map(sock_id, ends):
            bad("manifest pair %d %d: not two sockets" % (a, b))
            return {}
        if sock_id(mf) == sock_id(ends[0]):
            other = ends[1]
        elif sock_id(mf) == sock_id(ends[1]):
            other = ends[0]
    if other is None:
        return {}
    holders = [{"comm": pf_escape(m["comm"]), "pid": m["pid"], "fd": fd}
               for fd, f in sorted(m["fds"].items())
               if sock_id(f) == sock_id(other)]
    out = {"endpoints": holders[:8]}
    if len(holders) > 8:
        out["endpoints_more"] = len(holders) - 8
    return out


def expect_fd(mf, via, nflag, comm, m=None):
    """The JSON object of one manifest fd, by pfiles(1)."""
    fmt = mf["mode"] & 0o170000
    link = mf.get("link")
    j = {"fd": mf["fd"], "mode": "0%03o" % (mf["mode"] & 0o7777),
         "dev": {"major": mf["dev"][0], "minor": mf["dev"][1]},
         "ino": mf["ino"], "uid": mf["uid"], "gid": mf["gid"]}
    anon = fmt == 0 and link is not None and link.startswith(b"anon_inode:")
    if anon:
        name = link[len(b"anon_inode:"):]
        if name[:1] == b"[" and name[-1:] == b"]":
            name = name[1:-1]
        j["type"] = "anon_inode(%s)" % pf_escape(name)
    else:
        j["type"] = S_TYPES.get(fmt, "0x%04x" % fmt)
    if fmt in (0o020000, 0o060000, 0o140000):
        j["rdev"] = {"major": mf["rdev"][0], "minor": mf["rdev"][1]}
    else:
        j["size"] = mf["size"]
    if nflag:
        return j
    j["flags"] = flag_names(mf["getfl"], mf["getfd"])
    if mf["locks"]:
        j["locks"] = [{"mandatory": False, "type": t, "pid": p}
                      for t, p in mf["locks"]]
    if fmt == 0o140000:
        j["socket"] = expect_socket(mf, via, comm)
        if m is not None:
            j["socket"].update(manifest_endpoints(m, mf))
            j["socket"].update(manifest_shared(m, mf))
            # diag finds a unix peer's name by the peer's inode, which a
            # socket no fd holds has not: a client not yet accepted, in
            # no pair of the manifest
            if via == "diag" and mf["sock"]["domain"] == socket.AF_UNIX \
                    and not manifest_endpoints(m, mf):
                j["socket"].pop("peername", None)
    elif not anon:
        j["path"] = pf_escape(link)
    if fmt in (0o100000, 0o040000, 0o020000, 0o060000):
        off = mf.get("offset")
        j["offset"] = off if off is not None else 0     # O_PATH: 0
    return j


def manifest_shared(m, mf):
    """The shared_with members of a socket fd: the other fds on its
    socket, sockfix's own in fd order, then the holder lines' (processes
    sockfix forked) by pid then fd, at most 8."""
    own = [{"comm": pf_escape(m["comm"]), "pid": m["pid"], "fd": fd}
           for fd, f in sorted(m["fds"].items())
           if fd != mf["fd"] and sock_id(f) == sock_id(mf)]
    others = sorted((pid, fd, comm) for pfd, pid, fd, comm in m["holders"]
                    if pfd in m["fds"] and
                    sock_id(m["fds"][pfd]) == sock_id(mf))
    holders = own + [{"comm": pf_escape(c), "pid": p, "fd": f}
                     for p, f, c in others]
    out = {"shared_with": holders[:8]} if holders else {}
    if len(holders) > 8:
        out["shared_with_more"] = len(holders) - 8
    return out


def state_kind(sk):
    """pfiles(1), "Socket lines" 4: which sockets have a state line,
    which a queued line alone."""
    dom, typ, proto = sk["domain"], sk["type"], sk["protocol"]
    if dom == socket.AF_UNIX:
        return "state" if typ in (1, 5) else "queued" if typ == 2 else None
    if dom not in (socket.AF_INET, socket.AF_INET6):
        return None
    if (typ == 1 and proto in (6, 132, 262)) or typ == 6:  # TCP SCTP MPTCP
        return "state"                                      # DCCP
    return "queued" if typ in (2, 3) else None


def expect_state(mf):
    kind, ss = state_kind(mf["sock"]), mf.get("sockstate")
    if kind is None or ss is None:
        if kind is not None or ss is not None:
            bad("manifest fd %d: sockstate %r for a socket of kind %r" %
                (mf["fd"], ss, kind))
        return {}
    st, qk, a, b = ss
    out = {}
    if kind == "state":
        names = UNIX_STATES if mf["sock"]["domain"] == socket.AF_UNIX \
            else TCP_STATES
        out["state"] = names.get(st, "state %d" % st)
    if qk == "backlog":
        out["backlog"] = {"waiting": a, "limit": b}
    else:
        out["queued"] = {"read": a, "send": b}
    return out


def expect_socket(mf, via, comm):
    sk = mf["sock"]
    s = {"type": SOCK_TYPES.get(sk["type"], sk["type"]), "options": {}}
    for name in BOOLS + ["SO_SNDBUF", "SO_RCVBUF"]:
        v = mf["opts"].get(name)
        if v is None or (via == "diag" and name not in DIAG_OPTS):
            continue
        s["options"][name] = v if name.startswith("SO_") and \
            name.endswith("BUF") else v != 0
    if via != "diag" and mf.get("linger") is not None:
        onoff, secs = mf["linger"]
        s["options"]["SO_LINGER"] = secs if onoff else False
    if mf.get("sockname") is not None:
        s["sockname"] = addr_from_bytes(mf["sockname"], sk["protocol"])
        if "groups" in mf and "groups" in s["sockname"]:
            if s["sockname"]["groups"] != [g for g in mf["groups"]
                                           if g <= 32]:
                bad("manifest fd %d: groups %r, the name %r" %
                    (mf["fd"], mf["groups"], s["sockname"]["groups"]))
            s["sockname"]["groups"] = sorted(mf["groups"])
        if mf.get("ifname") and s["sockname"].get("ifindex"):
            s["sockname"]["interface"] = pf_escape(mf["ifname"])
    if mf.get("peername") is not None:
        s["peername"] = addr_from_bytes(mf["peername"], sk["protocol"])
        if via != "diag" and s["peername"]["family"] == "AF_UNIX" and \
                mf.get("cred"):
            s["peer"] = {"pid": mf["cred"]}
            if mf["cred"] == comm[0] and PEERS_PROVABLE:
                s["peer"]["comm"] = pf_escape(comm[1])
    s.update(expect_state(mf))
    return s


def check_manifest(doc, m, via, nflag):
    procs = [o for o in doc if o.get("pid") == m["pid"] and "fds" in o]
    if not procs:
        bad("no process object of pid %d" % m["pid"])
        return
    for obj in procs:
        args = m["cmdline"][:-1] if m["cmdline"].endswith(b"\0") \
            else m["cmdline"]
        want = {"comm": pf_escape(m["comm"]),
                "args": pf_escape(args.replace(b"\0", b" ")),
                "rlimit_nofile": "unlimited" if m["rlim"] == 2 ** 64 - 1
                else m["rlim"]}
        for k, v in want.items():
            if obj.get(k) != v:
                bad("pid %d %s: the JSON says %r, the manifest %r" %
                    (m["pid"], k, obj.get(k), v))
        got = {f["fd"]: f for f in obj["fds"]}
        if sorted(got) != sorted(m["fds"]):
            bad("pid %d: fds %s in the JSON, %s in the manifest" %
                (m["pid"], sorted(got), sorted(m["fds"])))
        for fd, mf in sorted(m["fds"].items()):
            if fd not in got:
                continue
            want = expect_fd(mf, via, nflag, (m["pid"], m["comm"]), m)
            compare_obj("pid %d fd %d (%s)" % (m["pid"], fd, mf["kind"]),
                        got[fd], want)


def compare_obj(what, got, want):
    for k in sorted(set(got) | set(want)):
        if k not in want:
            bad("%s: %s in the JSON (%r), not by the manifest" %
                (what, k, got[k]))
        elif k not in got:
            bad("%s: no %s in the JSON, the manifest says %r" %
                (what, k, want[k]))
        elif isinstance(want[k], dict) and isinstance(got[k], dict):
            compare_obj("%s %s" % (what, k), got[k], want[k])
        elif isinstance(want[k], list) and isinstance(got[k], list) and \
                want[k] and isinstance(want[k][0], dict):
            if len(got[k]) != len(want[k]):
                bad("%s %s: %d in the JSON, %d by the manifest: %r" %
                    (what, k, len(got[k]), len(want[k]), got[k]))
            for i, (g, w) in enumerate(zip(got[k], want[k])):
                compare_obj("%s %s[%d]" % (what, k, i), g, w)
        elif got[k] != want[k] or type(got[k]) is not type(want[k]):
            bad("%s %s: the JSON says %r, the manifest %r" %
                (what, k, got[k], want[k]))


# ---------------------------------------------------------------------

def check_layout(raw, doc):
    """One object per fd, each on a line of its own (pfiles(1))."""
    lines = []
    for ln in raw.split("\n"):
        if ln.startswith('{"fd":'):
            try:
                lines.append(json.loads(ln.rstrip(",")))
            except ValueError:
                bad("an fd object not whole on its line: %r" % ln[:200])
    fds = [f for obj in doc for f in obj.get("fds", [])]
    if lines != fds:
        bad("the fd objects are not one per line: %d lines of fds, %d fds"
            % (len(lines), len(fds)))


def check_stderr(doc, jerr, terr):
    if jerr != terr:
        bad("stderr with -J differs from stderr without:\n  -J: %r\n  "
            "text: %r" % (jerr, terr))
    lines = [ln for ln in jerr.split("\n") if ln != ""]
    cannot = [ln for ln in lines if ln.startswith("pfiles: cannot examine ")]
    want = ["pfiles: cannot examine %s: %s" % (o["arg"], o["error"])
            for o in doc if "arg" in o]
    if cannot != want:
        bad("stderr says %r, the JSON's errors %r" % (cannot, want))
    said = [re.sub(r"^pfiles: [^:]*: ", "", ln) for ln in lines
            if ln not in cannot]
    notes = []
    for o in doc:
        notes += o.get("notes", [])
        if "error" in o and "pid" in o:
            notes.append(o["error"])
    if sorted(said) != sorted(notes):
        bad("stderr's notes %r, the JSON's notes %r" % (said, notes))


def check_kinds(doc, spec):
    kinds = spec.split(",")
    if len(kinds) != len(doc):
        bad("%d objects, %d expected (%s)" % (len(doc), len(kinds), spec))
    for obj, k in zip(doc, kinds):
        kind, _, rest = k.partition(":")
        if kind == "process":
            ok = obj.get("pid") == int(rest) and "fds" in obj
        elif kind == "system":
            ok = obj == {"pid": int(rest), "comm": obj.get("comm"),
                         "args": "", "system_process": True}
        else:
            arg, _, reason = rest.partition(":")
            ok = obj == {"arg": arg, "error": reason}
        if not ok:
            bad("expected %s, the JSON has %s" % (k, json.dumps(obj)[:200]))


def check_nflag(doc):
    for obj in doc:
        for f in obj.get("fds", []):
            if not set(f) <= STAT_MEMBERS or not {"rdev", "size"} & set(f):
                bad("-n: pid %d fd %d has members %s" %
                    (obj["pid"], f["fd"], sorted(f)))


def check_endpoints(doc, spec):
    """Each named fd's endpoints, as the holders themselves say.

    spec: lines "PID FD MORE [HPID HFD COMMHEX]..." -- the fd FD of
    process PID: the holders of its other end in order, then
    endpoints_more (0: none); no holder and MORE 0: no endpoints at
    all."""
    procs = {o["pid"]: o for o in doc if "fds" in o}
    n = 0
    for ln in spec.decode("ascii").split("\n"):
        t = ln.split()
        if not t:
            continue
        pid, fd, more, rest = int(t[0]), int(t[1]), int(t[2]), t[3:]
        what = "pid %d fd %d endpoints" % (pid, fd)
        n += 1
        f = next((x for x in procs.get(pid, {}).get("fds", [])
                  if x["fd"] == fd), None)
        if f is None or "socket" not in f:
            bad("%s: no socket of fd %d in the JSON" % (what, fd))
            continue
        s = f["socket"]
        want = [(int(rest[i]), int(rest[i + 1]),
                 bytes.fromhex(rest[i + 2]) if rest[i + 2] != "-" else b"")
                for i in range(0, len(rest), 3)]
        if not want and not more:
            if "endpoints" in s or "endpoints_more" in s:
                bad("%s: the JSON has %r, the holders none" %
                    (what, s.get("endpoints")))
            continue
        got = s.get("endpoints")
        if got is None:
            bad("%s: none in the JSON, the holders say %r" % (what, want))
            continue
        if [(e["pid"], e["fd"]) for e in got] != [w[:2] for w in want]:
            bad("%s: the JSON says %r, the holders %r" %
                (what, [(e["pid"], e["fd"]) for e in got],
                 [w[:2] for w in want]))
        for e, w in zip(got, want):
            if "comm" not in e:
                bad("%s: no comm of pid %d" % (what, e["pid"]))
            elif pf_unescape(e["comm"], what) != w[2]:
                bad("%s: comm %r of pid %d, which says %r" %
                    (what, e["comm"], e["pid"], w[2]))
        if s.get("endpoints_more", 0) != more:
            bad("%s: endpoints_more %r, the holders say %d more" %
                (what, s.get("endpoints_more"), more))
    if n == 0:
        bad("--endpoints names no fd")


def check_view(doc, view):
    """The hostile target's bytes back from the JSON's strings."""
    v = {}
    for ln in view.decode("ascii").split("\n"):
        t = ln.split(" ")
        if len(t) >= 3:
            v[(t[0], t[1])] = bytes.fromhex(t[2]) if t[2] != "-" else b""
    pid = int(v[("pid", "pid")].decode())
    obj = next((o for o in doc if o.get("pid") == pid), None)
    if obj is None:
        bad("no object of the target %d" % pid)
        return

    def same(what, s, want):
        if s is None:
            bad("%s: missing (the target has %r)" % (what, want))
            return
        got = pf_unescape(s, what)
        if got is not None and got != want:
            bad("%s: unescaped %r, the target has %r" % (what, got, want))
    same("comm", obj.get("comm"), v[("comm", "comm")])
    same("args", obj.get("args"),
         v[("cmdline", "cmdline")].rstrip(b"\0").replace(b"\0", b" "))
    fds = {f["fd"]: f for f in obj["fds"]}
    n = 0
    for (key, fd), want in sorted(v.items()):
        if key not in ("path", "sockname", "peername", "peercomm",
                       "endpoint"):
            continue
        n += 1
        f = fds.get(int(fd), {})
        s = f.get("socket", {})
        what = "fd %s %s" % (fd, key)
        if key == "endpoint":           # the other end, held by the target
            e = s.get("endpoints", [])
            if [(x["pid"], x["fd"]) for x in e] != \
                    [(pid, int(want.decode()))]:
                bad("%s: the JSON says %r, the target holds the other end "
                    "at fd %s" % (what, e, want.decode()))
            else:
                same(what + " comm", e[0].get("comm"), v[("comm", "comm")])
        elif key == "path":
            same(what, f.get("path"), want)
        elif key == "peercomm":
            if "peer" not in s:         # diag
                pass
            elif PEERS_PROVABLE:
                same(what, s["peer"].get("comm"), want)
            elif s["peer"].get("pid") != pid or "comm" in s["peer"]:
                bad("%s: the peer cannot be proved here: pid %d and no "
                    "comm wanted, the JSON says %r" % (what, pid, s["peer"]))
        elif want == b"":              # unnamed
            a = s.get(key, {})
            if a.get("family") != "AF_UNIX" or "path" in a or \
                    "abstract" in a:
                bad("%s: the target's is unnamed, the JSON's %r" % (what, a))
        elif want[:1] == b"\0":
            same(what + " abstract", s.get(key, {}).get("abstract"),
                 want[1:])
        else:
            same(what + " path", s.get(key, {}).get("path"), want)
    if n < 5:
        bad("the view names only %d strings" % n)


def cmd_check(av):
    opts, i = {}, 0
    while i < len(av):
        if av[i] == "--nflag":
            opts["nflag"] = True
            i += 1
        elif av[i] == "--manifest":
            opts.setdefault("manifest", []).append(av[i + 1])
            i += 2
        else:
            opts[av[i][2:]] = av[i + 1]
            i += 2

    global PEERS_PROVABLE
    if opts.get("peers", "provable") not in ("provable", "unprovable"):
        print("--peers %r: provable or unprovable" % opts["peers"])
        return 2
    PEERS_PROVABLE = opts.get("peers", "provable") == "provable"

    def read(name):
        with open(opts[name], "rb") as fp:
            return fp.read()
    import jsonschema
    raw = read("json")
    try:
        text = raw.decode("utf-8")      # strict: JSON is valid UTF-8
    except UnicodeDecodeError as e:
        print("the JSON is not valid UTF-8: %s" % e)
        return 1

    def no_dups(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            bad("an object with a key twice: %r" % keys)
        return dict(pairs)
    try:
        doc = json.loads(text, object_pairs_hook=no_dups)
    except ValueError as e:
        print("the JSON does not parse: %s" % e)
        return 1
    schema = json.loads(read("schema"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errs = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc),
                  key=lambda e: list(e.absolute_path))
    for e in errs[:10]:
        bad("schema: at %s: %s" % ("/".join(str(p) for p in
                                            e.absolute_path), e.message[:300]))
    if errs:                            # the rest assumes a valid document
        return report()
    check_strings(doc)
    check_layout(text, doc)
    rendered = render(doc)
    compare_text("the text", rendered, read("text").decode("utf-8"))
    if "expected" in opts:
        compare_text("the manifest's text (expect.c)", rendered,
                     read("expected").decode("utf-8"))
    if "json-err" in opts:
        check_stderr(doc, read("json-err").decode("utf-8"),
                     read("text-err").decode("utf-8"))
    for name in opts.get("manifest", []):
        with open(name, "rb") as fp:
            check_manifest(doc, parse_manifest(fp.read()),
                           opts.get("via", "pidfd"), opts.get("nflag", False))
    if opts.get("nflag"):
        check_nflag(doc)
    if "kinds" in opts:
        check_kinds(doc, opts["kinds"])
    if "view" in opts:
        check_view(doc, read("view"))
    if "endpoints" in opts:
        check_endpoints(doc, read("endpoints"))
    return report()


def report():
    for p in problems:
        print(p)
    return 1 if problems else 0


# ---------------------------------------------------------------------
# The hostile target.

# A socket path: a newline and a forged fd line, a quote, a backslash
# and a fake escape, ESC, DEL, bytes never in UTF-8, an overlong '/', a
# surrogate, U+202E, and UTF-8 that stays readable.
HOSTILE = (b'h\n  99: S_IFSOCK "q\\x41\\ \x1b[31m\x7f \xff\xc0\xaf '
           b'\xed\xa0\x80 \xe2\x80\xae \xc3\xa9t\xc3\xa9')
COMM = b'c"\\\n\x1b\xff\xe2\x80\xaeZ'


def cmd_target(av):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(15, ctypes.c_char_p(COMM), 0, 0, 0) != 0:    # SET_NAME
        return 2
    keep = []
    lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lst.bind(HOSTILE)                   # relative: in the work directory
    lst.listen(4)
    cli = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    cli.connect(HOSTILE)
    acc, _ = lst.accept()
    ab = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ab.bind(b"\0hj" + b"\0" + b'in\n"\\\x1b[2J\xff\xc0\xaf ' +
            str(os.getpid()).encode())
    fil = os.open(HOSTILE + b".file", os.O_RDWR | os.O_CREAT, 0o600)
    keep += [lst, cli, acc, ab]

    def hx(b):
        return b.hex() if b else "-"

    def name(b):
        return os.fsencode(b) if isinstance(b, str) else b
    out = ["pid pid %s" % hx(str(os.getpid()).encode())]
    with open("/proc/self/comm", "rb") as fp:
        out.append("comm comm %s" % hx(fp.read().rstrip(b"\n")))
    with open("/proc/self/cmdline", "rb") as fp:
        out.append("cmdline cmdline %s" % hx(fp.read()))
    for s in keep:
        out.append("sockname %d %s" % (s.fileno(),
                                       hx(name(s.getsockname()))))
        if s.type == socket.SOCK_STREAM and s is not lst:
            out.append("peername %d %s" % (s.fileno(),
                                           hx(name(s.getpeername()))))
            out.append("peercomm %d %s" % (s.fileno(), hx(COMM[:15])))
    # The two ends of the connection it made: each the other's endpoint.
    out.append("endpoint %d %s" % (cli.fileno(),
                                   hx(str(acc.fileno()).encode())))
    out.append("endpoint %d %s" % (acc.fileno(),
                                   hx(str(cli.fileno()).encode())))
    out.append("path %d %s" % (fil, hx(os.readlink(b"/proc/self/fd/%d" %
                                                   fil))))
    sys.stdout.write("\n".join(out) + "\nend\n")
    sys.stdout.flush()
    r, _, _ = select.select([sys.stdin], [], [], 120)
    if r:
        sys.stdin.read()
    for s in keep:
        s.close()
    os.close(fil)
    for p in (HOSTILE, HOSTILE + b".file"):
        try:
            os.unlink(p)
        except OSError:
            pass
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "check":
        return cmd_check(sys.argv[2:])
    if len(sys.argv) >= 2 and sys.argv[1] == "target":
        return cmd_target(sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:                   # a crash is not a finding
        import traceback
        traceback.print_exc()
        sys.exit(2)
