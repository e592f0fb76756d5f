// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension KeyedDecodingContainer {
    /// Replaces `value` with the one stored under `key` when the key is there. Stored JSON written
    /// before a field existed keeps the field's default, so every older session still decodes.
    func update<T: Decodable>(_ value: inout T, from key: Key) throws {
        if let stored = try decodeIfPresent(T.self, forKey: key) { value = stored }
    }
}
#endif
