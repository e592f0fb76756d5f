/// An entry point for outside input as a function of any bytes, for libFuzzer (`Fuzz/`,
/// `scripts/fuzz.sh`) and for `swift test`, which replays the seeds and every input a fuzzer once
/// found (`Fuzz/Corpus/NAME/`, `Fuzz/Regressions/NAME/`).
///
/// A target must never crash, hang or leak whatever the bytes: bad input is an error value.
public protocol FuzzEntryPoint: Sendable {
    /// The target's name in `scripts/fuzz.sh` and its corpus folders.
    var name: String { get }
    /// Runs the target on `bytes`; whether they were taken as good input (audio decoded without
    /// an error, a plan or profile valid, a document saved), which the seeds must be.
    @discardableResult
    func run(_ bytes: UnsafeRawBufferPointer) -> Bool
}

extension FuzzEntryPoint where Self: RawRepresentable, RawValue == String {
    /// A target named by its case's raw value.
    public var name: String { rawValue }
}
