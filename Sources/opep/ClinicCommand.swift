import ArgumentParser
import Foundation
import OPEPHistory
import OPEPKit
import OPEPServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct ClinicCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clinic",
        abstract: "Clinicians and their patients in a clinic's history.",
        discussion: """
            A clinic keeps its history on PostgreSQL (docs/clinic.md); these commands add its \
            physiotherapists and the patients each follows, each patient with a plan and an access \
            token of their own for their coach. `opep clinic` (or `list`) lists them.
            """,
        subcommands: [
            ClinicListCommand.self, AddClinicianCommand.self, SetPasswordCommand.self, AddPatientCommand.self, NewTokenCommand.self,
            PatientPlanCommand.self, ArchivePatientCommand.self, HandOverCommand.self, DeletePatientCommand.self,
        ],
        defaultSubcommand: ClinicListCommand.self
    )
}

extension HistoryStore {
    /// The patient `id`, or the one error line saying there is none.
    func requirePatient(_ id: Int64) throws -> Patient {
        guard let patient = try patient(id) else { throw noSuchPatient(id) }
        return patient
    }

    /// The one error line saying there is no patient `id`.
    func noSuchPatient(_ id: Int64) -> CommandFailure {
        failure("no patient \(id) in \(location) (`opep clinic` lists them)")
    }

    /// The clinician `username`, or the one error line saying there is none.
    func requireClinician(_ username: String) throws -> Clinician {
        guard let found = try clinician(username: username) else {
            throw failure("no clinician \(username) in \(location) (`opep clinic` lists them)")
        }
        return found.clinician
    }
}

extension HistoryDatabaseOptions {
    /// The history, which must exist when --database names a file.
    func openExistingStore() throws -> HistoryStore {
        try openStore(missing: isGiven ? { "\($0): no history there" } : nil)
    }
}

/// The plan's parts a command may set; the others stay as they are.
struct PlanOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Target pressure range, in cmH2O.", valueName: "LOW-HIGH"))
    var target: RangeArgument?

    @Option(help: "Breaths in a set before the huff coughs.")
    var breathsPerSet: Int?

    @Option(help: "Sets in a session.")
    var sets: Int?

    @Option(help: "Length of a session, in minutes.")
    var minutes: Double?

    @Option(help: "Sessions a day.")
    var sessionsPerDay: Int?

    @Option(help: ArgumentHelp("The patient's device profile (e.g. from `opep calibrate`).", valueName: "FILE"))
    var device: String?

    /// Whether any part was given.
    var isGiven: Bool { target != nil || breathsPerSet != nil || sets != nil || minutes != nil || sessionsPerDay != nil || device != nil }

    /// `plan` with the parts given, validated.
    func applied(to plan: TherapyPlan) throws -> TherapyPlan {
        var plan = plan
        if let target { plan.target = TargetRange(lowerCmH2O: target.range.lowerBound, upperCmH2O: target.range.upperBound) }
        if let breathsPerSet { plan.breathsPerSet = breathsPerSet }
        if let sets { plan.sets = sets }
        if let minutes { plan.minutes = minutes }
        if let sessionsPerDay { plan.sessionsPerDay = sessionsPerDay }
        if let device { plan.device = try AnalysisOptions.parse(["--device", device]).deviceProfile() }
        do {
            try plan.validate()
        } catch {
            throw failure("the plan cannot be used: \(error)")
        }
        return plan
    }

    /// The plan in one line.
    static func describe(_ plan: TherapyPlan) -> String {
        "target \(plan.target.lowerCmH2O.clean)-\(plan.target.upperCmH2O.clean) cmH2O, \(plan.sets) sets of \(plan.breathsPerSet) breaths, "
            + "\(plan.minutes.clean) min, \(plan.sessionsPerDay) a day, \(plan.device.name)"
    }
}

struct ClinicListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the clinicians and the patients each follows, with their sessions.")

    @OptionGroup var history: HistoryDatabaseOptions

    func run() throws {
        let store = try history.openExistingStore()
        let clinicians = try store.clinicians()
        guard !clinicians.isEmpty else {
            print("No clinicians yet: `opep clinic add-clinician USERNAME --name NAME` adds one.")
            return
        }
        for clinician in clinicians {
            let patients = try store.patients(of: clinician.id)
            print("\(clinician.username) (\(clinician.name)): \(patients.count) patient\(patients.count == 1 ? "" : "s")")
            for patient in patients {
                let sessions = try store.sessions(patient: patient.id)
                let last = sessions.first.map { ", last \(HistoryCommand.localTime($0.startedAt))" } ?? ""
                let archived = patient.archivedAt.map { " (archived \(HistoryCommand.localTime($0)))" } ?? ""
                print("  \(patient.id)".leftPad(7) + "  \(patient.name)\(archived): \(sessions.count) session\(sessions.count == 1 ? "" : "s")\(last); "
                    + PlanOptions.describe(patient.plan))
            }
        }
    }
}

struct AddClinicianCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-clinician",
        abstract: "Add a physiotherapist's account.",
        discussion: """
            The password is read from standard input (its first line), or asked for twice when that \
            is a terminal; it must be \(ClinicianPassword.shortest) characters or more, and is kept \
            only as its bcrypt hash.
            """)

    @Argument(help: "What the clinician signs in with: lowercase letters, digits, '.', '_' and '-'.")
    var username: String

    @Option(help: "The clinician's name, as patients see it.")
    var name: String

    @OptionGroup var history: HistoryDatabaseOptions

    func run() throws {
        let store = try history.openStore()
        let password = try Self.readPassword(for: username)
        do {
            let clinician = try store.addClinician(username: username, name: name, passwordHash: try ClinicianPassword.hash(password))
            print("Clinician \(clinician.username) (\(clinician.name)) added to \(store.location).")
        } catch let error as ClinicRecordError {
            throw failure("\(error); nothing was saved")
        }
    }

    /// The password: asked for twice without echo on a terminal, else the first line of input.
    static func readPassword(for username: String) throws -> String {
        guard isatty(STDIN_FILENO) != 0 else {
            guard let line = readLine(strippingNewline: true) else {
                throw failure("no password on standard input for \(username) (give it on the first line); nothing was saved")
            }
            return line
        }
        let first = silentPrompt("Password for \(username): ")
        let second = silentPrompt("The same again: ")
        guard first == second else { throw failure("the two passwords differ; nothing was saved") }
        return first
    }

    /// One line read from the terminal with its echo off.
    private static func silentPrompt(_ prompt: String) -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }
}

struct SetPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-password",
        abstract: "Give a clinician a new password; their sign-ins end.",
        discussion: "The password is read as for add-clinician: the first line of standard input, or asked for twice on a terminal.")

    @Argument(help: "The clinician's username.")
    var username: String

    @OptionGroup var history: HistoryDatabaseOptions

    func run() throws {
        let store = try history.openExistingStore()
        _ = try store.requireClinician(username)
        let password = try AddClinicianCommand.readPassword(for: username)
        do {
            try store.setPasswordHash(try ClinicianPassword.hash(password), forClinician: username)
        } catch let error as ClinicRecordError {
            throw failure("\(error); nothing was saved")
        }
        print("Clinician \(username) has a new password; their sign-ins have ended.")
    }
}

/// Prints a patient's new access token, and with an address where the clinic's server is
/// reached, their pairing address and its QR code.
private func printToken(_ token: AccessToken, address: String?) {
    print("Access token for the patient's coach (shown only now): \(token.text)")
    if let address {
        let pairing = "\(address)/?token=\(token.text)"
        print("Pairing address: \(pairing)")
        print(ServeCommand.qrCode(pairing))
    }
}

/// `--address`: where the clinic's server is reached, for a patient's pairing address.
struct PairingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where the clinic's server is reached, e.g. https://clinic.example.org:8443.", valueName: "URL"))
    var address: String?

    func validate() throws {
        if let address, ServeCommand.origin(address) != address {
            throw ValidationError("--address takes the server's origin like https://clinic.example.org:8443 (scheme, host and port only), not \(address).")
        }
    }
}

/// The patient a command is about, in an existing history.
struct PatientChoice: ParsableArguments {
    @Argument(help: "The patient's id (`opep clinic` lists them).")
    var patient: Int64

    @OptionGroup var history: HistoryDatabaseOptions

    /// The history and the patient, or the one error line saying there is no such patient.
    func open() throws -> (store: HistoryStore, patient: Patient) {
        let store = try history.openExistingStore()
        return (store, try store.requirePatient(patient))
    }
}

struct NewTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new-token",
        abstract: "Give a patient a new access token (a lost phone): the old one opens nothing any more.")

    @OptionGroup var patient: PatientChoice

    @OptionGroup var pairing: PairingOptions

    func run() throws {
        let (store, found) = try patient.open()
        let token = AccessToken.random()
        try store.replaceToken(ofPatient: found.id, with: token.text)
        print("Patient \(found.id), \(found.name): a new access token; the old one opens nothing any more.")
        if found.archivedAt != nil { print("The patient is archived: neither token opens anything until `opep clinic archive \(found.id) --restore`.") }
        printToken(token, address: pairing.address)
    }
}

struct ArchivePatientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Archive a patient whose therapy has ended, or follow them again with --restore.",
        discussion: """
            An archived patient's token opens nothing and their clinician's page lists them apart; \
            their sessions stay in the history, and their clinician can still read them.
            """)

    @OptionGroup var patient: PatientChoice

    @Flag(help: "Follow the patient again: their token opens their coach once more.")
    var restore = false

    func run() throws {
        let (store, found) = try patient.open()
        try store.setArchived(!restore, patient: found.id)
        print(restore
            ? "Patient \(found.id), \(found.name): followed again; their token opens their coach."
            : "Patient \(found.id), \(found.name): archived; their token opens nothing, their sessions stay.")
    }
}

struct HandOverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-over",
        abstract: "Hand a patient over to another clinician, with their sessions, plan and token.")

    @OptionGroup var patient: PatientChoice

    @Option(help: "The username of the clinician who follows the patient from now on.")
    var to: String

    func run() throws {
        let (store, found) = try patient.open()
        let clinician = try store.requireClinician(to)
        try store.handOver(patient: found.id, to: clinician.id)
        print("Patient \(found.id), \(found.name): followed by \(clinician.name) (\(clinician.username)) from now on.")
    }
}

struct DeletePatientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-patient",
        abstract: "Delete an archived patient for good, with every session of theirs.",
        discussion: """
            Only a patient archived first (`opep clinic archive ID`) can be deleted. Their \
            sessions, with their breaths, frames and any audio kept, go with them and cannot be \
            brought back: export what the clinic must keep first (`opep history export`).
            """)

    @OptionGroup var patient: PatientChoice

    @Flag(help: "Delete without asking: the command otherwise only says what would go.")
    var yes = false

    func run() throws {
        let (store, found) = try patient.open()
        guard yes else {
            let sessions = try store.sessions(patient: found.id).count
            throw failure("patient \(found.id), \(found.name), has \(plural(sessions, "session")) that would be deleted with them; add --yes to delete them for good")
        }
        switch try store.deletePatient(found.id) {
        case .deleted(let deleted, let audioLeft):
            print("Patient \(found.id), \(found.name): deleted with \(plural(deleted, "session")).")
            if !audioLeft.isEmpty { throw failure("could not remove their audio files \(audioLeft.joined(separator: ", ")): remove them by hand") }
        case .noSuchPatient:
            throw store.noSuchPatient(found.id)
        case .notArchived:
            throw failure("patient \(found.id), \(found.name), is followed: archive them first (`opep clinic archive \(found.id)`)")
        case .stillRecording(let session):
            throw failure("session \(session) of patient \(found.id), \(found.name), is still being recorded: try again once it has ended")
        }
    }
}

struct AddPatientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-patient",
        abstract: "Add a patient a clinician follows, with their plan and their coach's access token.",
        discussion: """
            Prints the patient's id and the access token their coach presents, once: the history \
            keeps only its SHA-256 digest. With --address (where the clinic's `opep serve` is \
            reached), also the pairing address, and its QR code when `qrencode` is installed.
            """)

    @Option(help: "The username of the clinician who follows the patient.")
    var clinician: String

    @Option(help: "The patient's name.")
    var name: String

    @OptionGroup var plan: PlanOptions

    @OptionGroup var pairing: PairingOptions

    @OptionGroup var history: HistoryDatabaseOptions

    func run() throws {
        let store = try history.openStore()
        let follower = try store.requireClinician(clinician)
        let planned = try plan.applied(to: .standard)
        let token = AccessToken.random()
        let patient: Patient
        do {
            patient = try store.addPatient(name: name, clinician: follower.id, plan: planned, token: token.text)
        } catch let error as ClinicRecordError {
            throw failure("\(error); nothing was saved")
        }
        print("Patient \(patient.id), \(patient.name), followed by \(follower.username): \(PlanOptions.describe(patient.plan)).")
        printToken(token, address: pairing.address)
    }
}

struct PatientPlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show or change a patient's plan.",
        discussion: "Without plan options, prints the plan; with them, changes those parts and prints the new plan.")

    @OptionGroup var patient: PatientChoice

    @OptionGroup var plan: PlanOptions

    func run() throws {
        let (store, found) = try patient.open()
        guard plan.isGiven else {
            print("Patient \(found.id), \(found.name): \(PlanOptions.describe(found.plan)).")
            return
        }
        let changed = try plan.applied(to: found.plan)
        try store.savePlan(changed, forPatient: found.id)
        print("Patient \(found.id), \(found.name): \(PlanOptions.describe(changed)).")
    }
}
