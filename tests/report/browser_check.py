#!/usr/bin/env python3
"""Opens topoplan's HTML reports in headless Chromium and checks what a person would see.

  tests/report/browser_check.py TOPOPLAN_BINARY OUT_DIR

For the data/ examples at 16 and 2,048 hosts it writes `score --html`, loads each page over the
DevTools protocol (a small client of its own: no browser download, no npm), and checks: no console
error or exception, one SVG row per fabric tier plus the hosts, a TP group's highlight covering
exactly its members' hosts and GPUs, a click on a host opening its devices, a DP group's links lit.
It saves a screenshot of each page in OUT_DIR and prints the load and render times. Then explain's
pages open on their group or link, and review's draws both layouts. Exits 77 (ctest's "skipped") when
no Chromium is installed, saying so.
"""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

CASES = [
    # name, cluster, job
    ("pods-16", "data/clusters/pods-16-h100.json", "data/jobs/llama3-70b.json"),
    ("dgx-h100-2048", "dgx-h100:2048", "data/jobs/llama3-405b.json"),
]
TIMEOUT_S = 120


class WebSocket:
    """RFC 6455, client side, text frames only: what the DevTools protocol needs."""

    def __init__(self, url):
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=TIMEOUT_S)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.split(b"\r\n")[0].decode())
        self.buffer = head.split(b"\r\n\r\n", 1)[1]

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else
                                bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 8:
                raise RuntimeError("DevTools closed the WebSocket")
            if opcode in (9, 10):  # ping, pong: nothing to do for a short-lived client
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()


class Page:
    def __init__(self, url):
        self.ws = WebSocket(url)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.receive())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method, timeout_s=TIMEOUT_S):
        end = time.time() + timeout_s
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(json.loads(self.ws.receive()))
        raise RuntimeError(f"no {method} within {timeout_s} s")

    def eval(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails'].get('exception', {}).get('description', r['exceptionDetails'])}")
        return r["result"].get("value")

    def errors(self):
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("exception", {}).get("description", "exception"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def report_data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="topoplan-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def check(failures, ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)


def check_page(page, path, shot, failures):
    data = report_data(path)
    dev = data["devices"]
    fabric = {dev["kinds"].index("switch"), dev["kinds"].index("site_router")}
    tiers = {t for t, k in zip(dev["tier"], dev["kind"]) if k in fabric}
    page.events.clear()
    start = time.time()
    page.call("Page.navigate", url="file://" + os.path.abspath(path))
    page.wait_for("Page.loadEventFired")
    load_s = time.time() - start
    render_ms = page.eval("window.topoplanReport ? window.topoplanReport.renderMs : -1")
    print(f"  {os.path.basename(path)}: {os.path.getsize(path) / 1e6:.2f} MB, loaded in {load_s:.2f} s, first render {render_ms:.0f} ms")
    check(failures, os.path.getsize(path) < 10e6, "the page is under 10 MB")
    check(failures, render_ms >= 0, "the script ran (window.topoplanReport is set)")
    tables = page.eval("document.querySelectorAll('table.table').length")
    # Per layout: by kind, collectives, hottest links, findings, and memory where the score has it.
    expected = sum(4 + bool(lay["tables"].get("memory")) for lay in data["layouts"])
    check(failures, tables == expected,
          f"{tables} tables (expected {expected}): by kind, collectives, hottest links, memory, findings")
    rows = page.eval("document.querySelectorAll('svg.fabric g.row').length")
    check(failures, rows == len(tiers) + 1, f"{rows} rows drawn: {len(tiers)} fabric tiers and the hosts")

    # A TP group: its members' hosts, and once a host is open its GPUs, are marked; nothing else.
    tp = data["layouts"][0]["groups"]["tp"][0]
    hosts = sorted({dev["host"][g] for g in tp})
    page.eval("window.topoplanReport.selectGroup('tp', 0)")
    marked = page.eval("[...document.querySelectorAll('svg.fabric .unit.member')].map(e => e.dataset.key)")
    check(failures, sorted(marked) == sorted(f"h{h}" for h in hosts),
          f"tp group 0 lights up its {len(hosts)} host(s) and only those ({len(marked)} marked)")
    links = page.eval("window.topoplanReport.groupInfo().links.size")
    print(f"  tp group 0: {len(tp)} GPUs, {links} fabric links on its paths")

    # Click the first member host as a person would (at its box on screen): its devices open.
    unit = f"document.querySelector('svg.fabric .unit[data-key=\"h{hosts[0]}\"]')"
    page.eval(unit + ".scrollIntoView({block: 'center', inline: 'center'})")
    box = page.eval("(() => { const r = " + unit + ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    for kind in ("mousePressed", "mouseReleased"):
        page.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
    opened = page.eval("(() => { const s = document.querySelector('svg.host-detail'); return s ? s.dataset.host : null; })()")
    check(failures, opened == data["hosts"][hosts[0]], f"a click on {data['hosts'][hosts[0]]} opens its devices (opened: {opened})")
    gpus = [v for v in range(len(dev["kind"])) if dev["host"][v] == hosts[0] and dev["kind"][v] == dev["kinds"].index("gpu")]
    shown = page.eval("document.querySelectorAll('svg.host-detail .device.gpu').length")
    check(failures, shown == len(gpus), f"its {len(gpus)} GPUs are drawn ({shown})")
    members = page.eval("[...document.querySelectorAll('svg.host-detail .device.member')].map(e => +e.dataset.device)")
    expected = sorted(g for g in tp if dev["host"][g] == hosts[0])
    check(failures, sorted(members) == expected, f"the group's GPUs on that host are marked ({len(members)} of {len(expected)})")

    # A DP group spans hosts: the links its ring crosses light up, the busiest one marked.
    dp = data["layouts"][0]["groups"]["dp"][0]
    page.eval("window.topoplanReport.selectGroup('dp', 0)")
    crossed = page.eval("window.topoplanReport.groupInfo().links.size")
    drawn = page.eval("document.querySelectorAll('svg.fabric .link.in-group').length")
    slowest = page.eval("document.querySelectorAll('svg.fabric .link.slowest').length")
    label = page.eval("(() => { const t = document.querySelector('svg.fabric .slowest-label'); return t ? t.textContent : ''; })()")
    check(failures, crossed > 0 and drawn > 0 and slowest == 1 and label.startswith("slowest: "),
          f"dp group 0 ({len(dp)} GPUs on {len({dev['host'][g] for g in dp})} hosts): {crossed} links on its paths, "
          f"{drawn} drawn lit, the busiest marked ({label})")

    errors = page.errors()
    check(failures, not errors, "no console error or exception" + (": " + "; ".join(errors[:3]) if errors else ""))
    png = page.call("Page.captureScreenshot", format="png")["data"]
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png))
    print(f"  screenshot: {shot}")


def check_opened(page, binary, root, out, failures):
    """explain's page opens on its group or link; review's draws both layouts; observe's is coloured by
    observed / predicted."""
    base = ["--cluster", "data/clusters/pods-16-h100.json", "--job", "data/jobs/llama3-70b.json"]
    hosts = os.path.join(out, "interleaved.txt")
    with open(hosts, "w") as f:
        f.writelines(f"h{pod * 4 + k + 1:03d} slots=8\n" for k in range(4) for pod in range(4))
    counters = os.path.join(out, "counters.csv")
    with open(counters, "w") as f:
        f.write("link,window_s,tx_bytes,rx_bytes\nh001/nic0,60,6000000000,6000000000\nh016/nic0,60,600000000000,0\n")
    ratio_line = ("document.querySelector('#mode').value === 'ratio' && [...document.querySelectorAll('svg.fabric line.link')]"
                  ".some((l) => ['#6a3d9a', '#4682b4', '#1a9641', '#e6b800', '#f07c00', '#d7191c'].includes(l.getAttribute('stroke')))")
    # Two running jobs across the same pods: contention's page colours their hosts and lights one's links.
    with open(os.path.join(out, "a.hosts"), "w") as f:
        f.write("h[001,005] slots=4\n")
    with open(os.path.join(out, "b.hosts"), "w") as f:
        f.write("h[002,006] slots=4\n")
    running = os.path.join(out, "running.json")
    tiny = os.path.join(root, "data", "jobs", "tiny-8.json")
    with open(running, "w") as f:
        json.dump({"format": "topoplan-running", "jobs": [{"name": "a", "job": tiny, "layout": "a.hosts"},
                                                          {"name": "b", "job": tiny, "layout": "b.hosts"}]}, f)
    jobs_line = ("(() => { const r = window.topoplanReport; r.selectGroup('job', 1); const g = r.groupInfo(); "
                 "return !!g && g.name === 'b' && g.links.size > 0 && document.querySelectorAll('.sets a').length === 2 && "
                 "document.querySelector('.status').textContent.startsWith('b: 8 GPUs on 2 hosts') && "
                 "document.querySelectorAll('svg.fabric .link.in-group').length > 0 && "
                 "[...document.querySelectorAll('svg.fabric .unit.host rect')].filter((x) => x.style.fill !== '').length === 4; })()")
    pages = [("contention", ["contention", "--cluster", "data/clusters/pods-16-h100.json", "--running", running], jobs_line,
              "contention colours the jobs' hosts, and job b's pick lights its links"),
             ("observe", ["observe", *base, "--counters", counters], ratio_line,
              "observe opens coloured by observed / predicted"),
             ("explain-group", ["explain", *base, "--group", "dp:3"],
              "(() => { const g = window.topoplanReport.groupInfo(); return !!g && g.members.size === 4; })()", "explain --group dp:3 opens with dp group 3 selected"),
             ("explain-link", ["explain", *base, "--link", "spine0 -> core0"],
              "document.querySelectorAll('svg.fabric .link.focus').length === 1", "explain --link outlines the line that holds spine0 -> core0"),
             ("review", ["review", *base, "--layout", hosts],
              "document.querySelectorAll('svg.fabric').length === 2 && document.querySelector('#mode').value === 'exposed'",
              "review draws the layout and the planner's side by side, coloured by what each link costs the step"),
             ("review-tp-split", ["review", *base, "--layout", "tests/golden/layouts/tp-split.hosts"],
              "document.body.innerText.split('\\n')[0] === window.topoplanReport.data.text.split('\\n')[0] && "
              "document.body.innerText.startsWith('FAIL ') && document.querySelector('p.verdict.fail') !== null",
              "review's page opens with its verdict line, FAIL and the ratio, as the text's first line"),
             ("review-tp-split-critical", ["review", *base, "--layout", "tests/golden/layouts/tp-split.hosts"],
              "[...document.querySelectorAll('svg.fabric')[0].querySelectorAll('line.link.critical')].some((l) => "
              "l.getAttribute('stroke') === '#c2185b' && l.querySelector('title').textContent.startsWith('critical: h001/nic3 -> leaf3: '))",
              "the split TP group's NIC hop (h001/nic3 -> leaf3, as the finding names it) is drawn in the critical colour on first load"),
             ("explain-tp-split", ["explain", *base, "--layout", "tests/golden/layouts/tp-split.hosts", "--group", "tp:1"],
              "document.querySelectorAll('svg.host-detail').length === 2 && "
              "document.querySelector('svg.fabric .slowest-label').textContent.startsWith('slowest: h002/nic0 -> leaf0 ') && "
              "document.querySelector('.status').textContent.includes('h002/nic0 -> leaf0') && "
              "/step [0-9.]+ (s|ms), exposed communication [0-9.]+ (s|ms|us) per step/.test(document.querySelector('section.view h2').textContent)",
              "explain --group tp:1 opens its two hosts and names the slowest link as its text does, durations in the text's units")]
    for name, args, test, what in pages:
        path = os.path.join(out, name + ".html")
        r = subprocess.run([binary, *args, "--html", path], cwd=root, capture_output=True, text=True)
        if r.returncode > 1:
            check(failures, False, f"{' '.join(args)}: {r.stderr.strip()}")
            continue
        page.events.clear()
        page.call("Page.navigate", url="file://" + path)
        page.wait_for("Page.loadEventFired")
        check(failures, page.eval(test) is True, what)
        errors = page.errors()
        check(failures, not errors, f"{name}: no console error" + (": " + "; ".join(errors[:3]) if errors else ""))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    binary, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    browser = chromium()
    if not browser:
        print("report browser check SKIPPED: no Chromium found (scripts/setup installs Debian's chromium)")
        return 77
    os.makedirs(out, exist_ok=True)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    failures = []
    profile = tempfile.mkdtemp(prefix="topoplan-chromium-")
    proc = subprocess.Popen([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--remote-debugging-port=0", "--user-data-dir=" + profile, "--window-size=1600,1000",
                             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        end = time.time() + 60
        while not os.path.exists(port_file) and time.time() < end:
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30))
        page = Page(next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"])
        for domain in ("Page", "Runtime", "Log"):
            page.call(domain + ".enable")
        for name, cluster, job in CASES:
            path = os.path.join(out, name + ".html")
            r = subprocess.run([binary, "score", "--cluster", cluster, "--job", job, "--html", path],
                               cwd=root, capture_output=True, text=True)
            print(f"{name}: topoplan score --cluster {cluster} --job {job} --html {path}")
            check(failures, r.returncode == 0, "topoplan wrote the report" + (": " + r.stderr.strip() if r.returncode else ""))
            if r.returncode == 0:
                check_page(page, path, os.path.join(out, name + ".png"), failures)
        check_opened(page, binary, root, out, failures)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    print(f"report browser check: {'FAILED: ' + str(len(failures)) if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
