#!/usr/bin/env python3
"""The WebAssembly engine in a real browser.

Serves Web/benchmark.html with the page's engine (Sources/OPEPServer/Dashboard: engine.mjs and
opep-engine.wasm, built by scripts/build-web.sh) and a simulated 48 kHz session on loopback, opens Web/benchmark.html in headless Chromium, checks that the engine finds the same
breaths in the page as the native `opep analyze`, and prints its speed there.

    Tests/Browser/web_engine.py [--opep .build/debug/opep] [--runs 9]

Needs chromium and chromium-driver (.ci/run installs them). Exits non-zero on failure.
"""
import argparse, functools, http.server, json, os, shutil, subprocess, sys, tempfile, threading

from dashboard_e2e import WebDriver, free_port, wait

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WEB = os.path.join(ROOT, "Web")
DASHBOARD = os.path.join(ROOT, "Sources", "OPEPServer", "Dashboard")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    parser.add_argument("--runs", type=int, default=9)
    options = parser.parse_args()
    engine = os.path.join(DASHBOARD, "opep-engine.wasm")
    if not os.path.exists(engine):
        sys.exit(f"{engine}: no engine (run scripts/build-web.sh first)")
    site = tempfile.mkdtemp(prefix="opep-web-")
    driver = server = chromedriver = None
    try:
        for name in ["benchmark.html", "benchmark-page.mjs", "wav.mjs"]:
            shutil.copy(os.path.join(WEB, name), site)
        for name in ["engine.mjs", "opep-engine.wasm"]:
            shutil.copy(os.path.join(DASHBOARD, name), site)
        wav = os.path.join(site, "session.wav")
        subprocess.run([options.opep, "simulate", "-o", wav, "--sample-rate", "48000", "--sets", "1",
                        "--breaths", "10", "--seed", "5"], check=True, capture_output=True)
        native = json.loads(subprocess.run([options.opep, "analyze", wav, "--format", "json"],
                                           check=True, capture_output=True, text=True).stdout)["breaths"]

        port = free_port()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(QuietHandler, directory=site))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        driver_port = free_port()
        chromedriver = subprocess.Popen([shutil.which("chromedriver") or "/usr/bin/chromedriver", f"--port={driver_port}"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait("chromedriver", lambda: _listening(driver_port), 20)
        driver = WebDriver(driver_port, ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"])
        driver.go(f"http://127.0.0.1:{port}/benchmark.html?runs={options.runs}")
        result = wait("the benchmark", lambda: driver.script("return window.opepBenchmark || null;"), 120)
        if "error" in result:
            raise AssertionError(f"the page failed: {result['error']}")
        page = result["breaths"]
        if len(page) != len(native) or len(native) != 10:
            raise AssertionError(f"breaths: page {len(page)}, native {len(native)}, true 10")
        for p, n in zip(page, native):
            for key in ["start_s", "end_s", "mean_pressure_cmh2o"]:
                if abs(p[key] - n[key]) > 1e-9:
                    raise AssertionError(f"breath {n['index']} {key}: page {p[key]}, native {n[key]}")
        print(f"ok: the same {len(page)} breaths in Chromium as natively; "
              f"{result['seconds']:.1f} s of {result['sampleRate'] / 1000:g} kHz audio, {result['runs']} runs, "
              f"wasm {result['wasmBytes']} bytes: median {result['timesRealTime']:.0f}x real time "
              f"(fastest {result['fastest']:.0f}x, slowest {result['slowest']:.0f}x)")
    finally:
        if driver:
            driver.quit()
        if chromedriver:
            chromedriver.terminate()
            chromedriver.wait()
        if server:
            server.shutdown()
        shutil.rmtree(site, ignore_errors=True)


def _listening(port):
    import socket
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


if __name__ == "__main__":
    main()
