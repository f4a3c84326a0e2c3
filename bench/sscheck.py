#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""sscheck.py: pfiles -J against ss, fact for fact, socket by socket.

    sscheck.py [--pfiles PATH] [--via SOURCE] [--summary FILE]
               (--all | PID...)

Runs pfiles -J (--via=SOURCE when given) on the PIDs, or on every process
(--all), and ss in each network namespace those processes are in
(nsenter --net=/proc/PID/ns/net: ss -tanpeiO, ss -xanpeO, ss -uanpemO,
ss -wanpemO), and compares, per socket inode, what both say:

  state     a TCP socket's state (ss's ESTAB, SYN-SENT, FIN-WAIT-1, ...
            and UNCONN are pfiles' ESTABLISHED, SYN_SENT, FIN_WAIT1, ...
            and CLOSE), a unix stream or seqpacket socket's (ESTAB,
            LISTEN, UNCONN: pfiles' CONNECTED, LISTEN, UNCONNECTED)
  queues    "to read" and "to send" against Recv-Q and Send-Q, where ss
            shows the kernel's raw TCP counters and pfiles what SIOCINQ
            and SIOCOUTQ say (pfiles.1); adjusted, and each adjustment
            counted:
              - SYN_SENT, SYN_RECV: pfiles says 0 and 0 (ss counts the
                SYN in Send-Q);
              - a FIN received and not read (CLOSE_WAIT, LAST_ACK,
                CLOSING, TIME_WAIT; CLOSE where ss -e shows the receive
                side shut down and Recv-Q > 0, which may also be a local
                shutdown(SHUT_RD): either value is taken, and counted as
                ambiguous): Recv-Q less 1;
            a UDP or raw socket's "to read" against skmem's r (the
            receive memory, what pfiles shows), not Recv-Q, which UDP
            gives less its forward deficit (counted where they differ);
            "to send" against Send-Q
  backlog   a listener's waiting connections and limit against Recv-Q and
            Send-Q (what ss shows for a listener)
  holders   ss -p's users:(("comm",pid=N,fd=M),...) against the fd itself
            and its "shared_with" holders (and "shared_with_more"); the
            comms where both are plain text
  endpoints a TCP or unix socket's "endpoints" against the users of its
            other end in ss: the unix socket whose inode ss shows as the
            peer, the TCP socket of the same namespace whose local and
            peer addresses are this one's peer and local (none: no
            endpoints)

A fact pfiles leaves out and names on its standard error ("not shown:
state,queues") and a socket whose details it says it could not find (its
"error") are counted apart, not compared; a fact left out and not named
there is a disagreement.  Sockets ss does not list are counted apart, by
why: a TCP socket in CLOSE
(inet_diag lists it only as "bound-inactive", which ss before iproute2
6.9 does not ask for), a UDP socket with no port, a socket of a network
namespace none of the processes is in, a family ss is not asked about
(netlink, packet, vsock...).

Snapshots taken at different instants differ on busy sockets: a socket
with a fact that disagrees, or that one side lists and the other does
not, is looked at once more (pfiles on its pid alone, ss again) and
counted as a disagreement only if it still disagrees; both looks are
printed.  A fact that agreed at one of the looks, or that disagreed at
both while it moved between them (ss' figures of it changed, or the
holders either tool saw), is counted as busy, apart: no instant of the
two tools was the same; a fact pfiles left out is never busy.

Prints each disagreement, then the counts; with --summary, writes them
as "KEY VALUE" lines.  Exit status: 0 when no fact disagrees after the
second look, 1 when some do, 2 on a usage error or when pfiles or ss
could not be run.
"""

import argparse
import json
import os
import re
import subprocess
import sys

TCP_NAMES = {
    "ESTAB": "ESTABLISHED", "SYN-SENT": "SYN_SENT", "SYN-RECV": "SYN_RECV",
    "FIN-WAIT-1": "FIN_WAIT1", "FIN-WAIT-2": "FIN_WAIT2",
    "TIME-WAIT": "TIME_WAIT", "UNCONN": "CLOSE", "CLOSE-WAIT": "CLOSE_WAIT",
    "LAST-ACK": "LAST_ACK", "LISTEN": "LISTEN", "CLOSING": "CLOSING",
}
UNIX_NAMES = {"ESTAB": "CONNECTED", "LISTEN": "LISTEN",
              "UNCONN": "UNCONNECTED"}
FIN_STATES = {"CLOSE_WAIT", "LAST_ACK", "CLOSING", "TIME_WAIT"}
SYN_STATES = {"SYN_SENT", "SYN_RECV"}
SS_CMDS = {
    "tcp": ["ss", "-tanpeiO"],
    "unix": ["ss", "-xanpeO"],
    "udp": ["ss", "-uanpemO"],
    "raw": ["ss", "-wanpemO"],
}
USER_RE = re.compile(r'\("((?:[^"\\]|\\.)*)",pid=(\d+),fd=(\d+)\)')
UNIX_RE = re.compile(r'^(u_str|u_dgr|u_seq)\s+(\S+)\s+(\d+)\s+(\d+)\s+'
                     r'(.*?)\s(\d+)\s+(.*?)\s(\d+)(?=\s|$)')
PLAIN_RE = re.compile(r'^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$')


def die(msg):
    print("sscheck: " + msg, file=sys.stderr)
    sys.exit(2)


def run(argv):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        die("%s: %s" % (" ".join(argv), e))
    return p


# ---------------------------------------------------------------------
# pfiles' side


class Sock:
    """One fd that is a socket, as pfiles -J says."""

    def __init__(self, pid, comm, fd, obj):
        s = obj["socket"]
        self.pid, self.comm, self.fd, self.ino = pid, comm, fd, obj["ino"]
        self.type = s.get("type")
        name = s.get("sockname") or s.get("peername") or {}
        self.family = name.get("family")
        self.port = name.get("port")
        self.state = s.get("state")
        self.queued = s.get("queued")
        self.backlog = s.get("backlog")
        self.shared = s.get("shared_with", [])
        self.shared_more = s.get("shared_with_more", 0)
        self.has_ends = "endpoints" in s
        self.ends = s.get("endpoints", [])
        self.ends_more = s.get("endpoints_more", 0)
        self.error = s.get("error")
        self.unshown = set()        # facts pfiles said it did not show
        self.row = None             # ss' row of it, once compared

    def what(self):
        return "%s[%d] fd %d ino %d" % (self.comm, self.pid, self.fd,
                                         self.ino)

    def kind(self):
        """tcp, udp, raw, unix-stream, unix-dgram, or None."""
        if self.family == "AF_UNIX" or (self.family is None and
                                        self.state in UNIX_NAMES.values()):
            return ("unix-dgram" if self.type == "SOCK_DGRAM"
                    else "unix-stream")
        if self.family not in ("AF_INET", "AF_INET6"):
            return None
        return {"SOCK_STREAM": "tcp", "SOCK_DGRAM": "udp",
                "SOCK_RAW": "raw"}.get(self.type)


def pfiles_socks(args, pids):
    """pfiles -J on pids (None: --all): {(pid, fd): Sock}, the pids it
    examined, and its stderr."""
    argv = [args.pfiles, "-J"]
    if args.via:
        argv.append("--via=" + args.via)
    argv += ["--all"] if pids is None else [str(p) for p in pids]
    p = run(argv)
    err = p.stderr.decode("utf-8", "replace")
    try:
        doc = json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError as e:
        die("pfiles -J: not JSON (%s): %s" % (e, err[-500:]))
    out, seen = {}, set()
    for proc in doc:
        if "fds" not in proc:
            continue
        seen.add(proc["pid"])
        for f in proc["fds"]:
            if "socket" in f:
                s = Sock(proc["pid"], proc.get("comm", "?"), f["fd"], f)
                out[(s.pid, s.fd)] = s
    if not seen:
        die("pfiles examined no process: %s" % err[-500:])
    for m in re.finditer(r"^pfiles: (\d+): not shown: (\S+)", err, re.M):
        for sk in out.values():
            if sk.pid == int(m.group(1)):
                sk.unshown |= set(m.group(2).split(","))
    return out, seen, err


# ---------------------------------------------------------------------
# ss' side


class Row:
    """One socket as ss lists it."""

    def __init__(self, proto, state, rq, sq, local, peer, line):
        self.proto, self.state, self.rq, self.sq = proto, state, rq, sq
        self.local, self.peer, self.line = local, peer, line
        self.users = [(m.group(1), int(m.group(2)), int(m.group(3)))
                      for m in USER_RE.finditer(line)]
        self.ino, self.peer_ino, self.rshut, self.skmem = None, None, None, {}
        m = re.search(r"skmem:\(([^)]*)\)", line)
        if m:
            for kv in m.group(1).split(","):
                km = re.match(r"([a-z]+)(\d+)$", kv)
                if km:
                    self.skmem[km.group(1)] = int(km.group(2))
        # ss -e: " <->": '-' first where the receive side is shut down
        m = re.search(r"\s([<-])-([>-])(?=\s|$)", line)
        if m:
            self.rshut = m.group(1) == "-"


def addr(a):
    """An address:port of ss, without its scope and IPv4-mapped prefix."""
    a = re.sub(r"%[^:\]]*", "", a)
    return a.replace("[::ffff:", "[").replace("[", "").replace("]", "")


def parse_inet(proto, text):
    rows = []
    for line in text.splitlines()[1:]:
        t = line.split()
        if len(t) < 5 or not t[1].isdigit() or not t[2].isdigit():
            continue
        r = Row(proto, t[0], int(t[1]), int(t[2]), addr(t[3]), addr(t[4]),
                line)
        m = re.search(r"\bino:(\d+)", line)
        r.ino = int(m.group(1)) if m else None
        rows.append(r)
    return rows


def parse_unix(text):
    rows = []
    for line in text.splitlines()[1:]:
        m = UNIX_RE.match(line)
        if not m:
            continue
        r = Row(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)),
                m.group(5), m.group(7), line)
        r.ino, r.peer_ino = int(m.group(6)), int(m.group(8))
        rows.append(r)
    return rows


class Snapshot:
    """ss in one network namespace (entered through pid; None: ours)."""

    def __init__(self, pid):
        pre = [] if pid is None else ["nsenter", "--net=/proc/%d/ns/net"
                                      % pid]
        self.rows = []
        for proto, cmd in SS_CMDS.items():
            p = run(pre + cmd)
            if p.returncode != 0:
                die("%s: %s" % (" ".join(pre + cmd), p.stderr.decode()))
            text = p.stdout.decode("utf-8", "replace")
            self.rows += (parse_unix(text) if proto == "unix"
                          else parse_inet(proto, text))
        self.by_ino = {r.ino: r for r in self.rows if r.ino}
        self.by_user = {}
        for r in self.rows:
            for (_, pid_, fd) in r.users:
                self.by_user[(pid_, fd)] = r
        self.by_pair = {}
        for r in self.rows:
            if r.proto == "tcp":
                self.by_pair.setdefault((r.local, r.peer), []).append(r)


def netns_of(pid):
    try:
        return os.readlink("/proc/%d/ns/net" % pid)
    except OSError:
        return None


def snapshots(pids):
    """{netns: Snapshot} for every namespace the pids are in."""
    mine, seen = netns_of(os.getpid()), {}
    for pid in sorted(pids):
        ns = netns_of(pid)
        if ns is not None and ns not in seen:
            seen[ns] = Snapshot(None if ns == mine else pid)
    return seen


# ---------------------------------------------------------------------
# the comparison


class Tally:
    def __init__(self):
        self.c = {}

    def add(self, key, n=1):
        self.c[key] = self.c.get(key, 0) + n

    def get(self, key):
        return self.c.get(key, 0)


def find_row(snaps, s):
    for snap in snaps.values():
        r = snap.by_ino.get(s.ino)
        if r is not None:
            return r, snap
        r = snap.by_user.get((s.pid, s.fd))
        if r is not None and r.ino is None and r.proto == "raw":
            return r, snap
    return None, None


def why_unlisted(s):
    """Why ss does not list s (None: it should)."""
    k = s.kind()
    if k is None:
        return "a family ss is not asked about (%s)" % s.family
    if k == "tcp" and s.state == "CLOSE":
        return "TCP in CLOSE (ss lists no bound-inactive socket)"
    if k in ("tcp", "udp") and not s.port:
        return "TCP or UDP with no port"
    return None


def expect_queues(s, r):
    """(want, note): what pfiles should say of r's queues, and how."""
    k = s.kind()
    if r.state == "LISTEN":
        return ("backlog", {"waiting": r.rq, "limit": r.sq}), None
    if k in ("udp", "raw"):
        rd = r.skmem.get("r", r.rq)
        note = "udp_deficit" if rd != r.rq else None
        return ("queued", [{"read": rd, "send": r.sq}]), note
    if k != "tcp":
        return ("queued", [{"read": r.rq, "send": r.sq}]), None
    state = TCP_NAMES.get(r.state)
    if state in SYN_STATES:
        note = "adj_syn" if (r.rq, r.sq) != (0, 0) else None
        return ("queued", [{"read": 0, "send": 0}]), note
    if r.rq > 0 and state in FIN_STATES:
        return ("queued", [{"read": r.rq - 1, "send": r.sq}]), "adj_fin"
    if r.rq > 0 and state == "CLOSE" and r.rshut:
        return ("queued", [{"read": r.rq - 1, "send": r.sq},
                           {"read": r.rq, "send": r.sq}]), "adj_ambiguous"
    return ("queued", [{"read": r.rq, "send": r.sq}]), None


def compare_holders(what, mine, listed, more, users):
    """Problems of pfiles' holders (listed, more) against ss' users."""
    ss_set = {(p, f) for (_, p, f) in users}
    got = {(h["pid"], h["fd"]) for h in listed} | set(mine)
    if more == 0 and got != ss_set:
        return ["%s: pfiles %s, ss %s" % (what, sorted(got), sorted(ss_set))]
    if more > 0 and (not got <= ss_set or len(ss_set) != len(got) + more):
        return ["%s: pfiles %s and %d more, ss %s" %
                (what, sorted(got), more, sorted(ss_set))]
    comms = {(p, f): c for (c, p, f) in users}
    bad = ["%s: %s[%d] fd %d, ss says %s" % (what, h["comm"], h["pid"],
                                             h["fd"], comms[(h["pid"],
                                                             h["fd"])])
           for h in listed if "comm" in h and (h["pid"], h["fd"]) in comms
           and PLAIN_RE.match(comms[(h["pid"], h["fd"])])
           and comms[(h["pid"], h["fd"])] != h["comm"]]
    return bad


def other_end(snap, s, r):
    """ss' row of r's other end; None: none listed (or not comparable)."""
    if r.proto.startswith("u_"):
        return snap.by_ino.get(r.peer_ino) if r.peer_ino else None
    rows = snap.by_pair.get((r.peer, r.local), [])
    return rows[0] if len(rows) == 1 else None


def compare_state(s, r, t):
    """The problems of s's state against r's."""
    names = TCP_NAMES if s.kind() == "tcp" else UNIX_NAMES
    want = names.get(r.state, r.state)
    if s.state is None and "state" in s.unshown:
        t.add("not shown (said) state")
    elif s.state is None:
        return ["state: pfiles none, and not said on stderr; ss %s" %
                r.state]
    elif s.state != want:
        return ["state: pfiles %s, ss %s (%s)" % (s.state, r.state, want)]
    else:
        t.add("state agree")
    return []


def compare_queues(s, r, t):
    """The problems of s's queues or backlog against r's."""
    (key, wants), note = expect_queues(s, r)
    have = s.backlog if key == "backlog" else s.queued
    if have is None and "queues" in s.unshown:
        t.add("not shown (said) queues")
    elif have is None:
        return ["%s: pfiles none, and not said on stderr; ss Recv-Q %d "
                "Send-Q %d" % (key, r.rq, r.sq)]
    elif (have != wants) if key == "backlog" else (have not in wants):
        return ["%s: pfiles %s, ss Recv-Q %d Send-Q %d (want %s)" %
                (key, json.dumps(have), r.rq, r.sq, json.dumps(wants))]
    else:
        t.add(key + " agree")
        if note:
            t.add(note)
    return []


def compare(snaps, s, t):
    """The problems of s (a list of strings), counting what agrees in t."""
    if s.error is not None:
        t.add("details unavailable (said)")
        return []
    r, snap = find_row(snaps, s)
    s.row = r
    if r is None:
        why = why_unlisted(s)
        if why is not None:
            t.add("unlisted: " + why)
            return []
        return ["not listed by ss"]
    t.add("sockets")
    k = s.kind()
    probs = []
    if k == "tcp" or (k == "unix-stream" and r.proto != "u_dgr"):
        probs += compare_state(s, r, t)
    probs += compare_queues(s, r, t)
    hp = compare_holders("holders", [(s.pid, s.fd)], s.shared,
                         s.shared_more, r.users)
    probs += hp
    if not hp:
        t.add("holders agree")
    if k in ("tcp", "unix-stream", "unix-dgram") and r.state != "LISTEN":
        o = other_end(snap, s, r)
        users = o.users if o is not None else []
        if o is None and k == "tcp" and s.has_ends:
            t.add("endpoints not compared")
        else:
            ep = compare_holders("endpoints", [], s.ends, s.ends_more, users)
            probs += ep
            if not ep:
                t.add("endpoints agree")
    return probs


def missing_in_pfiles(snaps, socks, pids):
    """ss rows held by an fd of one of pids that pfiles did not show."""
    out = []
    for snap in snaps.values():
        for r in snap.rows:
            for (c, p, f) in r.users:
                if p in pids and (p, f) not in socks:
                    out.append((p, f, r))
    return out


# ---------------------------------------------------------------------


def check(args, pids, t):
    """One look: pfiles' sockets, ss' snapshots, {(pid, fd): (sock,
    problems)}, the ss rows held by an fd of a process pfiles examined
    that it did not show, and pfiles' stderr."""
    socks, seen, err = pfiles_socks(args, pids)
    snaps = snapshots(seen)
    probs = {}
    for key in sorted(socks):
        p = compare(snaps, socks[key], t)
        if p:
            probs[key] = (socks[key], p)
    return socks, snaps, probs, missing_in_pfiles(snaps, socks, seen), err


def fact_of(problem):
    """The fact a problem is about: state, queued, backlog, holders,
    endpoints, listed."""
    return problem.split(":")[0] if ":" in problem else "listed"


def moving(problem, s1, s2):
    """Was the fact of problem, found at both looks at s (s1, s2), moving
    between them: ss' figures of it, or the holders either tool saw,
    changed?  A fact pfiles left out is never moving."""
    f, r1, r2 = fact_of(problem), s1.row, s2.row
    if "pfiles none" in problem or r1 is None or r2 is None:
        return False
    if f in ("state", "queued", "backlog"):
        return (r1.state, r1.rq, r1.sq) != (r2.state, r2.rq, r2.sq)
    if f == "holders":
        return s1.shared != s2.shared or sorted(r1.users) != sorted(r2.users)
    return f == "endpoints" and s1.ends != s2.ends


def recheck(args, probs, lacking, t):
    """Look again at each socket that disagreed: the final problems."""
    pids = sorted({p for (p, _) in probs} | {p for (p, _, _) in lacking})
    if not pids:
        return 0
    live = [p for p in pids if os.path.exists("/proc/%d" % p)]
    socks2, probs2, lacking2 = {}, {}, set()
    if live:
        socks2, _, probs2, l2, _ = check(args, live, Tally())
        lacking2 = {(p, f) for (p, f, _) in l2}
    finals = 0
    for key, (s, p) in sorted(probs.items()):
        t.add("rechecked")
        for f in {fact_of(x) for x in p}:
            t.add("first look disagree " + f)
        again = probs2.get(key)
        if key not in socks2 or socks2[key].ino != s.ino:
            t.add("gone on recheck")
            print("%s: gone at the second look (first: %s)" %
                  (s.what(), "; ".join(p)))
        elif again is None:
            t.add("agreed on recheck")
            print("%s: agreed at the second look (first: %s)" %
                  (s.what(), "; ".join(p)))
        else:
            first = {fact_of(x) for x in p}
            still = [x for x in again[1] if fact_of(x) in first and
                     not moving(x, s, socks2[key])]
            for f in {fact_of(x) for x in again[1] if x not in still}:
                t.add("busy " + f)
            finals += 1 if still else 0
            for f in {fact_of(x) for x in still}:
                t.add("disagree " + f)
            print("%s %s: %s; again: %s" % (
                "DISAGREE" if still else "BUSY", s.what(), "; ".join(p),
                "; ".join(again[1])))
    for (p, f, r) in lacking:
        t.add("rechecked")
        t.add("first look disagree unseen")
        if (p, f) in lacking2:
            finals += 1
            t.add("disagree unseen")
            print("DISAGREE pid %d fd %d: ss lists it (%s), pfiles does "
                  "not, twice" % (p, f, r.line.strip()[:160]))
        else:
            t.add("agreed on recheck")
            print("pid %d fd %d: ss listed it and pfiles did not, once" %
                  (p, f))
    return finals


FACTS = ["state", "queued", "backlog", "holders", "endpoints", "listed",
         "unseen"]


def summary(args, t, nsocks, nsnaps, finals, notes):
    keys = ["sockets", "state agree", "queued agree", "backlog agree",
            "holders agree", "endpoints agree", "endpoints not compared",
            "adj_fin", "adj_syn", "adj_ambiguous", "udp_deficit",
            "not shown (said) state", "not shown (said) queues",
            "details unavailable (said)", "rechecked", "agreed on recheck",
            "gone on recheck"]
    keys += ["first look disagree " + f for f in FACTS]
    keys += ["busy " + f for f in FACTS]
    keys += ["disagree " + f for f in FACTS]
    keys += sorted(k for k in t.c if k.startswith("unlisted: "))
    for line in notes[:20]:
        print("note: " + line)
    if len(notes) > 20:
        print("note: ... %d more lines of pfiles' stderr" % (len(notes) - 20))
    print("sscheck: pfiles%s: %d sockets of pfiles, ss in %d network "
          "namespaces" % (" --via=" + args.via if args.via else "", nsocks,
                          nsnaps))
    for k in keys:
        if t.get(k) or not k.startswith(("first look", "disagree ", "busy ")):
            print("  %-34s %d" % (k, t.get(k)))
    print("  %-34s %d" % ("disagreements", finals))
    if not args.summary:
        return
    with open(args.summary, "w") as f:
        for k in keys:
            f.write("%s %d\n" % (re.sub(r"[ ()]+", "_", k).strip("_"),
                              t.get(k)))
        f.write("unlisted %d\n" % sum(
            n for (k, n) in t.c.items() if k.startswith("unlisted: ")))
        f.write("pfiles_sockets %d\npfiles_notes %d\ndisagreements %d\n" %
                (nsocks, len(notes), finals))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pfiles", default="pfiles")
    ap.add_argument("--via")
    ap.add_argument("--summary")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("pids", nargs="*", type=int)
    args = ap.parse_args()
    if args.all == bool(args.pids):
        die("usage: sscheck.py [--pfiles P] [--via S] [--summary F] "
            "(--all | PID...)")
    t = Tally()
    socks, snaps, probs, lacking, err = check(args, None if args.all
                                              else args.pids, t)
    finals = recheck(args, probs, lacking, t)
    summary(args, t, len(socks), len(snaps), finals,
            [x for x in err.splitlines() if x])
    return 1 if finals else 0


if __name__ == "__main__":
    sys.exit(main())
