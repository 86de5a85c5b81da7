/// How a tool reaches the MQTT broker, the one home of these settings for every tool that
/// connects: the edge and `whereabouts watch` (flags and the edge's config keys), the aggregator
/// (the site file's `mqtt` section and `--broker`). The broker URL, user, password source, TLS
/// files and topic prefix, with one set of checks on how they go together. Strings only: the
/// MQTT module turns them into its options (`MQTTOptions(_:clientID:)`), so this core stays pure.
///
/// Credentials never go on the command line (docs/protocol.md, command lines): a password comes
/// from a file or an environment variable, named here.
public struct BrokerSettings: Sendable, Equatable {
    public var broker: String
    public var username: String?
    public var passwordFile: String?
    public var passwordEnvironment: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// The topic prefix `<p>` of every topic (docs/protocol.md, MQTT topics).
    public var prefix: String

    /// One setting: its config key (`tls.ca`), value placeholder and help.
    public struct Setting: Sendable {
        public let key: String
        public let valueName: String
        public let help: String
        public let defaultValue: String?
        /// The command-line spelling: `password_file` → `password-file`, `tls.ca` → `tls-ca`.
        public var flag: String { BrokerSettings.flag(forKey: key) }
        /// The setting as a command-line option.
        public var option: Option { .value(flag, valueName, help: help, default: defaultValue) }
    }

    public static let defaultBroker = "mqtt://127.0.0.1:1883"
    public static let defaultPrefix = "whereabouts"

    /// The settings every connecting tool takes, in help order.
    public static let settings: [Setting] = [
        Setting(key: "broker", valueName: "URL[,URL…]",
                help: "mqtt://host[:port] or mqtts://host[:port]; a list of a cluster's nodes is tried in turn.", defaultValue: defaultBroker),
        Setting(key: "username", valueName: "NAME", help: "MQTT user name.", defaultValue: nil),
        Setting(key: "password_file", valueName: "FILE", help: "File holding the MQTT password.", defaultValue: nil),
        Setting(key: "password_env", valueName: "VAR", help: "Environment variable holding the MQTT password.", defaultValue: nil),
        Setting(key: "tls.ca", valueName: "FILE", help: "CA certificate that signs the broker's (mqtts://).", defaultValue: nil),
        Setting(key: "tls.cert", valueName: "FILE", help: "Client certificate (mqtts://).", defaultValue: nil),
        Setting(key: "tls.key", valueName: "FILE", help: "Client key (mqtts://).", defaultValue: nil),
    ]

    /// The topic prefix: a setting of its own, as tools list it apart from the connection.
    public static let prefixSetting = Setting(key: "prefix", valueName: "P", help: "Topic prefix.", defaultValue: defaultPrefix)

    /// The connection settings as command-line options.
    public static var options: [Option] { settings.map(\.option) }

    /// A config key's flag: `_` and `.` become `-`.
    public static func flag(forKey key: String) -> String {
        String(key.map { $0 == "_" || $0 == "." ? "-" : $0 })
    }

    /// Settings as given, unchecked: `validate()` says whether they go together.
    public init(broker: String, username: String?, passwordFile: String?, passwordEnvironment: String?,
                caFile: String?, certFile: String?, keyFile: String?, prefix: String = defaultPrefix) {
        self.broker = broker; self.username = username
        self.passwordFile = passwordFile; self.passwordEnvironment = passwordEnvironment
        self.caFile = caFile; self.certFile = certFile; self.keyFile = keyFile
        self.prefix = prefix
    }

    /// Reads the settings by key (`value("tls.ca")`, `value("prefix")`) and checks how they go
    /// together.
    public init(_ value: (String) -> String?) throws(UsageError) {
        self.init(broker: value("broker") ?? Self.defaultBroker, username: value("username"),
                  passwordFile: value("password_file"), passwordEnvironment: value("password_env"),
                  caFile: value("tls.ca"), certFile: value("tls.cert"), keyFile: value("tls.key"),
                  prefix: value("prefix") ?? Self.defaultPrefix)
        try validate()
    }

    /// Checks how the settings go together; the message names the keys.
    public func validate() throws(UsageError) {
        guard passwordFile == nil || passwordEnvironment == nil else {
            throw UsageError("password_file and password_env: give one, not both")
        }
        guard (passwordFile == nil && passwordEnvironment == nil) || username != nil else {
            throw UsageError("username: required when a password file or variable is given")
        }
        guard (certFile == nil) == (keyFile == nil) else { throw UsageError("tls.cert and tls.key: give both or neither") }
        // TLS files were ignored on mqtt:// (the password went in clear), and a client
        // certificate without tls.ca was dropped: the system's CA store takes none here.
        // Every entry of a broker list (`mqtts://a,mqtts://b`) is a TLS one.
        let tls = broker.split(separator: ",").allSatisfy { $0.drop { $0 == " " }.hasPrefix("mqtts://") }
        guard tlsFiles.isEmpty || tls else {
            throw UsageError("tls.ca, tls.cert, tls.key: only for an mqtts:// broker, not \(broker)")
        }
        guard certFile == nil || caFile != nil else {
            throw UsageError("tls.cert and tls.key: need tls.ca too (with the system's CA store no client certificate is sent)")
        }
    }

    /// The files these settings name, by key, for a tool to check they can be read before it
    /// connects: `password_file`, `tls.ca`, `tls.cert`, `tls.key`.
    var namedFiles: [(key: String, path: String)] {
        [("password_file", passwordFile)].compactMap { k, p in p.map { (k, $0) } } + tlsFiles
    }

    private var tlsFiles: [(key: String, path: String)] {
        [("tls.ca", caFile), ("tls.cert", certFile), ("tls.key", keyFile)].compactMap { k, p in p.map { (k, $0) } }
    }
}
