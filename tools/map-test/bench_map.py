"""make map-bench: the live map under load (not part of make test).

1,000 devices on the demo site's ground floor, each moving and solved twice a second with the
state deadband off, so the aggregator publishes about 2,000 states a second. Two phases of
60 s in one run, against one aggregator: first without a page, then with the map open in
headless Chromium. Reported: states published per second, the aggregator's CPU in each phase,
the page's frame times (requestAnimationFrame intervals and long animation frames, from the
browser's own performance timeline), the lag of what the page shows (receipt less the state's
time) over the run, and live streams dropped.
"""
import json, math, os, re, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness

DEVICES = int(os.environ.get("MAP_BENCH_DEVICES", "1000"))
SECONDS = float(os.environ.get("MAP_BENCH_SECONDS", "60"))
SITE = os.path.join(harness.REPO, "tools/sites/house.yaml")


def positions(t):
    """Each device circles its own centre at about 1 m/s."""
    out = {}
    for i in range(DEVICES):
        cx, cy = 1.5 + (i % 25) * 0.28, 1.5 + (i // 25 % 40) * 0.13
        a = t / 1.5 + i
        out[f"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-3-{i}"] = (
            f"c2:00:00:00:{i >> 8:02x}:{i & 255:02x}", cx + 1.5 * math.cos(a), cy + 1.5 * math.sin(a), 1.0, "ground")
    return out


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def published(rig):
    _, body = rig.get("/metrics")
    m = re.search(rb'whereabouts_states_total\{result="published"\} (\d+)', body)
    return int(m.group(1)) if m else 0


def metric(rig, name):
    _, body = rig.get("/metrics")
    m = re.search(rb"^" + name.encode() + rb" (\S+)$", body, re.M)
    return float(m.group(1)) if m else float("nan")


def phase(rig, seconds):
    c0, s0, t0 = cpu_seconds(rig.aggregator.pid), published(rig), time.time()
    time.sleep(seconds)
    c1, s1, t1 = cpu_seconds(rig.aggregator.pid), published(rig), time.time()
    return (c1 - c0) / (t1 - t0), (s1 - s0) / (t1 - t0)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def main():
    import yaml
    with open(SITE) as f:
        site = yaml.safe_load(f)
    site["positioning"]["state_deadband"] = 0
    path = os.path.join("/tmp", f"map-bench-site-{os.getpid()}.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(site, f)
    rig = harness.Rig(path, away_after="120s")
    os.unlink(path)
    feeder = harness.Feeder(rig, positions, period=0.5)
    driver = None
    try:
        for node in rig.nodes:
            rig.online(node)
        feeder.start()
        time.sleep(10)  # every device placed and solving
        cpu_without, rate_without = phase(rig, SECONDS)
        driver = harness.chrome()
        driver.get(rig.url)
        harness_wait = time.time() + 30
        while driver.execute_script("return window.whereabouts && window.whereabouts.devices.size") < DEVICES * 0.95:
            assert time.time() < harness_wait, "the page never showed the devices"
            time.sleep(0.5)
        driver.execute_script("""
            const b = window.__bench = { frames: [], loaf: [], lag: [], events0: whereabouts.stats.events };
            let last = performance.now();
            const frame = (now) => { b.frames.push(now - last); last = now; requestAnimationFrame(frame); };
            requestAnimationFrame(frame);
            try {
              new PerformanceObserver((list) => { for (const e of list.getEntries()) b.loaf.push([e.duration,
                  e.renderStart ? e.renderStart - e.startTime : e.duration,
                  e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0]); })
                .observe({ type: 'long-animation-frame', buffered: false });
            } catch (e) { b.loafUnsupported = String(e); }
            setInterval(() => b.lag.push([performance.now(), whereabouts.stats.lastLag]), 250);
        """)
        cpu_with, rate_with = phase(rig, SECONDS)
        b = driver.execute_script("const b = window.__bench; b.events = whereabouts.stats.events - b.events0; return b;")
        if feeder.error:
            raise feeder.error
        lags = [l for _, l in b["lag"] if l is not None]
        tenth = max(1, len(lags) // 6)
        first, last = statistics.median(lags[:tenth]), statistics.median(lags[-tenth:])
        frames = b["frames"][5:]
        print(f"map-bench: {DEVICES} devices, {SECONDS:.0f} s per phase, Chromium {driver.capabilities.get('browserVersion')}")
        print(f"  states published: {rate_without:.0f}/s without the page, {rate_with:.0f}/s with it; "
              f"page received {b['events'] / SECONDS:.0f} events/s")
        print(f"  aggregator CPU: {cpu_without * 100:.1f} % of a core without the page, {cpu_with * 100:.1f} % with it")
        print(f"  frames: {len(frames)}, requestAnimationFrame interval p50 {pct(frames, 50):.1f} ms, "
              f"p95 {pct(frames, 95):.1f} ms, max {max(frames):.1f} ms (bar: p95 < 50 ms)")
        loaf = [e[0] for e in b["loaf"]]
        tasks = [e[1] for e in b["loaf"]]
        render = [e[2] for e in b["loaf"]]
        print(f"  long animation frames (> 50 ms): {len(loaf)}" + (f", p95 {pct(loaf, 95):.0f} ms "
              f"(median {pct(tasks, 50):.0f} ms in tasks and scripts, {pct(render, 50):.0f} ms in style, layout and paint)" if loaf else "")
              + (f" (unsupported: {b['loafUnsupported']})" if b.get("loafUnsupported") else ""))
        print(f"  lag (page receipt less state time): median {first * 1000:.0f} ms over the first sixth, "
              f"{last * 1000:.0f} ms over the last sixth")
        print(f"  live streams dropped: {metric(rig, 'whereabouts_http_live_dropped_total'):.0f}")
        ok = pct(frames, 95) < 50 and last < first + 0.5
        print(f"map-bench: {'bar met' if ok else 'BAR MISSED'}")
        return 0 if ok else 1
    finally:
        feeder.stop()
        if driver:
            driver.quit()
        rig.stop()


if __name__ == "__main__":
    sys.exit(main())
