/// The layout of the analysis document (`opep analyze --format json`, the history's export, the
/// page's document), written in it as `schema_version` by each of its writers: `SessionAnalysis`
/// natively and the page's `AnalysisJSON`. The layout, field by field, is in
/// docs/analysis-document.md.
///
/// Readers take what they know and ignore the rest, so adding a field keeps the version; it is
/// raised only when a field changes its meaning or unit or is removed. Documents written before
/// the field existed read as version 0, which has the layout of version 1. Version 2
/// (2026-11-29) gives the tracker's three runs in seconds instead of frames; every earlier
/// document still reads.
public enum AnalysisDocumentSchema {
    /// The version this release writes.
    public static let version = 2
}
