/// How the engine was compiled.
public enum EngineBuild {
    /// Whether the engine was compiled for the processor that built it (`-target-cpu native`, see
    /// Package.swift: on x86-64, about 1.2 times as fast with the same results); otherwise for any
    /// processor of its architecture (`OPEP_PORTABLE=1`, another architecture, or WebAssembly).
    public static var forThisProcessor: Bool {
        #if OPEP_BUILT_FOR_THIS_PROCESSOR
        true
        #else
        false
        #endif
    }
}
