import Foundation
import XCTest

/// `opep clinic` adds clinicians and their patients to a history and lists them.
final class ClinicCommandTests: XCTestCase {
    /// Everything the SQLite history at `database` holds on disk, its write-ahead log included.
    private static func storedText(_ database: String) throws -> String {
        let files = [database, database + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }
        return try files.map { String(decoding: try Data(contentsOf: URL(fileURLWithPath: $0)), as: UTF8.self) }.joined()
    }

    func testAClinicianAndTheirPatientsAreAddedListedAndPlanned() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("clinic.sqlite")

        let empty = try run(["clinic", "--database", database])
        XCTAssertNotEqual(empty.status, 0, "listing a history that is not there")
        XCTAssertTrue(empty.stderr.contains("no history there"), empty.stderr)

        let added = try run(
            ["clinic", "add-clinician", "m.rossi", "--name", "Maria Rossi", "--database", database],
            stdin: Data("correct horse battery\n".utf8))
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(nonEmptyLines(added.stdout), ["Clinician m.rossi (Maria Rossi) added to \(database)."])
        XCTAssertFalse(try Self.storedText(database).contains("correct horse battery"), "the password is kept only as its hash")

        let patient = try run([
            "clinic", "add-patient", "--clinician", "m.rossi", "--name", "Ann Smith", "--target", "12-18", "--sets", "4",
            "--address", "https://clinic.example.org:8443", "--database", database,
        ])
        XCTAssertEqual(patient.status, 0, patient.stderr)
        let lines = nonEmptyLines(patient.stdout)
        XCTAssertEqual(lines.first, "Patient 1, Ann Smith, followed by m.rossi: target 12-18 cmH2O, 4 sets of 10 breaths, 15 min, 2 a day, Acapella.")
        let tokenLine = try XCTUnwrap(lines.first { $0.hasPrefix("Access token") })
        let token = try XCTUnwrap(tokenLine.split(separator: " ").last.map(String.init))
        XCTAssertEqual(token.count, 32)
        XCTAssertTrue(lines.contains("Pairing address: https://clinic.example.org:8443/?token=\(token)"), patient.stdout)
        XCTAssertFalse(try Self.storedText(database).contains(token), "the token is kept only as its digest")

        let second = try run(["clinic", "add-patient", "--clinician", "m.rossi", "--name", "Bo", "--database", database])
        XCTAssertEqual(second.status, 0, second.stderr)
        let secondToken = nonEmptyLines(second.stdout).first { $0.hasPrefix("Access token") }?.split(separator: " ").last
        XCTAssertNotEqual(secondToken.map(String.init), token, "every patient has a token of their own")

        let changed = try run(["clinic", "plan", "1", "--minutes", "20", "--sessions-per-day", "3", "--database", database])
        XCTAssertEqual(changed.status, 0, changed.stderr)
        XCTAssertEqual(nonEmptyLines(changed.stdout), ["Patient 1, Ann Smith: target 12-18 cmH2O, 4 sets of 10 breaths, 20 min, 3 a day, Acapella."])

        let list = try run(["clinic", "list", "--database", database])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(nonEmptyLines(list.stdout), [
            "m.rossi (Maria Rossi): 2 patients",
            "      1  Ann Smith: 0 sessions; target 12-18 cmH2O, 4 sets of 10 breaths, 20 min, 3 a day, Acapella",
            "      2  Bo: 0 sessions; target 10-20 cmH2O, 3 sets of 10 breaths, 15 min, 2 a day, Acapella",
        ])

        let archived = try run(["clinic", "archive", "2", "--database", database])
        XCTAssertEqual(nonEmptyLines(archived.stdout), ["Patient 2, Bo: archived; their token opens nothing, their sessions stay."])
        let listed = try run(["clinic", "--database", database])
        XCTAssertTrue(listed.stdout.contains("      2  Bo (archived "), listed.stdout)
        let restored = try run(["clinic", "archive", "2", "--restore", "--database", database])
        XCTAssertEqual(nonEmptyLines(restored.stdout), ["Patient 2, Bo: followed again; their token opens their coach."])
        XCTAssertFalse(try run(["clinic", "--database", database]).stdout.contains("archived"))
        let nobody = try run(["clinic", "archive", "7", "--database", database])
        XCTAssertEqual(nobody.status, 1)
        XCTAssertEqual(nonEmptyLines(nobody.stderr), ["opep: error: no patient 7 in \(database) (`opep clinic` lists them)"])
    }

    func testAPatientsSessionsAreImportedAndListedAsTheirs() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("clinic.sqlite")
        let session = try simulateSession(in: directory)
        let analysis = try run(["analyze", session.wav, "--format", "json"])
        XCTAssertEqual(analysis.status, 0, analysis.stderr)
        let document = try directory.write(analysis.stdout, to: "phone.json")
        XCTAssertEqual(try run(["clinic", "add-clinician", "c", "--name", "C", "--database", database], stdin: Data("long enough password\n".utf8)).status, 0)
        for name in ["Ann", "Bo"] {
            XCTAssertEqual(try run(["clinic", "add-patient", "--clinician", "c", "--name", name, "--database", database]).status, 0)
        }

        let imported = try run(["history", "import", document, "--patient", "1", "--database", database])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(nonEmptyLines(imported.stdout), ["\(document): session 1"])
        let ann = try run(["history", "--patient", "1", "--database", database])
        XCTAssertEqual(ann.status, 0, ann.stderr)
        XCTAssertEqual(nonEmptyLines(ann.stdout).count, 2, "a header and Ann's session: \(ann.stdout)")
        let bo = try run(["history", "--patient", "2", "--database", database])
        XCTAssertEqual(nonEmptyLines(bo.stdout), ["No sessions of patient 2 yet: `opep serve` records them."])
        let list = try run(["clinic", "--database", database])
        XCTAssertTrue(list.stdout.contains("Ann: 1 session, last "), list.stdout)

        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        let today = formatter.string(from: Date())
        XCTAssertEqual(try run(["clinic", "plan", "1", "--sessions-per-day", "3", "--database", database]).status, 0)
        for (patient, name, sessions, perDay) in [("1", "Ann", 1, 3), ("2", "Bo", 0, 2)] {
            let report = directory.path("adherence-\(patient).html")
            let made = try run(["report", "--from", today, "--to", today, "--patient", patient, "-o", report, "--database", database])
            XCTAssertEqual(made.status, 0, made.stderr)
            let html = try String(contentsOfFile: report, encoding: .utf8)
            XCTAssertTrue(html.contains("Therapy adherence of \(name), \(today) to \(today)"), name)
            XCTAssertEqual(html.components(separatedBy: "class=\"session\"").count - 1, sessions, "\(name)'s sessions in the report")
            XCTAssertTrue(html.contains("\(sessions) of \(perDay) planned"), "counted against \(name)'s own plan")
        }
        let overridden = directory.path("adherence-once.html")
        XCTAssertEqual(try run(["report", "--from", today, "--to", today, "--patient", "1", "--sessions-per-day", "1", "-o", overridden, "--database", database]).status, 0)
        XCTAssertTrue(try String(contentsOfFile: overridden, encoding: .utf8).contains("1 of 1 planned"), "--sessions-per-day overrides the plan")
        let noDays = try run(["report", "--patient", "1", "-o", directory.path("x.html"), "--database", database])
        XCTAssertNotEqual(noDays.status, 0)
        XCTAssertTrue(noDays.stderr.contains("--from and --to"), noDays.stderr)
        let withSession = try run(["report", "--session", "1", "--patient", "1", "-o", directory.path("x.html"), "--database", database])
        XCTAssertTrue(withSession.stderr.contains("--patient is for an adherence report"), withSession.stderr)

        let nobody = try run(["history", "--patient", "9", "--database", database])
        XCTAssertEqual(nobody.status, 1)
        XCTAssertEqual(nonEmptyLines(nobody.stderr), ["opep: error: no patient 9 in \(database) (`opep clinic` lists them)"])
        let nobodys = try run(["history", "import", document, "--patient", "9", "--database", database])
        XCTAssertEqual(nobodys.status, 1)
        XCTAssertEqual(nonEmptyLines(nobodys.stderr), ["opep: error: no patient 9 in \(database) (`opep clinic` lists them)"])

        XCTAssertEqual(try run(["clinic", "add-clinician", "d", "--name", "D", "--database", database], stdin: Data("long enough password\n".utf8)).status, 0)
        let handedOver = try run(["clinic", "hand-over", "2", "--to", "d", "--database", database])
        XCTAssertEqual(nonEmptyLines(handedOver.stdout), ["Patient 2, Bo: followed by D (d) from now on."], handedOver.stderr)
        XCTAssertTrue(try run(["clinic", "--database", database]).stdout.contains("d (D): 1 patient"))
        let toNobody = try run(["clinic", "hand-over", "2", "--to", "e", "--database", database])
        XCTAssertEqual(nonEmptyLines(toNobody.stderr), ["opep: error: no clinician e in \(database) (`opep clinic` lists them)"])

        let asked = try run(["clinic", "delete-patient", "1", "--database", database])
        XCTAssertEqual(asked.status, 1)
        XCTAssertEqual(nonEmptyLines(asked.stderr), ["opep: error: patient 1, Ann, has 1 session that would be deleted with them; add --yes to delete them for good"])
        let followed = try run(["clinic", "delete-patient", "1", "--yes", "--database", database])
        XCTAssertEqual(followed.status, 1)
        XCTAssertEqual(nonEmptyLines(followed.stderr), ["opep: error: patient 1, Ann, is followed: archive them first (`opep clinic archive 1`)"])
        XCTAssertEqual(try run(["clinic", "archive", "1", "--database", database]).status, 0)
        let deleted = try run(["clinic", "delete-patient", "1", "--yes", "--database", database])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(nonEmptyLines(deleted.stdout), ["Patient 1, Ann: deleted with 1 session."])
        XCTAssertEqual(nonEmptyLines(try run(["history", "--patient", "1", "--database", database]).stderr), ["opep: error: no patient 1 in \(database) (`opep clinic` lists them)"])
        XCTAssertEqual(try run(["history", "show", "1", "--database", database]).status, 1, "her session went with her")
    }

    func testANewPasswordAndANewToken() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("clinic.sqlite")
        XCTAssertEqual(try run(["clinic", "add-clinician", "c", "--name", "C", "--database", database], stdin: Data("first password\n".utf8)).status, 0)
        let added = try run(["clinic", "add-patient", "--clinician", "c", "--name", "Ann", "--database", database])
        let first = nonEmptyLines(added.stdout).first { $0.hasPrefix("Access token") }

        let changed = try run(["clinic", "set-password", "c", "--database", database], stdin: Data("second password\n".utf8))
        XCTAssertEqual(changed.status, 0, changed.stderr)
        XCTAssertEqual(nonEmptyLines(changed.stdout), ["Clinician c has a new password; their sign-ins have ended."])
        let short = try run(["clinic", "set-password", "c", "--database", database], stdin: Data("short\n".utf8))
        XCTAssertEqual(short.status, 1)
        XCTAssertTrue(short.stderr.contains("at least 10 characters"), short.stderr)
        let nobody = try run(["clinic", "set-password", "nobody", "--database", database], stdin: Data("second password\n".utf8))
        XCTAssertEqual(nonEmptyLines(nobody.stderr), ["opep: error: no clinician nobody in \(database) (`opep clinic` lists them)"])

        let renewed = try run(["clinic", "new-token", "1", "--address", "https://clinic.example.org", "--database", database])
        XCTAssertEqual(renewed.status, 0, renewed.stderr)
        let lines = nonEmptyLines(renewed.stdout)
        XCTAssertEqual(lines.first, "Patient 1, Ann: a new access token; the old one opens nothing any more.")
        let second = try XCTUnwrap(lines.first { $0.hasPrefix("Access token") })
        XCTAssertNotEqual(second, first)
        let token = try XCTUnwrap(second.split(separator: " ").last)
        XCTAssertTrue(lines.contains("Pairing address: https://clinic.example.org/?token=\(token)"), renewed.stdout)
        let missing = try run(["clinic", "new-token", "7", "--database", database])
        XCTAssertEqual(nonEmptyLines(missing.stderr), ["opep: error: no patient 7 in \(database) (`opep clinic` lists them)"])
    }

    func testWhatCannotBeAddedIsOneErrorLineAndNothingIsSaved() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("clinic.sqlite")
        let password = Data("long enough password\n".utf8)

        let short = try run(["clinic", "add-clinician", "c", "--name", "C", "--database", database], stdin: Data("short\n".utf8))
        XCTAssertEqual(short.status, 1)
        XCTAssertEqual(nonEmptyLines(short.stderr), ["opep: error: the password cannot be used: it must be at least 10 characters long; nothing was saved"])

        let none = try run(["clinic", "add-clinician", "c", "--name", "C", "--database", database], stdin: Data())
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no password on standard input"), none.stderr)

        let badName = try run(["clinic", "add-clinician", "Dr.Who", "--name", "W", "--database", database], stdin: password)
        XCTAssertEqual(badName.status, 1)
        XCTAssertEqual(
            nonEmptyLines(badName.stderr),
            [#"opep: error: the username "Dr.Who" cannot be used: it must be 1-64 of a-z, 0-9, '.', '_' and '-'; nothing was saved"#])

        XCTAssertEqual(try run(["clinic", "add-clinician", "c", "--name", "C", "--database", database], stdin: password).status, 0)
        let twice = try run(["clinic", "add-clinician", "c", "--name", "Another", "--database", database], stdin: password)
        XCTAssertEqual(twice.status, 1)
        XCTAssertTrue(twice.stderr.contains(#"the username "c" cannot be used: it must be one no other clinician has"#), twice.stderr)

        let nobody = try run(["clinic", "add-patient", "--clinician", "nobody", "--name", "P", "--database", database])
        XCTAssertEqual(nobody.status, 1)
        XCTAssertEqual(nonEmptyLines(nobody.stderr), ["opep: error: no clinician nobody in \(database) (`opep clinic` lists them)"])

        let badPlan = try run(["clinic", "add-patient", "--clinician", "c", "--name", "P", "--sets", "0", "--database", database])
        XCTAssertEqual(badPlan.status, 1)
        XCTAssertEqual(nonEmptyLines(badPlan.stderr).count, 1, badPlan.stderr)
        XCTAssertTrue(badPlan.stderr.contains("sets"), badPlan.stderr)

        let noPatient = try run(["clinic", "plan", "9", "--database", database])
        XCTAssertEqual(noPatient.status, 1)
        XCTAssertEqual(nonEmptyLines(noPatient.stderr), ["opep: error: no patient 9 in \(database) (`opep clinic` lists them)"])

        let list = try run(["clinic", "--database", database])
        XCTAssertEqual(nonEmptyLines(list.stdout), ["c (C): 0 patients"])
    }
}
