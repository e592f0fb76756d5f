#!/usr/bin/env python3
"""The clinicians' page in a real browser, as a physiotherapist uses it.

Adds a clinician, her three patients and a colleague with one patient of his own (`opep clinic`),
has the first and the third patient's phones upload a session each with their own tokens, then in headless Chromium
opens /clinic under `opep serve`: a wrong password is refused on the page; signed in, the page
lists her three patients (not the colleague's), the first with this week's session and its breaths;
opening that patient shows the session, whose own page opens; the plan changed on the page
(sessions a day included) is what the patient's coach then reads with her token; her adherence
report opens from the page in the browser's time zone, counted against that plan; she changes her password on the page
(refused while the two new ones differ or the current one is wrong) and signs in with the new one;
archiving a patient lists him apart until he is followed again; an archived patient is deleted with her
session, which is then gone; a patient is handed over to the colleague, leaving
her list; a patient added on the page gets the address (and its QR code) that pairs her coach, and a new one
replaces it; signing out shows the sign-in again; last,
the patient's coach page (opened with her token) shows her plan as prescribed by her
physiotherapist, not to be changed there.

    Tests/Browser/clinic_page.py --opep .build/debug/opep [--screenshot FILE.png]

Needs Debian's chromium and chromium-driver (.ci/run installs them). Exits non-zero on failure.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, urllib.error, urllib.parse, urllib.request

from dashboard_e2e import WebDriver, free_port, stop, wait, _reachable

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a much better passphrase"


def opep(binary, *arguments, stdin=None):
    result = subprocess.run([binary, *arguments], input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"opep {' '.join(arguments)} failed: {result.stderr}")
    return result.stdout


def token_of(added):
    line = next(line for line in added.splitlines() if line.startswith("Access token"))
    return line.split()[-1]


def api(url, method="GET", token=None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.load(response)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    parser.add_argument("--screenshot")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="opep-clinic-")
    processes = []
    driver = None
    try:
        database = os.path.join(work, "history.sqlite")
        opep(options.opep, "clinic", "add-clinician", "m.rossi", "--name", "Maria Rossi", "--database", database, stdin=PASSWORD + "\n")
        opep(options.opep, "clinic", "add-clinician", "j.doe", "--name", "Jo Doe", "--database", database, stdin="another password\n")
        ann = token_of(opep(options.opep, "clinic", "add-patient", "--clinician", "m.rossi", "--name", "Ann Smith", "--database", database))
        opep(options.opep, "clinic", "add-patient", "--clinician", "m.rossi", "--name", "Bo Brown", "--database", database)
        di = token_of(opep(options.opep, "clinic", "add-patient", "--clinician", "m.rossi", "--name", "Di Doyle", "--database", database))
        opep(options.opep, "clinic", "add-patient", "--clinician", "j.doe", "--name", "Cy Colleague", "--database", database)

        wav = os.path.join(work, "session.wav")
        opep(options.opep, "simulate", "-o", wav, "--sets", "1", "--breaths", "3", "--rest", "5", "--pressure", "12-18", "--seed", "4")
        document = opep(options.opep, "analyze", wav, "--format", "json")
        breaths = len(json.loads(document)["breaths"])

        port = free_port()
        server = subprocess.Popen([options.opep, "serve", "--port", str(port), "--database", database],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        processes.append(server)
        url = f"http://127.0.0.1:{port}"
        wait("the server", lambda: _reachable(url), 60)
        status, answer = api(url + "/api/sessions", "POST", token=ann, body=document.encode())
        assert status == 201, f"the patient's upload answered {status} {answer}"
        session = answer["session_id"]
        dis_wav = os.path.join(work, "dis-session.wav")
        opep(options.opep, "simulate", "-o", dis_wav, "--sets", "1", "--breaths", "2", "--rest", "5", "--seed", "5")
        status, answer = api(url + "/api/sessions", "POST", token=di, body=opep(options.opep, "analyze", dis_wav, "--format", "json").encode())
        assert status == 201, f"Di's upload answered {status} {answer}"
        dis_session = answer["session_id"]

        driver_port = free_port()
        processes.append(subprocess.Popen(["chromedriver", f"--port={driver_port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait("chromedriver", lambda: _reachable(f"http://127.0.0.1:{driver_port}/status"), 30)
        driver = WebDriver(driver_port, ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1100"])

        def sign_in(password):
            driver.script("document.querySelector('#username').value = arguments[0];"
                          "document.querySelector('#password').value = arguments[1];"
                          "document.querySelector('#sign-in-form').requestSubmit();", "m.rossi", password)

        driver.go(url + "/clinic")
        wait("the sign-in form", lambda: driver.script("return !document.querySelector('#sign-in').hidden;"), 20)
        sign_in("wrong password")
        wait("the wrong password refused", lambda: "wrong username or password" in (driver.text("#status") or ""), 20)
        sign_in(PASSWORD)
        rows = wait("her patients listed", lambda: driver.script(
            "return [...document.querySelectorAll('#patient-table tbody tr')].map((r) => [...r.children].map((c) => c.textContent.trim()));"), 20)
        names = [row[0] for row in rows]
        assert names == ["Ann Smith", "Bo Brown", "Di Doyle"], f"the page lists {names}, not her three patients"
        assert rows[0][1] == "1 of 14" and rows[0][3] == str(breaths), f"Ann's week reads {rows[0]}, not 1 of 14 sessions with {breaths} breaths"
        assert rows[1][1] == "0 of 14", f"Bo's week reads {rows[1]}"
        assert "Maria Rossi" in (driver.text("#who") or "")

        driver.click("#patient-table tbody tr:first-child button")
        wait("Ann's session", lambda: driver.script(
            "return document.querySelector(`#patient-sessions a[href='/sessions/${arguments[0]}']`) !== null;", session), 20)
        driver.script("const f = document.querySelector('#patient-plan'); f.elements.sets.value = '4'; f.elements.target_low_cmh2o.value = '12';"
                      "f.elements.sessions_per_day.value = '3'; f.requestSubmit();")
        wait("the plan saved", lambda: (driver.text("#plan-message") or "").startswith("Saved"), 20)
        _, plan = api(url + "/api/plan", token=ann)
        assert plan["sets"] == 4 and plan["target_low_cmh2o"] == 12 and plan["sessions_per_day"] == 3, f"Ann's coach reads {plan}"
        week = driver.text("#patient-week") or ""
        assert week.startswith("Last 7 days: 1 of 21 sessions planned"), f"the patient's week reads {week!r} after the plan of 3 a day"

        driver.script("window.open = (address) => { window.openedReport = address; };"
                      "document.querySelector('#patient-report').requestSubmit();")
        report = wait("the report opened", lambda: driver.script("return window.openedReport ?? null;"), 20)
        zone = driver.script("return Intl.DateTimeFormat().resolvedOptions().timeZone;")
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(report).query).get("tz") == [zone], f"the report {report} is not asked in the browser's zone {zone}"
        driver.go(url + report)
        heading = wait("the adherence report", lambda: driver.text("h1"), 20)
        assert heading.startswith("Therapy adherence of Ann Smith"), f"the report is headed {heading!r}"
        body = driver.text("body") or ""
        assert "1 of 84 planned" in body, "her one session in the last 28 days against 3 a day"

        driver.go(f"{url}/sessions/{session}")
        wait("the session's own page", lambda: (driver.text("#summary-breaths") or "").startswith(str(breaths)), 20)

        driver.go(url + "/clinic")
        wait("signed in still", lambda: driver.script("return !document.querySelector('#sign-out').hidden;"), 20)
        driver.script("window.confirm = () => true;"
                      "[...document.querySelectorAll('#patient-table tbody tr')].find((r) => r.textContent.includes('Bo Brown')).querySelector('button').click();")
        wait("Bo's panel", lambda: driver.text("#patient-title") == "Bo Brown", 20)
        driver.click("#archive-button")
        archived = wait("Bo archived", lambda: driver.script(
            "const a = [...document.querySelectorAll('#archived-table tbody th')].map((c) => c.textContent.trim());"
            "return !document.querySelector('#archived-patients').hidden && a.length ? a : null;"), 20)
        assert archived == ["Bo Brown"], f"the archived patients read {archived}"
        following = driver.script("return [...document.querySelectorAll('#patient-table tbody th')].map((c) => c.textContent.trim());")
        assert following == ["Ann Smith", "Di Doyle"], f"the patients followed read {following}"
        assert (driver.text("#archived-note") or "").startswith("Archived"), driver.text("#archived-note")
        driver.click("#archive-button")
        wait("Bo followed again", lambda: driver.script(
            "return document.querySelector('#archived-patients').hidden && document.querySelectorAll('#patient-table tbody tr').length === 3;"), 20)

        def open_patient(name):
            driver.script("[...document.querySelectorAll('#patient-table tbody tr')].find((r) => r.textContent.includes(arguments[0]))"
                          ".querySelector('button').click();", name)
            wait(f"{name}'s panel", lambda: driver.text("#patient-title") == name and not driver.script(
                "return document.querySelector('#patient').hidden;"), 20)
        open_patient("Di Doyle")
        assert driver.script("return document.querySelector('#delete-button').hidden;"), "a followed patient cannot be deleted"
        driver.click("#archive-button")
        wait("Di archived", lambda: driver.script("return !document.querySelector('#delete-button').hidden;"), 20)
        driver.click("#delete-button")
        said = wait("Di deleted", lambda: driver.script(
            "const s = document.querySelector('#status').textContent;"
            "return document.querySelector('#archived-patients').hidden && document.querySelector('#patient').hidden && s ? s : null;"), 20)
        assert said == "Di Doyle deleted with 1 session.", f"the page says {said!r}"
        try:
            api(f"{url}/api/sessions/{dis_session}")
            raise AssertionError("Di's session is still there")
        except urllib.error.HTTPError as error:
            assert error.code == 404, f"Di's session answered {error.code} once she was deleted"

        open_patient("Bo Brown")
        colleagues = driver.script("return [...document.querySelectorAll('#hand-over option')].map((o) => o.textContent);")
        assert colleagues == ["Jo Doe (j.doe)"], f"the page offers {colleagues} to hand Bo over to"
        driver.script("document.querySelector('#hand-over').requestSubmit();")
        said = wait("Bo handed over", lambda: driver.script(
            "const s = document.querySelector('#status').textContent;"
            "return document.querySelectorAll('#patient-table tbody tr').length === 1 && s ? s : null;"), 20)
        assert said == "Bo Brown is followed by Jo Doe (j.doe) now.", f"the page says {said!r}"

        driver.script("const f = document.querySelector('#add-patient'); f.elements.name.value = 'Eve Evans'; f.requestSubmit();")
        first = wait("Eve added with her address", lambda: driver.script(
            "return !document.querySelector('#new-token').hidden && document.querySelector('#patient-title').textContent === 'Eve Evans'"
            " ? document.querySelector('#pairing-address').value : null;"), 20)
        assert first.startswith(url + "/?token="), f"the pairing address reads {first!r}"
        box, modules = driver.script(
            "const svg = document.querySelector('#pairing-qr svg');"
            "return svg ? [svg.getAttribute('viewBox'), (svg.querySelector('path').getAttribute('d').match(/h1v1h-1z/g) ?? []).length] : [null, 0];")
        side = int(box.split()[2]) if box else 0
        assert side in [4 * version + 17 + 8 for version in range(1, 21)] and modules > side, f"the pairing QR code reads {box}, {modules} dark modules"
        # Read as a phone's camera would (zbarimg; .ci/run installs it, elsewhere it may be missing).
        if shutil.which("zbarimg"):
            shot = os.path.join(work, "pairing.png")
            driver.script("document.querySelector('#pairing-qr').scrollIntoView({ block: 'center' });")
            driver.screenshot(shot)
            read = subprocess.run(["zbarimg", "-q", "--raw", shot], capture_output=True, text=True).stdout.strip()
            assert read == first, f"the QR code reads {read!r}, not the address {first!r}"
        elif os.environ.get("CI"):
            raise AssertionError("zbarimg is missing (zbar-tools)")
        if options.screenshot:
            driver.script("document.querySelector('#new-token').scrollIntoView({ block: 'start' });")
            driver.screenshot(options.screenshot)
        eve = urllib.parse.parse_qs(urllib.parse.urlsplit(first).query)["token"][0]
        # On loopback without --require-token a token nobody has is the history owner's: her plan
        # is the one prescribed by her physiotherapist only with her own token.
        _, plan = api(url + "/api/plan", token=eve)
        assert plan.get("prescribed_by") == "Maria Rossi" and plan["sets"] == 3, f"Eve's coach opens {plan}"
        driver.click("#token-button")
        second = wait("Eve's new address", lambda: driver.script(
            "const a = document.querySelector('#pairing-address').value; return a !== arguments[0] ? a : null;", first), 20)
        assert "prescribed_by" not in api(url + "/api/plan", token=eve)[1], "Eve's first token still opens her coach"
        eve = urllib.parse.parse_qs(urllib.parse.urlsplit(second).query)["token"][0]
        assert api(url + "/api/plan", token=eve)[1].get("prescribed_by") == "Maria Rossi", "Eve's new token opens her coach"
        open_patient("Ann Smith")
        assert driver.script("return document.querySelector('#new-token').hidden;"), "Eve's address still shown beside Ann"

        def change_password(current, new, again):
            driver.script("const f = document.querySelector('#password-form'); document.querySelector('#password-change').open = true;"
                          "f.elements.current.value = arguments[0]; f.elements.new.value = arguments[1]; f.elements.again.value = arguments[2];"
                          "document.querySelector('#password-message').textContent = ''; f.requestSubmit();", current, new, again)
            return wait("the password's answer", lambda: driver.text("#password-message"), 20)
        answer = change_password(PASSWORD, NEW_PASSWORD, NEW_PASSWORD + "x")
        assert answer == "The two new passwords differ.", answer
        answer = change_password("not her password", NEW_PASSWORD, NEW_PASSWORD)
        assert answer == "Not changed: the current password is wrong", answer
        answer = change_password(PASSWORD, NEW_PASSWORD, NEW_PASSWORD)
        assert answer.startswith("Password changed"), answer
        driver.click("#sign-out")
        wait("the sign-in form again", lambda: driver.script("return !document.querySelector('#sign-in').hidden;"), 20)
        sign_in(PASSWORD)
        wait("the old password refused", lambda: "wrong username or password" in (driver.text("#status") or ""), 20)
        sign_in(NEW_PASSWORD)
        wait("signed in with the new password", lambda: driver.script("return !document.querySelector('#sign-out').hidden;"), 20)
        driver.click("#sign-out")
        wait("the sign-in form again", lambda: driver.script("return !document.querySelector('#sign-in').hidden;"), 20)
        driver.go(url + "/clinic")
        wait("still signed out after a reload", lambda: driver.script("return !document.querySelector('#sign-in').hidden;"), 20)
        driver.go(f"{url}/?token={ann}")
        note = wait("the coach's plan prescribed", lambda: driver.script(
            "const m = document.querySelector('#plan-message')?.textContent ?? '';"
            "return m.startsWith('Prescribed by') && document.querySelector('#plan-form fieldset').disabled ? m : null;"), 20)
        assert "Maria Rossi" in note, f"the coach says {note!r}"
        plan_text = driver.text("#plan-text") or ""
        assert "12" in plan_text, f"the coach shows the plan {plan_text!r}, not the one changed on the clinic's page"

        print(f"ok: a wrong password refused; 3 patients listed, Ann with 1 session of {breaths} breaths; "
              "her session opens; the plan changed on the page reaches her coach, which shows it as prescribed; her adherence "
              "report opens against it; a patient archived and followed again; one archived and deleted with her session; one handed "
              "over to the colleague; one added with her pairing address, then given a new one; her password changed on the page; signed out")
        return 0
    except Exception as error:
        print(f"clinic page: FAILED: {error}", file=sys.stderr)
        if processes and processes[0].poll() is not None:
            print(processes[0].stdout.read(), file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        for process in processes:
            stop(process)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
