#!/usr/bin/env python3
"""The signal check's sentence on the coach page, with a bad recording as the microphone.

Plays a simulated session (44.1 kHz, the rate of Chromium's audio here, so that the recording
reaches the engine as it is) clipped at 100 times its gain (so flat that no flutter is left: the
sentence is for a flutter not heard, and at eight times the flutter is still measured), and one with speech as loud as the
device, to headless Chromium as its microphone, on the page served by `opep serve`, once with the
server's engine (`?engine=server`, the /live protocol) and once with the engine in the page (the
phone coach's WebAssembly worker), in Chromium emulating a phone held upright (360 x 740). Checks that the page shows the check's sentence for the cause:
no later than 2 s after the first breath through the device begins, counting from the click on
Start (so the browser's own start-up counts against it): for the clipped recording with the
first breath or before it (at 100 times the gain the room between breaths is clipped too), for
the noisy one with the speech already before it (the delay is printed, negative when the sentence
came first); and that the gauge, the pressure and the sentence are on the
screen without scrolling when it comes.

Before those, the placement check: "Check placement" with the plain recording says the device is
heard clearly, with the session clipped at eight times its gain that the sound is distorted (its
flutter measured), on both engines, after one
breath, with the measured figures, on the screen without scrolling; and nothing is saved.

    Tests/Browser/signal_check.py [--opep .build/debug/opep]

Needs Debian's chromium, chromium-driver and sox (.ci/run installs them). Exits non-zero on failure.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

from dashboard_e2e import free_port, stop, wait, _reachable
from offline_coach import PhoneDriver, _sessions

CASES = [
    # (name, what the sentence must say, the latest it may come after the first breath begins
    # (None: only that it comes), how the recording is made from the simulation)
    ("clipped", "distorted", 2.0, lambda opep, work, wav: subprocess.run(
        ["sox", "-V1", simulate(opep, work, "plain"), wav, "vol", "100"], check=True)),
    ("noisy", "noise", 2.0, lambda opep, work, wav: shutil.copy(simulate(opep, work, "speech", ["--noise", "speech", "--noise-level", "0"]), wav)),
]


# (recording, what the placement verdict must say, how the recording is made from the simulation)
PLACEMENTS = [
    ("plain", "Heard clearly", lambda opep, work, wav: shutil.copy(simulate(opep, work, "plain"), wav)),
    ("clipped", "distorted", lambda opep, work, wav: subprocess.run(
        ["sox", "-V1", simulate(opep, work, "plain"), wav, "vol", "8"], check=True)),
]


def simulate(opep, work, name, extra=()):
    wav = os.path.join(work, f"{name}-source.wav")
    if not os.path.exists(wav):
        subprocess.run([opep, "simulate", "-o", wav, "--sets", "1", "--breaths", "2", "--rest", "5", "--pressure", "12-18",
                        "--sample-rate", "44100", "--seed", "5", *extra], check=True, stdout=subprocess.DEVNULL)
    return wav


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="opep-signal-")
    server = chromedriver = None
    results = []
    try:
        port = free_port()
        server = subprocess.Popen([options.opep, "serve", "--port", str(port), "--database", os.path.join(work, "history.sqlite")],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        url = f"http://127.0.0.1:{port}/"
        wait("the server", lambda: _reachable(url), 60)
        driver_port = free_port()
        chromedriver = subprocess.Popen(["chromedriver", f"--port={driver_port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait("chromedriver", lambda: _reachable(f"http://127.0.0.1:{driver_port}/status"), 30)
        placements = []
        for name, words, make in PLACEMENTS:
            wav = os.path.join(work, f"placement-{name}.wav")
            make(options.opep, work, wav)
            for engine in ("server", "page"):
                verdict, figures = placement(driver_port, url + ("?engine=server" if engine == "server" else ""), wav)
                assert words in verdict, f"placement, {name} recording, {engine}'s engine: '{verdict}' does not say '{words}'"
                assert "flutter measured in" in figures and "dB over the room" in figures, f"placement figures: '{figures}'"
                placements.append(f"{name} on the {engine}'s engine: {verdict} ({figures})")
        assert _sessions(url.rstrip("/")) == [], "a placement check was saved as a session"
        print("ok: placement check: " + "; ".join(placements))
        for name, words, limit, make in CASES:
            wav = os.path.join(work, f"{name}.wav")
            make(options.opep, work, wav)
            source = os.path.join(work, ("plain" if name == "clipped" else "speech") + "-source.truth.json")
            first_breath = json.load(open(source))["breaths"][0]["start"]
            for engine in ("server", "page"):
                shown = sentence_delay(driver_port, url + ("?engine=server" if engine == "server" else ""), wav, words)
                delay = shown - first_breath
                results.append(f"{name} on the {engine}'s engine {delay:+.1f} s")
                assert limit is None or delay <= limit, f"{name}, {engine}'s engine: the sentence came {delay:.1f} s after the first breath began"
        print("ok: the sentence for the cause shown, after the first breath's start: " + "; ".join(results))
        return 0
    except Exception as error:
        print(f"signal check: FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        for process in (chromedriver, server):
            if process:
                stop(process)
        shutil.rmtree(work, ignore_errors=True)


def phone(driver_port, wav):
    """Headless Chromium as a phone held upright, with `wav` as its microphone."""
    return PhoneDriver(driver_port, [
        "--headless=new", "--no-sandbox", "--disable-gpu",
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}", "--autoplay-policy=no-user-gesture-required",
    ])


def placement(driver_port, url, wav):
    """The placement check's verdict and figures with `wav` as the microphone."""
    driver = phone(driver_port, wav)
    try:
        driver.go(url)
        wait("the placement button", lambda: driver.text("#placement-check") is not None, 20)
        driver.click("#placement-check")
        shown = lambda: driver.script("return !document.querySelector('#placement').hidden && !document.querySelector('#start').disabled;")
        wait("the placement verdict and the end of the check", shown, 40)
        verdict, figures, bottom, screen = driver.script("""
            const box = document.querySelector('#placement');
            return [document.querySelector('#placement-verdict').textContent, document.querySelector('#placement-figures').textContent,
                    box.getBoundingClientRect().bottom, window.innerHeight];""")
        assert bottom <= screen, f"the placement verdict ends at {bottom} px, below the phone's screen ({screen} px)"
        return verdict, figures
    finally:
        driver.quit()


def sentence_delay(driver_port, url, wav, words):
    """Seconds from the click on Start until the page shows a sentence containing `words`."""
    driver = phone(driver_port, wav)
    try:
        driver.go(url)
        wait("the start button", lambda: driver.text("#start") is not None, 20)
        driver.click("#start")
        start = time.monotonic()
        said = []
        def shown():
            text = driver.script("const e = document.querySelector('#signal-advice'); return e && !e.hidden ? e.textContent : '';")
            if text and text not in said:
                said.append(text)
            return words in (text or "")
        wait(f"a sentence about '{words}' (seen: {said})", shown, 30)
        delay = time.monotonic() - start
        outside = driver.script("""
            return ['#gauge', '#pressure', '#signal-advice', '#not-hearing'].map((css) => {
              const r = document.querySelector(css).getBoundingClientRect();
              return `${css} ${Math.round(r.top)}-${Math.round(r.bottom)}`;
            }).concat([`screen ${window.innerHeight}`]);""")
        bottoms = [int(place.split("-")[-1]) for place in outside[:3]]
        assert max(bottoms) <= int(outside[-1].split()[-1]), f"{words}: on a phone held upright (360 x 740) not all on the screen: {outside}"
        return delay
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
