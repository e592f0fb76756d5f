#!/usr/bin/env python3
"""The coach as a patient uses it on a phone: the static site of `opep web export`, served by a
plain file server on loopback, in headless Chromium at 360 x 740 with a simulated session as its
microphone.

The page must pass Chromium's installability checks (manifest, icons, service worker), count the
session's breaths with its own engine (WebAssembly, no server), keep the session on the device,
and keep a session cut short by closing the page as interrupted;
then the file server is stopped and the page reloaded: it must still load (from the service
worker) and count a second session, and send both to an `opep serve` the user names. Prints the engine's share of real time in the page.

    Tests/Browser/offline_coach.py [--opep .build/debug/opep] [--screenshot FILE.png]

Needs chromium and chromium-driver (.ci/run installs them). Exits non-zero on failure.
"""
import argparse, base64, functools, http.server, json, os, re, shutil, subprocess, sys, tempfile, threading, time, urllib.request

from dashboard_e2e import WebDriver, free_port, wait, _reachable

BREATHS = 3


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".wasm": "application/wasm", ".webmanifest": "application/manifest+json"}

    def log_message(self, *args):
        pass


class PhoneDriver(WebDriver):
    """Chromium emulating a phone held upright, 360 x 740 CSS pixels."""

    def __init__(self, port, chrome_args):
        self.base = f"http://127.0.0.1:{port}"
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": shutil.which("chromium") or "/usr/bin/chromium", "args": chrome_args,
                "mobileEmulation": {"deviceMetrics": {"width": 360, "height": 740, "pixelRatio": 2, "touch": True}},
            },
        }}}
        self.session = self.call("POST", "/session", capabilities)["sessionId"]

    def cdp(self, command, params=None):
        return self.command("POST", "/goog/cdp/execute", {"cmd": command, "params": params or {}})


def count_breaths(driver):
    match = re.match(r"\s*([0-9]+)\s*/", driver.text("#breath-count") or "")
    return int(match.group(1)) if match else 0


def fits(driver, when):
    width, page = driver.script("return [window.innerWidth, document.documentElement.scrollWidth];")
    if page > width:
        raise AssertionError(f"{when}: the page is wider ({page} px) than the phone's screen ({width} px)")


def screenshot(driver, path):
    shot = driver.cdp("Page.captureScreenshot", {"format": "png"})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def run_session(driver, label, picture=None):
    """Starts a session, waits for the breaths (taking `picture` during the second one, with a
    pressure shown), stops; returns the summary's breath count and the engine's share of real time."""
    wait(f"{label}: the start button", lambda: driver.script(
        "const b = document.querySelector('#start'); return b && !b.disabled;"), 30)
    driver.cdp("Performance.enable")
    before = main_thread(driver)
    started = time.monotonic()
    driver.click("#start")
    wait(f"{label}: the engine listening", lambda: "Listening" in (driver.text("#status") or ""), 30)
    taken = []

    def counted():
        count = count_breaths(driver)
        if picture and not taken and count >= 1 and re.match(r"[0-9]", driver.text("#pressure") or ""):
            driver.script("window.scrollTo(0, 0);")
            screenshot(driver, picture)
            taken.append(True)
        return count >= BREATHS
    wait(f"{label}: {BREATHS} breaths counted on the page", counted, 120)
    share = driver.script("return document.querySelector('#diagnostics').dataset.engineShare || null;")
    after, wall = main_thread(driver), time.monotonic() - started
    page = {key: (after[key] - before[key]) / wall for key in after}
    driver.click("#stop")
    summary = wait(f"{label}: the summary", lambda: driver.text("#summary-breaths"), 30)
    wait(f"{label}: the session kept on the device", lambda: "saved on this device" in (driver.text("#status") or "").lower(), 20)
    fits(driver, f"{label}, with the summary")
    return int(re.match(r"\s*([0-9]+)", summary).group(1)), (float(share) if share else None), page


def main_thread(driver):
    """Seconds the page's main thread has been busy so far: in all, in script, in style and layout."""
    metrics = {m["name"]: m["value"] for m in driver.cdp("Performance.getMetrics")["metrics"]}
    return {"all": metrics["TaskDuration"], "script": metrics["ScriptDuration"],
            "layout": metrics["LayoutDuration"] + metrics["RecalcStyleDuration"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    parser.add_argument("--screenshot")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="opep-offline-")
    site = os.path.join(work, "site")
    driver = chromedriver = server = None
    try:
        wav = os.path.join(work, "session.wav")
        subprocess.run([options.opep, "simulate", "-o", wav, "--sets", "1", "--breaths", str(BREATHS), "--rest", "5",
                        "--pressure", "12-18", "--sample-rate", "48000", "--seed", "3"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([options.opep, "web", "export", site], check=True, stdout=subprocess.DEVNULL)

        port = free_port()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(QuietHandler, directory=site))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{port}/"

        driver_port = free_port()
        chromedriver = subprocess.Popen([shutil.which("chromedriver") or "/usr/bin/chromedriver", f"--port={driver_port}"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait("chromedriver", lambda: _reachable(f"http://127.0.0.1:{driver_port}/status"), 30)
        driver = PhoneDriver(driver_port, [
            "--headless=new", "--no-sandbox", "--disable-gpu",
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={wav}", "--autoplay-policy=no-user-gesture-required",
        ])
        driver.go(url)
        wait("the service worker in control", lambda: driver.script("return !!navigator.serviceWorker.controller;"), 30)
        errors = driver.cdp("Page.getInstallabilityErrors").get("installabilityErrors", [])
        if errors:
            raise AssertionError(f"Chromium does not find the app installable: {errors}")
        manifest = driver.cdp("Page.getAppManifest")
        if manifest.get("errors"):
            raise AssertionError(f"manifest errors: {manifest['errors']}")
        fits(driver, "before the session")

        # The plan, saved with no server behind the page, is kept on the device.
        driver.script("const f = document.querySelector('#plan-form'); document.querySelector('#plan-panel').open = true;"
                      "f.elements.breaths_per_set.value = '4'; f.requestSubmit();")
        wait("the plan saved on the device", lambda: "saved on this device" in (driver.text("#plan-message") or ""), 20)

        first, share, page = run_session(driver, "online", options.screenshot)
        if first != BREATHS:
            raise AssertionError(f"first session: the summary shows {first} breaths, the recording has {BREATHS}")

        # A session cut short by closing the page keeps what was measured up to its last breath.
        driver.click("#start")
        wait("a session to cut short: its first breath", lambda: count_breaths(driver) >= 1, 90)
        driver.go(url)
        interrupted = wait("the cut-short session kept as interrupted", lambda: driver.script(
            "return [...document.querySelectorAll('#device-sessions-list li')]"
            ".filter(li => li.textContent.includes('(interrupted)')).map(li => Number(li.dataset.breaths));"), 20)
        if len(interrupted) != 1 or interrupted[0] < 1:
            raise AssertionError(f"the cut-short session: {interrupted}")

        server.shutdown()
        server.server_close()
        server = None
        if _reachable(url):
            raise AssertionError("the file server still answers")
        driver.go(url)
        wait("the page, reloaded with the file server stopped", lambda: driver.text("#start") is not None, 30)
        plan = wait("the kept plan", lambda: (driver.text("#breath-count") or "").endswith("/ 4") and driver.text("#breath-count"), 20)
        second, offline_share, offline_page = run_session(driver, "offline")
        if second != BREATHS:
            raise AssertionError(f"offline session: the summary shows {second} breaths, the recording has {BREATHS}")
        kept = wait("three sessions on the device", lambda: driver.text("#device-count") == "3" and 3, 20)

        # "Send to my computer": an opep serve that lets this page's origin send sessions.
        serve_port = free_port()
        computer = subprocess.Popen([options.opep, "serve", "--port", str(serve_port), "--database", os.path.join(work, "history.sqlite"),
                                     "--allow-origin", url.rstrip("/")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            api = f"http://127.0.0.1:{serve_port}"
            wait("opep serve", lambda: _reachable(api + "/api/plan"), 60)
            driver.script("document.querySelector('#device-sessions').open = true;"
                          "document.querySelector('#sync-address').value = arguments[0];"
                          "document.querySelector('#sync-form').requestSubmit();", api)
            wait("the sessions sent", lambda: "Sent 3 sessions" in (driver.text("#sync-message") or ""), 30)
            rows = _sessions(api)
            if sorted(r["breaths"] for r in rows) != sorted([BREATHS, BREATHS, interrupted[0]]) or {r["source"] for r in rows} != {"imported"}:
                raise AssertionError(f"the computer's history holds {rows}")
            driver.script("document.querySelector('#sync-form').requestSubmit();")
            wait("a second send finding nothing new", lambda: "already on" in (driver.text("#sync-message") or ""), 30)
            if len(_sessions(api)) != 3:
                raise AssertionError("sending again duplicated sessions")
        finally:
            computer.terminate()
            computer.wait()
        shares = [s for s in (share, offline_share) if s is not None]
        print(f"ok: installable; {first} breaths online; a session closed after {interrupted[0]} breath(s) kept as interrupted; "
              f"{second} breaths offline after the file server stopped; "
              f"{kept} sessions kept on the device and sent once to an opep serve; the engine took "
              + (", ".join(f"{s * 100:.2f} %" for s in shares) if shares else "an unreported share")
              + " of real time in its worker; the page's main thread busy "
              + ", ".join(f"{p['all'] * 100:.1f} % (script {p['script'] * 100:.1f} %, style and layout {p['layout'] * 100:.1f} %)"
                          for p in (page, offline_page))
              + " of the session's time (360 x 740)")
        return 0
    except Exception as error:
        print(f"offline coach: FAILED: {error}", file=sys.stderr)
        if driver:
            try:
                print(f"status: {driver.text('#status')!r}", file=sys.stderr)
            except Exception:
                pass
        return 1
    finally:
        if driver:
            driver.quit()
        if chromedriver:
            chromedriver.terminate()
            chromedriver.wait()
        if server:
            server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


def _sessions(api):
    with urllib.request.urlopen(api + "/api/sessions", timeout=5) as response:
        return json.load(response)["sessions"]


if __name__ == "__main__":
    sys.exit(main())
