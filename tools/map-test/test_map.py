"""The live map in real headless Chromium against a real broker and aggregator (make map-test).

Checks, each reported as passed or failed with its reason:
  site       the page draws every room, node and zone of the demo site (tools/sites/house.yaml)
  token      a bad token gets no data (API 401; the page asks again and draws nothing)
  live       a state published for a device moves its marker within 1 s
  escaping   a device id with <script> in it is shown as text
  away       a device going away is marked away (its marker hidden)
  playback   playback of the stored track passes the rooms the database holds, in order
Screenshots of each view go to out/map-test/ (MAP_TEST_SHOTS=docs/map refreshes the manual's).
"""
import json, os, sys, time, traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

SITE = os.path.join(harness.REPO, "tools/sites/house.yaml")
# Screenshots of each view: out/map-test/ (ignored), or MAP_TEST_SHOTS=docs/map to refresh
# the manual's pictures.
SHOTS = os.path.join(harness.REPO, os.environ.get("MAP_TEST_SHOTS", "out/map-test"))
TOKEN = "map-test-token-7d1f"
KEYS = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
EVIL = 'iBeacon:<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
# Keys walks living room → hall → kitchen through the doors, holding still at each end.
WALK = [(0, (2.0, 2.0)), (8, (2.0, 2.0)), (11, (3.0, 5.0)), (13, (3.0, 6.6)), (18, (8.0, 6.6)),
        (20, (8.0, 5.0)), (23, (8.0, 2.5)), (60, (8.0, 2.5))]
results = []


def check(name):
    def wrap(fn):
        def run(*args):
            started = time.time()
            try:
                fn(*args)
                results.append((name, True, f"{time.time() - started:.1f} s"))
                print(f"PASS {name}", flush=True)
            except Exception as e:
                results.append((name, False, str(e)))
                print(f"FAIL {name}: {e}", flush=True)
                traceback.print_exc()
        return run
    return wrap


def where(t):
    for (t0, p0), (t1, p1) in zip(WALK, WALK[1:]):
        if t0 <= t <= t1:
            f = (t - t0) / (t1 - t0)
            return (p0[0] + (p1[0] - p0[0]) * f, p0[1] + (p1[1] - p0[1]) * f)
    return WALK[-1][1]


class Scenario:
    """What the feeder publishes: Keys walking, the evil id still in the living room until
    `evil_gone` is set."""

    def __init__(self):
        self.walk_from = None
        self.evil_gone = False

    def __call__(self, t):
        placed = {}
        if not self.evil_gone:
            placed[EVIL] = ("c2:00:00:00:00:02", 1.5, 3.5, 1.0, "ground")
        s = 0 if self.walk_from is None else time.time() - self.walk_from
        x, y = where(s)
        placed[KEYS] = ("c2:00:00:00:00:01", x, y, 1.0, "ground")
        return placed


def wait(driver, what, timeout=10, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(what), message)


def shot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, f"{name}.png"))


@check("token")
def test_token(rig, driver):
    status, body = rig.get("/api/devices", token="wrong")
    assert status == 401, f"/api/devices with a bad token: {status} {body[:80]!r}"
    status, _ = rig.get("/api/live", token="")
    assert status == 401, f"/api/live without a token: {status}"
    driver.get(rig.url)
    driver.execute_script("localStorage.setItem('whereabouts.token', 'wrong')")
    driver.get(rig.url)
    wait(driver, "return !document.getElementById('token-dialog').hidden", message="the page did not ask for a token")
    shot(driver, "token")
    drawn = driver.execute_script("return document.querySelectorAll('[data-room], [data-node], [data-zone], [data-device]').length")
    assert drawn == 0, f"{drawn} site or device elements drawn with a bad token"
    error = driver.find_element(By.ID, "token-error").text
    assert "refused" in error, f"the page did not say the token was refused: {error!r}"
    box = driver.find_element(By.ID, "token-input")
    box.send_keys(TOKEN)
    driver.find_element(By.CSS_SELECTOR, "#token-form button").click()
    wait(driver, "return document.getElementById('status').dataset.state === 'live'", message="no live stream with the right token")


@check("site")
def test_site(rig, driver):
    wait(driver, "return document.querySelectorAll('#maps svg.floor').length > 0")
    for floor in rig.site["floors"]:
        svg = driver.find_element(By.CSS_SELECTOR, f'#maps svg[data-floor="{floor["id"]}"]')
        for room in floor["rooms"]:
            polygons = svg.find_elements(By.CSS_SELECTOR, f'polygon.room[data-room="{room["id"]}"]')
            assert len(polygons) == 1, f"room {room['id']}: {len(polygons)} polygons"
            label = driver.execute_script("return arguments[0].querySelector('text.room-label[data-room=\"' + arguments[1] + '\"]').textContent",
                                          svg, room["id"])
            assert label == room["name"], f"room {room['id']} labelled {label!r}"
        for zone in [z for z in rig.site["zones"] if z["floor"] == floor["id"]]:
            assert len(svg.find_elements(By.CSS_SELECTOR, f'polygon.zone[data-zone="{zone["id"]}"]')) == 1, f"zone {zone['id']}"
        for node in [n for n in rig.site["nodes"] if floor["id"] in n.get("floors", [floor["id"]])]:
            assert len(svg.find_elements(By.CSS_SELECTOR, f'g.node[data-node="{node["name"]}"]')) == 1, f"node {node['name']}"
        walls = len(svg.find_elements(By.CSS_SELECTOR, "polyline.wall"))
        assert walls == len(floor.get("walls", [])), f"{floor['id']}: {walls} walls"
        doors = len(svg.find_elements(By.CSS_SELECTOR, "circle.door"))
        assert doors == len(floor.get("doors", [])), f"{floor['id']}: {doors} doors"
    # The simulated nodes said `online`: the page shows them so.
    wait(driver, "return [...document.querySelectorAll('#maps g.node')].every(g => g.dataset.status === 'online')",
         message="nodes not shown online")


def marker_transform(rig, x, y):
    floor = rig.site["floors"][0]
    min_x, max_y = floor["bounds"][0][0], floor["bounds"][1][1]
    return f"translate({x - min_x:.3f} {max_y - y:.3f})"


@check("live")
def test_live(rig, driver, scenario, states):
    selector = f'#maps svg[data-floor="ground"] g.device[data-device="{KEYS}"]'
    wait(driver, f"return document.querySelector('{selector}') !== null", timeout=15, message="Keys never drawn")
    # The page's own record of each marker move, in wall time (the same clock as mosquitto_sub's).
    driver.execute_script("""
        window.__moves = [];
        const m = document.querySelector(arguments[0]);
        new MutationObserver(() => window.__moves.push([Date.now() / 1000, m.getAttribute('transform')]))
            .observe(m, { attributes: true, attributeFilter: ['transform'] });
    """, selector)
    first = len(states.entries)
    scenario.walk_from = time.time()
    time.sleep(14)
    moves = driver.execute_script("return window.__moves")
    published = [(t, s) for t, s in states.entries[first:] if s.get("id") == KEYS and s.get("x") is not None]
    assert len(published) >= 5, f"only {len(published)} states of Keys published while it walked"
    delays = []
    for t, s in published:
        want = marker_transform(rig, s["x"], s["y"])
        seen = [mt for mt, tr in moves if tr == want and mt >= t - 0.5]
        assert seen, f"state at {t:.3f} ({s['x']}, {s['y']}) never moved the marker to {want}"
        delays.append(max(0.0, seen[0] - t))
    worst = max(delays)
    print(f"  {len(published)} states, marker moved after each: median {sorted(delays)[len(delays) // 2] * 1000:.0f} ms, "
          f"worst {worst * 1000:.0f} ms")
    assert worst < 1.0, f"a marker moved {worst:.2f} s after its state was published"


@check("escaping")
def test_escaping(rig, driver):
    selector = '#maps g.device[data-device]'
    wait(driver, "return [...document.querySelectorAll(arguments[0])].some(g => g.dataset.device === arguments[1])".replace(
        "arguments[0]", json.dumps(selector)).replace("arguments[1]", json.dumps(EVIL)), timeout=15,
        message="the device with <script> in its id was never drawn")
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="devices"]').click()
    wait(driver, "return document.querySelectorAll('#devices-table tbody tr').length >= 2")
    shot(driver, "devices")
    shown = driver.execute_script("return [...document.querySelectorAll('#devices-table td.id')].map(td => td.textContent)")
    assert EVIL in shown, f"the id is not shown as text: {shown}"
    xss = driver.execute_script("return window.__xss === undefined ? null : window.__xss")
    assert xss is None, f"text from MQTT ran as script (window.__xss = {xss})"
    injected = driver.execute_script("return document.querySelectorAll('main img, main script, svg script').length")
    assert injected == 0, f"{injected} elements made from a device id"
    # Filter and focus: the row of Keys by its name, and a click shows it on the map.
    driver.find_element(By.ID, "device-filter").send_keys("keys")
    rows = driver.find_elements(By.CSS_SELECTOR, "#devices-table tbody tr")
    assert [r.get_attribute("data-device") for r in rows] == [KEYS], "the filter did not keep Keys alone"
    rows[0].click()
    wait(driver, f"return document.querySelector('#maps g.device.focused[data-device=\"{KEYS}\"]') !== null",
         message="a click in the table did not focus the device on the map")
    assert driver.find_element(By.CSS_SELECTOR, "#focus dl").get_attribute("data-device") == KEYS
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="devices"]').click()
    driver.find_element(By.ID, "device-filter").clear()
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="live"]').click()


@check("away")
def test_away(rig, driver, scenario):
    shot(driver, "live-ground")
    driver.find_element(By.CSS_SELECTOR, '#floor-tabs button[data-floor="upstairs"]').click()
    shown = driver.execute_script("return [...document.querySelectorAll('#maps svg.floor')]"
                                  ".filter(s => getComputedStyle(s).display !== 'none').map(s => s.dataset.floor)")
    assert shown == ["upstairs"], f"the Upstairs tab shows floors {shown}"
    shot(driver, "live-upstairs")
    driver.find_element(By.CSS_SELECTOR, '#floor-tabs button[data-floor="ground"]').click()
    scenario.evil_gone = True
    gone = time.time()
    script = ("return [...document.querySelectorAll('#maps g.device')].some(g => g.dataset.device === " + json.dumps(EVIL)
              + " && g.dataset.state === 'away' && getComputedStyle(g).display === 'none')")
    wait(driver, script, timeout=30, message="the device that went silent was never marked away")
    print(f"  marked away {time.time() - gone:.1f} s after its last reading (away_after 6 s)")


@check("playback")
def test_playback(rig, driver, started, states):
    # Until Keys has reached the kitchen, then the writer's commit (about once a second).
    deadline = time.time() + 40
    while not any(s.get("id") == KEYS and s.get("room") == "kitchen" for _, s in states.entries[-50:]):
        assert time.time() < deadline, "Keys never reached the kitchen"
        time.sleep(0.2)
    time.sleep(3)
    status, body = rig.get(f"/api/track?device={KEYS}&since={started - 5:.3f}&until={time.time():.3f}")
    assert status == 200, f"/api/track: {status} {body[:100]!r}"
    points = json.loads(body)
    stored = []
    for p in points:
        if not stored or stored[-1] != p["room"]:
            stored.append(p["room"])
    assert len(points) >= 10, f"only {len(points)} points stored"
    it = iter(stored)
    assert all(r in it for r in ["living", "hall", "kitchen"]), f"the stored track does not pass living, hall, kitchen: {stored}"
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="playback"]').click()
    wait(driver, f"return [...document.querySelectorAll('#pb-device option')].some(o => o.value === {json.dumps(KEYS)})")
    Select(driver.find_element(By.ID, "pb-device")).select_by_value(KEYS)
    driver.execute_script("""
        document.getElementById('pb-since').value = localInput(arguments[0]);
        document.getElementById('pb-until').value = localInput(arguments[1]);""", started - 5, time.time() + 1)
    Select(driver.find_element(By.ID, "pb-speed")).select_by_value("10")
    driver.find_element(By.ID, "pb-load").click()
    wait(driver, "return !document.getElementById('pb-play').disabled", message="the track did not load")
    driver.execute_script("""
        window.__rooms = [];
        const sample = () => {
          const g = document.querySelector('#pb-maps g.device:not([data-state="away"])');
          const r = g && g.dataset.room;
          if (r && window.__rooms[window.__rooms.length - 1] !== r) window.__rooms.push(r);
          if (document.getElementById('pb-play').dataset.state !== 'ended') requestAnimationFrame(sample);
        };
        requestAnimationFrame(sample);""")
    driver.find_element(By.ID, "pb-play").click()
    time.sleep(1.5)
    shot(driver, "playback")
    wait(driver, "return document.getElementById('pb-play').dataset.state === 'ended'", timeout=60, message="playback never ended")
    passed = driver.execute_script("return [...document.querySelectorAll('#pb-rooms li')].map(li => li.dataset.room)")
    assert passed == stored, f"rooms passed {passed}, the database holds {stored}"
    seen = driver.execute_script("return window.__rooms")
    it = iter(stored)
    assert len(seen) >= 3 and all(r in it for r in seen), f"the marker showed rooms {seen}; the track holds {stored}"
    visits = driver.execute_script("return [...document.querySelectorAll('#pb-visits tbody tr')].map(r => r.dataset.zone)")
    assert "hall" in visits, f"zone visits beside the playback: {visits}"
    print(f"  played {len(points)} points: {' → '.join(passed)}")


def nodes_view(driver):
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="nodes"]').click()
    wait(driver, "return document.querySelectorAll('#nodes-table tbody tr').length === 8 && "
                 "document.querySelectorAll('#matrix tbody tr').length === 8")
    shot(driver, "nodes")


def main():
    rig = harness.Rig(SITE, token=TOKEN)
    driver = None
    feeder = None
    try:
        for node in rig.nodes:
            rig.online(node)
        states = harness.StateLog(rig)
        states.start()
        scenario = Scenario()
        feeder = harness.Feeder(rig, scenario)
        started = time.time()
        feeder.start()
        driver = harness.chrome()
        test_token(rig, driver)
        test_site(rig, driver)
        test_live(rig, driver, scenario, states)
        test_escaping(rig, driver)
        test_away(rig, driver, scenario)
        test_playback(rig, driver, started, states)
        try:
            nodes_view(driver)
        except Exception as e:
            results.append(("nodes view", False, str(e)))
        if feeder.error:
            results.append(("feeder", False, repr(feeder.error)))
    except Exception as e:
        results.append(("setup", False, f"{e!r}"))
        traceback.print_exc()
    finally:
        if feeder:
            feeder.stop()
        if driver:
            driver.quit()
        if any(not ok for _, ok, _ in results):
            print("---- aggregator log (tail) ----")
            print(rig.log()[-3000:])
        rig.stop()
    failed = [r for r in results if not r[1]]
    for name, ok, detail in results:
        print(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")
    print(f"map-test: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or len(results) < 6 else 0


if __name__ == "__main__":
    sys.exit(main())
