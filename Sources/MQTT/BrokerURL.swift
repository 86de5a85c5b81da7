/// Where the broker is: `mqtt://host[:port]` or `mqtts://host[:port]` (docs/protocol.md#command-lines).
///
/// Credentials are never part of the URL: they come from a file or the environment.
public struct BrokerURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// `mqtts://`: the connection uses TLS and verifies the broker's certificate.
    public var tls: Bool

    public init(host: String, port: Int? = nil, tls: Bool = false) {
        self.host = host
        self.port = port ?? (tls ? 8883 : 1883)
        self.tls = tls
    }

    /// Parses a broker URL; IPv6 hosts go in brackets (`mqtt://[::1]:1883`).
    public init(parsing text: String) throws(MQTTError) {
        let tls: Bool
        let rest: Substring
        if text.hasPrefix("mqtt://") {
            tls = false; rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            tls = true; rest = text.dropFirst(8)
        } else {
            throw .invalid("broker URL", "'\(text)' must start with mqtt:// or mqtts://")
        }
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        guard !authority.contains("@") else {
            throw .invalid("broker URL", "credentials do not belong in the URL; use a password file or environment variable")
        }
        let (host, portText) = try Self.split(authority, in: text)
        var port: Int?
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else {
                throw .invalid("broker URL", "bad port '\(portText)' in '\(text)'")
            }
            port = p
        }
        self.init(host: host, port: port, tls: tls)
    }

    private static func split(_ authority: Substring, in text: String) throws(MQTTError) -> (String, Substring?) {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalid("broker URL", "unclosed '[' in '\(text)'")
            }
            let host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw .invalid("broker URL", "bad host in '\(text)'") }
            return (String(host), after.isEmpty ? nil : after.dropFirst())
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let host = parts.first, !host.isEmpty, !host.contains("/") else {
            throw .invalid("broker URL", "bad host in '\(text)'")
        }
        return (String(host), parts.count == 2 ? parts[1] : nil)
    }

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(h):\(port)"
    }
}
