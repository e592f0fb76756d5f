#!/usr/bin/env python3
"""The dashboard end to end in a real browser.

Plays a simulated session to headless Chromium as its microphone (a WAV file through
--use-file-for-fake-audio-capture), drives the page through chromedriver's WebDriver HTTP API,
and checks that the page counts the breaths, shows pressures in the right zone, counts the huff
coughs heard on the huff-cough cue and ends it once the next set's first breath is shown, summarises
the session when stopped, and that the session appears in the history page.

    Tests/Browser/dashboard_e2e.py [--opep .build/debug/opep] [--screenshot FILE.png]

Needs Debian's chromium and chromium-driver (.ci/run installs them). Exits non-zero on failure.
"""
import argparse, json, os, re, shutil, socket, subprocess, sys, tempfile, time, urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriver:
    def __init__(self, port, chrome_args):
        self.base = f"http://127.0.0.1:{port}"
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": shutil.which("chromium") or "/usr/bin/chromium", "args": chrome_args},
        }}}
        self.session = self.call("POST", "/session", capabilities)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)["value"]

    def command(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def go(self, url):
        self.command("POST", "/url", {"url": url})

    def script(self, source, *args):
        return self.command("POST", "/execute/sync", {"script": source, "args": list(args)})

    def text(self, css):
        return self.script("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;", css)

    def click(self, css):
        self.script("document.querySelector(arguments[0]).click();", css)

    def screenshot(self, path):
        import base64
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.command("GET", "/screenshot")))

    def quit(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        except Exception:
            pass


def wait(description, predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout} s waiting for {description}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    parser.add_argument("--screenshot")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="opep-e2e-")
    processes = []
    driver = None
    try:
        wav = os.path.join(work, "session.wav")
        subprocess.run([options.opep, "simulate", "-o", wav, "--sets", "2", "--breaths", "3", "--rest", "10",
                        "--pressure", "12-18", "--sample-rate", "48000", "--seed", "3"], check=True, stdout=subprocess.DEVNULL)
        truth = json.load(open(os.path.join(work, "session.truth.json")))
        true_pressures = [b["mean_pressure"] for b in truth["breaths"]]
        port = free_port()
        server = subprocess.Popen([options.opep, "serve", "--port", str(port), "--database", os.path.join(work, "history.sqlite")],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        processes.append(server)
        url = f"http://127.0.0.1:{port}"
        wait("the server", lambda: _reachable(url), 60)
        driver_port = free_port()
        processes.append(subprocess.Popen(["chromedriver", f"--port={driver_port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait("chromedriver", lambda: _reachable(f"http://127.0.0.1:{driver_port}/status"), 30)
        driver = WebDriver(driver_port, [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1250",
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={wav}", "--autoplay-policy=no-user-gesture-required",
        ])
        driver.go(url + "/")
        wait("the start button", lambda: driver.text("#start") is not None, 20)
        driver.click("#start")
        seen = []
        prompts = []
        shown_since = None
        cue_beside_breath = []
        cues = set()
        def second_set_begun():
            nonlocal shown_since
            # All read at once: the page may show the next frame between two reads.
            pressure, zone, prompt, set_count, cue_hidden, cue = driver.script(
                "const text = (css) => document.querySelector(css)?.textContent.trim() ?? null;"
                "return [text('#pressure'), text('#zone'), text('#breath-state'), text('#set-count'),"
                " document.querySelector('#huff-cue').hidden, text('#huff-cue')];")
            if not cue_hidden:
                cues.add(cue)
            number = re.search(r"[0-9]+(\.[0-9]+)?", pressure or "")
            now = time.monotonic()
            if number and zone in ("below", "in", "above"):
                seen.append((float(number.group()), zone))
                prompts.append(prompt or "")
                shown_since = shown_since or now
                # The cue goes once a pressure has been shown for a second; this allows for polling.
                if not cue_hidden and now - shown_since > 1.6:
                    cue_beside_breath.append(round(now - shown_since, 2))
            else:
                shown_since = None
            count = re.match(r"\s*([0-9]+)\s*/", driver.text("#breath-count") or "")
            if options.screenshot and len(seen) == 40:
                driver.screenshot(options.screenshot)
            return count and int(count.group(1)) >= 1 and (set_count or "").startswith("Set 2")
        wait("the second set's first breath counted on the page", second_set_begun, 120)
        assert seen, "the page never showed a pressure with its zone"
        in_band = [p for p, z in seen if 12 - 3 <= p <= 18 + 3]
        assert len(in_band) >= 0.8 * len(seen), f"pressures shown {sorted(p for p, _ in seen)} are not near the true {true_pressures}"
        # The pressure is shown to 0.1 cmH2O: a shown 10.0 may be 9.96, below the band.
        disagreeing = [(p, z) for p, z in seen if (z == "in") != (10 <= p <= 20) and min(abs(p - 10), abs(p - 20)) > 0.05]
        assert not disagreeing, f"zones disagree with pressures: {disagreeing[:10]} of {len(seen)}"
        # While the gauge shows a breath's pressure, the prompt beside it must not ask for the next one.
        inhale = [prompt for prompt in prompts if "Breathe in" in prompt]
        assert not inhale, f"{len(inhale)} of {len(prompts)} pressures shown beside {inhale[0]!r}"
        # The next set's first breath is counted a second or two after its pressure shows: by then
        # the huff-cough cue must have gone.
        assert not cue_beside_breath, f"the huff cue stayed beside a breath's pressure shown for {cue_beside_breath} s"
        driver.click("#stop")
        summary = wait("the summary", lambda: driver.text("#summary-breaths"), 30)
        assert summary.strip().startswith("4"), f"summary shows {summary!r} breaths, expected 4"
        # The first set's huff coughs, heard a few seconds after them, are counted on its cue.
        huffs = int(re.match(r"\s*([0-9]+)", driver.text("#summary-huffs") or "0").group(1))
        counted = [cue for cue in cues if re.search(r"[0-9]+ huff coughs? heard", cue or "")]
        assert huffs == 0 or counted, f"{huffs} huff coughs counted in the summary, none on the cue: {sorted(cues)}"
        driver.go(url + "/history")
        rows = wait("the session in history", lambda: _history(url), 20)
        assert rows[0]["breaths"] == 4, f"history holds {rows}"
        wait("the session's row on the history page", lambda: driver.script(
            "return document.querySelectorAll('a[href*=\"/sessions/\"]').length;"), 20)
        print(f"ok: {len(seen)} pressures shown ({min(p for p, _ in seen):.1f}-{max(p for p, _ in seen):.1f} cmH2O, true means {', '.join(f'{p:.1f}' for p in true_pressures)}), 4 breaths counted in 2 sets, the huff cue {sorted(counted)[-1] if counted else 'without huff coughs'!r} gone as the second began, summary and history agree")
        return 0
    except Exception as error:
        print(f"dashboard end to end: FAILED: {error}", file=sys.stderr)
        if processes and processes[0].poll() is not None:
            print(processes[0].stdout.read(), file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        for process in processes:
            stop(process)
        shutil.rmtree(work, ignore_errors=True)


def stop(process):
    """Ends a process started for a test: asks, then kills it after 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def _reachable(url):
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except Exception:
        return False


def _history(url):
    try:
        with urllib.request.urlopen(url + "/api/sessions", timeout=5) as response:
            rows = json.load(response)["sessions"]
            return rows if rows else None
    except Exception:
        return None


if __name__ == "__main__":
    sys.exit(main())
