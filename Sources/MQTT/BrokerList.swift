/// A list of brokers, `mqtt://a:1883,mqtt://b:1883` (docs/protocol.md, command lines): nodes of
/// one clustered broker, any of which serves the same topics. A client connects to the first
/// and, whenever an attempt fails or a connection is lost, tries the next in turn.
extension BrokerURL {
    /// Parses one URL or a comma-separated list of them. Every entry must be a broker URL, none
    /// may be empty or given twice, and all share one scheme: the TLS files and credentials
    /// are one set for every node, so a list half in clear would send them in clear.
    public static func list(parsing text: String) throws(MQTTError) -> [BrokerURL] {
        let entries = text.split(separator: ",", omittingEmptySubsequences: false)
        var urls: [BrokerURL] = []
        for (i, entry) in entries.enumerated() {
            let trimmed = entry.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
            guard !trimmed.isEmpty else {
                throw .invalid("broker list", "entry \(i + 1) of '\(text)' is empty (URLs are separated by single commas)")
            }
            let url = try BrokerURL(parsing: String(trimmed))
            guard !urls.contains(url) else { throw .invalid("broker list", "\(url) is given twice in '\(text)'") }
            if let first = urls.first, first.tls != url.tls {
                throw .invalid("broker list", "'\(text)' mixes mqtt:// and mqtts://: every node is reached the same way")
            }
            urls.append(url)
        }
        return urls
    }

    /// The list as given on the command line: URLs joined by commas.
    public static func listDescription(_ urls: [BrokerURL]) -> String {
        urls.map(\.description).joined(separator: ",")
    }
}
