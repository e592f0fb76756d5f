import Foundation

extension SQLRow {
    /// Decodes a record whose JSON keys are the row's column names (OPEPKit's breaths, sets and
    /// events): numbers, text and booleans from their columns, and any other value (an enum
    /// excepted) from the JSON text its column holds. Absent columns read as missing keys, so the
    /// record's tolerant decoding gives rows of older schemas their defaults.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: RowDecoder(row: self, codingPath: []))
    }
}

private struct RowDecoder: Decoder {
    let row: SQLRow
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer<Key>(row: row, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: codingPath, debugDescription: "a row is decoded by its column names"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "a row is decoded by its column names"))
    }
}

private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: SQLRow
    let codingPath: [any CodingKey]
    var allKeys: [Key] { row.columns.names.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { row.columns.positions[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool { row[key.stringValue] == .null }

    private func value<T: SQLColumnValue>(_ type: T.Type, _ key: Key) throws -> T {
        let value = row[key.stringValue]
        guard let typed = T(sqlValue: value) else {
            throw DecodingError.typeMismatch(
                T.self, .init(codingPath: codingPath + [key], debugDescription: "column \(key.stringValue) holds \(value)"))
        }
        return typed
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try value(Double.self, key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        guard let exact = T(exactly: try value(Int64.self, key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "out of the range of \(T.self)")
        }
        return exact
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = row[key.stringValue]
        if case .text(let text) = value, let first = text.first, first == "{" || first == "[" {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(
            [String: Any].self, .init(codingPath: codingPath + [key], debugDescription: "a column holds no nested record"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: codingPath + [key], debugDescription: "a column holds no list"))
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row, codingPath: codingPath + [key]) }
}

/// One column's value as a single value (an enum's raw value).
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: SQLValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw mismatch([String: Any].self)
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw mismatch([Any].self) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "the column holds \(value)"))
    }

    private func typed<T: SQLColumnValue>(_ type: T.Type) throws -> T {
        guard let typed = T(sqlValue: value) else { throw mismatch(type) }
        return typed
    }

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try typed(type) }
    func decode(_ type: String.Type) throws -> String { try typed(type) }
    func decode(_ type: Double.Type) throws -> Double { try typed(type) }
    func decode(_ type: Float.Type) throws -> Float { Float(try typed(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try typed(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try typed(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard let exact = T(exactly: try typed(Int64.self)) else { throw mismatch(type) }
        return exact
    }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}
