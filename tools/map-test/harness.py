"""A real broker, a real aggregator and simulated nodes for the map's browser test and benchmark.

Nodes are simulated at the MQTT level: each publishes reading batches (docs/protocol.md, MQTT
topics) through its own `mosquitto_pub -l`, with RSSI from the log-distance model the site's
absorption gives, so the aggregator places each device near the position the test chose.
"""
import json, math, os, shutil, socket, subprocess, tempfile, threading, time, urllib.request, urllib.error

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


class Rig:
    """mosquitto + whereabouts-aggregator (with SQLite and HTTP) in a temporary directory."""

    def __init__(self, site_path, token=None, away_after="6s", bin_dir=None):
        self.bin = bin_dir or os.environ["WHEREABOUTS_BIN"]
        self.dir = tempfile.mkdtemp(prefix="map-test-")
        with open(site_path) as f:
            self.site = yaml.safe_load(f)
        self.site.setdefault("positioning", {})["away_after"] = away_after
        self.site_file = os.path.join(self.dir, "site.yaml")
        with open(self.site_file, "w") as f:
            yaml.safe_dump(self.site, f)
        os.chmod(self.site_file, 0o600)
        self.port = free_port()
        self.http_port = free_port()
        self.token = token
        self.procs = []
        conf = os.path.join(self.dir, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        self.broker = self.spawn(["mosquitto", "-c", conf], "mosquitto.log")
        wait_port(self.port)
        args = [f"{self.bin}/whereabouts-aggregator", "--site", self.site_file, "--broker", f"mqtt://127.0.0.1:{self.port}",
                "--db", os.path.join(self.dir, "track.db"), "--http", f"127.0.0.1:{self.http_port}", "--no-discovery"]
        if token:
            tf = os.path.join(self.dir, "token")
            with open(tf, "w") as f:
                f.write(token + "\n")
            os.chmod(tf, 0o600)
            args += ["--http-token-file", tf]
        self.aggregator = self.spawn(args, "aggregator.log")
        wait_port(self.http_port)
        self.url = f"http://127.0.0.1:{self.http_port}/"
        self.nodes = {n["name"]: n for n in self.site["nodes"]}
        self.absorption = self.site.get("positioning", {}).get("absorption", 2.7)
        self.publishers = {}
        self.seq = {}

    def spawn(self, args, log):
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=open(os.path.join(self.dir, log), "w"),
                             stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def log(self, name="aggregator.log"):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def get(self, path, token=None):
        """(status, body bytes) of a GET, with `token` as the bearer (default: the rig's)."""
        request = urllib.request.Request(self.url.rstrip("/") + path)
        token = self.token if token is None else token
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def online(self, node):
        subprocess.run(["mosquitto_pub", "-p", str(self.port), "-t", f"whereabouts/nodes/{node}/status", "-m", "online",
                        "-r", "-q", "1"], check=True)

    def publish(self, node, readings):
        """One batch from `node` (its own long-lived mosquitto_pub reading lines)."""
        p = self.publishers.get(node)
        if p is None:
            p = subprocess.Popen(["mosquitto_pub", "-p", str(self.port), "-t", f"whereabouts/nodes/{node}/readings", "-l"],
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
            self.publishers[node] = p
            self.procs.append(p)
        seq = self.seq.get(node, 0) + 1
        self.seq[node] = seq
        batch = {"v": 1, "node": node, "seq": seq, "t": round(time.time(), 3), "readings": readings}
        p.stdin.write(json.dumps(batch) + "\n")
        p.stdin.flush()

    def rssi(self, node, x, y, z=1.0):
        nx, ny, nz = self.nodes[node]["point"]
        d = max(0.3, math.dist((x, y, z), (nx, ny, nz)))
        return round(-59 - 10 * self.absorption * math.log10(d))

    def readings_at(self, node, devices, t):
        """Readings of `node` for each (id, mac, x, y, z) in `devices`."""
        return [{"id": i, "mac": mac, "rssi": self.rssi(node, x, y, z), "tx": -59, "t": round(t, 3), "kind": "ibeacon"}
                for (i, mac, x, y, z) in devices]

    def stop(self):
        for p in self.publishers.values():
            try:
                p.stdin.close()
            except OSError:
                pass
        if self.aggregator.poll() is None:
            self.aggregator.terminate()
            try:
                self.aggregator.wait(15)
            except subprocess.TimeoutExpired:
                self.aggregator.kill()
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class Feeder(threading.Thread):
    """Publishes, every `period` s from each node of a floor, readings of the devices that
    `positions(t)` places: a dict id -> (mac, x, y, z, floor) or None while away."""

    def __init__(self, rig, positions, period=0.25):
        super().__init__(daemon=True)
        self.rig, self.positions, self.period = rig, positions, period
        self.stopped = threading.Event()
        self.error = None

    def run(self):
        try:
            start = time.time()
            while not self.stopped.is_set():
                t = time.time()
                placed = self.positions(t - start)
                for name, node in self.rig.nodes.items():
                    here = [(i, mac, x, y, z) for i, (mac, x, y, z, floor) in placed.items()
                            if not node.get("floors") or floor in node["floors"]]
                    if here:
                        self.rig.publish(name, self.rig.readings_at(name, here, t))
                self.stopped.wait(max(0, self.period - (time.time() - t)))
        except Exception as e:  # reported by the test, never swallowed
            self.error = e

    def stop(self):
        self.stopped.set()
        self.join(5)


class StateLog(threading.Thread):
    """`mosquitto_sub -v` on every device state: (arrival wall time, payload) per message."""

    def __init__(self, rig):
        super().__init__(daemon=True)
        self.entries = []
        self.proc = subprocess.Popen(["mosquitto_sub", "-p", str(rig.port), "-v", "-t", "whereabouts/devices/+/state"],
                                     stdout=subprocess.PIPE, text=True)
        rig.procs.append(self.proc)

    def run(self):
        for line in self.proc.stdout:
            topic, _, payload = line.rstrip("\n").partition(" ")
            try:
                self.entries.append((time.time(), json.loads(payload)))
            except ValueError:
                pass


def chrome(width=1200, height=780):
    """Headless Debian Chromium under chromedriver; no download of any browser or driver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
              "--hide-scrollbars"]:
        options.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
