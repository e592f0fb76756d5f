import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The server's TLS certificate and key as PEM files, either given (`--tls-cert`, `--tls-key`) or
/// made here for this machine (`--tls self-signed`) and kept next to the history.
public struct ServerCertificate: Sendable {
    /// The certificate (chain) file, PEM.
    public let certificatePath: String
    /// The private key file, PEM.
    public let keyPath: String

    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// The self-signed pair's place beside the database at `databasePath`:
    /// `opep-tls-cert.pem` and `opep-tls-key.pem` in the same folder.
    public init(besideDatabase databasePath: String) {
        let folder = (databasePath as NSString).deletingLastPathComponent
        let base = folder.isEmpty ? "." : folder
        certificatePath = (base as NSString).appendingPathComponent("opep-tls-cert.pem")
        keyPath = (base as NSString).appendingPathComponent("opep-tls-key.pem")
    }

    /// Days a self-signed certificate is valid (browsers refuse server certificates of more than 398).
    public static let validDays = 397
    /// A kept self-signed certificate is made anew this many days before it expires.
    public static let renewalDays = 30

    /// Keeps a self-signed certificate for `names` (DNS names) and `addresses` (IPv4/IPv6): the
    /// kept one when it still covers them all for ``renewalDays`` more days, else a new one (P-256
    /// ECDSA, SHA-256), written with the key readable by its owner only.
    /// - Returns: whether a new certificate was made.
    @discardableResult
    public func makeSelfSignedIfNeeded(names: [String], addresses: [String], now: Date = Date()) throws(ServerCertificateError) -> Bool {
        if let kept = try? Certificate(pemEncoded: String(contentsOfFile: certificatePath, encoding: .utf8)),
            FileManager.default.fileExists(atPath: keyPath),
            kept.notValidAfter > now.addingTimeInterval(Double(Self.renewalDays) * 86400),
            Self.covers(kept, names: names, addresses: addresses)
        {
            return false
        }
        let key = P256.Signing.PrivateKey()
        do {
            let subject = try DistinguishedName {
                OrganizationName("opep")
                CommonName(names.first ?? addresses.first ?? "opep")
            }
            let alternativeNames = names.map { GeneralName.dnsName($0) }
                + addresses.compactMap { Self.addressBytes($0).map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) } }
            let extensions = try Certificate.Extensions {
                // Its own issuer: a client that is told to trust it (a phone's profile, a test's
                // trust roots) takes it as an authority, which must be marked as one to be accepted.
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternativeNames)
            }
            let certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(Self.validDays) * 86400),
                issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
                issuerPrivateKey: .init(key))
            try Self.write(key.pemRepresentation + "\n", to: keyPath, mode: 0o600)
            try Self.write(certificate.serializeAsPEM().pemString + "\n", to: certificatePath, mode: 0o644)
        } catch let error as ServerCertificateError {
            throw error
        } catch {
            throw .unwritable(path: certificatePath, reason: "cannot make a certificate (\(error))")
        }
        return true
    }

    /// The SHA-256 fingerprint of the (first) certificate's DER, as browsers show it:
    /// 32 upper-case hex pairs joined by colons.
    public func fingerprint() throws(ServerCertificateError) -> String {
        let document: PEMDocument
        do {
            let text = try String(contentsOfFile: certificatePath, encoding: .utf8)
            guard let start = text.range(of: "-----BEGIN CERTIFICATE-----"),
                let end = text.range(of: "-----END CERTIFICATE-----", range: start.upperBound..<text.endIndex)
            else { throw ServerCertificateError.notACertificate(path: certificatePath) }
            document = try PEMDocument(pemString: String(text[start.lowerBound..<end.upperBound]))
        } catch let error as ServerCertificateError {
            throw error
        } catch {
            throw .notACertificate(path: certificatePath)
        }
        return SHA256.hash(data: document.derBytes).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The server's TLS configuration from the two files, checked now (readable, a certificate,
    /// a key, and the key the certificate's) so a bad file stops the server before it listens.
    public func tlsConfiguration() throws(ServerCertificateError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        guard FileManager.default.isReadableFile(atPath: certificatePath) else { throw .unreadable(path: certificatePath) }
        guard FileManager.default.isReadableFile(atPath: keyPath) else { throw .unreadable(path: keyPath) }
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw .notACertificate(path: certificatePath)
        }
        guard !chain.isEmpty else { throw .notACertificate(path: certificatePath) }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw .notAKey(path: keyPath)
        }
        guard let certificate = try? Certificate(derEncoded: chain[0].toDERBytes()),
            let privateKey = try? Certificate.PrivateKey(pemEncoded: String(contentsOfFile: keyPath, encoding: .utf8)),
            certificate.publicKey == privateKey.publicKey
        else { throw .keyMismatch(certificatePath: certificatePath, keyPath: keyPath) }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }

    static func covers(_ certificate: Certificate, names: [String], addresses: [String]) -> Bool {
        guard let alternative = try? certificate.extensions.subjectAlternativeNames else { return false }
        let known = Set(alternative.compactMap { name -> [UInt8]? in
            switch name {
            case let .dnsName(text): Array(text.lowercased().utf8)
            case let .ipAddress(bytes): [0xFF] + Array(bytes.bytes)
            default: nil
            }
        })
        return names.allSatisfy { known.contains(Array($0.lowercased().utf8)) }
            && addresses.allSatisfy { address in Self.addressBytes(address).map { known.contains([0xFF] + $0) } ?? true }
    }

    /// An IPv4 or IPv6 address's bytes, or nil when `text` is neither.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func write(_ text: String, to path: String, mode: Int) throws(ServerCertificateError) {
        if let reason = writeWholeFile(Data(text.utf8), to: path, mode: mode) { throw .unwritable(path: path, reason: reason) }
    }
}

/// Why the server's certificate or key could not be used.
public enum ServerCertificateError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String)
    case notACertificate(path: String)
    case notAKey(path: String)
    case keyMismatch(certificatePath: String, keyPath: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path): "\(path): cannot read it"
        case let .notACertificate(path): "\(path): not a PEM certificate (-----BEGIN CERTIFICATE-----)"
        case let .notAKey(path): "\(path): not a PEM private key"
        case let .keyMismatch(certificatePath, keyPath): "\(keyPath): not the private key of the certificate in \(certificatePath)"
        case let .unwritable(path, reason): "\(path): cannot write it (\(reason))"
        }
    }
}
