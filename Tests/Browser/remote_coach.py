#!/usr/bin/env python3
"""The coach opened to the network: `opep serve --host 0.0.0.0 --tls self-signed`, reached as a
phone on the same network would reach it, at this machine's own (non-loopback) address.

Checks, as a real HTTPS client whose certificate checks are on (curl --cacert with the server's
own certificate, Python's ssl for the WebSocket, Chromium trusting the certificate's public key):
- the printed certificate fingerprint is that of the certificate file and of the certificate the
  server presents; the token file is private (0600) and holds the printed token;
- without a token, and with a wrong one, every API route answers 401 with {"error": ...}, the
  pages answer 401 (HTML) and /live is not upgraded (no socket: the WebSocket layer answers every
  refused upgrade with 400); refused requests change
  nothing; the static files (script, manifest, service worker) are served to anyone;
- the pages carry a Content-Security-Policy (frame-ancestors 'none', no inline scripts),
  X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer;
- `Authorization: Bearer TOKEN` works; `/?token=TOKEN` answers 303 to the same address without
  the token (other parameters kept) with an HttpOnly, Secure, SameSite=Strict cookie, which then
  lets the browser in;
- a WebSocket to /live from another site's page (Origin) is not upgraded even with the token;
- in headless Chromium with a simulated session as its microphone: the printed address leaves no
  token in the address bar nor in document.cookie, a whole session streamed over wss:// to the
  server's engine is saved with its breaths, and then a session measured by the page's own engine
  is sent to the server and saved too;
- last, repeated wrong tokens lock this client out (429, even with the right token) while another
  client is still served, and the server is still running.

    Tests/Browser/remote_coach.py --opep .build/debug/opep [--screenshot FILE.png]

Needs Debian's chromium and chromium-driver, openssl and curl. Exits non-zero on failure.
"""
import argparse, base64, hashlib, json, os, re, select, shutil, socket, ssl, struct, subprocess, sys, tempfile, threading, time
import urllib.parse

from dashboard_e2e import WebDriver, free_port, wait, _reachable

BREATHS = 3
FOREIGN_ORIGIN = "https://evil.example"
API_ROUTES = [("GET", "/api/plan"), ("PUT", "/api/plan"), ("GET", "/api/sessions"), ("POST", "/api/sessions"),
              ("GET", "/api/sessions/1"), ("GET", "/api/sessions/1/frames"), ("GET", "/api/sessions/1/export.csv"),
              ("GET", "/api/sessions/1/export.json"), ("GET", "/api/trends")]
PAGES = ["/", "/history", "/sessions/1"]
STATIC = ["/assets/app.js", "/manifest.webmanifest", "/sw.js"]


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


# ---------------------------------------------------------------------------------------------
# The server and its printed lines.

class Server:
    """`opep serve` with its stdout read line by line in a thread (stderr goes to a file)."""

    def __init__(self, command, log_path):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True, errors="replace")
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self):
        return "\n".join(self.lines)

    def stderr_tail(self, count=30):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-count:])
        except OSError:
            return ""

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        return self.process.returncode


FINGERPRINT = re.compile(r"[0-9A-F]{2}(?::[0-9A-F]{2}){31}")


def printed(server):
    """The printed coach addresses (https://...?token=...) and the fingerprint line, once both are out."""
    if server.process.poll() is not None:
        raise Failure(f"opep serve exited with {server.process.returncode} before printing its address:\n"
                      f"{server.output()}\n{server.stderr_tail()}")
    urls = [m.group() for line in server.lines if "opep coach:" in line for m in [re.search(r"https://\S+\?token=\S+", line)] if m]
    prints = [(m.group(), line) for line in server.lines if "fingerprint" in line.lower() for m in [FINGERPRINT.search(line)] if m]
    return (urls, prints[0]) if urls and prints else None


def own_ipv4_addresses():
    out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, check=True).stdout.split()
    return [a for a in out if re.fullmatch(r"[0-9.]+", a) and not a.startswith("127.")]


# ---------------------------------------------------------------------------------------------
# openssl and curl.

def openssl(*args, data=None):
    result = subprocess.run(["openssl", *args], input=data, capture_output=True, timeout=30)
    if result.returncode != 0:
        raise Failure(f"openssl {' '.join(args)}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def fingerprint_of(pem):
    text = openssl("x509", "-noout", "-fingerprint", "-sha256", data=pem).decode()
    match = FINGERPRINT.search(text.upper())
    check(match, f"openssl printed no SHA-256 fingerprint: {text!r}")
    return match.group()


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        values = self.headers.get(name.lower())
        return values[-1] if values else None

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def __repr__(self):
        return f"HTTP {self.status} {self.body[:200]!r}"


class Curl:
    """curl against the server: the certificate verified with --cacert (or, for an address the
    certificate does not name, pinned by its public key)."""

    def __init__(self, work, cacert, pin=None):
        self.work, self.cacert, self.pin = work, cacert, pin
        self.count = 0

    def __call__(self, method, url, headers=(), body=None):
        self.count += 1
        head, out = os.path.join(self.work, "curl.head"), os.path.join(self.work, "curl.body")
        command = ["curl", "-sS", "--max-time", "20", "-X", method, "-D", head, "-o", out, "-w", "%{http_code}"]
        command += ["-k", "--pinnedpubkey", self.pin] if self.pin else ["--cacert", self.cacert]
        for header in headers:
            command += ["-H", header]
        if body is not None:
            command += ["-H", "Content-Type: application/json", "--data-binary", body]
        result = subprocess.run(command + [url], capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Failure(f"curl {method} {url} failed (exit {result.returncode}): {result.stderr.strip()}"
                          + (" -- the certificate does not verify for this address" if result.returncode in (51, 60) else ""))
        headers = {}
        with open(head, errors="replace") as f:
            for line in f.read().splitlines():
                if ":" in line and not line.startswith("HTTP/"):
                    name, value = line.split(":", 1)
                    headers.setdefault(name.strip().lower(), []).append(value.strip())
        with open(out, "rb") as f:
            body = f.read().decode(errors="replace")
        return Answer(int(result.stdout.strip() or 0), headers, body)


def refused_api(answer, what):
    if answer.status == 429:
        raise Failure(f"{what}: 429 (locked out) before 10 wrong tokens were sent: does the server count requests "
                      "without a token as wrong tokens?")
    check(answer.status == 401, f"{what}: expected 401, got {answer!r}")
    document = answer.json()
    check(isinstance(document, dict) and isinstance(document.get("error"), str) and document["error"],
          f"{what}: 401 without a JSON {{\"error\": ...}} body: {answer.body[:300]!r}")


def refused_page(answer, what):
    check(answer.status == 401, f"{what}: expected 401, got {answer!r}")
    check("text/html" in (answer.header("content-type") or ""), f"{what}: the 401 is not an HTML page "
          f"(Content-Type {answer.header('content-type')!r})")
    check(answer.body.strip(), f"{what}: the 401 page is empty")
    page_headers(answer, what)
    check(not any(c.startswith("opep_token=") for c in answer.headers.get("set-cookie", [])),
          f"{what}: a refused request got a token cookie: {answer.headers.get('set-cookie')}")


def page_headers(answer, what):
    csp = answer.header("content-security-policy")
    check(csp, f"{what}: no Content-Security-Policy header (headers {sorted(answer.headers)})")
    directives = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            directives.setdefault(words[0].lower(), words[1:])
    check("'none'" in directives.get("frame-ancestors", []), f"{what}: the CSP lacks frame-ancestors 'none': {csp!r}")
    governing = "script-src" if "script-src" in directives else "default-src" if "default-src" in directives else None
    check(governing, f"{what}: the CSP restricts no scripts (no script-src, no default-src): {csp!r}")
    for name in {governing, "script-src-elem"} & set(directives):
        check("'unsafe-inline'" not in [w.lower() for w in directives[name]], f"{what}: the CSP allows inline scripts ({name}): {csp!r}")
    check((answer.header("x-content-type-options") or "").lower() == "nosniff",
          f"{what}: X-Content-Type-Options is {answer.header('x-content-type-options')!r}, not nosniff")
    check((answer.header("referrer-policy") or "").lower() == "no-referrer",
          f"{what}: Referrer-Policy is {answer.header('referrer-policy')!r}, not no-referrer")


# ---------------------------------------------------------------------------------------------
# A minimal WebSocket client over TLS (RFC 6455: handshake, masked client frames, close).

def websocket(host, port, path, cafile, headers=(), wait_s=10.0, send=None):
    """Opens wss://host:port/path; returns (status, headers, close code or None, close reason,
    text messages). On 101 it reads frames until the server closes (or `wait_s` passes), after
    sending `send` (text) if given; it answers the server's close."""
    context = ssl.create_default_context(cafile=cafile)
    raw = socket.create_connection((host, port), timeout=wait_s)
    sock = context.wrap_socket(raw, server_hostname=host)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n" + "".join(f"{h}\r\n" for h in headers) + "\r\n")
        sock.sendall(request.encode())
        buffer = b""
        while b"\r\n\r\n" not in buffer:
            chunk = sock.recv(4096)
            if not chunk:
                raise Failure(f"wss {path}: the server closed the connection during the handshake ({buffer[:200]!r})")
            buffer += chunk
        head, rest = buffer.split(b"\r\n\r\n", 1)
        lines = head.decode(errors="replace").split("\r\n")
        status = int(lines[0].split()[1])
        answer = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            answer[name.strip().lower()] = value.strip()
        if status != 101:
            return status, answer, None, None, []
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        check(answer.get("sec-websocket-accept") == accept, f"wss {path}: wrong Sec-WebSocket-Accept {answer}")
        if send is not None:
            sock.sendall(frame(0x1, send.encode()))
        reader = FrameReader(sock, rest)
        texts, deadline = [], time.monotonic() + wait_s
        while time.monotonic() < deadline:
            got = reader.next(deadline - time.monotonic())
            if got is None:
                break
            opcode, payload = got
            if opcode == 0x1:
                texts.append(payload.decode(errors="replace"))
            elif opcode == 0x9:
                sock.sendall(frame(0xA, payload))
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                try:
                    sock.sendall(frame(0x8, payload[:2]))
                except OSError:
                    pass
                return status, answer, code, payload[2:].decode(errors="replace"), texts
        return status, answer, None, None, texts
    finally:
        sock.close()


def frame(opcode, payload):
    mask = os.urandom(4)
    length = len(payload)
    head = bytes([0x80 | opcode])
    if length < 126:
        head += bytes([0x80 | length])
    elif length < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", length)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", length)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class FrameReader:
    def __init__(self, sock, data):
        self.sock, self.data = sock, data

    def _need(self, count, timeout):
        deadline = time.monotonic() + timeout
        while len(self.data) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except (socket.timeout, ssl.SSLError, OSError):
                return False
            if not chunk:
                return False
            self.data += chunk
        return True

    def next(self, timeout):
        """(opcode, payload) of the next whole message, or None when the connection ends or time runs out."""
        deadline = time.monotonic() + timeout
        opcode, payload = None, b""
        while True:
            if not self._need(2, deadline - time.monotonic()):
                return None
            first, second = self.data[0], self.data[1]
            length, offset = second & 0x7F, 2
            if length == 126:
                if not self._need(4, deadline - time.monotonic()):
                    return None
                length, offset = struct.unpack("!H", self.data[2:4])[0], 4
            elif length == 127:
                if not self._need(10, deadline - time.monotonic()):
                    return None
                length, offset = struct.unpack("!Q", self.data[2:10])[0], 10
            masked = second & 0x80
            total = offset + (4 if masked else 0) + length
            if not self._need(total, deadline - time.monotonic()):
                return None
            body = self.data[offset + (4 if masked else 0):total]
            if masked:
                mask = self.data[offset:offset + 4]
                body = bytes(b ^ mask[i % 4] for i, b in enumerate(body))
            self.data = self.data[total:]
            if first & 0x0F:
                opcode = first & 0x0F
            payload += body
            if first & 0x80:
                return opcode, payload


# ---------------------------------------------------------------------------------------------
# The browser.

def count_breaths(driver):
    match = re.match(r"\s*([0-9]+)\s*/", driver.text("#breath-count") or "")
    return int(match.group(1)) if match else 0


def run_session(driver, label, picture=None):
    """Starts a session on the open page, waits for the breaths, stops; returns the summary's breath
    count and the status line once the page says the session was saved (or failed to be)."""
    wait(f"{label}: the start button", lambda: driver.script(
        "const b = document.querySelector('#start'); return b && !b.disabled;"), 30)
    driver.click("#start")
    wait(f"{label}: listening", lambda: "Listening" in (driver.text("#status") or "")
         or fail_on_error(driver, label), 30)
    taken = []

    def counted():
        count = count_breaths(driver)
        if picture and not taken and count >= 1 and re.match(r"[0-9]", driver.text("#pressure") or ""):
            driver.screenshot(picture)
            taken.append(True)
        fail_on_error(driver, label)
        return count >= BREATHS
    wait(f"{label}: {BREATHS} breaths counted on the page", counted, 100)
    driver.click("#stop")
    summary = wait(f"{label}: the summary", lambda: driver.text("#summary-breaths"), 30)
    status = wait(f"{label}: the session saved", lambda: saved_status(driver), 30)
    return int(re.match(r"\s*([0-9]+)", summary).group(1)), status


def fail_on_error(driver, label):
    if driver.script("const s = document.querySelector('#status'); return !!s && s.classList.contains('error');"):
        raise Failure(f"{label}: the page shows an error: {driver.text('#status')!r}")
    return False


def saved_status(driver):
    status = driver.text("#status") or ""
    if re.search(r"Session [0-9]+ saved", status):
        return status
    if "did not take it" in status or "saved on this device" in status.lower():
        raise Failure(f"the session was not saved by the server; the page says: {status!r}")
    return None


# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    parser.add_argument("--screenshot")
    options = parser.parse_args()
    began = time.monotonic()
    work = tempfile.mkdtemp(prefix="opep-remote-")
    server = driver = chromedriver = None
    notes = []
    try:
        wav = os.path.join(work, "session.wav")
        subprocess.run([options.opep, "simulate", "-o", wav, "--sets", "1", "--breaths", str(BREATHS), "--rest", "5", "--huffs", "0",
                        "--pressure", "12-18", "--sample-rate", "48000", "--seed", "3"], check=True, stdout=subprocess.DEVNULL)
        document = subprocess.run([options.opep, "analyze", wav, "--format", "json"], check=True, capture_output=True, text=True).stdout

        data = os.path.join(work, "data")
        os.mkdir(data)
        server = Server([options.opep, "serve", "--host", "0.0.0.0", "--port", "0",
                         "--database", os.path.join(data, "history.sqlite"), "--tls", "self-signed"], os.path.join(work, "serve.log"))
        urls, (printed_print, print_line) = wait("opep serve to print its https address and certificate fingerprint",
                                                 lambda: printed(server), 60)
        time.sleep(0.5)  # the rest of the banner
        mine = own_ipv4_addresses()
        check(mine, "hostname -I shows no non-loopback IPv4 address")
        hosts = {urllib.parse.urlsplit(u).hostname: u for u in urls}
        missing = [a for a in mine if a not in hosts]
        check(not missing, f"no `opep coach:` address printed for {missing}; printed: {urls}")
        url = hosts[mine[0]]
        parts = urllib.parse.urlsplit(url)
        ip, port = parts.hostname, parts.port
        token = urllib.parse.parse_qs(parts.query).get("token", [""])[0]
        check(parts.path == "/" and token, f"the printed address {url!r} is not https://HOST:PORT/?token=TOKEN")
        check(len({urllib.parse.parse_qs(urllib.parse.urlsplit(u).query)["token"][0] for u in urls}) == 1,
              f"the printed addresses carry different tokens: {urls}")
        origin = f"https://{ip}:{port}"

        # 1. The certificate and the token file.
        cert, key = os.path.join(data, "opep-tls-cert.pem"), os.path.join(data, "opep-tls-key.pem")
        check(os.path.exists(cert) and os.path.exists(key), f"no {cert} and {key}: {os.listdir(data)}")
        check(cert in print_line, f"the fingerprint line does not name {cert}: {print_line!r}")
        pem = open(cert, "rb").read()
        on_file = fingerprint_of(pem)
        check(printed_print == on_file, f"printed fingerprint {printed_print} != the file's {on_file}")
        wire = openssl("s_client", "-connect", f"{ip}:{port}", data=b"")
        on_wire = fingerprint_of(wire)
        check(on_wire == on_file, f"the server presents a certificate with fingerprint {on_wire}, the file's is {on_file}")
        token_file = os.path.join(data, "opep-token")
        check(os.path.exists(token_file), f"no token file {token_file}")
        mode = os.stat(token_file).st_mode & 0o777
        check(mode == 0o600, f"{token_file} has mode {mode:o}, not 600")
        check(open(token_file).read().strip() == token, f"{token_file} does not hold the printed token")
        key_mode = os.stat(key).st_mode & 0o777
        if key_mode & 0o077:
            notes.append(f"the private key {os.path.basename(key)} is readable by others (mode {key_mode:o})")
        spki = base64.b64encode(hashlib.sha256(openssl("pkey", "-pubin", "-outform", "der", data=openssl(
            "x509", "-pubkey", "-noout", data=pem))).digest()).decode()

        # 2. HTTPS with curl, the certificate verified against the IP address.
        curl = Curl(work, cert)
        bearer = f"Authorization: Bearer {token}"
        plan = curl("GET", origin + "/api/plan", [bearer])
        check(plan.status == 200 and isinstance(plan.json(), dict) and "breaths_per_set" in plan.json(),
              f"GET /api/plan with the Bearer token: {plan!r}")
        sessions0 = curl("GET", origin + "/api/sessions", [bearer]).json()["sessions"]
        for path in STATIC:
            answer = curl("GET", origin + path)
            check(answer.status == 200 and answer.body, f"GET {path} without a token: expected 200, got {answer!r}")
        for path in ["/", "/history"]:
            answer = curl("GET", origin + path, [bearer])
            check(answer.status == 200 and "text/html" in (answer.header("content-type") or ""), f"GET {path} with the token: {answer!r}")
            page_headers(answer, f"GET {path} with the token")

        changed = dict(plan.json(), breaths_per_set=plan.json()["breaths_per_set"] + 1)
        for method, path in API_ROUTES:
            body = json.dumps(changed) if method == "PUT" else document if method == "POST" else None
            refused_api(curl(method, origin + path, body=body), f"{method} {path} without a token")
        for path in PAGES:
            refused_page(curl("GET", origin + path), f"GET {path} without a token")
        check(curl("GET", origin + "/api/plan", [bearer]).json() == plan.json(), "PUT /api/plan without a token changed the plan")
        check(len(curl("GET", origin + "/api/sessions", [bearer]).json()["sessions"]) == len(sessions0),
              "POST /api/sessions without a token saved a session")

        # Wrong tokens (5 here; the lockout after 10 is checked at the end).
        refused_api(curl("GET", origin + "/api/plan", ["Authorization: Bearer wrong"]), "GET /api/plan with Bearer wrong")
        refused_api(curl("GET", origin + "/api/sessions?token=wrong"), "GET /api/sessions?token=wrong")
        refused_api(curl("GET", origin + "/api/plan", ["Cookie: opep_token=wrong"]), "GET /api/plan with the cookie opep_token=wrong")
        refused_page(curl("GET", origin + "/?token=wrong"), "GET /?token=wrong")

        # The address with the token: 303 to the same address without it, and a cookie.
        cookies = {}
        for path, expected_query in [("/?token=" + token, {}), (f"/?token={token}&engine=server", {"engine": ["server"]}),
                                     (f"/?engine=server&token={token}", {"engine": ["server"]})]:
            answer = curl("GET", origin + path)
            shown = path.replace(token, "TOKEN")
            check(answer.status == 303, f"GET {shown}: expected 303, got {answer!r}")
            location = answer.header("location") or ""
            check(token not in location, f"GET {shown}: the redirect keeps the token: Location {location!r}")
            target = urllib.parse.urlsplit(location)
            check(target.path == "/" and (not target.netloc or (target.scheme, target.netloc) == ("https", f"{ip}:{port}")),
                  f"GET {shown}: Location {location!r} is not this page")
            check(urllib.parse.parse_qs(target.query) == expected_query, f"GET {shown}: Location {location!r} does not keep "
                  f"the other parameters {expected_query}")
            set_cookie = [c for c in answer.headers.get("set-cookie", []) if c.startswith("opep_token=")]
            check(len(set_cookie) == 1, f"GET {shown}: no opep_token cookie set: {answer.headers.get('set-cookie')}")
            attributes = [a.strip().lower() for a in set_cookie[0].split(";")[1:]]
            for needed in ["httponly", "secure", "samesite=strict"]:
                check(needed in attributes, f"GET {shown}: the cookie lacks {needed}: {set_cookie[0].replace(token, 'TOKEN')!r}")
            check(any(a.startswith("path=/") for a in attributes), f"GET {shown}: the cookie has no Path=/: {set_cookie[0]!r}")
            cookies[path] = set_cookie[0].split(";")[0]
        cookie = "Cookie: " + cookies["/?token=" + token]
        answer = curl("GET", origin + "/api/plan", [cookie])
        check(answer.status == 200, f"GET /api/plan with the cookie: {answer!r}")
        answer = curl("GET", origin + "/", [cookie])
        check(answer.status == 200, f"GET / with the cookie: {answer!r}")
        page_headers(answer, "GET / with the cookie")

        # 3. The WebSocket: no token, a wrong one, another site's page, and this site's page.
        status, _, code, reason, texts = websocket(ip, port, "/live", cert)
        check(status == 400, f"wss /live without a token: expected no upgrade (400), got HTTP {status} (close {code}, {texts})")
        status, _, code, reason, texts = websocket(ip, port, "/live", cert, ["Authorization: Bearer wrong"])
        check(status == 400, f"wss /live with Bearer wrong: expected no upgrade (400), got HTTP {status}, close code {code} ({reason!r})")
        status, answer, code, _, _ = websocket(ip, port, "/live", cert, [bearer, f"Origin: {FOREIGN_ORIGIN}"], wait_s=5)
        check(status == 400, f"wss /live with the token from {FOREIGN_ORIGIN}: expected no upgrade (400), got HTTP {status} {answer} (close {code})")
        status, _, code, reason, texts = websocket(ip, port, "/live", cert, [cookie, f"Origin: {origin}"], wait_s=3)
        check(status == 101 and code in (None, 1000), f"wss /live with the cookie from {origin}: HTTP {status}, close {code} ({reason!r})")
        time.sleep(1)
        check(curl("GET", origin + "/api/sessions", [bearer]).json()["sessions"] == sessions0,
              "refused or empty WebSockets changed the history")

        # 4. Chromium at the printed address, trusting the certificate's public key only.
        driver_port = free_port()
        chromedriver = subprocess.Popen([shutil.which("chromedriver") or "/usr/bin/chromedriver", f"--port={driver_port}"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait("chromedriver", lambda: _reachable(f"http://127.0.0.1:{driver_port}/status"), 30)
        driver = WebDriver(driver_port, [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1250",
            f"--user-data-dir={os.path.join(work, 'chromium')}", f"--ignore-certificate-errors-spki-list={spki}",
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={wav}", "--autoplay-policy=no-user-gesture-required",
        ])
        driver.go(f"{origin}/?token={token}&engine=server")
        wait("the coach page", lambda: driver.text("#start") is not None, 30)
        href, cookie_text, secure = driver.script("return [location.href, document.cookie, window.isSecureContext];")
        check(token not in href, f"the address bar keeps the token: {href.replace(token, 'TOKEN')}")
        check(href == f"{origin}/?engine=server", f"the address bar shows {href!r}, expected {origin}/?engine=server")
        check(token not in cookie_text and "opep_token" not in cookie_text, f"the page's script can read the token cookie: {cookie_text!r}")
        check(secure, "the page is not a secure context")
        server_breaths, server_status = run_session(driver, "engine on the server (wss)", options.screenshot)
        check(server_breaths == BREATHS, f"wss session: the summary shows {server_breaths} breaths, the recording has {BREATHS}")
        rows = curl("GET", origin + "/api/sessions", [bearer]).json()["sessions"]
        check(len(rows) == len(sessions0) + 1, f"after the wss session the server lists {len(rows)} sessions, expected {len(sessions0) + 1}: {rows}")
        check(rows[0]["breaths"] == BREATHS and rows[0]["source"] != "imported", f"the wss session saved as {rows[0]}")

        driver.go(f"{origin}/")
        wait("the coach page with the page's engine", lambda: driver.text("#start") is not None, 30)
        href = driver.script("return location.href;")
        check(href == f"{origin}/", f"the address bar shows {href!r}")
        page_breaths, page_status = run_session(driver, "engine in the page")
        check(page_breaths == BREATHS, f"page session: the summary shows {page_breaths} breaths, the recording has {BREATHS}")
        rows = curl("GET", origin + "/api/sessions", [bearer]).json()["sessions"]
        check(len(rows) == len(sessions0) + 2, f"after the page's session the server lists {len(rows)} sessions, expected {len(sessions0) + 2}: {rows}")
        check(rows[0]["breaths"] == BREATHS and rows[0]["source"] == "imported", f"the page's session saved as {rows[0]}")
        driver.quit()
        driver = None

        # 5. Wrong tokens until the lockout; this client is then refused even with the right token,
        # another client (the loopback address) is still served, and the server still runs.
        statuses = []
        for _ in range(12):
            statuses.append(curl("GET", origin + "/api/plan", ["Authorization: Bearer wrong-again"]).status)
            if statuses[-1] != 401:
                break
        check(statuses[-1] == 429 and set(statuses[:-1]) <= {401} and len(statuses) <= 11,
              f"wrong tokens in a row answered {statuses}: expected 401 then 429 by the 11th")
        locked = curl("GET", origin + "/api/plan", [bearer])
        check(locked.status == 429, f"the locked-out client, with the right token: expected 429, got {locked!r}")
        status, answer, code, _, _ = websocket(ip, port, "/live", cert, [bearer, f"Origin: {origin}"], wait_s=3)
        check(status == 400, f"the locked-out client's WebSocket to /live, with the right token: expected no upgrade (400), got HTTP {status} {answer} (close {code})")
        retry_after = curl("GET", origin + "/api/plan", ["Authorization: Bearer wrong-again"]).header("retry-after")
        other = Curl(work, cert, pin="sha256//" + spki)("GET", f"https://127.0.0.1:{port}/api/plan", [bearer])
        check(other.status == 200, f"another client (127.0.0.1) with the token during the lockout: {other!r}")
        check(server.process.poll() is None, f"opep serve exited with {server.process.returncode}")
        code = server.stop()
        elapsed = time.monotonic() - began
        print(f"ok: https at {ip}:{port} (port 0), fingerprint {on_file[:8]}... on file, printed and on the wire, token file 0600; "
              f"{len(API_ROUTES)} API routes 401 and {len(PAGES)} pages 401 without a token and with wrong ones, /live not upgraded, "
              f"{FOREIGN_ORIGIN} not upgraded; static files open; CSP, nosniff, no-referrer; 303 + HttpOnly Secure SameSite=Strict cookie; "
              f"Chromium (SPKI-pinned): token gone from the address bar and document.cookie, {server_breaths} breaths over wss and "
              f"{page_breaths} with the page's engine saved ({server_status!r}, {page_status!r}); wrong tokens {statuses} "
              f"(Retry-After {retry_after}), the right one 429 too (/live not upgraded), 127.0.0.1 still served; server stopped (exit {code}); {elapsed:.0f} s"
              + "".join(f"\nnote: {n}" for n in notes))
        return 0
    except Exception as error:
        print(f"remote coach: FAILED: {error}", file=sys.stderr)
        if driver:
            try:
                print(f"page status: {driver.text('#status')!r}", file=sys.stderr)
            except Exception:
                pass
        if server:
            alive = server.process.poll() is None
            print(f"opep serve ({'running' if alive else f'exited with {server.process.returncode}'}) printed:\n{server.output()}\n"
                  f"its log ends:\n{server.stderr_tail()}", file=sys.stderr)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        if chromedriver:
            chromedriver.terminate()
            try:
                chromedriver.wait(timeout=10)
            except subprocess.TimeoutExpired:
                chromedriver.kill()
        if server:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
