#!/usr/bin/env python3
"""test_metrics_abuse.py -- `watch --listen` keeps serving /metrics while
other clients misbehave (docs/live.md, "Serving metrics safely").

Against one watcher on loopback:
  1. 500 connections opened from 127.0.0.1 and left idle, 60 more from
     127.0.0.2, 40 from 127.0.0.4 that trickle a request a byte at a time
     (slowloris): a scrape from a third address (127.0.0.3) answers within
     a second, and so does one from 127.0.0.1 itself once its idle
     connections are gone;
  2. the idle connections are closed by the server (each socket reads its
     end) within the idle timeout and a few seconds;
  3. after all are closed, a scrape answers within a second again.
Every loop is bounded in count and time; only loopback addresses are used.
Exit 77 (skipped) where watch was built without libmicrohttpd.
Usage: test_metrics_abuse.py WATERFALL LOG
"""
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

W, LOG = sys.argv[1], sys.argv[2]
IDLE_S = 3  # METRICS_IDLE_S in src/live/metrics.c
fails, passes = [], 0


def check(cond, what):
    global passes
    if cond:
        passes += 1
    else:
        fails.append(what)
        print("FAIL: " + what, file=sys.stderr)


def scrape(port, src="127.0.0.3", timeout=1.0):
    """One GET /metrics from src; (seconds taken, body) or (None, why)."""
    t0 = time.monotonic()
    s = socket.socket()
    s.settimeout(timeout)
    try:
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while time.monotonic() - t0 < timeout:
            b = s.recv(65536)
            if not b:
                break
            data += b
        if not data.startswith(b"HTTP/1.1 200"):
            return None, "no 200: %r" % data[:80]
        return time.monotonic() - t0, data
    except OSError as e:
        return None, str(e)
    finally:
        s.close()


def idle_from(src, n, port):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(True)
        s.settimeout(2)
        try:
            s.bind((src, 0))
            s.connect(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        socks.append(s)
    return socks


def closed_by_server(socks, limit):
    """How many of socks the server closed (a read sees the end or a reset)
    within limit seconds."""
    end = time.monotonic() + limit
    left = set(socks)
    while left and time.monotonic() < end:
        r, _, _ = select.select(list(left)[:900], [], [], 0.5)
        for s in r:
            try:
                if s.recv(1) == b"":
                    left.discard(s)
            except OSError:
                left.discard(s)
    return len(socks) - len(left)


def main():
    T = tempfile.mkdtemp()
    port_file = os.path.join(T, "err")
    s0 = socket.socket()
    s0.bind(("127.0.0.1", 0))
    port = s0.getsockname()[1]
    s0.close()
    w = subprocess.Popen([W, "watch", "--json-lines", "--interval", "0.2", "--listen", "127.0.0.1:%d" % port, LOG],
                         stdout=subprocess.DEVNULL, stderr=open(port_file, "w"))
    socks = []
    try:
        for _ in range(100):  # until it answers (bounded: 10 s)
            time.sleep(0.1)
            if "not built" in open(port_file).read():
                print("test_metrics_abuse: skipped: watch --listen was not built (apt-get install libmicrohttpd-dev)")
                return 77
            if w.poll() is not None or scrape(port)[0] is not None:
                break
        took, body = scrape(port)
        check(took is not None, "a first scrape: %s" % (body if took is None else ""))

        # 1. idle and trickling clients from three addresses
        socks = idle_from("127.0.0.1", 500, port) + idle_from("127.0.0.2", 60, port)
        trickle = idle_from("127.0.0.4", 40, port)
        for s in trickle:
            try:
                s.send(b"G")
            except OSError:
                pass
        time.sleep(0.3)
        took, body = scrape(port, "127.0.0.3")
        check(took is not None and took < 1.0,
              "a scrape from a third address while 600 sockets are idle: %s" % (took if took else body))
        for i, s in enumerate(trickle):
            try:
                s.send(b"ET /me"[i % 6:i % 6 + 1])
            except OSError:
                pass
        took, body = scrape(port, "127.0.0.3")
        check(took is not None and took < 1.0, "a scrape while others trickle their requests: %s" %
              (took if took else body))

        # 2. the server closes what stays idle
        n = closed_by_server(socks, IDLE_S + 5)
        check(n == len(socks), "the server closed %d of %d idle connections within %d s" %
              (n, len(socks), IDLE_S + 5))
        took, body = scrape(port, "127.0.0.1")
        check(took is not None and took < 1.0, "a scrape from the idle clients' own address, after: %s" %
              (took if took else body))

        # 3. all closed on our side too
        for s in socks + trickle:
            s.close()
        socks = []
        time.sleep(0.2)
        took, body = scrape(port, "127.0.0.3")
        check(took is not None and took < 1.0, "a scrape after the idle clients left: %s" %
              (took if took else body))
        check(w.poll() is None, "the watcher still runs")
    finally:
        for s in socks:
            s.close()
        if w.poll() is None:
            w.send_signal(signal.SIGTERM)
        try:
            w.wait(timeout=10)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()
    print("test_metrics_abuse: %d passed, %d failed" % (passes, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
